// Reads a database's production history from Query Store (issue 30): may this login read it, what state it is in, the
// intervals a window covers, and the heaviest log writers ranked on the server. Two round trips after the server's
// identity: the state (permission, options, coverage composed into one request) and, when the state allows reading,
// the ranking with the window's totals (one request). Read-only; rows bounded by TOP; the window a parameter.
import { prefetch, type PlannedQuery } from '../db/batch';
import type { SqlClient } from '../db/types';
import { measure, notApplicable, ok, type Measurement } from './measurement';
import { grantStatement, requiredPermission, type GrantContext } from './permissions';
import {
  OBJECT_DEFINITION_SQL, planRanking, QUERY_STORE_COVERAGE_SQL, QUERY_STORE_PERMISSION_SQL, queryStoreCapabilities, queryStoreOptionsSql,
  queryStoreTotalsSql, topLogWritersSql, type QueryStoreCapabilities, type RankingPlan, type TopLogRanking,
} from './queryStoreSql';
import { captureServerIdentity, grantContextOf } from './serverInfo';
import { mapQueryStoreOptions, type QueryStoreOptionsRow } from './rows';
import { bool, isoOrNull, num, text } from './values';

export { mapQueryStoreOptions, QUERY_STORE_OPTIONS_COLUMNS, type QueryStoreOptionsRow } from './rows';

export interface QueryStoreCoverage {
  /** Aggregation intervals that end inside the window. */
  intervals: number;
  /** Start of the first of them and end of the last (ISO, UTC); null when there are none. */
  firstStart: string | null;
  lastEnd: string | null;
  /** The server's clock when read (ISO, UTC): the window ends here. */
  serverNow: string | null;
}

/** One query of the window, as Query Store aggregated it over every plan, interval and execution type. */
export interface QueryStoreQueryRow {
  queryId: string;
  /** 0 for an ad hoc query. */
  objectId: number;
  /** null for ad hoc queries and when the login may not see the object's metadata. */
  schemaName: string | null;
  objectName: string | null;
  /** 0x… (binary(8) as text); null when not reported. */
  queryHash: string | null;
  /** The statement text, at most 4,000 characters. */
  text: string;
  /** The statement's full length (characters) when it was cut, else null. */
  fullTextLength: number | null;
  executions: number;
  /** Executions that did not finish: aborted by the client or ended by an exception (execution_type 3, 4). */
  unfinishedExecutions: number;
  /** Bytes; null only where the server keeps no log bytes (see QueryStoreHistory.logBytes). */
  logBytes: number | null;
  /** Microseconds, summed over every execution. */
  durationUs: number;
  firstExecution: string | null;
  lastExecution: string | null;
  /** Milliseconds in wait category "Tran Log IO"; null where waits are not measured (QueryStoreHistory.waits). */
  logWaitMs: number | null;
  /** Milliseconds in every category but Idle and User Wait; null as logWaitMs. */
  totalWaitMs: number | null;
  /** The server's ranking score for "executions that each commit on their own" (see queryStoreSql.ts). */
  commitsAloneScore: number;
}

export interface QueryStoreTotals {
  executions: number;
  logBytes: number | null;
  queries: number;
}

/** Everything one read returns. Figures the server could not give are "not measured" with the reason and the fix. */
export interface QueryStoreHistory {
  ctx: GrantContext;
  capabilities: QueryStoreCapabilities;
  windowHours: number;
  top: number;
  /** Whether this login may read the views (HAS_PERMS_BY_NAME), with the GRANT when it may not. */
  access: Measurement<true>;
  options: Measurement<QueryStoreOptionsRow>;
  coverage: Measurement<QueryStoreCoverage>;
  /** The ranking used (it falls back when the server cannot give what was asked: see RankingPlan). */
  ranking: RankingPlan | null;
  rows: Measurement<QueryStoreQueryRow[]>;
  totals: Measurement<QueryStoreTotals>;
  /** Log bytes per query: measured, or not on this server (SQL Server 2016). */
  logBytes: Measurement<true>;
  /** Wait statistics per query: measured, or why not (SQL Server 2016, WAIT_STATS_CAPTURE_MODE = OFF, a refusal). */
  waits: Measurement<true>;
}

export interface QueryStoreReadOptions {
  /** Hours back from now (default 24). */
  windowHours?: number;
  /** Rows ranked and returned (default 25, at most 200). */
  top?: number;
  ranking?: TopLogRanking;
}

export const DEFAULT_WINDOW_HOURS = 24;
export const DEFAULT_TOP = 25;
export const MAX_TOP = 200;
/** Up to Query Store's own retention default (STALE_QUERY_THRESHOLD_DAYS 30) and a bit beyond: 90 days. */
export const MAX_WINDOW_HOURS = 24 * 90;

/** datetimeoffset arrives from tedious as a Date (UTC instant); the stand-in and recorded rows may give text. */
function instant(v: unknown): string | null {
  if (v instanceof Date) return isoOrNull(v);
  const s = isoOrNull(v);
  if (s === null) return null;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? s : d.toISOString();
}

export function mapCoverage(r: Record<string, unknown> | undefined): QueryStoreCoverage {
  return { intervals: num(r?.intervals) ?? 0, firstStart: instant(r?.first_start), lastEnd: instant(r?.last_end), serverNow: instant(r?.server_now) };
}

/** A figure summed from float averages: whole units (bytes, µs) are what the pages report them in. */
function figure(v: unknown): number | null {
  const n = num(v);
  return n === null || !Number.isFinite(n) ? null : n;
}

export function mapQueryRow(r: Record<string, unknown>): QueryStoreQueryRow {
  const length = num(r.query_sql_text_length);
  const body = text(r.query_sql_text) ?? '';
  return {
    queryId: String(r.query_id ?? ''),
    objectId: num(r.object_id) ?? 0,
    schemaName: text(r.schema_name),
    objectName: text(r.object_name),
    queryHash: text(r.query_hash),
    text: body,
    fullTextLength: length !== null && length > body.length ? length : null,
    executions: num(r.executions) ?? 0,
    unfinishedExecutions: num(r.unfinished_executions) ?? 0,
    logBytes: figure(r.log_bytes),
    durationUs: figure(r.duration_us) ?? 0,
    firstExecution: instant(r.first_execution_time),
    lastExecution: instant(r.last_execution_time),
    logWaitMs: figure(r.log_wait_ms),
    totalWaitMs: figure(r.total_wait_ms),
    commitsAloneScore: figure(r.commits_alone_score) ?? 0,
  };
}

/** The permission the Query Store views need here (requiredPermission 'queryStore'), as the HAS_PERMS_BY_NAME argument. */
function queryStorePermission(ctx: GrantContext): string {
  return requiredPermission('queryStore', ctx)?.permission ?? 'VIEW DATABASE STATE';
}

/** The window in whole minutes (at least one: DATEADD takes an int and a zero window would read nothing). */
function windowParameter(windowHours: number) {
  return { name: 'window_minutes', type: 'int' as const, value: Math.max(1, Math.round(windowHours * 60)) };
}

/** The state request: permission check, options and the window's coverage, composed into one round trip. */
export function queryStoreStateQueries(ctx: GrantContext, windowHours: number): PlannedQuery[] {
  const capabilities = queryStoreCapabilities(ctx);
  return [
    { sql: QUERY_STORE_PERMISSION_SQL, parameters: [{ name: 'permission', type: 'nvarchar', value: queryStorePermission(ctx) }] },
    { sql: queryStoreOptionsSql(capabilities) },
    { sql: QUERY_STORE_COVERAGE_SQL, parameters: [windowParameter(windowHours)] },
  ];
}

function notMeasured<T>(measurement: 'queryStore' | 'queryStoreWaits', cause: 'permission' | 'not-supported' | 'not-applicable', reason: string, ctx: GrantContext | null): Measurement<T> {
  const required = cause === 'permission' && ctx ? requiredPermission(measurement, ctx) : null;
  return { status: 'unavailable', measurement, cause, reason, grant: required && ctx ? grantStatement(required, ctx) : null, required, errorNumber: null };
}

/** Whether the options say history can be read: READ_WRITE records, READ_ONLY keeps what it has; OFF and ERROR do not. */
export function historyReadable(options: QueryStoreOptionsRow): boolean {
  return options.actualState === 'READ_WRITE' || options.actualState === 'READ_ONLY' || options.actualState === 'READ_CAPTURE_SECONDARY';
}

/**
 * Reads the history of `ctx.databaseName` (the monitor connection must be in that database: Query Store is per
 * database). Never throws for a refusal or an unsupported server: each part says what it could not read and why.
 */
export async function readQueryStoreHistory(monitor: SqlClient, ctx: GrantContext, options: QueryStoreReadOptions = {}): Promise<QueryStoreHistory> {
  const windowHours = options.windowHours ?? DEFAULT_WINDOW_HOURS;
  const top = Math.min(MAX_TOP, Math.max(1, Math.trunc(options.top ?? DEFAULT_TOP)));
  const capabilities = queryStoreCapabilities(ctx);
  const state = await prefetch(monitor, queryStoreStateQueries(ctx, windowHours));
  const [permissionQuery, optionsQuery, coverageQuery] = queryStoreStateQueries(ctx, windowHours);
  const permission = await measure('queryStore', ctx, async () => (await state.query(permissionQuery!.sql, permissionQuery!.parameters))[0] ?? {});
  const held = permission.status === 'ok' ? bool(permission.value.held) : null;
  const base = { ctx, capabilities, windowHours, top };
  const noLog = capabilities.logBytes
    ? null
    : notMeasured<true>('queryStore', 'not-supported', 'Not measured: log bytes per query: SQL Server 2016 keeps no log bytes in Query Store (sys.query_store_runtime_stats has avg_log_bytes_used from SQL Server 2017).', null);
  const noWaits = capabilities.waits
    ? null
    : notMeasured<true>('queryStoreWaits', 'not-supported', 'Not measured: waits per query: SQL Server 2016 has no Query Store wait statistics (sys.query_store_wait_stats applies to SQL Server 2017 and later).', null);
  if (held === false || permission.status !== 'ok') {
    const refused: Measurement<never> = permission.status !== 'ok'
      ? permission
      : notMeasured('queryStore', 'permission', `Not measured: ${ctx.databaseName}'s Query Store: the login lacks ${queryStorePermission(ctx)} in this database (HAS_PERMS_BY_NAME says no). Nothing was read.`, ctx);
    return { ...base, access: refused, options: refused, coverage: refused, ranking: null, rows: refused, totals: refused, logBytes: noLog ?? refused, waits: noWaits ?? refused };
  }
  const access: Measurement<true> = ok(true);
  const opts = await measure('queryStore', ctx, async () => {
    const row = (await state.query(optionsQuery!.sql))[0];
    if (!row) throw new Error(`sys.database_query_store_options returned no row for ${ctx.databaseName}.`);
    return mapQueryStoreOptions(row);
  });
  const coverage = await measure('queryStore', ctx, async () => mapCoverage((await state.query(coverageQuery!.sql, coverageQuery!.parameters))[0]));
  if (opts.status !== 'ok' || !historyReadable(opts.value)) {
    const why = opts.status !== 'ok' ? opts : notMeasured<never>('queryStore', 'not-applicable', `Not measured: ${ctx.databaseName}'s Query Store is ${opts.value.actualState}: it holds no history to read.`, ctx);
    return { ...base, access, options: opts, coverage, ranking: null, rows: why, totals: why, logBytes: noLog ?? why, waits: noWaits ?? why };
  }
  const captureOn = opts.value.waitStatsCaptureMode === null ? false : opts.value.waitStatsCaptureMode.toUpperCase() === 'ON';
  const ranking = planRanking(options.ranking ?? 'log', capabilities, captureOn);
  const rankingQuery: PlannedQuery = { sql: topLogWritersSql(ranking), parameters: [{ name: 'top', type: 'int', value: top }, windowParameter(windowHours)] };
  const totalsQuery: PlannedQuery = { sql: queryStoreTotalsSql(capabilities), parameters: [windowParameter(windowHours)] };
  const history = await prefetch(monitor, [rankingQuery, totalsQuery]);
  const rows = await measure('queryStore', ctx, async () => (await history.query(rankingQuery.sql, rankingQuery.parameters)).map(mapQueryRow));
  const totals = await measure('queryStore', ctx, async () => {
    const r = (await history.query(totalsQuery.sql, totalsQuery.parameters))[0] ?? {};
    return { executions: num(r.executions) ?? 0, logBytes: figure(r.log_bytes), queries: num(r.queries) ?? 0 };
  });
  const failed = rows.status !== 'ok' ? rows : null;
  const waits: Measurement<true> = noWaits
    ?? failed
    ?? (captureOn
      ? ok(true)
      : notMeasured('queryStoreWaits', 'not-applicable', `Not measured: waits per query: ${ctx.databaseName}'s Query Store does not capture wait statistics (WAIT_STATS_CAPTURE_MODE = OFF).`, ctx));
  return { ...base, access, options: opts, coverage, ranking, rows, totals, logBytes: noLog ?? failed ?? ok(true), waits };
}

export interface ServerDefinition {
  schemaName: string | null;
  objectName: string | null;
  /** null: encrypted, or the login may not see it (OBJECT_DEFINITION returns NULL for both). */
  definition: string | null;
}

/** OBJECT_DEFINITION of a module Query Store named (its object_id), read-only, one round trip. */
export async function readServerDefinition(monitor: SqlClient, ctx: GrantContext, objectId: number): Promise<Measurement<ServerDefinition>> {
  if (!Number.isInteger(objectId) || objectId === 0) return notApplicable('queryStore', 'An ad hoc query belongs to no module: there is no definition to open.');
  return measure('queryStore', ctx, async () => {
    const r = (await monitor.query(OBJECT_DEFINITION_SQL, [{ name: 'object_id', type: 'int', value: objectId }]))[0] ?? {};
    // OBJECT_DEFINITION is nvarchar(max): the whole text, never cut (values.text() would cut it at 4,000).
    const definition = r.definition === null || r.definition === undefined ? null : String(r.definition);
    return { schemaName: text(r.schema_name), objectName: text(r.object_name), definition };
  });
}

/**
 * The whole read for the database the monitor connection is in (Query Store is per database): the server's identity
 * (one round trip, public functions only), then readQueryStoreHistory. `standIn`: the figures are the Durability Lens
 * stand-in's (its @@VERSION says so).
 */
export async function readQueryStoreOfConnection(monitor: SqlClient, options: QueryStoreReadOptions = {}): Promise<{ history: QueryStoreHistory; standIn: boolean }> {
  const identity = await captureServerIdentity(monitor);
  const ctx = grantContextOf(identity, identity.currentDatabase);
  const history = await readQueryStoreHistory(monitor, ctx, options);
  return { history, standIn: /durability lens stand-in/i.test(identity.versionText) };
}
