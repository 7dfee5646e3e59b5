// The shapes the T-SQL analysis core hands to the language server, the CLI and the profiler.
// Positions are 0-based (line, character in UTF-16 code units) like LSP; the CLI converts to 1-based.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** One batch of a script, as sqlcmd/SSMS would send it after splitting on GO. */
export interface Batch {
  /** Index of the batch in the script, 0-based. */
  index: number;
  /** Text sent to the server (never contains the GO line). */
  text: string;
  /** Range of the batch text in the document (the GO line excluded). */
  range: Range;
  /** Offsets of `text` in the document. */
  startOffset: number;
  endOffset: number;
  /** `GO 67` → 67; a plain GO or end of document → 1. */
  repeat: number;
  /** 0-based document line of batch line 0; server error line N (1-based) is document line firstLine + N - 1. */
  firstLine: number;
  /** True when the batch holds nothing but whitespace and comments (nothing to send). */
  empty: boolean;
}

export type DurabilityOption = 'ON' | 'OFF';

export interface CommitInfo {
  /** Range of the COMMIT keyword. */
  keywordRange: Range;
  /** Range of the whole COMMIT statement. */
  range: Range;
  batchIndex: number;
  /** `COMMIT WORK`/`COMMIT TRAN`/... */
  form: 'COMMIT' | 'COMMIT TRAN' | 'COMMIT TRANSACTION' | 'COMMIT WORK';
  transactionName: string | null;
  delayedDurability: DurabilityOption | null;
  inLoop: boolean;
  /** The BEGIN TRAN this COMMIT closes, when it is in the same batch. */
  beginRange: Range | null;
}

export type DmlKind = 'INSERT' | 'UPDATE' | 'DELETE' | 'MERGE' | 'SELECT INTO' | 'BULK INSERT';

export interface DmlInfo {
  kind: DmlKind;
  range: Range;
  batchIndex: number;
  inLoop: boolean;
  /** Inside an explicit transaction opened in the same batch (or in a loop body that is). */
  inExplicitTransaction: boolean;
  /** Neither in an explicit transaction nor in an atomic block: each execution commits on its own. */
  autocommit: boolean;
}

export interface LoopInfo {
  kind: 'WHILE' | 'CURSOR';
  range: Range;
  batchIndex: number;
  /** Loop body has a BEGIN ... END block (false: a single statement). */
  block: boolean;
}

export interface DurabilitySettingInfo {
  range: Range;
  batchIndex: number;
  database: string | null;
  value: 'DISABLED' | 'ALLOWED' | 'FORCED';
}

export type DiagnosticCode =
  | 'autocommit-dml-in-loop'
  | 'commit-in-loop'
  | 'delayed-commit-needs-allowed'
  | 'forced-durability-data-loss'
  | 'unbalanced-transaction';

export type DiagnosticSeverity = 'information' | 'hint' | 'warning';

export interface AnalysisDiagnostic {
  code: DiagnosticCode;
  range: Range;
  severity: DiagnosticSeverity;
  message: string;
}

/** What the client has told us about the connected database (see src/shared/protocol.ts). */
export interface DatabaseDurabilityContext {
  database: string;
  delayedDurability: 'DISABLED' | 'ALLOWED' | 'FORCED';
}

export interface AnalysisOptions {
  /** Connected database's setting, when known; refines `delayed-commit-needs-allowed`. */
  database?: DatabaseDurabilityContext | null;
  /** Codes switched off in settings. */
  disabledCodes?: ReadonlySet<DiagnosticCode>;
  /**
   * Report every sure finding at information, whatever its code's measured severity (diagnose.ts SURE): what the
   * held-out evaluation measures (scripts/eval-diagnostics), so a code can earn its squiggle back. Not for users.
   */
  promoteSure?: boolean;
}

export interface Analysis {
  batches: Batch[];
  commits: CommitInfo[];
  dml: DmlInfo[];
  loops: LoopInfo[];
  durabilitySettings: DurabilitySettingInfo[];
  /** Batches that contain DML inside a loop (where "Profile batch" lenses go). */
  batchesWithDmlInLoop: number[];
  flushLogCalls: Range[];
  checkpoints: Range[];
  diagnostics: AnalysisDiagnostic[];
  /** Every statement with its kind (compound statements span their bodies). Optional: added after the first contract. */
  statements?: StatementInfo[];
  /** CREATE/ALTER PROCEDURE, FUNCTION and TRIGGER definitions, with their bodies. */
  routines?: RoutineInfo[];
  /** Every BEGIN TRAN, COMMIT and ROLLBACK statement, in document order. */
  transactions?: TransactionStatementInfo[];
}

export interface TransactionStatementInfo {
  kind: 'BEGIN TRAN' | 'COMMIT' | 'ROLLBACK';
  keywordRange: Range;
  batchIndex: number;
  /** Transactions open before it, as far as the script shows (BEGIN TRAN in an earlier batch counts). */
  depth: number;
  inLoop: boolean;
}

export type StatementKind =
  | 'block' | 'if' | 'while' | 'try-catch' | 'atomic-block' | 'routine'
  | 'begin-transaction' | 'commit' | 'rollback' | 'save-transaction'
  | 'dml' | 'alter-database' | 'flush-log' | 'checkpoint' | 'set-implicit-transactions' | 'other';

export interface StatementInfo {
  kind: StatementKind;
  range: Range;
  batchIndex: number;
}

export interface RoutineInfo {
  kind: 'PROCEDURE' | 'FUNCTION' | 'TRIGGER';
  /** As written, brackets removed: `dbo.usp_load`. */
  name: string;
  /** `CREATE PROCEDURE p;2` → 2. */
  number: number | null;
  /** The whole CREATE/ALTER statement. */
  range: Range;
  /** From the first token after the header's AS to the end of the routine. */
  bodyRange: Range;
  batchIndex: number;
  /** `AS EXTERNAL NAME ...` (CLR): no T-SQL body. */
  external: boolean;
  /** PROCEDURE only: its parameter list (procedureParameters.ts); absent for functions and triggers. */
  signature?: ProcedureSignature;
}

/** A procedure parameter's data type as written: `dbo.MyType`, `nvarchar(50)`, `decimal(9, 2)`. */
export interface ProcedureParameterType {
  /** `type_schema_name` when written, else null (a system type or an unqualified alias type). */
  schema: string | null;
  /** Lower case: `nvarchar`. */
  name: string;
  /** char/varchar/nchar/nvarchar/binary/varbinary: n (1 when omitted) or 'max'; else null. */
  length: number | 'max' | null;
  /** decimal/numeric (default 18), float (default 53); else null. */
  precision: number | null;
  /** decimal/numeric (default 0), datetime2/time/datetimeoffset (default 7); else null. */
  scale: number | null;
  /** As written: `nvarchar(50)`. */
  text: string;
}

export interface ProcedureParameterDefault {
  kind: 'string' | 'number' | 'null' | 'other';
  /** As written: `N'it''s'`, `-1`, `NULL`. */
  text: string;
  /** string: unquoted; number: its digits with sign; null: null; other: as written. */
  value: string | null;
}

export interface ProcedureParameter {
  /** With the `@`. */
  name: string;
  type: ProcedureParameterType;
  varying: boolean;
  /** `NULL` / `NOT NULL` written after the type (natively compiled procedures), else null. */
  nullable: boolean | null;
  default: ProcedureParameterDefault | null;
  output: boolean;
  readonly: boolean;
  /** Why a value can't be typed in for it (table-valued, cursor, alias/CLR type), null when it can. */
  notPromptable: string | null;
}

export interface ProcedureSignature {
  /** The procedure name's parts, brackets removed: `[dbo].[a.b]` → `['dbo', 'a.b']`. */
  nameParts: string[];
  parameters: ProcedureParameter[];
  /** Why the lens can't prompt for this procedure's parameters (every blocking parameter named), null when it can. */
  notPromptable: string | null;
}
