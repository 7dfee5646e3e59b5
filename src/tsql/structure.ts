// Structural scanner: statements, blocks, loops, TRY/CATCH, routines, transactions and DML of each batch, in one pass
// over tokens. Follows the session's open transactions (transactions.ts) along control flow (IF/ELSE, TRY/CATCH, loops)
// and across batches to tell autocommit DML from transactional DML.

import { Kw as KwImport } from './keywords';
import { TokenKind as TokenKindImport, identifierText, type TokenStream } from './lexer';
import type { BatchSpan } from './batches';
import { continuesStatement as continuesImport, opensStatement as opensImport, type StatementContext } from './statement-end';
import { routineHeader } from './routines';
import {
  emptyStructure, type BeginTransactionNode, type DmlTarget, type LoopCommit, type RoutineKind, type ScriptStructure,
  type Span, type StatementKind,
} from './structure-types';
import { SessionTransactions, join } from './transactions';
import type { DmlKind, DurabilityOption } from './types';

// Module-local aliases: transpilers turn imported enums into getter calls, measurable in these hot loops.
const Kw = KwImport;
type Kw = KwImport;
const TokenKind = TokenKindImport;
type TokenKind = TokenKindImport;
const continuesStatement = continuesImport;
const opensStatement = opensImport;

/**
 * Compound statements (blocks, TRY, loops, IF, routines) nested deeper than this are read flat: their heads are noted
 * and their bodies parsed at this level. The scanner recurses per level, and a few thousand levels would exhaust the
 * stack; real code stays far below 500.
 */
export const MAX_NESTING = 500;

/** Scans every batch; the result lists nodes in document order. */
export function scanStructure(tokens: TokenStream, spans: readonly BatchSpan[]): ScriptStructure {
  const out = emptyStructure();
  // The lexer keeps comments in their own stream, so batch token ranges hold only what the scanner reads.
  const scanner = new BatchScanner(tokens, out);
  for (const span of spans) scanner.scan(span);
  return out;
}

/** Outcome of a statement for flow: `terminates` when control never falls through (RETURN, THROW, BREAK...). */
type Flow = boolean;

/** A WHILE loop being scanned: what its body's COMMITs and DML need to know about it. */
interface LoopFrame {
  /** IFs with a non-transaction condition open inside this loop (a COMMIT under one runs only some iterations). */
  conditional: number;
  /** `N` of the innermost `IF ... % N = 0` around the current position, when a literal. */
  everyN: number | null;
  firstCommit: number;
  firstDml: number;
}

/** What an IF/WHILE condition tests. */
interface Condition {
  /** Mentions @@TRANCOUNT or XACT_STATE(). */
  tranCount: boolean;
  fetchStatus: boolean;
  /** Tests anything else (a variable, @@ROWCOUNT, a subquery...): not a pure transaction guard. */
  other: boolean;
  /** `% N` with a literal N. */
  modulo: number | null;
}

/** Words a pure `@@TRANCOUNT`/`XACT_STATE()` test may hold besides them. */
const GUARD_WORDS = new Set(['XACT_STATE', 'AND', 'OR', 'NOT', 'IS', 'NULL']);

class BatchScanner {
  private readonly kinds: Uint8Array;
  private readonly keywords: Uint16Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  // Per-batch state, reset by scan(): one scanner serves every batch (tens of thousands in a big script).
  private batchIndex = 0;
  private repeated = false;
  private lo = 0;
  private n = 0;
  private p = 0;
  private loopDepth = 0;
  private atomicDepth = 0;
  private guardDepth = 0;
  /** Compound statements open around p (see MAX_NESTING). */
  private depth = 0;
  /** The session's transactions: they outlive a batch (GO), so one object serves the whole script. */
  private readonly tx = new SessionTransactions();
  private readonly loopFrames: LoopFrame[] = [];
  /** Kind of the routine whose body is being scanned. */
  private routineKind: RoutineKind | null = null;
  /** Reused by simple(), which never nests. */
  private readonly ctx: StatementContext = { head: 0, second: 0, verb: 0, insertSourceSeen: false, updateSetSeen: false };

  constructor(private readonly t: TokenStream, private readonly out: ScriptStructure) {
    this.kinds = t.kinds;
    this.keywords = t.keywords;
    this.starts = t.starts;
    this.ends = t.ends;
  }

  /** Scans one batch: tokens [firstToken, endToken). */
  scan(span: BatchSpan): void {
    this.batchIndex = span.batch.index;
    this.repeated = span.batch.repeat > 1;
    this.lo = this.p = span.firstToken;
    this.n = span.endToken;
    this.loopDepth = this.atomicDepth = this.guardDepth = this.depth = 0;
    this.loopFrames.length = 0;
    this.routineKind = null;
    this.tx.startBatch();
    this.list(false);
  }

  // ---- token access -------------------------------------------------------------------------------------------

  private kw(i: number = this.p): Kw {
    return i >= this.lo && i < this.n ? (this.keywords[i] as Kw) : Kw.None;
  }

  private kind(i: number = this.p): TokenKind {
    return i >= this.lo && i < this.n ? (this.kinds[i] as TokenKind) : (0 as TokenKind);
  }

  private start(i: number): number {
    if (i < this.n) return this.starts[i]!;
    return this.n > this.lo ? this.ends[this.n - 1]! : 0;
  }

  private end(i: number): number {
    return this.ends[i]!;
  }

  /** Index in the token stream (for identifierText) of scanner position i. */
  private token(i: number): number {
    return i;
  }

  private text(i: number): string {
    return this.t.text.slice(this.start(i), this.end(i));
  }

  /** Token i is the one-character operator `op` (compared by code: no string per check). */
  private isOperator(i: number, op: string): boolean {
    return this.kind(i) === TokenKind.Operator && this.ends[i]! - this.starts[i]! === 1 &&
      this.t.text.charCodeAt(this.starts[i]!) === op.charCodeAt(0);
  }

  /** Records a statement from token `from` to the last consumed token and returns its span. */
  private statement(kind: StatementKind, from: number): Span {
    const start = this.start(from);
    const end = this.end(Math.max(from, this.p - 1));
    this.out.statements.push(kind, start, end, this.batchIndex);
    return { start, end };
  }

  /** Same, for the many statements whose span nobody else needs (no allocation). */
  private note(kind: StatementKind, from: number): void {
    this.out.statements.push(kind, this.start(from), this.end(Math.max(from, this.p - 1)), this.batchIndex);
  }

  private get inLoop(): boolean {
    return this.loopDepth > 0 || this.repeated;
  }

  // ---- statement lists ----------------------------------------------------------------------------------------

  /** Parses statements until END (when `stopAtEnd`) or the end of the batch. */
  private list(stopAtEnd: boolean): Flow {
    let ends = false;
    const firstCommit = this.out.commits.length;
    while (this.p < this.n) {
      if (stopAtEnd && this.kw() === Kw.END) break;
      const head = this.kw();
      if (this.statementAt()) {
        ends = true;
        // COMMIT ... BREAK: a retry loop that leaves once its transaction committed, not a commit per iteration.
        if (head === Kw.BREAK || head === Kw.RETURN) this.commitsLeaveLoop(firstCommit);
      }
    }
    return ends;
  }

  private commitsLeaveLoop(firstCommit: number): void {
    const commits = this.out.commits;
    for (let i = firstCommit; i < commits.length; i++) {
      const c = commits[i]!;
      if (c.loopCommit === 'per-iteration' && this.loopDepth > 0) c.loopCommit = 'once-then-exit';
    }
  }

  /** Parses one statement; always consumes at least one token when any is left. */
  private statementAt(): Flow {
    const k = this.kw();
    const from = this.p;
    if (this.kind() === TokenKind.Semicolon) { this.p++; return false; }
    switch (k) {
      case Kw.BEGIN: return this.begin();
      case Kw.WHILE: return this.whileLoop();
      case Kw.IF: return this.ifElse();
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
        // Stray END/ELSE (unbalanced input): consume it so scanning always moves on.
        this.p++;
        if (this.kw() === Kw.TRY || this.kw() === Kw.CATCH) this.p++;
        this.note('other', from);
        return false;
      case Kw.None:
        if (this.kind() === TokenKind.Word && this.isOperator(from + 1, ':')) { this.p += 2; return false; } // label:
        break;
    }
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
    this.tx.restore(join(endsTry, afterTry, endsCatch, afterCatch));
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
    this.out.atomicBlocks.push({ ...span, batchIndex: this.batchIndex, delayedDurability: option.value, durabilityClause: option.clause });
    return ends;
  }

  /** Consumes `( ... )` at p and finds `DELAYED_DURABILITY = ON|OFF` in it. */
  private withOptions(): { value: DurabilityOption | null; clause: Span | null } {
    let depth = 0;
    let value: DurabilityOption | null = null;
    let clause: Span | null = null;
    while (this.p < this.n) {
      const kind = this.kind();
      if (kind === TokenKind.LParen) depth++;
      else if (kind === TokenKind.RParen) { depth--; if (depth <= 0) { this.p++; break; } }
      else if (kind === TokenKind.Semicolon) break;
      else if (this.kw() === Kw.DELAYED_DURABILITY && this.isOperator(this.p + 1, '=')) {
        const v = this.kw(this.p + 2);
        if (v === Kw.ON || v === Kw.OFF) {
          value = v === Kw.ON ? 'ON' : 'OFF';
          clause = { start: this.start(this.p), end: this.end(this.p + 2) };
        }
      }
      this.p++;
    }
    return { value, clause };
  }

  private whileLoop(): Flow {
    if (this.depth >= MAX_NESTING) return this.flatHead(1, true);
    const from = this.p;
    this.p++;
    const cond = this.condition();
    const bodyKw = this.kw();
    const nextKw = this.kw(this.p + 1);
    const block = bodyKw === Kw.BEGIN && nextKw !== Kw.TRAN && nextKw !== Kw.TRANSACTION && nextKw !== Kw.TRY &&
      nextKw !== Kw.DISTRIBUTED && nextKw !== Kw.ATOMIC && nextKw !== Kw.DIALOG && nextKw !== Kw.CONVERSATION;
    // `WHILE @@TRANCOUNT > 0 COMMIT|ROLLBACK` ends the open transactions: a guard, not a loop of commits.
    if (cond.tranCount && !cond.other) return this.tranCountLoop(from);
    const before = this.tx.snapshot();
    const frame: LoopFrame = { conditional: 0, everyN: null, firstCommit: this.out.commits.length, firstDml: this.out.dml.length };
    this.loopFrames.push(frame);
    this.loopDepth++;
    this.depth++;
    const ends = this.p < this.n && bodyKw !== Kw.END ? this.statementAt() : false;
    this.depth--;
    this.loopDepth--;
    this.loopFrames.pop();
    if (ends) this.tx.restore(before);
    this.markChunkCommits(frame);
    const span = this.statement('while', from);
    this.out.loops.push({ ...span, kind: cond.fetchStatus ? 'CURSOR' : 'WHILE', batchIndex: this.batchIndex, block });
    return false;
  }

  /** A loop that works through rows in chunks (`DELETE TOP (n)`) commits once per chunk: its COMMITs say so. */
  private markChunkCommits(frame: LoopFrame): void {
    const dml = this.out.dml;
    let chunked = false;
    for (let i = frame.firstDml; i < dml.length && !chunked; i++) chunked = dml[i]!.chunked;
    if (!chunked) return;
    const commits = this.out.commits;
    for (let i = frame.firstCommit; i < commits.length; i++) if (commits[i]!.loopCommit === 'per-iteration') commits[i]!.loopCommit = 'chunk';
  }

  private tranCountLoop(from: number): Flow {
    const ends = this.out.commits.length + this.out.rollbacks.length;
    this.guardDepth++;
    this.depth++;
    if (this.p < this.n && this.kw() !== Kw.END) this.statementAt();
    this.depth--;
    this.guardDepth--;
    if (this.out.commits.length + this.out.rollbacks.length > ends) this.tx.closeAll();
    this.note('while', from);
    return false;
  }

  private ifElse(): Flow {
    if (this.depth >= MAX_NESTING) return this.flatHead(1, true);
    const from = this.p;
    this.p++;
    const cond = this.condition();
    const guard = cond.tranCount && !cond.other;
    if (cond.tranCount) this.guardDepth++;
    // Inside a loop, a condition other than a transaction guard makes what it holds run on some iterations only.
    const frame = guard ? undefined : this.loopFrames[this.loopFrames.length - 1];
    const outerEveryN = frame ? frame.everyN : null;
    if (frame) { frame.conditional++; if (cond.modulo !== null) frame.everyN = cond.modulo; }
    this.depth++;
    const before = this.tx.snapshot();
    const endsThen = this.p < this.n && this.kw() !== Kw.END && this.kw() !== Kw.ELSE ? this.statementAt() : false;
    while (this.kind() === TokenKind.Semicolon) this.p++;
    const afterThen = this.tx.stack;
    let endsElse = false;
    let afterElse = before;
    const hasElse = this.kw() === Kw.ELSE;
    if (hasElse) {
      this.p++;
      this.tx.restore(before);
      endsElse = this.p < this.n && this.kw() !== Kw.END ? this.statementAt() : false;
      afterElse = this.tx.stack;
    }
    this.depth--;
    if (frame) { frame.conditional--; frame.everyN = outerEveryN; }
    if (cond.tranCount) this.guardDepth--;
    // `IF @@TRANCOUNT > 0 ROLLBACK` with no ELSE: when the test fails there was nothing open, so the THEN state holds.
    this.tx.restore(guard && !hasElse && !endsThen ? afterThen : join(endsThen, afterThen, endsElse, afterElse));
    this.note('if', from);
    return endsThen && endsElse;
  }

  /** Consumes an IF/WHILE condition: up to the first statement word at paren depth 0. */
  private condition(): Condition {
    let depth = 0, caseDepth = 0, first = true;
    const cond: Condition = { tranCount: false, fetchStatus: false, other: false, modulo: null };
    while (this.p < this.n) {
      const kind = this.kind();
      const k = this.kw();
      if (!first && depth === 0 && caseDepth === 0) {
        if (kind === TokenKind.Semicolon || k === Kw.END || k === Kw.ELSE || k === Kw.WITH) break;
        if (opensStatement(k) && !(k === Kw.UPDATE && this.kind(this.p + 1) === TokenKind.LParen)) break;
      }
      first = false;
      if (kind === TokenKind.LParen) depth++;
      else if (kind === TokenKind.RParen) { if (depth > 0) depth--; }
      else if (k === Kw.CASE) caseDepth++;
      else if (k === Kw.END && caseDepth > 0) caseDepth--;
      else if (kind === TokenKind.SystemVariable) {
        const name = this.text(this.p).toUpperCase();
        if (name === '@@TRANCOUNT') cond.tranCount = true;
        else { cond.other = true; if (name === '@@FETCH_STATUS') cond.fetchStatus = true; }
      } else if (kind === TokenKind.Word) {
        const word = this.text(this.p).toUpperCase();
        if (word === 'XACT_STATE') cond.tranCount = true;
        else if (k !== Kw.None ? k === Kw.SELECT || k === Kw.EXISTS : !GUARD_WORDS.has(word)) cond.other = true;
      } else if (kind === TokenKind.Variable || kind === TokenKind.TempName || kind === TokenKind.String) cond.other = true;
      else if (this.isOperator(this.p, '%')) {
        cond.other = true;
        if (this.kind(this.p + 1) === TokenKind.Number) cond.modulo = Number(this.text(this.p + 1));
      }
      this.p++;
    }
    return cond;
  }

  // ---- transactions -------------------------------------------------------------------------------------------

  /** An optional transaction or savepoint name at p. */
  private transactionName(): string | null {
    const kind = this.kind();
    if ((kind === TokenKind.Word && this.kw() === Kw.None) || kind === TokenKind.BracketId ||
      kind === TokenKind.QuotedId || kind === TokenKind.Variable) {
      return identifierText(this.t, this.token(this.p++));
    }
    return null;
  }

  private beginTransaction(): void {
    const from = this.p;
    const distributed = this.kw(from + 1) === Kw.DISTRIBUTED;
    this.p += distributed ? 2 : 1;
    if (this.kw() === Kw.TRAN || this.kw() === Kw.TRANSACTION) this.p++;
    const keyword = { start: this.start(from), end: this.end(this.p - 1) };
    const name = this.transactionName();
    let withMark = false;
    if (this.kw() === Kw.WITH && this.kw(this.p + 1) === Kw.MARK) {
      withMark = true;
      this.p += 2;
      if (this.kind() === TokenKind.String || this.kind() === TokenKind.NString) this.p++;
    }
    if (this.kind() === TokenKind.Semicolon) this.p++;
    const span = this.statement('begin-transaction', from);
    const node: BeginTransactionNode = {
      ...span, keyword, batchIndex: this.batchIndex, name, distributed, withMark, inLoop: this.inLoop, matched: false,
      depth: this.tx.depth, synthetic: false,
    };
    this.out.begins.push(node);
    this.tx.begin(node);
  }

  /** How a COMMIT at p behaves in the loops around it. */
  private loopCommit(): { loopCommit: LoopCommit | null; everyN: number | null } {
    const frame = this.loopFrames[this.loopFrames.length - 1];
    if (frame !== undefined && frame.conditional > 0) return { loopCommit: 'every-n', everyN: frame.everyN };
    return { loopCommit: this.inLoop ? 'per-iteration' : null, everyN: null };
  }

  private commit(): void {
    const from = this.p++;
    const keyword = { start: this.start(from), end: this.end(from) };
    let form: 'COMMIT' | 'COMMIT TRAN' | 'COMMIT TRANSACTION' | 'COMMIT WORK' = 'COMMIT';
    let name: string | null = null;
    const k = this.kw();
    if (k === Kw.TRAN || k === Kw.TRANSACTION) {
      form = k === Kw.TRAN ? 'COMMIT TRAN' : 'COMMIT TRANSACTION';
      this.p++;
      name = this.transactionName();
    } else if (k === Kw.WORK) { form = 'COMMIT WORK'; this.p++; }
    let option: { value: DurabilityOption | null; clause: Span | null } = { value: null, clause: null };
    if (this.kw() === Kw.WITH && this.kind(this.p + 1) === TokenKind.LParen) { this.p++; option = this.withOptions(); }
    if (this.kind() === TokenKind.Semicolon) this.p++;
    const span = this.statement('commit', from);
    const depth = this.tx.depth;
    const { begin, opener } = this.tx.commit(this.batchIndex);
    const { loopCommit, everyN } = this.loopCommit();
    this.out.commits.push({
      ...span, keyword, batchIndex: this.batchIndex, form, name, delayedDurability: option.value,
      durabilityClause: option.clause, inLoop: this.inLoop, begin, opener, guarded: this.guardDepth > 0, depth,
      loopCommit, everyN, inRoutine: this.routineKind,
    });
  }

  private rollback(): void {
    const from = this.p++;
    const keyword = { start: this.start(from), end: this.end(from) };
    let name: string | null = null;
    if (this.kw() === Kw.TRAN || this.kw() === Kw.TRANSACTION) { this.p++; name = this.transactionName(); }
    else if (this.kw() === Kw.WORK) this.p++;
    if (this.kind() === TokenKind.Semicolon) this.p++;
    const span = this.statement('rollback', from);
    const depth = this.tx.depth;
    const { toSavepoint, opener } = this.tx.rollback(name, this.batchIndex);
    this.out.rollbacks.push({
      ...span, keyword, batchIndex: this.batchIndex, name, toSavepoint, matched: opener !== null, opener,
      guarded: this.guardDepth > 0, inLoop: this.inLoop, depth, inRoutine: this.routineKind,
    });
  }

  private save(): void {
    const from = this.p;
    this.p += 2;
    this.tx.save(this.transactionName());
    if (this.kind() === TokenKind.Semicolon) this.p++;
    this.note('save-transaction', from);
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
        distributed: false, withMark: false, inLoop: false, matched: true, depth: 0, synthetic: true }
      : null;
    const saved = this.tx.enterRoutine(trigger);
    const outer = { routineKind: this.routineKind, repeated: this.repeated, loopDepth: this.loopDepth, guardDepth: this.guardDepth };
    const frames = this.loopFrames.splice(0);
    this.routineKind = header.kind;
    this.repeated = false;
    this.loopDepth = this.guardDepth = 0;
    this.depth++;
    this.list(false);
    this.depth--;
    this.tx.leaveRoutine(saved);
    this.loopFrames.push(...frames);
    ({ routineKind: this.routineKind, repeated: this.repeated, loopDepth: this.loopDepth, guardDepth: this.guardDepth } = outer);
    const span = this.statement('routine', from);
    this.out.routines.push({
      ...span, kind: header.kind, name: header.name, number: header.number, batchIndex: this.batchIndex,
      bodyStart: Math.min(bodyStart, span.end), external: header.external,
    });
    return true;
  }

  // ---- simple statements --------------------------------------------------------------------------------------

  /** Consumes a statement that has no sub-statements, then records what it is. */
  private simple(): void {
    const from = this.p;
    const head = this.kw();
    const ctx = this.ctx;
    ctx.head = head;
    ctx.second = this.kw(from + 1);
    ctx.verb = head === Kw.WITH ? Kw.None : head;
    ctx.insertSourceSeen = false;
    ctx.updateSetSeen = false;
    let into = false;
    let depth = 0, caseDepth = 0;
    this.p++;
    while (this.p < this.n) {
      const kind = this.kind();
      if (kind === TokenKind.Semicolon) { this.p++; break; }
      if (kind === TokenKind.LParen) { depth++; this.p++; continue; }
      if (kind === TokenKind.RParen) { if (depth > 0) depth--; this.p++; continue; }
      const k = this.kw();
      if (k !== Kw.None) {
        if (k === Kw.CASE) caseDepth++;
        else if (k === Kw.END) { if (caseDepth === 0) break; caseDepth--; }
        else if (k === Kw.BEGIN) break;
        else if (depth === 0 && caseDepth === 0) {
          if (k === Kw.ELSE) break;
          if (opensStatement(k) && !continuesStatement(ctx, k, this.kw(this.p - 1), this.kind(this.p - 1), this.kw(this.p + 1), this.kind(this.p + 1))) break;
          if (ctx.verb === Kw.None && (k === Kw.INSERT || k === Kw.UPDATE || k === Kw.DELETE || k === Kw.MERGE || k === Kw.SELECT)) ctx.verb = k;
          else if (ctx.verb === Kw.INSERT && (k === Kw.VALUES || k === Kw.SELECT || k === Kw.EXEC || k === Kw.EXECUTE || k === Kw.DEFAULT)) ctx.insertSourceSeen = true;
          else if (ctx.verb === Kw.UPDATE && k === Kw.SET) ctx.updateSetSeen = true;
          else if (ctx.verb === Kw.SELECT && k === Kw.INTO) into = true;
        }
      }
      this.p++;
    }
    this.record(from, ctx, into);
  }

  private record(from: number, ctx: StatementContext, into: boolean): void {
    const dml = this.dmlKind(from, ctx, into);
    if (dml !== null) {
      const span = this.statement('dml', from);
      const verbAt = ctx.head === Kw.WITH ? this.findVerb(from, ctx.verb) : from;
      const inExplicitTransaction = this.tx.open;
      const inAtomicBlock = this.atomicDepth > 0;
      const { target, chunked } = this.dmlTarget(verbAt, dml);
      this.out.dml.push({
        ...span, kind: dml, keyword: { start: this.start(verbAt), end: this.end(verbAt) }, batchIndex: this.batchIndex,
        inLoop: this.inLoop, inRepeatedBatchOnly: this.loopDepth === 0 && this.repeated, inExplicitTransaction,
        inAtomicBlock, autocommit: !inExplicitTransaction && !inAtomicBlock, target, chunked, inRoutine: this.routineKind,
      });
      return;
    }
    const head = ctx.head;
    if (head === Kw.ALTER && ctx.second === Kw.DATABASE) { this.alterDatabase(from); return; }
    if ((head === Kw.EXEC || head === Kw.EXECUTE) && this.isFlushLog(from)) {
      this.out.flushLogCalls.push(this.statement('flush-log', from));
      return;
    }
    if (head === Kw.CHECKPOINT) { this.out.checkpoints.push(this.statement('checkpoint', from)); return; }
    if (head === Kw.SET && ctx.second === Kw.IMPLICIT_TRANSACTIONS) {
      this.tx.implicitTransactions = this.kw(from + 2) === Kw.ON;
      this.note('set-implicit-transactions', from);
      return;
    }
    this.note('other', from);
  }

  private dmlKind(from: number, ctx: StatementContext, into: boolean): DmlKind | null {
    switch (ctx.verb) {
      case Kw.INSERT: return 'INSERT';
      case Kw.UPDATE: return ctx.head === Kw.UPDATE && ctx.second === Kw.STATISTICS ? null : 'UPDATE';
      case Kw.DELETE: return 'DELETE';
      case Kw.MERGE: return 'MERGE';
      case Kw.SELECT: return into ? 'SELECT INTO' : null;
      case Kw.BULK: return this.kw(from + 1) === Kw.INSERT ? 'BULK INSERT' : null;
      default: return null;
    }
  }

  /** Word token i spelled `upper` (for words the keyword table leaves out: TOP, FROM). */
  private wordIs(i: number, upper: string): boolean {
    return this.kind(i) === TokenKind.Word && this.ends[i]! - this.starts[i]! === upper.length && this.text(i).toUpperCase() === upper;
  }

  /**
   * The object a DML statement (verb at token `verbAt`, statement ending before p) writes, and whether it works in
   * `TOP (n)` chunks. `UPDATE a ... FROM #t a` writes #t: an alias is looked up among the statement's tokens.
   */
  private dmlTarget(verbAt: number, kind: DmlKind): { target: DmlTarget; chunked: boolean } {
    let i = verbAt + 1;
    if (kind === 'SELECT INTO') {
      let depth = 0;
      for (; i < this.p; i++) {
        const kd = this.kind(i);
        if (kd === TokenKind.LParen) depth++;
        else if (kd === TokenKind.RParen) depth--;
        else if (depth === 0 && this.kw(i) === Kw.INTO) { i++; break; }
      }
    } else if (kind === 'BULK INSERT') i++;
    let chunked = false;
    if (this.wordIs(i, 'TOP')) {
      chunked = kind === 'DELETE' || kind === 'UPDATE';
      i++;
      if (this.kind(i) === TokenKind.LParen) {
        let depth = 0;
        for (; i < this.p; i++) {
          if (this.kind(i) === TokenKind.LParen) depth++;
          else if (this.kind(i) === TokenKind.RParen && --depth === 0) { i++; break; }
        }
      } else i++;
      if (this.wordIs(i, 'PERCENT')) i++;
    }
    if (this.kw(i) === Kw.INTO || this.wordIs(i, 'FROM')) i++;
    return { target: this.targetKind(i, verbAt), chunked };
  }

  private targetKind(i: number, verbAt: number): DmlTarget {
    const kd = this.kind(i);
    if (kd === TokenKind.TempName) return 'temp-table';
    if (kd === TokenKind.Variable) return 'table-variable';
    if (kd !== TokenKind.Word || this.kind(i + 1) === TokenKind.Dot) return 'table';
    // A bare word may be an alias: `#t AS a` / `@t a` elsewhere in the statement.
    const alias = this.text(i).toLowerCase();
    for (let j = verbAt + 1; j + 1 < this.p; j++) {
      const source = this.kind(j);
      if (source !== TokenKind.TempName && source !== TokenKind.Variable) continue;
      const at = this.kw(j + 1) === Kw.AS ? j + 2 : j + 1;
      if (at !== i && this.kind(at) === TokenKind.Word && this.text(at).toLowerCase() === alias) {
        return source === TokenKind.TempName ? 'temp-table' : 'table-variable';
      }
    }
    return 'table';
  }

  /** Index of the first `verb` at paren depth 0 after a CTE head. */
  private findVerb(from: number, verb: Kw): number {
    let depth = 0;
    for (let i = from; i < this.p; i++) {
      const kind = this.kind(i);
      if (kind === TokenKind.LParen) depth++;
      else if (kind === TokenKind.RParen) depth--;
      else if (depth === 0 && this.kw(i) === verb) return i;
    }
    return from;
  }

  /** ALTER DATABASE {name | CURRENT} SET ... DELAYED_DURABILITY = {DISABLED | ALLOWED | FORCED} ... */
  private alterDatabase(from: number): void {
    const span = this.statement('alter-database', from);
    const nameAt = from + 2;
    const database = this.kw(nameAt) === Kw.CURRENT ? null : identifierText(this.t, this.token(nameAt));
    for (let i = nameAt + 1; i + 2 < this.p; i++) {
      if (this.kw(i) !== Kw.DELAYED_DURABILITY || !this.isOperator(i + 1, '=')) continue;
      const v = this.kw(i + 2);
      const value = v === Kw.DISABLED ? 'DISABLED' : v === Kw.ALLOWED ? 'ALLOWED' : v === Kw.FORCED ? 'FORCED' : null;
      if (value !== null) this.out.durabilitySettings.push({ ...span, batchIndex: this.batchIndex, database, value });
    }
  }

  /** EXEC [@rc =] [[db.]sys.]sp_flush_log */
  private isFlushLog(from: number): boolean {
    let i = from + 1;
    if (this.kind(i) === TokenKind.Variable && this.isOperator(i + 1, '=')) i += 2;
    let last: string | null = null;
    for (; i < this.p; i++) {
      const kd = this.kind(i);
      if (kd === TokenKind.Word || kd === TokenKind.BracketId || kd === TokenKind.QuotedId) last = identifierText(this.t, this.token(i));
      else if (kd !== TokenKind.Dot) break;
    }
    return last !== null && last.toLowerCase() === 'sp_flush_log';
  }
}
