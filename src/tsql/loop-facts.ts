// What a loop does per iteration, for the loop diagnostics: they claim a loop commits per iteration *cheaply and many
// times*. A loop whose iteration runs set-based DML is batching (the cure for a long transaction); one that calls
// procedures, runs dynamic SQL or waits does work we cannot see beside its commits; one over catalog views or up to a
// small literal runs a handful of times. Only a loop that is none of these is reported with certainty.

import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';
import { wordAt, type DmlShape } from './dml-shape';
import { isOperatorAt, upperIsAt } from './tokenText';

/** One loop's iteration (or a `GO n` batch's), shared by the DML and COMMITs it holds. */
export interface LoopFacts {
  /** Set-based DML runs on each iteration (many rows per iteration: batching). */
  batch: boolean;
  /** Procedure calls, dynamic SQL, WAITFOR/RECEIVE, DDL or maintenance commands run on each iteration. */
  opaque: boolean;
  /** The loop runs a handful of times: a cursor over catalog views, or a counter up to a small literal. */
  few: boolean;
  /** Single-row DML on a permanent table runs on each iteration (what makes a per-iteration commit wait). */
  durableRows: boolean;
  /** DML on a permanent table whose row count the text does not say (`WHERE id = 1`) runs on each iteration. */
  unknownRows: boolean;
  /** DML on a permanent table runs inside a transaction on each iteration: its changes share that transaction's commit. */
  transactionalRows: boolean;
}

/** How a COMMIT inside a loop behaves (null: not in a loop). */
export type LoopCommit =
  /** Runs on every iteration: one log flush per iteration. */
  | 'per-iteration'
  /** Under a counter condition inside the loop (`IF @n % 1000 = 0 COMMIT`, `IF @n >= @batch`): commit every N. */
  | 'every-n'
  /** Under another condition inside the loop: runs on some iterations, how many the code does not say. */
  | 'conditional'
  /** Followed by leaving the loop (BREAK, RETURN, `SET @retry = 0` for `WHILE @retry > 0`): commits once and leaves. */
  | 'once-then-exit';

/** A WHILE loop being scanned. */
export interface LoopFrame {
  /** IFs with a non-transaction condition open inside this loop (a COMMIT under one runs only some iterations). */
  conditional: number;
  /** `N` of the innermost `IF ... % N = 0` around the current position, when a literal. */
  everyN: number | null;
  /** Variables the conditions of the open IFs (inside this loop) test. */
  conditionVars: string[];
  firstCommit: number;
  firstDml: number;
  /** Offset of the WHILE keyword. */
  start: number;
  few: boolean;
  /** Variables the loop's condition tests: `SET @retry = 0` after a COMMIT ends the loop. */
  exitVars: readonly string[];
  /** LoopTracker counters when the loop started. */
  counters: Counters;
  /** `label:`s written inside this loop (lower case): a GOTO to one of them stays in the loop. */
  labels: string[];
  /** What a `GOTO label` in this loop marked as leaving it, checked once the loop ends (unmarkGotoWithin). */
  gotoMarks: Array<{ label: string; marked: LeavingMarks }>;
}

/** What one exit from a loop (markLeaving) changed: undone when a GOTO's label turns out to be inside the loop. */
export interface LeavingMarks {
  /** Indices into `dml` whose `thenLeaves` it set. */
  dml: number[];
  /** Indices into `commits` it marked 'once-then-exit', with the `loopCommit` each had before. */
  commits: Array<{ index: number; loopCommit: LoopCommit }>;
}

/** LoopTracker's running counts at one moment. */
export interface Counters {
  opaque: number;
  setDml: number;
  durableRowDml: number;
  unknownDml: number;
  transactionalDml: number;
}

/** Loop-related facts of the batch being scanned; variables and cursors are batch-scoped in T-SQL. */
export class LoopTracker {
  readonly frames: LoopFrame[] = [];
  /** Running counts of statements by what they cost an iteration. */
  opaque = 0;
  setDml = 0;
  durableRowDml = 0;
  unknownDml = 0;
  transactionalDml = 0;
  /** Variables incremented (`SET @n += 1`, `SET @n = @n + @@ROWCOUNT`): counters of a commit-every-N condition. */
  readonly increments = new Set<string>();
  /** Variables holding a copy of @@TRANCOUNT (`DECLARE @tc int = @@TRANCOUNT`): tests of them are transaction guards. */
  readonly tranCountVars = new Set<string>();
  /** Cursor names (lower case) → whether their query reads catalog views. */
  private readonly cursors = new Map<string, boolean>();
  /** The cursor opened last reads catalog views. */
  catalogCursorOpen = false;

  startBatch(): void {
    // Clearing allocates a new backing table even when empty; a big script has tens of thousands of batches.
    if (this.frames.length !== 0) this.frames.length = 0;
    if (this.increments.size !== 0) this.increments.clear();
    if (this.tranCountVars.size !== 0) this.tranCountVars.clear();
    if (this.cursors.size !== 0) this.cursors.clear();
    this.catalogCursorOpen = false;
  }

  counters(): Counters {
    return {
      opaque: this.opaque, setDml: this.setDml, durableRowDml: this.durableRowDml, unknownDml: this.unknownDml,
      transactionalDml: this.transactionalDml,
    };
  }

  /** The facts of an iteration from counters taken at its start. */
  factsSince(at: Counters, few: boolean): LoopFacts {
    return {
      batch: this.setDml > at.setDml, opaque: this.opaque > at.opaque, few, durableRows: this.durableRowDml > at.durableRowDml,
      unknownRows: this.unknownDml > at.unknownDml, transactionalRows: this.transactionalDml > at.transactionalDml,
    };
  }

  /**
   * Notes a DML statement of a loop: `durable` when it writes a permanent table, `inTransaction` when a transaction is
   * open around it. `INSERT ... EXEC` runs a procedure.
   */
  noteDml(kind: string, shape: DmlShape, durable: boolean, inTransaction: boolean): void {
    if (durable && inTransaction) this.transactionalDml++;
    if (shape === 'set') this.setDml++;
    else if (shape === 'row') { if (durable) this.durableRowDml++; }
    else {
      if (kind === 'INSERT') this.opaque++;
      if (durable) this.unknownDml++;
    }
  }

  /**
   * Notes what a statement other than DML (tokens [from, to)) tells about loops: opaque work, counters, copies of
   * @@TRANCOUNT, cursor declarations and OPEN.
   */
  noteStatement(t: TokenStream, head: Kw, second: Kw, from: number, to: number): void {
    switch (head) {
      case Kw.EXEC: case Kw.EXECUTE: case Kw.WAITFOR: case Kw.RECEIVE: case Kw.BACKUP: case Kw.RESTORE: case Kw.DBCC:
      case Kw.CREATE: case Kw.ALTER: case Kw.DROP: case Kw.TRUNCATE: case Kw.SEND: case Kw.KILL:
        this.opaque++;
        return;
      case Kw.UPDATE:
        if (second === Kw.STATISTICS) this.opaque++;
        return;
      case Kw.OPEN:
        this.catalogCursorOpen = this.cursors.get(name(t, from + 1)) ?? false;
        return;
      case Kw.DECLARE:
      case Kw.SET:
      case Kw.SELECT:
        this.noteAssignments(t, head, from, to);
        return;
      default:
        return;
    }
  }

  private noteAssignments(t: TokenStream, head: Kw, from: number, to: number): void {
    // DECLARE name CURSOR ... FOR query / SET @c = CURSOR ... FOR query
    const cursorAt = head === Kw.SELECT ? -1 : indexOfKw(t, from + 1, Math.min(to, from + 8), Kw.CURSOR);
    if (cursorAt >= 0) {
      this.cursors.set(name(t, from + 1), readsCatalog(t, cursorAt + 1, to));
      return;
    }
    // SET @v ... and SELECT @v ... look at their first variable only (a SELECT may be long); DECLARE at each one.
    const last = head === Kw.DECLARE ? to - 2 : Math.min(from + 1, to - 2);
    for (let i = from + 1; i <= last; i++) {
      if (t.kinds[i] !== TokenKind.Variable) continue;
      if (isOperatorAt(t, i + 1, '+=') || isOperatorAt(t, i + 1, '-=')) { this.increments.add(name(t, i)); continue; }
      // DECLARE @v int = value: the value follows the type.
      const equals = isOperatorAt(t, i + 1, '=') ? i + 1 : head === Kw.DECLARE ? indexOfOperator(t, i + 1, Math.min(to, i + 8), '=') : -1;
      if (equals < 0) continue;
      const v = equals + 1;
      if (t.kinds[v] === TokenKind.SystemVariable && upperIsAt(t, v, '@@TRANCOUNT')) this.tranCountVars.add(name(t, i));
      else if (t.kinds[v] === TokenKind.Variable && (isOperatorAt(t, v + 1, '+') || isOperatorAt(t, v + 1, '-')) && name(t, v) === name(t, i)) this.increments.add(name(t, i));
    }
  }
}

/** `SET @v = <literal>` / `SELECT @v = <literal>`: the variable set to a constant, or null. */
export function constantAssignment(t: TokenStream, head: Kw, from: number, to: number): string | null {
  if (head !== Kw.SET && head !== Kw.SELECT) return null;
  if (t.kinds[from + 1] !== TokenKind.Variable || !isOperatorAt(t, from + 2, '=')) return null;
  const v = from + 3;
  const literal = t.kinds[v] === TokenKind.Number || t.kinds[v] === TokenKind.String || t.kinds[v] === TokenKind.NString ||
    wordAt(t, v, 'NULL') || (isOperatorAt(t, v, '-') && t.kinds[v + 1] === TokenKind.Number);
  const end = isOperatorAt(t, v, '-') ? v + 2 : v + 1;
  return literal && (end >= to || t.kinds[end] === TokenKind.Semicolon) ? name(t, from + 1) : null;
}

function name(t: TokenStream, i: number): string {
  const text = t.text.slice(t.starts[i]!, t.ends[i]!);
  return (t.kinds[i] === TokenKind.BracketId || t.kinds[i] === TokenKind.QuotedId ? text.slice(1, -1) : text).toLowerCase();
}

function indexOfKw(t: TokenStream, from: number, to: number, kw: Kw): number {
  for (let i = from; i < to; i++) if (t.keywords[i] === kw) return i;
  return -1;
}

function indexOfOperator(t: TokenStream, from: number, to: number, op: string): number {
  for (let i = from; i < to; i++) if (isOperatorAt(t, i, op)) return i;
  return -1;
}

/** Catalog views and system tables: one row per database, object, index, file... a handful to a few thousand. */
const CATALOG_PREFIXES = ['sys', 'information_schema', 'master', 'msdb'];

/** A query (tokens [from, to)) that reads a catalog view in its FROM/JOIN: `sys.databases`, `db.sys.indexes`, `sysobjects`. */
export function readsCatalog(t: TokenStream, from: number, to: number): boolean {
  for (let i = from; i + 1 < to; i++) {
    if (!wordAt(t, i, 'FROM') && !wordAt(t, i, 'JOIN')) continue;
    // db.schema.object, schema.object or object: any part naming the catalog.
    for (let j = i + 1; j < to && j < i + 6; j += 2) {
      const part = name(t, j);
      if (CATALOG_PREFIXES.includes(part) || (j === i + 1 && t.kinds[j + 1] !== TokenKind.Dot && /^sys[a-z]/.test(part))) return true;
      if (t.kinds[j + 1] !== TokenKind.Dot) break;
      if (t.kinds[j + 2] === TokenKind.Dot) j++; // db..object
    }
  }
  return false;
}

/** `@i < 10`, `@i <= 5`: a counter loop bounded by a small literal. */
export function smallLiteralBound(t: TokenStream, from: number, to: number): boolean {
  for (let i = from; i + 1 < to; i++) {
    if ((isOperatorAt(t, i, '<') || isOperatorAt(t, i, '<=')) && t.kinds[i + 1] === TokenKind.Number && Number(t.text.slice(t.starts[i + 1]!, t.ends[i + 1]!)) <= 100) return true;
  }
  return false;
}

/** Lower-case names of the variables tokens [from, to) mention. */
export function variablesIn(t: TokenStream, from: number, to: number): string[] {
  const out: string[] = [];
  for (let i = from; i < to; i++) if (t.kinds[i] === TokenKind.Variable) out.push(name(t, i));
  return out;
}
