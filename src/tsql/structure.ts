// Structural scanner: statements, blocks, loops, TRY/CATCH, transactions and DML of each batch, in one pass over tokens.
// Tracks open transactions along control flow (IF/ELSE, TRY/CATCH, loops) to tell autocommit DML from transactional DML.

import { Kw as KwImport } from './keywords';
import { TokenKind as TokenKindImport, identifierText, type TokenStream } from './lexer';
import type { BatchSpan } from './batches';
import { continuesStatement as continuesImport, opensStatement as opensImport, type StatementContext } from './statement-end';
import {
  emptyStructure, type BeginTransactionNode, type ScriptStructure, type Span, type StatementKind,
} from './structure-types';
import type { DmlKind, DurabilityOption } from './types';

// Module-local aliases: transpilers turn imported enums into getter calls, measurable in these hot loops.
const Kw = KwImport;
type Kw = KwImport;
const TokenKind = TokenKindImport;
type TokenKind = TokenKindImport;
const continuesStatement = continuesImport;
const opensStatement = opensImport;

type TxStack = BeginTransactionNode[];

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

/** Picks the transaction state after two paths join: a path that does not fall through does not count. */
function join(endsA: Flow, a: TxStack, endsB: Flow, b: TxStack): TxStack {
  if (endsA && !endsB) return b;
  if (endsB && !endsA) return a;
  // Keep the deeper state so a later COMMIT still finds the BEGIN it closes.
  return a.length >= b.length ? a : b;
}

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
  private implicitTransactions = false;
  private stack: TxStack = [];
  private readonly tryTrackers: { deepest: TxStack }[] = [];
  private readonly savepoints = new Set<string>();
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
    this.implicitTransactions = false;
    if (this.stack.length > 0) this.stack = [];
    this.tryTrackers.length = 0;
    if (this.savepoints.size > 0) this.savepoints.clear();
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
    while (this.p < this.n) {
      if (stopAtEnd && this.kw() === Kw.END) break;
      if (this.statementAt()) ends = true;
    }
    return ends;
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
    const tracker = { deepest: this.stack.slice() };
    this.tryTrackers.push(tracker);
    const endsTry = this.list(true);
    this.tryTrackers.pop();
    if (this.kw() === Kw.END) { this.p++; if (this.kw() === Kw.TRY) this.p++; }
    const afterTry = this.stack;
    let endsCatch = false;
    let afterCatch = afterTry;
    if (this.kw() === Kw.BEGIN && this.kw(this.p + 1) === Kw.CATCH) {
      this.p += 2;
      // An error can leave TRY at any point, so CATCH sees the deepest transaction state TRY reached.
      this.stack = (tracker.deepest.length >= afterTry.length ? tracker.deepest : afterTry).slice();
      endsCatch = this.list(true);
      if (this.kw() === Kw.END) { this.p++; if (this.kw() === Kw.CATCH) this.p++; }
      afterCatch = this.stack;
    }
    this.stack = join(endsTry, afterTry, endsCatch, afterCatch).slice();
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
    const before = this.stack.slice();
    this.loopDepth++;
    this.depth++;
    const ends = this.p < this.n && bodyKw !== Kw.END ? this.statementAt() : false;
    this.depth--;
    this.loopDepth--;
    if (ends) this.stack = before;
    const span = this.statement('while', from);
    this.out.loops.push({ ...span, kind: cond.fetchStatus ? 'CURSOR' : 'WHILE', batchIndex: this.batchIndex, block });
    return false;
  }

  private ifElse(): Flow {
    if (this.depth >= MAX_NESTING) return this.flatHead(1, true);
    const from = this.p;
    this.p++;
    const cond = this.condition();
    if (cond.tranCount) this.guardDepth++;
    this.depth++;
    const before = this.stack.slice();
    const endsThen = this.p < this.n && this.kw() !== Kw.END && this.kw() !== Kw.ELSE ? this.statementAt() : false;
    while (this.kind() === TokenKind.Semicolon) this.p++;
    const afterThen = this.stack;
    let endsElse = false;
    let afterElse = before;
    if (this.kw() === Kw.ELSE) {
      this.p++;
      this.stack = before.slice();
      endsElse = this.p < this.n && this.kw() !== Kw.END ? this.statementAt() : false;
      afterElse = this.stack;
    }
    this.depth--;
    if (cond.tranCount) this.guardDepth--;
    this.stack = join(endsThen, afterThen, endsElse, afterElse).slice();
    this.note('if', from);
    return endsThen && endsElse;
  }

  /** Consumes an IF/WHILE condition: up to the first statement word at paren depth 0. */
  private condition(): { tranCount: boolean; fetchStatus: boolean } {
    let depth = 0, caseDepth = 0, first = true;
    let tranCount = false, fetchStatus = false;
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
        if (name === '@@TRANCOUNT') tranCount = true;
        else if (name === '@@FETCH_STATUS') fetchStatus = true;
      } else if (kind === TokenKind.Word && this.ends[this.p]! - this.starts[this.p]! === 10 &&
        this.text(this.p).toUpperCase() === 'XACT_STATE') tranCount = true;
      this.p++;
    }
    return { tranCount, fetchStatus };
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

  private pushBegin(node: BeginTransactionNode): void {
    this.stack.push(node);
    for (const tracker of this.tryTrackers) if (this.stack.length > tracker.deepest.length) tracker.deepest = this.stack.slice();
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
    };
    this.out.begins.push(node);
    this.pushBegin(node);
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
    const begin = this.stack.pop() ?? null;
    if (begin) begin.matched = true;
    this.out.commits.push({
      ...span, keyword, batchIndex: this.batchIndex, form, name, delayedDurability: option.value,
      durabilityClause: option.clause, inLoop: this.inLoop, begin, guarded: this.guardDepth > 0,
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
    const toSavepoint = name !== null && this.savepoints.has(name.toLowerCase());
    const matched = toSavepoint || this.stack.length > 0;
    if (!toSavepoint) { for (const open of this.stack) open.matched = true; this.stack = []; }
    this.out.rollbacks.push({
      ...span, keyword, batchIndex: this.batchIndex, name, toSavepoint, matched, guarded: this.guardDepth > 0, inLoop: this.inLoop,
    });
  }

  private save(): void {
    const from = this.p;
    this.p += 2;
    const name = this.transactionName();
    if (name !== null) this.savepoints.add(name.toLowerCase());
    if (this.kind() === TokenKind.Semicolon) this.p++;
    this.note('save-transaction', from);
  }

  // ---- routines -----------------------------------------------------------------------------------------------

  /** CREATE [OR ALTER] | ALTER {PROC|FUNCTION|TRIGGER} ... AS body: the body runs to the end of the batch. */
  private routine(): boolean {
    const from = this.p;
    let q = from + 1;
    if (this.kw(from) === Kw.CREATE && this.kw(q) === Kw.OR && this.kw(q + 1) === Kw.ALTER) q += 2;
    const k = this.kw(q);
    const kind = k === Kw.PROC || k === Kw.PROCEDURE ? 'PROCEDURE' : k === Kw.FUNCTION ? 'FUNCTION' : k === Kw.TRIGGER ? 'TRIGGER' : null;
    if (kind === null) return false;
    const parts: string[] = [];
    let r = q + 1;
    while (r < this.n) {
      const kd = this.kind(r);
      if (kd === TokenKind.Word || kd === TokenKind.BracketId || kd === TokenKind.QuotedId || kd === TokenKind.TempName) parts.push(identifierText(this.t, this.token(r)));
      else if (kd !== TokenKind.Dot) break;
      r++;
    }
    // The body starts at the first AS outside parentheses that is not `@param AS type` or `EXECUTE AS`.
    let depth = 0;
    for (; r < this.n; r++) {
      const kd = this.kind(r);
      if (kd === TokenKind.LParen) depth++;
      else if (kd === TokenKind.RParen) depth--;
      else if (depth === 0 && this.kw(r) === Kw.AS && this.kind(r - 1) !== TokenKind.Variable &&
        this.kw(r - 1) !== Kw.EXEC && this.kw(r - 1) !== Kw.EXECUTE) break;
    }
    this.p = Math.min(r + 1, this.n);
    const bodyStart = this.start(this.p);
    this.depth++;
    this.list(false);
    this.depth--;
    const span = this.statement('routine', from);
    this.out.routines.push({ ...span, kind, name: parts.join('.'), batchIndex: this.batchIndex, bodyStart });
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
      const inExplicitTransaction = this.stack.length > 0 || this.implicitTransactions;
      const inAtomicBlock = this.atomicDepth > 0;
      this.out.dml.push({
        ...span, kind: dml, keyword: { start: this.start(verbAt), end: this.end(verbAt) }, batchIndex: this.batchIndex,
        inLoop: this.inLoop, inRepeatedBatchOnly: this.loopDepth === 0 && this.repeated, inExplicitTransaction,
        inAtomicBlock, autocommit: !inExplicitTransaction && !inAtomicBlock,
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
      this.implicitTransactions = this.kw(from + 2) === Kw.ON;
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
