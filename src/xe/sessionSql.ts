// Every SQL statement the log-flush Extended Events session uses, in one place, each beside the Learn page it follows.
// Identifiers are emitted QUOTENAME-style; values are parameters, except where DDL cannot take one (then validated literals).

import { randomBytes } from 'node:crypto';
import { quoteName, quoteString } from '../db/quote';
import type { QueryParameter } from '../db/types';

export type SessionScope = 'server' | 'database';

/** The @name parameter of sessionStatusSql and readTargetsSql. */
export function nameParam(name: string): QueryParameter[] {
  return [{ name: 'name', type: 'nvarchar', value: name }];
}

/** An integer column that may arrive as a number or (bigint) as a string; null otherwise. */
export function intOrNull(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

/** Events we want, in preference order for counting flushes (see aggregate.ts). Field names: reference §4.1 (NOT CONFIRMED; checked at run time). */
export const LOG_FLUSH_EVENTS = ['databases_log_flush', 'databases_log_flush_wait', 'log_flush_start', 'log_flush_complete'] as const;
/** Added only on request: it is not specific to the log and its fields are unknown (reference §4.1). */
export const OPTIONAL_EVENTS = ['flush_file_buffers'] as const;
export type LogFlushEventName = (typeof LOG_FLUSH_EVENTS)[number] | (typeof OPTIONAL_EVENTS)[number];

/** Fields each event should carry according to public scripts (reference §4.1); absent ones are reported, not fatal. */
export const EXPECTED_FIELDS: Readonly<Record<LogFlushEventName, readonly string[]>> = {
  databases_log_flush: ['database_id'],
  databases_log_flush_wait: ['database_id'],
  log_flush_start: ['database_id', 'write_size'],
  log_flush_complete: ['database_id', 'duration', 'write_size'],
  flush_file_buffers: [],
};

export const SESSION_NAME_PREFIX = 'durability_lens_';

/** `durability_lens_<16 hex>` from crypto randomness, so concurrent runs (and other users) never collide. */
export function newSessionName(random: (size: number) => Uint8Array = randomBytes): string {
  return SESSION_NAME_PREFIX + Buffer.from(random(8)).toString('hex');
}

/** quoteName for a sysname in our DDL: first rejects what QUOTENAME would turn into NULL (empty, over 128, NUL). */
export function quoteSysname(name: string): string {
  if (name.length === 0 || name.length > 128) throw new RangeError(`identifier must be 1..128 characters, got ${name.length}`);
  if (name.includes('\u0000')) throw new RangeError('identifier must not contain NUL');
  return quoteName(name);
}

/** A validated integer literal (predicate values and target sizes cannot be parameters in CREATE EVENT SESSION). */
export function integerLiteral(value: number, min: number, max: number, what: string): string {
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`${what} must be an integer in ${min}..${max}, got ${String(value)}`);
  }
  return String(value);
}

/** The sample target: a ring buffer (bounded timeline sample) or an event_file (the full event stream). */
export type TargetOptions =
  | { kind: 'ring_buffer'; maxEventsLimit: number; maxMemoryKb: number }
  | { kind: 'event_file'; path: string; maxFileSizeMb: number; maxRolloverFiles: number };

/** A package0.histogram on one numeric field of one event (source_type 0 = event field). */
export interface HistogramSpec {
  event: LogFlushEventName;
  field: string;
  slots: number;
}

/**
 * Slots for the flush-size histogram. The target keeps one slot per distinct value and ignores new values once all
 * are taken (targets page, histogram); log writes are multiples of 512 bytes up to 60 KB (reference §5), about 120
 * values, so 1,024 leaves room for sector sizes we have not seen. The server rounds to a power of two anyway.
 */
export const SIZE_HISTOGRAM_SLOTS = 1024;

/**
 * Slots for the latency histogram: durations take many more distinct values than sizes, and a slot costs a few bytes,
 * so 16,384 keeps a long run's distribution whole in the usual case; an overflow is detected and said (aggregate.ts).
 */
export const LATENCY_HISTOGRAM_SLOTS = 16384;

/** The companion session that holds the latency histogram: a session cannot have two histogram targets (reference §4.2). */
export function latencySessionName(sessionName: string): string {
  return `${sessionName}_latency`;
}

/** The per-statement session of a run (issue 16): named after the run's log-flush session, so it is no orphan while that runs. */
export function statementSessionName(sessionName: string): string {
  return `${sessionName}_statements`;
}

/** The statement session's companion holding the executions histogram (one histogram target per session, §4.2). */
export function statementCountSessionName(statementSession: string): string {
  return `${statementSession}_counts`;
}

/** The session a name belongs to: a latency or statement companion belongs to its main session, any other name to itself. */
export function owningSessionName(name: string): string {
  if (name.endsWith('_counts')) name = name.slice(0, -'_counts'.length);
  for (const suffix of ['_latency', '_statements']) if (name.endsWith(suffix)) return name.slice(0, -suffix.length);
  return name;
}

/** The documented safe ring_buffer size: target_data beyond a 4 MB XML document is silently dropped (reference §4.3). */
export const RING_BUFFER_MAX_MEMORY_KB = 1024;

export interface SessionDefinition {
  name: string;
  scope: SessionScope;
  databaseId: number;
  /** Events that exist on this server (from the catalog check), without package prefix. */
  events: readonly LogFlushEventName[];
  /** Add package0.event_sequence to each event so re-reads can be de-duplicated (only when the action exists). */
  eventSequence: boolean;
  target: TargetOptions;
  /** Add package0.event_counter: exact per-event counts. */
  eventCounter: boolean;
  /** Add package0.histogram on this field (null: no event carries a size field). */
  histogram: HistogramSpec | null;
}

/**
 * Where event_file writes: a local (or share) path on SQL Server; an https Azure Blob Storage URL on Azure SQL Database
 * and Azure SQL Managed Instance, where a local path or a wildcard in sys.fn_xe_file_target_read_file fails with 40538
 * ("Extended Events in Azure SQL": https://learn.microsoft.com/azure/azure-sql/database/xevent-db-diff-from-svr).
 * Keyed on the platform, not the session scope: a Managed Instance session is ON SERVER and still needs a blob URL.
 */
export type EventFileStorage = 'local' | 'blob';

/** EngineEdition values whose event_file target is blob storage: 5 Azure SQL Database, 8 Managed Instance, 12 Fabric SQL DB. */
const BLOB_STORAGE_EDITIONS: ReadonlySet<number> = new Set([5, 8, 12]);

export function eventFileStorageOf(engineEdition: number | null, scope: SessionScope): EventFileStorage {
  return scope === 'database' || (engineEdition !== null && BLOB_STORAGE_EDITIONS.has(engineEdition)) ? 'blob' : 'local';
}

/** Validates an event_file path: `.xel`, at most 260 characters (the read function's nvarchar(260)), no control characters; Azure needs https. */
export function validateEventFilePath(path: string, storage: EventFileStorage): string {
  if (path.length === 0 || path.length > 260) throw new RangeError(`event_file path must be 1..260 characters, got ${path.length}`);
  // Control characters are never part of a legitimate file name and would make the literal unreadable in logs.
  if (/[\u0000-\u001f]/.test(path)) throw new RangeError('event_file path must not contain control characters');
  if (!/\.xel$/i.test(path)) throw new RangeError('event_file path must end with .xel (reference §4.2)');
  if (storage === 'blob' && !/^https:\/\//i.test(path)) {
    throw new RangeError('Azure SQL Database and Azure SQL Managed Instance accept only an https blob URL as event_file path (reference §4.2; a local path fails with 40538)');
  }
  return path;
}

function scopeKeyword(scope: SessionScope): string {
  return scope === 'server' ? 'SERVER' : 'DATABASE';
}

/** Field names go into a string literal of the DDL; they come from sys.dm_xe_object_columns, so only plain names pass. */
function fieldName(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) throw new RangeError(`histogram source must be a plain field name, got ${JSON.stringify(name)}`);
  return name;
}

/**
 * The aggregating targets, from "Targets for Extended Events"
 * (https://learn.microsoft.com/sql/relational-databases/extended-events/targets-for-extended-events-in-sql-server):
 * event_counter has no parameters and counts synchronously; histogram takes filtering_event_name ('package.event'),
 * source (an event field when source_type = 0, default 1 = action) and slots (default 256, rounded up to a power of 2).
 */
export function aggregateTargetClauses(def: Pick<SessionDefinition, 'eventCounter' | 'histogram' | 'events'>): string[] {
  const out: string[] = [];
  if (def.eventCounter) out.push('ADD TARGET package0.event_counter');
  if (def.histogram) {
    const h = def.histogram;
    if (!def.events.includes(h.event)) throw new RangeError(`histogram event ${h.event} is not in the session`);
    const slots = integerLiteral(h.slots, 1, 65536, 'histogram slots');
    out.push(
      `ADD TARGET package0.histogram (SET filtering_event_name = ${quoteString(`sqlserver.${h.event}`)}, source = ${quoteString(fieldName(h.field))}, source_type = 0, slots = ${slots})`,
    );
  }
  return out;
}

function targetClause(target: TargetOptions, scope: SessionScope): string {
  if (target.kind === 'ring_buffer') {
    const limit = integerLiteral(target.maxEventsLimit, 1, 2_000_000_000, 'MAX_EVENTS_LIMIT');
    const memory = integerLiteral(target.maxMemoryKb, 64, RING_BUFFER_MAX_MEMORY_KB, 'ring_buffer MAX_MEMORY (KB)');
    // Target-level MAX_MEMORY is in KB (targets-for-extended-events-in-sql-server).
    return `ADD TARGET package0.ring_buffer (SET max_events_limit = ${limit}, max_memory = ${memory})`;
  }
  const path = quoteString(validateEventFilePath(target.path, scope === 'database' ? 'blob' : 'local'));
  const size = integerLiteral(target.maxFileSizeMb, 1, 1_000_000, 'max_file_size (MB)');
  const files = integerLiteral(target.maxRolloverFiles, 1, 1000, 'max_rollover_files');
  // max_rollover_files set explicitly: its default changed between doc versions (reference §4.2).
  return `ADD TARGET package0.event_file (SET filename = ${path}, max_file_size = ${size}, max_rollover_files = ${files})`;
}

/**
 * CREATE EVENT SESSION, following
 * https://learn.microsoft.com/sql/t-sql/statements/create-event-session-transact-sql
 * The predicate is on the event's own database_id field, not the global sqlserver.database_id source: log-writer
 * events fire on background threads (reference §4.1, inference).
 */
export function createSessionSql(def: SessionDefinition): string {
  if (def.events.length === 0) throw new RangeError('a session needs at least one event');
  const dbId = integerLiteral(def.databaseId, 1, 32767, 'database_id');
  const known: readonly string[] = [...LOG_FLUSH_EVENTS, ...OPTIONAL_EVENTS];
  const body = `${def.eventSequence ? 'ACTION (package0.event_sequence) ' : ''}WHERE ([database_id] = (${dbId}))`;
  const events = def.events.map((e) => {
    // Event names go into DDL unquoted (package.event syntax), so only our own fixed list is allowed.
    if (!known.includes(e)) throw new RangeError(`unknown event ${String(e)}`);
    return `ADD EVENT sqlserver.${e} (${body})`;
  });
  return [
    `CREATE EVENT SESSION ${quoteSysname(def.name)} ON ${scopeKeyword(def.scope)}`,
    events.join(',\n'),
    [...aggregateTargetClauses(def), targetClause(def.target, def.scope)].join(',\n'),
    'WITH (EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);',
  ].join('\n');
}

/**
 * The latency companion: the same database's log_flush_complete into a histogram on its duration field. Same
 * predicate and options as the main session (CREATE EVENT SESSION page; histogram options from the targets page).
 */
export function createLatencySessionSql(def: { name: string; scope: SessionScope; databaseId: number; field: string; slots: number }): string {
  const dbId = integerLiteral(def.databaseId, 1, 32767, 'database_id');
  return [
    `CREATE EVENT SESSION ${quoteSysname(def.name)} ON ${scopeKeyword(def.scope)}`,
    `ADD EVENT sqlserver.log_flush_complete (WHERE ([database_id] = (${dbId})))`,
    aggregateTargetClauses({ eventCounter: false, events: ['log_flush_complete'], histogram: { event: 'log_flush_complete', field: def.field, slots: def.slots } })[0]!,
    'WITH (EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);',
  ].join('\n');
}

/** ALTER EVENT SESSION ... STATE = START | STOP: https://learn.microsoft.com/sql/t-sql/statements/alter-event-session-transact-sql */
export function sessionStateSql(name: string, scope: SessionScope, state: 'START' | 'STOP'): string {
  return `ALTER EVENT SESSION ${quoteSysname(name)} ON ${scopeKeyword(scope)} STATE = ${state};`;
}

/** DROP EVENT SESSION: https://learn.microsoft.com/sql/t-sql/statements/drop-event-session-transact-sql */
export function dropSessionSql(name: string, scope: SessionScope): string {
  return `DROP EVENT SESSION ${quoteSysname(name)} ON ${scopeKeyword(scope)};`;
}

/**
 * Is the session defined, and is it running? Parameter @name. Server: sys.server_event_sessions + sys.dm_xe_sessions
 * (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-server-event-sessions-transact-sql);
 * Azure: sys.database_event_sessions + sys.dm_xe_database_sessions (sys-dm-xe-database-sessions-azure-sql-database).
 */
export function sessionStatusSql(scope: SessionScope): string {
  const [defs, running] =
    scope === 'server' ? ['sys.server_event_sessions', 'sys.dm_xe_sessions'] : ['sys.database_event_sessions', 'sys.dm_xe_database_sessions'];
  return [
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM ${defs} WHERE name = @name) THEN 1 ELSE 0 END AS is_defined,`,
    `       CASE WHEN EXISTS (SELECT 1 FROM ${running} WHERE name = @name) THEN 1 ELSE 0 END AS is_running;`,
  ].join('\n');
}

/**
 * Our sessions left behind by a crash: the LIKE pattern escapes `_` (a wildcard) with brackets.
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-server-event-sessions-transact-sql
 */
export function orphanSessionsSql(scope: SessionScope): string {
  const defs = scope === 'server' ? 'sys.server_event_sessions' : 'sys.database_event_sessions';
  return `SELECT name FROM ${defs} WHERE name LIKE N'durability[_]lens[_]%' ORDER BY name;`;
}

/**
 * Platform and principal, to choose the scope (EngineEdition 5 / 12 need ON DATABASE, reference §0 and §4.2) and word
 * GRANTs. https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql (EngineEdition values as quoted in
 * reference §0, which did not read that page itself: NOT CONFIRMED, item 16).
 */
export const PLATFORM_SQL = [
  "SELECT CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition,",
  "       CAST(SERVERPROPERTY('ProductMajorVersion') AS int) AS product_major_version,",
  '       SUSER_SNAME() AS login_name, USER_NAME() AS user_name;',
].join('\n');

/** Effective permissions, implied ones included: https://learn.microsoft.com/sql/relational-databases/system-functions/sys-fn-my-permissions-transact-sql */
export function myPermissionsSql(scope: SessionScope): string {
  return `SELECT permission_name FROM sys.fn_my_permissions(NULL, N'${scope === 'server' ? 'SERVER' : 'DATABASE'}');`;
}

const quotedEventList = [...LOG_FLUSH_EVENTS, ...OPTIONAL_EVENTS].map((e) => `N'${e}'`).join(', ');

/**
 * Which of our events (and the event_sequence action) this server has. Pattern from the CREATE EVENT SESSION page
 * (sys.dm_xe_objects joined to sys.dm_xe_packages).
 */
export const EVENT_CATALOG_SQL = [
  'SELECT p.name AS package_name, o.name AS object_name, o.object_type',
  'FROM sys.dm_xe_objects AS o',
  'JOIN sys.dm_xe_packages AS p ON o.package_guid = p.guid',
  `WHERE (o.object_type = N'event' AND p.name = N'sqlserver' AND o.name IN (${quotedEventList}))`,
  "   OR (o.object_type = N'action' AND p.name = N'package0' AND o.name = N'event_sequence');",
].join('\n');

/** Payload fields of our events, with descriptions (the unit of `duration` is read from there). Reference §4.1. */
export const EVENT_COLUMNS_SQL = [
  'SELECT o.name AS event_name, oc.name AS field_name, oc.type_name, oc.description',
  'FROM sys.dm_xe_objects AS o',
  'JOIN sys.dm_xe_packages AS p ON o.package_guid = p.guid',
  'JOIN sys.dm_xe_object_columns AS oc',
  '  ON oc.object_name = o.name AND oc.object_package_guid = o.package_guid',
  `WHERE o.object_type = N'event' AND p.name = N'sqlserver' AND o.name IN (${quotedEventList})`,
  "  AND oc.column_type = N'data'",
  'ORDER BY o.name, oc.name;',
].join('\n');

/**
 * Every target's data of the session and its latency companion in one round trip (parameters @name, @companion):
 * session_name, target_name, target_data. Server:
 * sys.dm_xe_session_targets
 * (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-xe-session-targets-transact-sql);
 * reading it also flushes the session's buffers to the asynchronous targets (reference §4.3), so the histogram is
 * complete. Memory targets exist only while the session runs, so this is read before STOP. Azure:
 * sys.dm_xe_database_session_targets.
 */
export function readTargetsSql(scope: SessionScope): string {
  const [targets, sessions] =
    scope === 'server' ? ['sys.dm_xe_session_targets', 'sys.dm_xe_sessions'] : ['sys.dm_xe_database_session_targets', 'sys.dm_xe_database_sessions'];
  return [
    'SELECT s.name AS session_name, t.target_name, t.target_data',
    `FROM ${targets} AS t`,
    `JOIN ${sessions} AS s ON t.event_session_address = s.address`,
    'WHERE s.name IN (@name, @companion);',
  ].join('\n');
}

/**
 * One page of an event_file read (parameters @top, @path, @event, @file, @offset; @file/@offset NULL on the first
 * read — they must be given together, and events up to and including @offset are skipped). mdpath is NULL (allowed
 * since 2016). Only the flush event's rows are fetched: the counts come from event_counter, the stream is for the
 * timeline. https://learn.microsoft.com/sql/relational-databases/system-functions/sys-fn-xe-file-target-read-file-transact-sql
 * An offset names a buffer, not an event (the targets page shows two events at one file_offset), so a page cut inside
 * a buffer must not resume from that buffer's offset: see eventFile.ts.
 */
export const READ_EVENT_FILE_PAGE_SQL = [
  'SELECT TOP (@top) object_name, event_data, file_name, file_offset',
  'FROM sys.fn_xe_file_target_read_file(@path, NULL, @file, @offset)',
  'WHERE object_name = @event;',
].join('\n');

/**
 * Ends every session's file-name stem: '-' is in no session name (durability_lens_<hex>[_statements|_latency]), so
 * the stem of one session is never a prefix of another's and its read pattern (`<stem>*`) matches only its own files.
 * Without it the log-flush session's pattern `…_durability_lens_ab*.xel` also matched the statement session's
 * `…_durability_lens_ab_statements_0_….xel` and counted its events (issue 33, D5). The Learn targets page names its
 * sample file the same way ('locks_acq_rel_eventfile_22-.xel').
 */
export const SESSION_FILE_STEM_END = '-';

/**
 * The files of one session: the user's path names a folder and a file-name stem; each session writes
 * `<stem>_<session name>-.xel`, so a run reads only its own files and earlier runs' files (which DROP EVENT SESSION
 * leaves on disk) never count again. The server appends a number before `.xel` ("a date-time based long integer",
 * targets page, event_file; `_0_131150744126230000` in its sample).
 */
export function sessionEventFilePath(userPath: string, sessionName: string, storage: EventFileStorage): string {
  const base = validateEventFilePath(userPath, storage).replace(/\.xel$/i, '');
  return validateEventFilePath(`${base}_${sessionName}${SESSION_FILE_STEM_END}.xel`, storage);
}

/**
 * The read pattern for one session's files. Local files: the wildcard before `.xel`. Blob storage (Azure SQL Database,
 * Managed Instance) takes a blob-name prefix without wildcards (reference §4.4; a wildcard fails with 40538 there), so
 * the path without `.xel` is the prefix.
 */
export function eventFileReadPattern(sessionPath: string, storage: EventFileStorage): string {
  return storage === 'local' ? sessionPath.replace(/\.xel$/i, '*.xel') : sessionPath.replace(/\.xel$/i, '');
}
