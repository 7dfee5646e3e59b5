// The contract between the stand-in's TDS protocol layer (tds/, server.ts) and its server model (model/).
// The protocol layer turns bytes into LoginRequest / ExecRequest and Output items back into tokens;
// the model knows nothing about bytes. Change this file only additively: both sides build against it.

/** SQL types the stand-in can send (MS-TDS 2.2.5.4 data type definitions). */
export type ColumnType =
  | { kind: 'int' }
  | { kind: 'bigint' }
  | { kind: 'smallint' }
  | { kind: 'tinyint' }
  | { kind: 'bit' }
  | { kind: 'float' }
  | { kind: 'decimal'; precision: number; scale: number }
  /** fixed: nchar(n) / char(n): values are blank-padded to n and sent as NCHAR / BIGCHAR (MS-TDS 2.2.5.4.3). */
  | { kind: 'nvarchar'; length: number | 'max'; fixed?: boolean }
  | { kind: 'varchar'; length: number | 'max'; fixed?: boolean }
  | { kind: 'datetime2'; scale: number }
  | { kind: 'datetimeoffset'; scale: number }
  | { kind: 'uniqueidentifier' };

export interface Column {
  name: string;
  type: ColumnType;
  nullable: boolean;
}

/**
 * A cell value. int/smallint/tinyint/float: number; bigint: bigint; bit: boolean;
 * decimal: string (exact decimal text, e.g. "12.50"); nvarchar/varchar: string; datetime2: Date;
 * datetimeoffset: { date: Date; offsetMinutes: number }; uniqueidentifier: string (canonical form).
 */
export type SqlValue =
  | null
  | number
  | bigint
  | boolean
  | string
  | Date
  | { date: Date; offsetMinutes: number };

/** A server message (MS-TDS 2.2.7.10 ERROR, 2.2.7.13 INFO). lineNumber is 1-based within the batch, 0 = n/a. */
export interface ServerMessage {
  number: number;
  state: number;
  class: number;
  message: string;
  procName?: string;
  lineNumber: number;
}

export type Output =
  /** A result set; rows may be a (possibly async, possibly huge) iterable so memory stays flat. */
  | { kind: 'resultSet'; columns: Column[]; rows: Iterable<SqlValue[]> | AsyncIterable<SqlValue[]> }
  /** End of one statement: DONE (batch level) or DONEINPROC (inside sp_executesql / a procedure). */
  | { kind: 'done'; rowCount?: number; inProc?: boolean; error?: boolean }
  | { kind: 'info'; message: ServerMessage }
  | { kind: 'error'; message: ServerMessage }
  | { kind: 'returnStatus'; value: number }
  | { kind: 'envChange'; change: EnvChange }
  /** Fault injection: the protocol layer destroys the socket at once (no DONE, no goodbye). */
  | { kind: 'dropConnection' };

export type EnvChange =
  | { type: 'database'; newValue: string; oldValue: string }
  | { type: 'beginTransaction'; descriptor: bigint }
  | { type: 'commitTransaction'; descriptor: bigint }
  | { type: 'rollbackTransaction'; descriptor: bigint };

export interface LoginRequest {
  userName: string;
  password: string;
  /** Initial database from LOGIN7 (empty string = the login's default). */
  database: string;
  appName: string;
  hostName: string;
  /** Whether the connection negotiated TLS for the whole session. */
  encrypted: boolean;
  clientPid: number;
  packetSize: number;
  tdsVersion: number;
}

export type LoginResult =
  | { ok: true; session: SessionHandle; database: string; serverName: string; serverVersion: { major: number; minor: number; build: number } }
  | { ok: false; error: ServerMessage };

/** Opaque per-connection state the model keeps (spid, current database, open transaction, ...). */
export interface SessionHandle {
  readonly spid: number;
}

export interface RpcParameter {
  name: string; // including '@'
  value: SqlValue;
  /** Type as declared in @params / the RPC TYPE_INFO, e.g. "int", "nvarchar(4000)". */
  typeName: string;
  output: boolean;
}

export type ExecRequest =
  | { kind: 'batch'; sql: string }
  /** RPC to sp_executesql: the statement and its declared parameters. */
  | { kind: 'rpc'; procedure: string; statement: string | null; parameters: RpcParameter[] }
  /** Transaction manager request (MS-TDS 2.2.6.9), what tedious's beginTransaction/commit/rollback send. */
  | { kind: 'transactionManager'; operation: 'begin' | 'commit' | 'rollback' | 'save'; name: string; isolationLevel?: number };

export interface ExecContext {
  /** Fires when the client sent ATTENTION; the model stops producing output as soon as it can. */
  signal: AbortSignal;
  /** TDS RESETCONNECTION flag was set on this request (tedious connection.reset()). */
  resetConnection: boolean;
}

export interface Engine {
  login(request: LoginRequest): Promise<LoginResult>;
  execute(session: SessionHandle, request: ExecRequest, context: ExecContext): AsyncIterable<Output>;
  /** The connection closed (either side). */
  logout(session: SessionHandle): void;
  /**
   * Optional: real ms to hold back the attention acknowledgement (DONE with ATTN) after a cancel, as a real server
   * acknowledges only once the cancelled statement has stopped and rolled back. 0 / absent = at once.
   */
  attentionAckDelayMs?(): number;
  /**
   * Optional: whether the simulated server speaks TDS 8.0 (a TLS handshake before PRELOGIN, tedious `encrypt: 'strict'`).
   * Absent = yes. "SQL Server 2022, Azure SQL Database, and Azure SQL Managed Instance support TDS 8.0" (TDS 8.0 page).
   */
  supportsTds8?(): boolean;
  /**
   * Optional: after a successful login the protocol layer hands over how to close this session's connection, so the
   * model can end a session from the server side (KILL, model/kill.ts) even while it is idle.
   */
  onSessionKilled?(session: SessionHandle, disconnect: () => void): void;
}
