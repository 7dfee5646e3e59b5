// What probes, the XE layer and the profiler need from a connection, without importing tedious.
// src/db/ implements it over tedious; tests may implement it over recorded rows.

/** One row keyed by column name, values as tedious returns them (bigint columns arrive as strings). */
export type Row = Record<string, unknown>;

export type ParameterType = 'int' | 'bigint' | 'smallint' | 'bit' | 'nvarchar' | 'varchar' | 'float' | 'datetime2';

export interface QueryParameter {
  /** Without the '@'. */
  name: string;
  type: ParameterType;
  value: string | number | boolean | bigint | Date | null;
}

export interface SqlClient {
  /** Runs one statement (sp_executesql when parameters are given, else a plain batch) and returns every row of every result set. */
  query(sql: string, parameters?: readonly QueryParameter[]): Promise<Row[]>;
  /** Runs a statement for its effect; resolves when it completes. */
  execute(sql: string, parameters?: readonly QueryParameter[]): Promise<void>;
}

/** A server error as the driver reported it (tedious RequestError fields). */
export interface SqlErrorInfo {
  number: number;
  state: number;
  class: number;
  message: string;
  lineNumber: number;
  procName?: string;
}

// ---- Connection profiles and sessions (added by the db layer; additive only) ----

/** How the profile authenticates; maps onto tedious's authentication types in src/db/profile.ts. */
export type AuthenticationProfile =
  | { type: 'sql'; user: string }
  | { type: 'ntlm'; user: string; domain: string }
  /** Microsoft Entra user + password (tedious azure-active-directory-password; clientId is required by tedious). */
  | { type: 'entra-password'; user: string; clientId: string; tenantId?: string }
  /** DefaultAzureCredential chain (tedious azure-active-directory-default). */
  | { type: 'entra-default'; clientId?: string }
  /** A ready access token, passed as the secret. */
  | { type: 'entra-access-token' }
  | { type: 'entra-service-principal'; clientId: string; tenantId: string }
  | { type: 'entra-msi-vm'; clientId?: string }
  | { type: 'entra-msi-app-service'; clientId?: string };

export interface ConnectionProfile {
  server: string;
  /** Mutually exclusive with instanceName (tedious throws when both are set). */
  port?: number;
  instanceName?: string;
  database: string;
  authentication: AuthenticationProfile;
  /** true = TLS after PRELOGIN, 'strict' = TDS 8.0 (TLS first), false = no encryption requested. */
  encrypt: boolean | 'strict';
  trustServerCertificate: boolean;
  /**
   * SHA-256 fingerprint ("AB:CD:…") of the one certificate the user trusted for this profile (src/db/certificate.ts):
   * with encrypt=true the connect accepts exactly that certificate, for this host, while it is valid.
   */
  pinnedCertificateSha256?: string;
  /** Prefix for the application name; the role is appended: "<appName> (workload)". Default "Durability Lens". */
  appName?: string;
  connectTimeoutMs?: number;
  /**
   * Workload connection: how long tedious waits for the server to acknowledge a cancel (ATTENTION) before it closes
   * the connection. Default WORKLOAD_CANCEL_TIMEOUT_MS (src/db/profile.ts).
   */
  cancelTimeoutMs?: number;
}

export type ConnectionRole = 'workload' | 'monitor';

/** Why a connection could not be opened (or was refused after opening). */
export type ConnectionFailureKind =
  | 'login-failed'
  | 'unknown-database'
  | 'unreachable'
  | 'untrusted-certificate'
  /** Another host's, expired or not yet valid: never offered for trust. */
  | 'certificate-invalid'
  /** The profile's pinned certificate was not the one presented (or no longer fits): refused before the login. */
  | 'certificate-changed'
  | 'encryption-refused'
  | 'encryption-not-verified'
  | 'cancelled'
  | 'other';

export interface ConnectionFailureInfo {
  kind: ConnectionFailureKind;
  /** One sentence: what happened. */
  message: string;
  /** What to do about it. */
  action: string;
  /** Always true: a failed connect never changes anything on the server. */
  nothingChanged: true;
  /** The UI may offer to trust this server's certificate (by fingerprint) for this profile only: no trusted issuer is the sole problem. */
  offerTrustServerCertificate: boolean;
  /** Server error number when the server sent one (18456, 4060, ...). */
  serverErrorNumber?: number;
  /** The driver's original message, for the output channel. */
  driverMessage: string;
}

/** An open connection: a SqlClient plus what the profiler needs to know about the session. */
export interface SqlSession extends SqlClient {
  readonly role: ConnectionRole;
  /** @@SPID of this connection. */
  readonly spid: number;
  /** Verified from sys.dm_exec_connections.encrypt_option when encryption was requested; null when not checked. */
  readonly encrypted: boolean | null;
  /** Databases the session was moved to (login database, then each USE); absent where the driver does not report it. */
  readonly databaseHistory?: readonly string[];
  /** How the certificate was checked when encrypted (src/db/connect.ts CertificateCheck); absent on test doubles. */
  readonly certificate?: 'verified' | 'pinned' | 'not-verified' | null;
  /** A monitor's setup row read at login (src/db/connect.ts): its database and DELAYED_DURABILITY then; absent on test doubles. */
  readonly atLogin?: Row | null;
  close(): Promise<void>;
}

// ---- Workload batches ----

/** SQL Server types a procedure-call parameter is sent as (TYPE_INFO of an RPC parameter, MS-TDS 2.2.6.6). */
export type CallParameterType =
  | 'bit' | 'tinyint' | 'smallint' | 'int' | 'bigint' | 'decimal' | 'numeric' | 'money' | 'smallmoney' | 'float' | 'real'
  | 'char' | 'varchar' | 'nchar' | 'nvarchar' | 'binary' | 'varbinary' | 'uniqueidentifier'
  | 'date' | 'time' | 'datetime' | 'datetime2' | 'smalldatetime' | 'datetimeoffset';

/** One typed RPC parameter: the value travels as data, never as SQL text. */
export interface CallParameter {
  /** Without the '@'. */
  name: string;
  type: CallParameterType;
  /** char/varchar/nchar/nvarchar/binary/varbinary. */
  length?: number | 'max';
  /** decimal/numeric. */
  precision?: number;
  /** decimal/numeric, time/datetime2/datetimeoffset. */
  scale?: number;
  /**
   * Numbers as number (bigint as bigint) except decimal/numeric, which stay exact text ("-12.50"; see wireParameter);
   * bit as boolean, dates as Date (time/datetime2/datetimeoffset may carry `nanosecondDelta`), binary as Buffer,
   * everything else as string.
   */
  value: string | number | bigint | boolean | Date | Buffer | null;
  /** OUTPUT parameter: sent by reference; the value (often null) is its input. */
  output: boolean;
}

/** A stored procedure called as an RPC request (MS-TDS 2.2.6.6) with typed parameters, instead of a SQL batch. */
export interface ProcedureCall {
  /** Quoted name as the server resolves it: `[dbo].[usp_load]` (a `;n` numbered procedure keeps its suffix). */
  procedure: string;
  /** Parameters passed by name; omitted ones take the procedure's defaults. */
  parameters: CallParameter[];
}

/** One batch of the user's script as the runner receives it (see src/tsql Batch). */
export interface WorkloadBatch {
  /** The batch's SQL; for a procedure call, a readable `EXEC …` for messages only (never sent). */
  text: string;
  /** Set: run as an RPC of this procedure with typed parameters (`text` is not sent). */
  call?: ProcedureCall | undefined;
  /** GO n → n; at least 1. */
  repeat: number;
  /** 0-based document line of batch line 1; error line N maps to firstLine + N - 1. */
  firstLine: number;
  /**
   * Typed parameters the batch text uses undeclared (a concurrency sweep's `@session`): the batch then runs through
   * sp_executesql with these as RPC parameters, never spliced into the text. Absent: a plain SQL batch.
   */
  parameters?: readonly QueryParameter[];
}

/** An info or error message of the workload: the driver reports the same fields for both kinds. */
export interface WorkloadMessage extends SqlErrorInfo {
  kind: 'info' | 'error';
  /** Wall clock (ms since epoch) when the message arrived. */
  at: number;
  /** ms since the batch started (performance.now based). */
  elapsedMs: number;
  /** 0-based repetition (GO n) the message came from. */
  iteration: number;
  /** 0-based document line, or null when the server gave no line or the line is inside a procedure. */
  documentLine: number | null;
}

export interface BatchReport {
  elapsedMs: number;
  /** How many repetitions ran to completion (≤ repeat). */
  iterationsCompleted: number;
  /** DONE / DONEINPROC tokens seen (one per statement the server reported). */
  statements: number;
  /**
   * Sum of row counts of statements that returned no result set (INSERT/UPDATE/DELETE/MERGE); null when no DONE
   * token carried a count (SET NOCOUNT ON: MS-TDS 2.2.7.6, DONE_COUNT unset) — not measured, never 0.
   */
  rowsAffected: number | null;
  /** Rows received in result sets (counted, never kept). */
  rowsReturned: number;
  resultSets: number;
  /** Messages (info + error) seen; the first `keptMessages` are kept in `messages`. */
  messageCount: number;
  messages: WorkloadMessage[];
  /** First error that ended the batch and its repetitions (lost connection, severity ≥ 20); null when none did. */
  error: (SqlErrorInfo & { documentLine: number | null; code?: string }) | null;
  /**
   * Errors the server continued past (severity 11–19 on a live connection): the batch went on as the server ran it and
   * the remaining GO repetitions ran too. Absent when there were none.
   */
  statementErrors?: Array<SqlErrorInfo & { documentLine: number | null; iteration: number }>;
  cancelled: boolean;
  /** The connection died during the batch (socket reset / closed): the session is gone, reconnect to continue. */
  connectionLost: boolean;
}
