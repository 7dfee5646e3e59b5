// Structural scanner: the compound statements of each batch (blocks, loops, IF/ELSE, TRY/CATCH, atomic blocks, routines)
// in one pass over tokens; statement-reader.ts reads the statements inside them. Follows the session's open transactions
// (transactions.ts) along control flow (IF/ELSE, TRY/CATCH, loops, GOTO) and across batches to tell autocommit DML from
// transactional DML, and what each loop's iteration does (loop-facts.ts; loop-marks.ts marks the nodes).

import type { BatchSpan } from './batches';
import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';
import { routineHeader } from './routines';
import { constantAssignment, smallLiteralBound, variablesIn, type LeavingMarks, type LoopFacts, type LoopFrame } from './loop-facts';
import { markLeaving, markLoopFacts, markRunsOnce, markSuccessPath, unmarkGotoWithin } from './loop-marks';
import { ConditionReader, type Condition } from './condition';
import { StatementReader } from './statement-reader';
import { emptyStructure, type BeginTransactionNode, type ScriptStructure, type Span } from './structure-types';
import type { DurabilityOption } from './types';

/**
 * Compound statements (blocks, TRY, loops, IF, routines) nested deeper than this are read flat: their heads are noted
 * and their bodies parsed at this level. The scanner recurses per level, and a few thousand levels would exhaust the
 * stack; real code stays far below 500.
 */
export const MAX_NESTING = 500;

/** Scans every batch; the result lists nodes in document order. */
export function scanStructure(tokens: TokenStream, spans: readonly BatchSpan[]): ScriptStructure {
  // Scripts hold about one statement per ten tokens; an eighth leaves room without a regrow.
  const out = emptyStructure(tokens.count >>> 3);
  // The lexer keeps comments in their own stream, so batch token ranges hold only what the scanner reads.
  const scanner = new BatchScanner(tokens, out);
  for (const span of spans) scanner.scan(span);
  return out;
}

/** Outcome of a statement for flow: `terminates` when control never falls through (RETURN, THROW, BREAK...). */
type Flow = boolean;

class BatchScanner extends StatementReader {
  /** Compound statements open around p (see MAX_NESTING). */
  private depth = 0;
  /** CONTINUE and GOTO statements seen so far: a loop body that always ends without one never repeats. */
  private jumps = 0;
  private readonly conditions = new ConditionReader(this.t);

  /** Scans one batch: tokens [firstToken, endToken). */
  scan(span: BatchSpan): void {
    this.batchIndex = span.batch.index;
    this.repeated = span.batch.repeat > 1;
    this.lo = this.p = span.firstToken;
    this.n = span.endToken;
    this.loopDepth = this.atomicDepth = this.guardDepth = this.depth = 0;
    this.loops.startBatch();
    this.routineKind = null;
    this.countChanged = false;
    this.tx.startBatch();
    const firstDml = this.out.dml.length, firstCommit = this.out.commits.length;
    const counters = this.loops.counters();
    this.list(false);
    // `GO n`: the client repeats the whole batch; what a loop inside it holds already has that loop's facts.
    if (this.repeated) this.applyFacts(this.loops.factsSince(counters, span.batch.repeat <= 100), firstDml, firstCommit);
  }

  // ---- statement lists ----------------------------------------------------------------------------------------

  /** Parses statements until END (when `stopAtEnd`) or the end of the batch. */
  private list(stopAtEnd: boolean): Flow {
    let ends = false;
    const firstCommit = this.out.commits.length;
    // The DML an exit from the loop ends: what this list recorded since its start, or since its last statement holding
    // a CONTINUE or GOTO (`IF @x = 1 CONTINUE` before a BREAK lets what precedes it repeat).
    let firstDml = this.out.dml.length;
    while (this.p < this.n) {
      if (stopAtEnd && this.endsBlock()) break;
      const head = this.kw();
      const from = this.p;
      const jumps = this.jumps;
      if (this.statementAt()) {
        ends = true;
        // COMMIT ... BREAK: a retry loop that leaves once its transaction committed, not a commit per iteration.
        const marked = head === Kw.BREAK || head === Kw.RETURN || head === Kw.GOTO || head === Kw.THROW ? this.leavesLoop(firstCommit, firstDml) : null;
        // `GOTO next` to a label inside the loop continues it: checked once the loop ends (unmarkGotoWithin).
        const frame = head === Kw.GOTO ? this.loops.frames[this.loops.frames.length - 1] : undefined;
        if (frame && marked && this.kind(from + 1) === TokenKind.Word) frame.gotoMarks.push({ label: this.text(from + 1).toLowerCase(), marked });
      } else if ((head === Kw.SET || head === Kw.SELECT) && this.loopDepth > 0) {
        // COMMIT; SET @retry = 0 in `WHILE @retry > 0`: the loop ends once its transaction committed.
        const frames = this.loops.frames;
        const assigned = constantAssignment(this.t, head, from, this.p);
        if (assigned !== null && frames.length > 0 && frames[frames.length - 1]!.exitVars.includes(assigned)) this.leavesLoop(firstCommit, firstDml);
      }
      if (this.jumps !== jumps && head !== Kw.GOTO) firstDml = this.out.dml.length;
    }
    return ends;
  }

  /**
   * The END of a block at i: `END CONVERSATION` is a statement (Learn, "END CONVERSATION (Transact-SQL)",
   * https://learn.microsoft.com/sql/t-sql/statements/end-conversation-transact-sql).
   */
  private endsBlock(i: number = this.p): boolean {
    return this.kw(i) === Kw.END && this.kw(i + 1) !== Kw.CONVERSATION;
  }

  private leavesLoop(firstCommit: number, firstDml: number): LeavingMarks | null {
    return this.loopDepth > 0 ? markLeaving(this.out, firstCommit, firstDml) : null;
  }

  private applyFacts(facts: LoopFacts, firstDml: number, firstCommit: number): void {
    markLoopFacts(this.out, facts, firstDml, firstCommit, this.loops.increments);
  }

  /** Parses one statement; always consumes at least one token when any is left. */
  private statementAt(): Flow {
    const k = this.kw();
    const from = this.p;
    if (this.kind() === TokenKind.Semicolon) { this.p++; return false; }
    switch (k) {
      case Kw.BEGIN: return this.begin();
      case Kw.WHILE:
      case Kw.IF: {
        // IF and WHILE share their head: the keyword, then a condition (read flat past MAX_NESTING).
        if (this.depth >= MAX_NESTING) return this.flatHead(1, true);
        this.p++;
        const cond = this.condition();
        return k === Kw.WHILE ? this.whileLoop(from, cond) : this.ifElse(from, cond);
      }
      case Kw.COMMIT: this.commit(); return false;
      case Kw.ROLLBACK: this.rollback(); return false;
      case Kw.SAVE:
        if (this.kw(from + 1) === Kw.TRAN || this.kw(from + 1) === Kw.TRANSACTION) { this.save(); return false; }
        break;
      case Kw.CREATE:
      case Kw.ALTER:
        if (this.depth < MAX_NESTING && this.routine()) return false;
        break;
      case Kw.END:
      case Kw.ELSE:
        // END CONVERSATION (Service Broker) is a statement, not the END of a block.
        if (k === Kw.END && this.kw(from + 1) === Kw.CONVERSATION) { this.simple(); return false; }
        // Stray END/ELSE (unbalanced input): consume it so scanning always moves on.
        this.p++;
        if (this.kw() === Kw.TRY || this.kw() === Kw.CATCH) this.p++;
        this.note('other', from);
        return false;
      case Kw.None:
        if (this.kind() === TokenKind.Word && this.isOperator(from + 1, ':')) { // label:
          this.tx.label(this.text(from).toLowerCase());
          for (const f of this.loops.frames) f.labels.push(this.text(from).toLowerCase());
          this.p += 2;
          return false;
        }
        break;
    }
    if (k === Kw.CONTINUE || k === Kw.GOTO) this.jumps++;
    if (k === Kw.GOTO && this.kind(from + 1) === TokenKind.Word) this.tx.goto(this.text(from + 1).toLowerCase());
    this.simple();
    return k === Kw.RETURN || k === Kw.THROW || k === Kw.BREAK || k === Kw.CONTINUE || k === Kw.GOTO;
  }

  private begin(): Flow {
    const next = this.kw(this.p + 1);
    if (next === Kw.TRAN || next === Kw.TRANSACTION || next === Kw.DISTRIBUTED) { this.beginTransaction(); return false; }
    if (next === Kw.DIALOG || next === Kw.CONVERSATION) { this.simple(); return false; }
    if (this.depth >= MAX_NESTING) return this.flatHead(next === Kw.TRY || next === Kw.CATCH || next === Kw.ATOMIC ? 2 : 1);
    this.depth++;
    const ends = next === Kw.TRY ? this.tryCatch() : next === Kw.ATOMIC ? this.atomic() : this.block(next);
    this.depth--;
    return ends;
  }

  /**
   * Past MAX_NESTING: consumes only the head of a compound statement (`BEGIN`, `BEGIN TRY`, `WHILE cond`, `IF cond`)
   * and notes it; its body is parsed as the statements that follow, and its END is then consumed as a stray END.
   */
  private flatHead(tokens: number, condition = false): Flow {
    const from = this.p;
    this.p += tokens;
    if (condition) this.condition();
    this.note('other', from);
    return false;
  }

  private block(next: Kw): Flow {
    const from = this.p;
    this.p += next === Kw.CATCH ? 2 : 1; // a CATCH with no TRY before it still has a body
    const ends = this.list(true);
    if (this.kw() === Kw.END) this.p++;
    if (next === Kw.CATCH && this.kw() === Kw.CATCH) this.p++;
    this.note('block', from);
    return ends;
  }

  private tryCatch(): Flow {
    const from = this.p;
    this.p += 2;
    const tracker = this.tx.enterTry();
    const endsTry = this.list(true);
    this.tx.leaveTry();
    if (this.kw() === Kw.END) { this.p++; if (this.kw() === Kw.TRY) this.p++; }
    const afterTry = this.tx.stack;
    let endsCatch = false;
    let afterCatch = afterTry;
    if (this.kw() === Kw.BEGIN && this.kw(this.p + 1) === Kw.CATCH) {
      this.p += 2;
      // An error can leave TRY at any point, so CATCH sees the deepest transaction state TRY reached.
      this.tx.restore(tracker.deepest.length >= afterTry.length ? tracker.deepest : afterTry);
      endsCatch = this.list(true);
      if (this.kw() === Kw.END) { this.p++; if (this.kw() === Kw.CATCH) this.p++; }
      afterCatch = this.tx.stack;
    }
    this.tx.restore(this.tx.join(endsTry, afterTry, endsCatch, afterCatch));
    this.note('try-catch', from);
    return endsTry && endsCatch;
  }

  private atomic(): Flow {
    const from = this.p;
    this.p += 2;
    let option: { value: DurabilityOption | null; clause: Span | null } = { value: null, clause: null };
    if (this.kw() === Kw.WITH && this.kind(this.p + 1) === TokenKind.LParen) { this.p++; option = this.withOptions(); }
    this.atomicDepth++;
    const ends = this.list(true);
    this.atomicDepth--;
    if (this.kw() === Kw.END) this.p++;
    const span = this.statement('atomic-block', from);
    this.out.atomicBlocks.push({ start: span.start, end: span.end, batchIndex: this.batchIndex, delayedDurability: option.value, durabilityClause: option.clause });
    return ends;
  }

  /** WHILE at `from`, its condition read: the body (one statement, often a block) and what the loop does. */
  private whileLoop(from: number, cond: Condition): Flow {
    const bodyKw = this.kw();
    const nextKw = this.kw(this.p + 1);
    const block = bodyKw === Kw.BEGIN && nextKw !== Kw.TRAN && nextKw !== Kw.TRANSACTION && nextKw !== Kw.TRY &&
      nextKw !== Kw.DISTRIBUTED && nextKw !== Kw.ATOMIC && nextKw !== Kw.DIALOG && nextKw !== Kw.CONVERSATION;
    // `WHILE @@TRANCOUNT > 0 COMMIT|ROLLBACK` ends the open transactions: a guard, not a loop of commits.
    if (cond.tranCount && !cond.other) return this.tranCountLoop(from);
    const before = this.tx.snapshot();
    const loops = this.loops;
    const frame: LoopFrame = {
      conditional: 0, everyN: null, conditionVars: [], firstCommit: this.out.commits.length, firstDml: this.out.dml.length,
      start: this.start(from), few: cond.fetchStatus ? loops.catalogCursorOpen : smallLiteralBound(this.t, cond.from, cond.to),
      exitVars: variablesIn(this.t, cond.from, cond.to), counters: loops.counters(), labels: [], gotoMarks: [],
    };
    loops.frames.push(frame);
    const jumps = this.jumps;
    this.loopDepth++;
    this.depth++;
    const ends = this.p < this.n && !this.endsBlock() ? this.statementAt() : false;
    this.depth--;
    this.loopDepth--;
    loops.frames.pop();
    unmarkGotoWithin(this.out, frame);
    if (ends) this.tx.restore(before);
    // `WHILE 1 = 1 BEGIN ... BREAK END`: a body that always leaves (BREAK, RETURN, THROW) and never jumps back runs once.
    if (ends && this.jumps === jumps) { if (loops.frames.length === 0) markRunsOnce(this.out, frame, this.batchIndex, this.repeated); }
    else {
      const facts = loops.factsSince(frame.counters, frame.few);
      this.applyFacts(facts, frame.firstDml, frame.firstCommit);
      // A loop that changes rows many times inside a transaction is, for the loop or `GO n` batch around it, a set of
      // rows per iteration: `BEGIN TRAN; WHILE @i < 2000 INSERT ...; COMMIT` inside an outer loop commits every 2,000
      // rows (batching). An inner loop of autocommit DML commits each row itself: the outer iteration is no batch.
      if (!frame.few && facts.transactionalRows) loops.setDml++;
    }
    const span = this.statement('while', from);
    this.out.loops.push({ start: span.start, end: span.end, kind: cond.fetchStatus ? 'CURSOR' : 'WHILE', batchIndex: this.batchIndex, block });
    return false;
  }

  private tranCountLoop(from: number): Flow {
    const ends = this.out.commits.length + this.out.rollbacks.length;
    this.guardDepth++;
    this.depth++;
    if (this.p < this.n && !this.endsBlock()) this.statementAt();
    this.depth--;
    this.guardDepth--;
    if (this.out.commits.length + this.out.rollbacks.length > ends) this.tx.closeAll();
    this.note('while', from);
    return false;
  }

  /** IF at `from`, its condition read: THEN and ELSE as two paths the transaction state joins after. */
  private ifElse(from: number, cond: Condition): Flow {
    const guard = cond.tranCount && !cond.other;
    if (cond.tranCount) this.guardDepth++;
    // Inside a loop, a condition other than a transaction guard makes what it holds run on some iterations only.
    const frame = guard ? undefined : this.loops.frames[this.loops.frames.length - 1];
    const outerEveryN = frame ? frame.everyN : null;
    const outerVars = frame ? frame.conditionVars.length : 0;
    if (frame) {
      frame.conditional++;
      if (cond.modulo !== null) frame.everyN = cond.modulo;
      frame.conditionVars.push(...variablesIn(this.t, cond.from, cond.to));
    }
    const firstCommit = this.out.commits.length, firstRollback = this.out.rollbacks.length;
    this.depth++;
    const before = this.tx.snapshot();
    const endsThen = this.p < this.n && !this.endsBlock() && this.kw() !== Kw.ELSE ? this.statementAt() : false;
    while (this.kind() === TokenKind.Semicolon) this.p++;
    const afterThen = this.tx.stack;
    const elseCommit = this.out.commits.length, elseRollback = this.out.rollbacks.length;
    let endsElse = false;
    let afterElse = before;
    const hasElse = this.kw() === Kw.ELSE;
    if (hasElse) {
      this.p++;
      this.tx.restore(before);
      endsElse = this.p < this.n && !this.endsBlock() ? this.statementAt() : false;
      afterElse = this.tx.stack;
    }
    this.depth--;
    if (frame) {
      frame.conditional--;
      frame.everyN = outerEveryN;
      frame.conditionVars.length = outerVars;
      // One branch commits, the other rolls back (`IF @@ERROR = 0 COMMIT ELSE ROLLBACK`): the success path.
      const commits = this.out.commits.length, rollbacks = this.out.rollbacks.length;
      const thenCommits = elseCommit > firstCommit, elseCommits = commits > elseCommit;
      const thenRollbacks = elseRollback > firstRollback, elseRollbacks = rollbacks > elseRollback;
      if ((thenCommits && elseRollbacks) || (elseCommits && thenRollbacks)) markSuccessPath(this.out, firstCommit);
    }
    if (cond.tranCount) this.guardDepth--;
    // `IF @@TRANCOUNT > 0 ROLLBACK` with no ELSE: when the test fails there was nothing open, so the THEN state holds.
    this.tx.restore(guard && !hasElse && !endsThen ? afterThen : this.tx.join(endsThen, afterThen, endsElse, afterElse));
    this.note('if', from);
    return endsThen && endsElse;
  }

  /** Consumes an IF/WHILE condition (condition.ts). */
  private condition(): Condition {
    const cond = this.conditions.read(this.p, this.n, this.loops.tranCountVars);
    this.p = cond.to;
    // In a routine, a test of the transaction count means the count may differ from what the routine itself opened.
    if (cond.tranCount && this.routineKind !== null) this.countChanged = true;
    return cond;
  }

  // ---- routines -----------------------------------------------------------------------------------------------

  /** CREATE [OR ALTER] | ALTER {PROC|FUNCTION|TRIGGER} ... AS body: the body runs to the end of the batch. */
  private routine(): boolean {
    const from = this.p;
    const header = routineHeader(this.t, from, this.n);
    if (header === null) return false;
    this.p = header.bodyAt;
    const bodyStart = this.p < this.n ? this.start(this.p) : this.end(this.n - 1);
    // Defining a routine runs none of its body: it gets its own transaction state, loop context and repeat count.
    const trigger: BeginTransactionNode | null = header.kind === 'TRIGGER'
      ? { start: bodyStart, end: bodyStart, keyword: { start: bodyStart, end: bodyStart }, batchIndex: this.batchIndex, name: null,
        distributed: false, withMark: false, inLoop: false, matched: true, depth: 0, synthetic: true, guarded: false, inRoutine: header.kind,
        afterCountChange: false }
      : null;
    const saved = this.tx.enterRoutine(trigger);
    const outer = {
      routineKind: this.routineKind, repeated: this.repeated, loopDepth: this.loopDepth, guardDepth: this.guardDepth, countChanged: this.countChanged,
    };
    const frames = this.loops.frames.splice(0);
    this.routineKind = header.kind;
    this.repeated = false;
    this.countChanged = false;
    this.loopDepth = this.guardDepth = 0;
    this.depth++;
    this.list(false);
    this.depth--;
    this.tx.leaveRoutine(saved);
    this.loops.frames.push(...frames);
    ({ routineKind: this.routineKind, repeated: this.repeated, loopDepth: this.loopDepth, guardDepth: this.guardDepth, countChanged: this.countChanged } = outer);
    const span = this.statement('routine', from);
    this.out.routines.push({
      start: span.start, end: span.end, kind: header.kind, name: header.name, number: header.number, batchIndex: this.batchIndex,
      bodyStart: Math.min(bodyStart, span.end), external: header.external, nameEnd: header.nameEnd, headerEnd: header.headerEnd, nameParts: header.nameParts,
    });
    return true;
  }

}
