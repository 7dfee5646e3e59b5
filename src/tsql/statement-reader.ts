// Statements without sub-statements, for the structural scanner: transaction statements (BEGIN TRAN, COMMIT, ROLLBACK,
// SAVE TRAN) against the session's transactions, DML with its target, ALTER DATABASE durability settings,
// sys.sp_flush_log and CHECKPOINT. structure.ts adds the compound statements (blocks, loops, IF, TRY, routines).

import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';
import { identifierText } from './tokenText';
import { cteSource, dmlShape, objectKind, type DmlShape } from './dml-shape';
import { LoopTracker } from './loop-facts';
import { continuesStatement as continuesImport, opensStatement as opensImport, type StatementContext } from './statement-end';
import type {
  BeginTransactionNode, DmlTarget, LoopCommit, RoutineKind, ScriptStructure, Span, StatementKind,
} from './structure-types';
import { namePartCount, objectName, TableCatalog } from './table-catalog';
import { TokenCursor } from './token-cursor';
import { SessionTransactions } from './transactions';
import type { DmlKind, DurabilityOption } from './types';

const continuesStatement = continuesImport;
const opensStatement = opensImport;

export class StatementReader extends TokenCursor {
  // Per-batch state, reset by scan(): one scanner serves every batch (tens of thousands in a big script).
  protected batchIndex = 0;
  protected repeated = false;
  protected loopDepth = 0;
  protected atomicDepth = 0;
  protected guardDepth = 0;
  /** The session's transactions: they outlive a batch (GO), so one object serves the whole script. */
  protected readonly tx = new SessionTransactions();
  /** Loops being scanned and what their iterations run. */
  protected readonly loops = new LoopTracker();
  /** Kind of the routine whose body is being scanned. */
  protected routineKind: RoutineKind | null = null;
  /** In a routine: something may have changed the caller's transaction count by now (see BeginTransactionNode). */
  protected countChanged = false;
  /** The tables the script declares (built on first use: only DML in a loop asks). */
  private catalog: TableCatalog | null = null;
  /** Token of the object the last dmlTarget() call found written (-1: a CTE or none). */
  private targetAt = -1;
  /** Reused by simple(), which never nests. */
  private readonly ctx: StatementContext = { head: 0, second: 0, verb: 0, insertSourceSeen: false, updateSetSeen: false };

  constructor(t: TokenStream, protected readonly out: ScriptStructure) {
    super(t);
  }

  /** Records a statement from token `from` to the last consumed token and returns its span. */
  protected statement(kind: StatementKind, from: number): Span {
    const start = this.start(from);
    const end = this.end(Math.max(from, this.p - 1));
    this.out.statements.push(kind, start, end, this.batchIndex);
    return { start, end };
  }

  /** Same, for the many statements whose span nobody else needs (no allocation). */
  protected note(kind: StatementKind, from: number): void {
    this.out.statements.push(kind, this.start(from), this.end(Math.max(from, this.p - 1)), this.batchIndex);
  }

  protected get inLoop(): boolean {
    return this.loopDepth > 0 || this.repeated;
  }

  /** Consumes `( ... )` at p and finds `DELAYED_DURABILITY = ON|OFF` in it. */
  protected withOptions(): { value: DurabilityOption | null; clause: Span | null } {
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

  /** An optional transaction or savepoint name at p. */
  protected transactionName(): string | null {
    const kind = this.kind();
    if ((kind === TokenKind.Word && this.kw() === Kw.None) || kind === TokenKind.BracketId ||
      kind === TokenKind.QuotedId || kind === TokenKind.Variable) {
      return identifierText(this.t, this.token(this.p++));
    }
    return null;
  }

  protected beginTransaction(): void {
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
      start: span.start, end: span.end, keyword, batchIndex: this.batchIndex, name, distributed, withMark, inLoop: this.inLoop, matched: false,
      depth: this.tx.depth, synthetic: false, guarded: this.guardDepth > 0, inRoutine: this.routineKind,
      afterCountChange: this.routineKind !== null && this.countChanged,
    };
    this.out.begins.push(node);
    this.tx.begin(node);
  }

  /** How a COMMIT at p behaves in the loops around it. */
  protected loopCommit(): { loopCommit: LoopCommit | null; everyN: number | null; conditions: number; conditionVars: string[] } {
    const frames = this.loops.frames;
    const frame = frames[frames.length - 1];
    if (frame !== undefined && frame.conditional > 0) {
      return {
        loopCommit: frame.everyN !== null ? 'every-n' : 'conditional', everyN: frame.everyN, conditions: frame.conditional,
        conditionVars: frame.conditionVars.slice(),
      };
    }
    return { loopCommit: this.inLoop ? 'per-iteration' : null, everyN: null, conditions: 0, conditionVars: [] };
  }

  protected commit(): void {
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
    if (opener === null) this.countChanged = true;
    const { loopCommit, everyN, conditions, conditionVars } = this.loopCommit();
    this.out.commits.push({
      start: span.start, end: span.end, keyword, batchIndex: this.batchIndex, form, name, delayedDurability: option.value,
      durabilityClause: option.clause, inLoop: this.inLoop, begin, opener, guarded: this.guardDepth > 0, depth,
      loopCommit, everyN, conditions, conditionVars, loop: null, inRoutine: this.routineKind,
    });
  }

  protected rollback(): void {
    const from = this.p++;
    const keyword = { start: this.start(from), end: this.end(from) };
    let name: string | null = null;
    if (this.kw() === Kw.TRAN || this.kw() === Kw.TRANSACTION) { this.p++; name = this.transactionName(); }
    else if (this.kw() === Kw.WORK) this.p++;
    if (this.kind() === TokenKind.Semicolon) this.p++;
    const span = this.statement('rollback', from);
    const depth = this.tx.depth;
    const { toSavepoint, opener } = this.tx.rollback(name, this.batchIndex);
    if (opener === null) this.countChanged = true;
    this.out.rollbacks.push({
      start: span.start, end: span.end, keyword, batchIndex: this.batchIndex, name, toSavepoint, matched: opener !== null, opener,
      guarded: this.guardDepth > 0, inLoop: this.inLoop, depth, inRoutine: this.routineKind,
    });
  }

  protected save(): void {
    const from = this.p;
    this.p += 2;
    this.tx.save(this.transactionName());
    if (this.kind() === TokenKind.Semicolon) this.p++;
    this.note('save-transaction', from);
  }

  /** Consumes a statement that has no sub-statements, then records what it is. */
  protected simple(): void {
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
    // The statement's tokens are read through locals: this loop visits most tokens of a script.
    const kinds = this.kinds;
    const keywords = this.keywords;
    const n = this.n;
    let p = this.p + 1;
    for (; p < n; p++) {
      const kind = kinds[p]!;
      if (kind === TokenKind.Semicolon) { p++; break; }
      if (kind === TokenKind.LParen) { depth++; continue; }
      if (kind === TokenKind.RParen) { if (depth > 0) depth--; continue; }
      const k = keywords[p]! as Kw;
      if (k === Kw.None) {
        // `label:` ends the statement before it (`GOTO done` / `RETURN` then `failed:` on the next line): a word and a
        // lone `:` form nothing else in T-SQL (the scope qualifier is `::`).
        if (kind === TokenKind.Word && depth === 0 && kinds[p + 1] === TokenKind.Operator && this.ends[p + 1]! - this.starts[p + 1]! === 1 &&
          this.t.text.charCodeAt(this.starts[p + 1]!) === 58 /* : */) break;
        continue;
      }
      if (k === Kw.CASE) caseDepth++;
      else if (k === Kw.END) { if (caseDepth === 0) break; caseDepth--; }
      else if (k === Kw.BEGIN) break;
      else if (depth === 0 && caseDepth === 0) {
        if (k === Kw.ELSE) break;
        if (opensStatement(k) && !continuesStatement(ctx, k, this.kw(p - 1), this.kind(p - 1), this.kw(p + 1), this.kind(p + 1))) break;
        if (ctx.verb === Kw.None && (k === Kw.INSERT || k === Kw.UPDATE || k === Kw.DELETE || k === Kw.MERGE || k === Kw.SELECT)) ctx.verb = k;
        else if (ctx.verb === Kw.INSERT && (k === Kw.VALUES || k === Kw.SELECT || k === Kw.EXEC || k === Kw.EXECUTE || k === Kw.DEFAULT)) ctx.insertSourceSeen = true;
        else if (ctx.verb === Kw.UPDATE && k === Kw.SET) ctx.updateSetSeen = true;
        else if (ctx.verb === Kw.SELECT && k === Kw.INTO) into = true;
      }
    }
    this.p = p;
    this.record(from, ctx, into);
  }

  protected record(from: number, ctx: StatementContext, into: boolean): void {
    const dml = this.dmlKind(from, ctx, into);
    if (dml !== null) {
      const span = this.statement('dml', from);
      const verbAt = ctx.head === Kw.WITH ? this.findVerb(from, ctx.verb) : from;
      const inExplicitTransaction = this.tx.open;
      const inAtomicBlock = this.atomicDepth > 0;
      let target = this.dmlTarget(from, verbAt, dml);
      // Only a loop asks how many rows a statement touches (a look at its WHERE clause) and what the script declares
      // about the table it writes.
      let shape: DmlShape = 'set';
      let remote = false;
      if (this.inLoop) {
        const at = target === 'table' ? this.targetAt : -1;
        // server.database.schema.table: a linked server's table, committed by that server, a network round trip away.
        remote = at >= 0 && namePartCount(this.t, at) === 4;
        const declared = at >= 0 && !remote ? this.declaredTable(at, this.start(from)) : null;
        if (declared?.schemaOnly === true) target = 'schema-only';
        shape = dmlShape(this.t, dml, from, verbAt, this.p, declared?.keys ?? null);
      }
      this.loops.noteDml(dml, shape, target === 'table' && !remote, inExplicitTransaction);
      if (remote) this.loops.opaque++;
      this.out.dml.push({
        start: span.start, end: span.end, kind: dml, keyword: { start: this.start(verbAt), end: this.end(verbAt) }, batchIndex: this.batchIndex,
        inLoop: this.inLoop, inRepeatedBatchOnly: this.loopDepth === 0 && this.repeated, inExplicitTransaction,
        inAtomicBlock, autocommit: !inExplicitTransaction && !inAtomicBlock, target, remote, shape, loop: null, thenLeaves: false, inRoutine: this.routineKind,
      });
      return;
    }
    const head = ctx.head;
    this.loops.noteStatement(this.t, head, ctx.second, from, this.p);
    if (head === Kw.EXEC || head === Kw.EXECUTE) this.countChanged = true;
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

  protected dmlKind(from: number, ctx: StatementContext, into: boolean): DmlKind | null {
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

  /**
   * The object a DML statement (first token `from`, verb at token `verbAt`, statement ending before p) writes.
   * `UPDATE a ... FROM #t a` writes #t: an alias is looked up among the statement's tokens; `WITH c AS (... FROM @t)
   * UPDATE c` writes @t: a CTE named as the target is looked through.
   */
  protected dmlTarget(from: number, verbAt: number, kind: DmlKind): DmlTarget {
    this.targetAt = -1;
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
    if (this.wordIs(i, 'TOP')) {
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
    if (verbAt > from && this.kw(from) === Kw.WITH) {
      const viaCte = cteSource(this.t, from, verbAt, i);
      if (viaCte !== null) return viaCte;
    }
    this.targetAt = i;
    return this.targetKind(i, verbAt);
  }

  /** What the script declares about the table named at token i, written by a statement at `offset`. */
  private declaredTable(i: number, offset: number): ReturnType<TableCatalog['lookup']> {
    this.catalog ??= TableCatalog.of(this.t);
    if (this.catalog.size === 0) return null; // most scripts declare no table: no name strings built
    const name = objectName(this.t, i);
    return name === null ? null : this.catalog.lookup(name.parts, offset);
  }

  protected targetKind(i: number, verbAt: number): DmlTarget {
    const direct = objectKind(this.t, i);
    if (direct !== 'table') return direct;
    const kd = this.kind(i);
    if (kd !== TokenKind.Word || this.kind(i + 1) === TokenKind.Dot) return 'table';
    // A bare word may be an alias: `#t AS a` / `@t a` elsewhere in the statement.
    const alias = this.text(i).toLowerCase();
    for (let j = verbAt + 1; j + 1 < this.p; j++) {
      const source = objectKind(this.t, j);
      if (source === 'table') continue;
      const at = this.kw(j + 1) === Kw.AS ? j + 2 : j + 1;
      if (at !== i && this.kind(at) === TokenKind.Word && this.text(at).toLowerCase() === alias) return source;
    }
    return 'table';
  }

  /** Index of the first `verb` at paren depth 0 after a CTE head. */
  protected findVerb(from: number, verb: Kw): number {
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
  protected alterDatabase(from: number): void {
    const span = this.statement('alter-database', from);
    const nameAt = from + 2;
    const database = this.kw(nameAt) === Kw.CURRENT ? null : identifierText(this.t, this.token(nameAt));
    for (let i = nameAt + 1; i + 2 < this.p; i++) {
      if (this.kw(i) !== Kw.DELAYED_DURABILITY || !this.isOperator(i + 1, '=')) continue;
      const v = this.kw(i + 2);
      const value = v === Kw.DISABLED ? 'DISABLED' : v === Kw.ALLOWED ? 'ALLOWED' : v === Kw.FORCED ? 'FORCED' : null;
      if (value !== null) this.out.durabilitySettings.push({ start: span.start, end: span.end, batchIndex: this.batchIndex, database, value });
    }
  }

  /** EXEC [@rc =] [[db.]sys.]sp_flush_log */
  protected isFlushLog(from: number): boolean {
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
