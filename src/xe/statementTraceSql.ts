// The SQL of the statement-attribution Extended Events session (issue 16), each statement beside the page it follows.
// Identifiers are QUOTENAME-style; the spid and map keys go into DDL as validated integer literals (DDL takes no
// parameters); names of events come from our fixed list only.

import { quoteString } from '../db/quote';
import { integerLiteral, quoteSysname, RING_BUFFER_MAX_MEMORY_KB, validateEventFilePath, type EventFileStorage, type SessionScope } from './sessionSql';

/** Statement events: sql_statement_completed for the client's batches, sp_statement_completed inside modules / dynamic SQL. */
export const STATEMENT_EVENTS = ['sql_statement_completed', 'sp_statement_completed'] as const;
export type StatementEventName = (typeof STATEMENT_EVENTS)[number];
/** Wait events in preference order: wait_completed fires once per wait; wait_info fires at begin and end (opcode). */
export const WAIT_EVENTS = ['wait_completed', 'wait_info'] as const;
export type WaitEventName = (typeof WAIT_EVENTS)[number];

/**
 * Which statement and wait events exist, with the description of their duration field (its unit is read from there),
 * and whether the sqlserver.query_hash action exists (object_type 'action'; its row has no duration column).
 * Objects: sys.dm_xe_objects + sys.dm_xe_packages (CREATE EVENT SESSION page's pattern); columns: sys.dm_xe_object_columns.
 */
export const STATEMENT_CATALOG_SQL = [
  'SELECT p.name AS package_name, o.name AS event_name, oc.description AS duration_description',
  'FROM sys.dm_xe_objects AS o',
  'JOIN sys.dm_xe_packages AS p ON o.package_guid = p.guid',
  "LEFT JOIN sys.dm_xe_object_columns AS oc ON oc.object_name = o.name AND oc.object_package_guid = o.package_guid AND oc.name = N'duration' AND oc.column_type = N'data'",
  "WHERE (o.object_type = N'event'",
  "  AND ((p.name = N'sqlserver' AND o.name IN (N'sql_statement_completed', N'sp_statement_completed'))",
  "    OR (p.name = N'sqlos' AND o.name IN (N'wait_completed', N'wait_info'))))",
  "  OR (o.object_type = N'action' AND p.name = N'sqlserver' AND o.name = N'query_hash');",
].join('\n');

/**
 * The action the server-side counts group by. sqlserver.query_hash: "binary hash value calculated on the query and
 * used to identify queries with similar logic" (sys.dm_exec_query_stats), so statements that differ only in literals
 * can share one; its XE type (uint64 here) and its value on a wait event (the statement the session is executing) are
 * NOT CONFIRMED on Learn. The histogram target groups by an action configured on the event with source_type = 1 and
 * source = 'package.action' (Histogram Target page).
 */
export const QUERY_HASH_ACTION = 'sqlserver.query_hash';
/**
 * Slots of the two statement histograms: one per distinct statement hash; the server rounds up to a power of two and
 * ignores new values once full (Histogram Target page), which the exact event_counter totals reveal (then the
 * remainder is reported as not located). A slot is a few bytes, so 16,384 keeps a generated script whole.
 */
export const STATEMENT_HISTOGRAM_SLOTS = 16384;

/**
 * The WRITELOG key of the wait_types map and the End key of event_opcode, looked up at run time: map keys differ
 * between versions (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-xe-map-values-transact-sql:
 * name, object_package_guid, map_key, map_value; VIEW SERVER STATE, 2022+ VIEW SERVER PERFORMANCE STATE).
 */
export const MAP_KEYS_SQL = [
  'SELECT name, map_key, map_value FROM sys.dm_xe_map_values',
  "WHERE (name = N'wait_types' AND map_value = N'WRITELOG') OR (name = N'event_opcode' AND map_value = N'End');",
].join('\n');

export interface StatementSessionDefinition {
  name: string;
  scope: SessionScope;
  /** The workload connection's @@SPID: every event is limited to it (global predicate source sqlserver.session_id). */
  spid: number;
  statementEvents: readonly StatementEventName[];
  wait: { event: WaitEventName; writelogKey: number; endOpcodeKey: number | null } | null;
  maxEventsLimit: number;
  /** ring_buffer (default: the newest events only) or event_file at this session's own path (every event). */
  eventFile?: { path: string; storage: EventFileStorage } | null;
  /**
   * Attach sqlserver.query_hash to every event and count WRITELOG waits per hash on the server (a histogram on the
   * wait event): exact whatever the ring buffer keeps. The executions per hash go in the companion session
   * (createStatementCountSessionSql): a session holds one histogram target.
   */
  queryHash?: boolean;
}

function scopeKeyword(scope: SessionScope): string {
  return scope === 'server' ? 'SERVER' : 'DATABASE';
}

/**
 * CREATE EVENT SESSION (https://learn.microsoft.com/sql/t-sql/statements/create-event-session-transact-sql): predicates
 * `[sqlserver].[session_id] = n` (a predicate source) and `[wait_type] = key` (an event field holding a map key).
 * event_counter counts every accepted event exactly, so the ring buffer's coverage can be stated.
 */
export function createStatementSessionSql(def: StatementSessionDefinition): string {
  if (def.statementEvents.length === 0) throw new RangeError('a statement session needs a statement event');
  const spid = integerLiteral(def.spid, 1, 32767, 'session_id');
  const bySession = `[sqlserver].[session_id] = (${spid})`;
  const action = def.queryHash ? `ACTION (${QUERY_HASH_ACTION}) ` : '';
  const events = statementEventsSql(def, bySession, action);
  if (def.wait) {
    const w = def.wait;
    if (!WAIT_EVENTS.includes(w.event)) throw new RangeError(`unknown event ${String(w.event)}`);
    const key = integerLiteral(w.writelogKey, 0, 2 ** 31 - 1, 'wait_types map key');
    // wait_info fires at the wait's begin and end; only the end carries the duration.
    const opcode = w.event === 'wait_info' && w.endOpcodeKey !== null ? ` AND [opcode] = (${integerLiteral(w.endOpcodeKey, 0, 2 ** 31 - 1, 'event_opcode map key')})` : '';
    events.push(`ADD EVENT sqlos.${w.event} (${action}WHERE (${bySession} AND [wait_type] = (${key})${opcode}))`);
  }
  const histogram = def.queryHash && def.wait ? `ADD TARGET package0.histogram (SET ${histogramSettings(`sqlos.${def.wait.event}`)}),\n` : '';
  const limit = integerLiteral(def.maxEventsLimit, 1, 2_000_000_000, 'MAX_EVENTS_LIMIT');
  // event_file: the session's own file (sessionEventFilePath), max_rollover_files set explicitly (its default changed
  // between doc versions, reference §4.2); 100 MB × 10 files bound what a long run leaves on the server.
  const target = def.eventFile
    ? `ADD TARGET package0.event_file (SET filename = ${quoteString(validateEventFilePath(def.eventFile.path, def.eventFile.storage))}, max_file_size = 100, max_rollover_files = 10)`
    : `ADD TARGET package0.ring_buffer (SET max_events_limit = ${limit}, max_memory = ${RING_BUFFER_MAX_MEMORY_KB})`;
  return [
    `CREATE EVENT SESSION ${quoteSysname(def.name)} ON ${scopeKeyword(def.scope)}`,
    events.join(',\n'),
    `ADD TARGET package0.event_counter,\n${histogram}${target}`,
    // NO_EVENT_LOSS would slow the workload it measures; losses are counted instead (event_counter vs ring).
    'WITH (EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);',
  ].join('\n');
}

function statementEventsSql(def: StatementSessionDefinition, bySession: string, action: string): string[] {
  return def.statementEvents.map((e) => {
    if (!STATEMENT_EVENTS.includes(e)) throw new RangeError(`unknown event ${String(e)}`);
    return `ADD EVENT sqlserver.${e} (${action}WHERE (${bySession}))`;
  });
}

/** Histogram settings grouping by query_hash; without filtering_event_name every event of the session is bucketed. */
function histogramSettings(filteringEvent: string | null): string {
  const filter = filteringEvent ? `filtering_event_name = N'${filteringEvent}', ` : '';
  return `${filter}source_type = 1, source = N'${QUERY_HASH_ACTION}', slots = ${STATEMENT_HISTOGRAM_SLOTS}`;
}

/**
 * The companion of a queryHash statement session: the same statement events and predicate, one histogram of every
 * event by query_hash = exact executions per statement hash. No filtering_event_name, so both statement events are
 * counted ("If you do not specify filtering_event_name, source_type must be set to 1", Histogram Target page).
 */
export function createStatementCountSessionSql(def: StatementSessionDefinition & { countSessionName: string }): string {
  const spid = integerLiteral(def.spid, 1, 32767, 'session_id');
  const events = statementEventsSql(def, `[sqlserver].[session_id] = (${spid})`, `ACTION (${QUERY_HASH_ACTION}) `);
  return [
    `CREATE EVENT SESSION ${quoteSysname(def.countSessionName)} ON ${scopeKeyword(def.scope)}`,
    events.join(',\n'),
    `ADD TARGET package0.histogram (SET ${histogramSettings(null)})`,
    'WITH (EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF);',
  ].join('\n');
}

/**
 * One page of the statement session's event_file, every event (parameters @top, @path, @file, @offset; @file/@offset
 * NULL on the first read, then together). Events up to and including @offset are skipped, so pages resume after the
 * last complete buffer (eventFile.ts completeRows).
 * https://learn.microsoft.com/sql/relational-databases/system-functions/sys-fn-xe-file-target-read-file-transact-sql
 */
export const READ_STATEMENT_FILE_PAGE_SQL = [
  'SELECT TOP (@top) object_name, event_data, file_name, file_offset',
  'FROM sys.fn_xe_file_target_read_file(@path, NULL, @file, @offset);',
].join('\n');
