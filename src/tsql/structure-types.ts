// What the structural scanner finds in a script, as document offsets (analyze.ts turns them into LSP ranges).

import type { DmlShape } from './dml-shape';
import { grown } from './growable';
import type { LoopCommit, LoopFacts } from './loop-facts';
import type { DmlKind, DurabilityOption, StatementKind } from './types';

export type { DmlShape, LoopCommit, LoopFacts };

/** Who opened the transaction a COMMIT/ROLLBACK ends (null: nobody we can see). */
export type Opener = 'same-batch' | 'earlier-batch' | 'trigger' | 'implicit-transactions';

export type { StatementKind };

export interface Span {
  start: number;
  end: number;
}

export interface StatementNode extends Span {
  kind: StatementKind;
  batchIndex: number;
}

export interface BeginTransactionNode extends Span {
  keyword: Span;
  batchIndex: number;
  name: string | null;
  distributed: boolean;
  withMark: boolean;
  inLoop: boolean;
  /** A COMMIT or ROLLBACK later in the script (this batch or a later one) closes it on some path. */
  matched: boolean;
  /** Open transactions before this one (0: outermost). */
  depth: number;
  /** Not written in the script: the transaction a trigger body runs in. */
  synthetic: boolean;
  /** Under a transaction-count test (`IF @@TRANCOUNT = 0`, `IF @tc = 0` with `@tc` a copy of it, `WHILE @tc > 0`). */
  guarded: boolean;
  inRoutine: RoutineKind | null;
  /**
   * In a routine, after something that may have changed the caller's transaction count on the way here: a procedure
   * call or dynamic SQL, a COMMIT/ROLLBACK of a transaction the routine did not open, a @@TRANCOUNT test. A BEGIN TRAN
   * left open then may be restoring the count the caller had (tSQLt re-opens the transaction a test rolled back).
   */
  afterCountChange: boolean;
}

/**
 * What a DML statement writes: tempdb objects are not recovered and a memory-optimized SCHEMA_ONLY table (declared in
 * the script) is not logged, so their commits do not wait for a log flush like a durable table's.
 */
export type DmlTarget = 'table' | 'temp-table' | 'table-variable' | 'schema-only';

export type RoutineKind = 'PROCEDURE' | 'FUNCTION' | 'TRIGGER';

export interface CommitNode extends Span {
  keyword: Span;
  batchIndex: number;
  form: 'COMMIT' | 'COMMIT TRAN' | 'COMMIT TRANSACTION' | 'COMMIT WORK';
  name: string | null;
  delayedDurability: DurabilityOption | null;
  /** Range of `DELAYED_DURABILITY = ON` inside the WITH clause, when present. */
  durabilityClause: Span | null;
  inLoop: boolean;
  begin: BeginTransactionNode | null;
  /** Who opened the transaction it ends (null: no BEGIN TRAN we can see). */
  opener: Opener | null;
  /** Under `IF @@TRANCOUNT ...`/`XACT_STATE()`: written to cope with no open transaction. */
  guarded: boolean;
  /** Open transactions before it, as far as the script shows. */
  depth: number;
  loopCommit: LoopCommit | null;
  /** `N` of an `IF ... % N = 0` condition around an every-N commit, when written as a literal. */
  everyN: number | null;
  /** Non-guard IFs between it and its loop, not counting an IF whose other branch rolls back (the success path). */
  conditions: number;
  /** Variables those IFs test (a counter among them makes the commit every-N). */
  conditionVars: string[];
  /** What each iteration of the innermost loop around it does (null: not in a loop, or not known). */
  loop: LoopFacts | null;
  /** Kind of the routine whose body holds it. */
  inRoutine: RoutineKind | null;
}

export interface RollbackNode extends Span {
  keyword: Span;
  batchIndex: number;
  name: string | null;
  /** `ROLLBACK TRAN savepoint` of a SAVE TRAN in the same batch: leaves the transaction open. */
  toSavepoint: boolean;
  matched: boolean;
  opener: Opener | null;
  guarded: boolean;
  inLoop: boolean;
  depth: number;
  inRoutine: RoutineKind | null;
}

export interface DmlNode extends Span {
  kind: DmlKind;
  keyword: Span;
  batchIndex: number;
  inLoop: boolean;
  /** The loop is the client repeating the batch (`GO n`), not a WHILE in the batch. */
  inRepeatedBatchOnly: boolean;
  inExplicitTransaction: boolean;
  inAtomicBlock: boolean;
  autocommit: boolean;
  target: DmlTarget;
  /** Writes a linked server's table (`server.db.schema.table`; computed for DML in loops only). */
  remote: boolean;
  /** Rows one execution touches, as far as the text says (computed for DML in loops only; `set` elsewhere). */
  shape: DmlShape;
  /** What each iteration of the innermost loop around it does (null: not in a loop, or not known). */
  loop: LoopFacts | null;
  /**
   * Followed in its statement list by leaving the loop (BREAK, RETURN, GOTO, THROW, or `SET @found = 1` for the
   * variable the WHILE tests): it runs once, then the loop ends — not once per iteration.
   */
  thenLeaves: boolean;
  inRoutine: RoutineKind | null;
}

export interface LoopNode extends Span {
  kind: 'WHILE' | 'CURSOR';
  batchIndex: number;
  block: boolean;
}

export interface DurabilitySettingNode extends Span {
  batchIndex: number;
  /** null for `ALTER DATABASE CURRENT`. */
  database: string | null;
  value: 'DISABLED' | 'ALLOWED' | 'FORCED';
}

export interface AtomicBlockNode extends Span {
  batchIndex: number;
  delayedDurability: DurabilityOption | null;
  durabilityClause: Span | null;
}

export interface RoutineNode extends Span {
  kind: RoutineKind;
  name: string;
  /** `CREATE PROCEDURE p;2`: the number of a numbered procedure. */
  number: number | null;
  batchIndex: number;
  /** Offset of the first token after AS (the routine's end when it has no body). */
  bodyStart: number;
  /** `AS EXTERNAL NAME assembly.class.method`: a CLR routine, no T-SQL body. */
  external: boolean;
  /** Token index just after the name (a procedure's parameter list starts there) and where the header ends (routines.ts). */
  nameEnd: number;
  headerEnd: number;
  /** The name's parts, brackets and quotes removed. */
  nameParts: string[];
}

const KINDS: readonly StatementKind[] = [
  'block', 'if', 'while', 'try-catch', 'atomic-block', 'routine', 'begin-transaction', 'commit', 'rollback',
  'save-transaction', 'dml', 'alter-database', 'flush-log', 'checkpoint', 'set-implicit-transactions', 'other',
];
/** Index of `kind` in KINDS. A switch on constant strings compiles to pointer compares; a lookup object keyed by
 * sixteen names turned into a slow generic property load on every statement. */
function codeOf(kind: StatementKind): number {
  switch (kind) {
    case 'block': return 0;
    case 'if': return 1;
    case 'while': return 2;
    case 'try-catch': return 3;
    case 'atomic-block': return 4;
    case 'routine': return 5;
    case 'begin-transaction': return 6;
    case 'commit': return 7;
    case 'rollback': return 8;
    case 'save-transaction': return 9;
    case 'dml': return 10;
    case 'alter-database': return 11;
    case 'flush-log': return 12;
    case 'checkpoint': return 13;
    case 'set-implicit-transactions': return 14;
    default: return 15;
  }
}

/** Every statement of a script in growable typed arrays: a 10 MB script has hundreds of thousands of them. */
export class StatementTable {
  count = 0;
  private kinds: Uint8Array;
  private starts: Int32Array;
  private ends: Int32Array;
  private batches: Int32Array;

  /** `capacity`: expected statements (grows past it); sized up front, growing a big table costs copies and GC. */
  constructor(capacity = 256) {
    const size = Math.max(16, capacity);
    this.kinds = new Uint8Array(size);
    this.starts = new Int32Array(size);
    this.ends = new Int32Array(size);
    this.batches = new Int32Array(size);
  }

  push(kind: StatementKind, start: number, end: number, batchIndex: number): void {
    if (this.count === this.kinds.length) this.grow();
    const i = this.count++;
    this.kinds[i] = codeOf(kind);
    this.starts[i] = start;
    this.ends[i] = end;
    this.batches[i] = batchIndex;
  }

  at(i: number): StatementNode {
    return { kind: KINDS[this.kinds[i]!]!, start: this.starts[i]!, end: this.ends[i]!, batchIndex: this.batches[i]! };
  }

  /** One value per statement, in table order, without building a StatementNode for each. */
  map<T>(fn: (kind: StatementKind, start: number, end: number, batchIndex: number) => T): T[] {
    const out: T[] = new Array<T>(this.count);
    for (let i = 0; i < this.count; i++) out[i] = fn(KINDS[this.kinds[i]!]!, this.starts[i]!, this.ends[i]!, this.batches[i]!);
    return out;
  }

  toArray(): StatementNode[] {
    const out: StatementNode[] = [];
    for (let i = 0; i < this.count; i++) out.push(this.at(i));
    return out;
  }

  private grow(): void {
    const size = this.kinds.length * 2;
    this.kinds = grown(this.kinds, size); this.starts = grown(this.starts, size);
    this.ends = grown(this.ends, size); this.batches = grown(this.batches, size);
  }
}

export interface ScriptStructure {
  statements: StatementTable;
  begins: BeginTransactionNode[];
  commits: CommitNode[];
  rollbacks: RollbackNode[];
  dml: DmlNode[];
  loops: LoopNode[];
  durabilitySettings: DurabilitySettingNode[];
  atomicBlocks: AtomicBlockNode[];
  routines: RoutineNode[];
  flushLogCalls: Span[];
  checkpoints: Span[];
}

export function emptyStructure(statementCapacity?: number): ScriptStructure {
  return {
    statements: new StatementTable(statementCapacity), begins: [], commits: [], rollbacks: [], dml: [], loops: [], durabilitySettings: [],
    atomicBlocks: [], routines: [], flushLogCalls: [], checkpoints: [],
  };
}
