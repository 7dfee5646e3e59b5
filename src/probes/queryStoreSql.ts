// The SQL that reads a database's production history from Query Store (issue 30): its options, the intervals a window
// covers, and the heaviest log writers ranked on the server (TOP n, the window a parameter). Read-only. Each text cites
// the Learn page of every view and column it names. Units as the pages give them: avg_log_bytes_used in bytes,
// avg_duration in microseconds, total_query_wait_time_ms in milliseconds. Every average is per row — one plan, one
// aggregation interval, one execution type (Regular / Aborted / Exception) — so a total is Σ avg × count_executions
// over the rows, never an average of averages.

/**
 * The versions' differences, from the pages: sys.query_store_wait_stats and wait_stats_capture_mode "Applies to: SQL
 * Server 2017 (14.x) and later, Azure SQL Database"; the *_log_bytes_used columns work on SQL Server from 2017 (the
 * page's 2016 revision said "Applies only to Azure SQL Database"; MicrosoftDocs/sql-docs pull request 1771 removed that
 * because they "work correctly in SQL Server 2017 on-prem"). Azure SQL Database and Managed Instance report
 * ProductMajorVersion 12 while their engine is current, so they are keyed on the engine edition (5, 8).
 */
export interface QueryStoreCapabilities {
  logBytes: boolean;
  waits: boolean;
}

export function queryStoreCapabilities(ctx: { majorVersion: number; engineEdition: number }): QueryStoreCapabilities {
  const current = ctx.engineEdition === 5 || ctx.engineEdition === 8 || ctx.majorVersion >= 14;
  return { logBytes: current, waits: current };
}

/**
 * Whether this login may read the Query Store views here, asked before they are read (HAS_PERMS_BY_NAME counts
 * implied permissions: db_owner, VIEW SERVER STATE; https://learn.microsoft.com/sql/t-sql/functions/has-perms-by-name-transact-sql).
 */
export const QUERY_STORE_PERMISSION_SQL = `SELECT DB_NAME() AS database_name, HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', @permission) AS held;`;

/** https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql */
const OPTIONS_COLUMNS = `desired_state_desc, actual_state_desc, readonly_reason, current_storage_size_mb, max_storage_size_mb,
  interval_length_minutes, flush_interval_seconds, stale_query_threshold_days, query_capture_mode_desc`;

/** SQL Server 2016: no wait_stats_capture_mode column (it "Applies to: SQL Server 2017 (14.x) and later"). */
export function queryStoreOptionsSql(capabilities: QueryStoreCapabilities): string {
  const waits = capabilities.waits ? ',\n  wait_stats_capture_mode_desc' : ',\n  CAST(NULL AS nvarchar(60)) AS wait_stats_capture_mode_desc';
  return `SELECT ${OPTIONS_COLUMNS}${waits}
FROM sys.database_query_store_options;`;
}

/**
 * The aggregation intervals the window touches: an interval counts whole when it ends inside the window, so the span
 * read can start up to one interval before the window (start_time / end_time are datetimeoffset).
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-interval-transact-sql
 */
export const QUERY_STORE_COVERAGE_SQL = `SELECT COUNT(*) AS intervals, MIN(i.start_time) AS first_start, MAX(i.end_time) AS last_end,
  SYSDATETIMEOFFSET() AS server_now
FROM sys.query_store_runtime_stats_interval AS i
WHERE i.end_time > DATEADD(MINUTE, -@window_minutes, SYSDATETIMEOFFSET());`;

/** How the rows are ranked. 'alone': many executions, each committing on its own (small log, waiting on the flush). */
export type TopLogRanking = 'log' | 'wait' | 'alone';

/** Largest log block SQL Server writes: 60 KB (Learn, "SQL Server transaction log architecture and management guide"). */
export const LOG_BLOCK_BYTES = 60 * 1024;

/**
 * Per query over the window, from sys.query_store_runtime_stats (joined to sys.query_store_plan for the query): the
 * executions (count_executions summed over every plan, interval and execution type), log bytes (Σ avg_log_bytes_used ×
 * count_executions), duration (Σ avg_duration × count_executions, µs), first / last execution, and the executions
 * that did not finish (execution_type 3 Aborted, 4 Exception).
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-transact-sql
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-plan-transact-sql
 */
function runtimeDerived(capabilities: QueryStoreCapabilities): string {
  const log = capabilities.logBytes ? 'SUM(rs.avg_log_bytes_used * rs.count_executions)' : 'CAST(NULL AS float)';
  return `SELECT p.query_id,
    SUM(rs.count_executions) AS executions,
    SUM(CASE WHEN rs.execution_type <> 0 THEN rs.count_executions ELSE 0 END) AS unfinished_executions,
    ${log} AS log_bytes,
    SUM(rs.avg_duration * rs.count_executions) AS duration_us,
    MIN(rs.first_execution_time) AS first_execution_time,
    MAX(rs.last_execution_time) AS last_execution_time
  FROM sys.query_store_runtime_stats AS rs
  JOIN sys.query_store_runtime_stats_interval AS i ON i.runtime_stats_interval_id = rs.runtime_stats_interval_id
  JOIN sys.query_store_plan AS p ON p.plan_id = rs.plan_id
  WHERE i.end_time > DATEADD(MINUTE, -@window_minutes, SYSDATETIMEOFFSET())
  GROUP BY p.query_id`;
}

/**
 * Per query over the window, from sys.query_store_wait_stats: wait time in category 14 "Tran Log IO" (LOGMGR,
 * LOGBUFFER, LOGMGR_RESERVE_APPEND, LOGMGR_FLUSH, LOGMGR_PMM_LOG, CHKPT, WRITELOG — the page's mapping table) and in
 * every category but 11 Idle and 18 User Wait (WAITFOR is the query asking to wait, not the server making it).
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-wait-stats-transact-sql
 */
const WAITS_DERIVED = `SELECT p.query_id,
    SUM(CASE WHEN ws.wait_category = 14 THEN ws.total_query_wait_time_ms ELSE 0 END) AS log_wait_ms,
    SUM(CASE WHEN ws.wait_category IN (11, 18) THEN 0 ELSE ws.total_query_wait_time_ms END) AS total_wait_ms
  FROM sys.query_store_wait_stats AS ws
  JOIN sys.query_store_runtime_stats_interval AS i ON i.runtime_stats_interval_id = ws.runtime_stats_interval_id
  JOIN sys.query_store_plan AS p ON p.plan_id = ws.plan_id
  WHERE i.end_time > DATEADD(MINUTE, -@window_minutes, SYSDATETIMEOFFSET())
  GROUP BY p.query_id`;

/**
 * What "executions that each commit on their own" means on the server, ranked before TOP so the n rows are the right
 * ones. With wait statistics: executions × the share of their duration spent waiting on the log (a statement that
 * commits alone waits for its own flush every time; one inside a larger transaction hardly waits on the log at all).
 * Without them: executions of statements that write log but less than one log block per execution — which cannot tell
 * a statement that commits alone from one inside a larger transaction (the report says so).
 */
function aloneScore(waits: boolean): string {
  if (waits) {
    return `CASE WHEN r.log_bytes > 0 AND r.duration_us > 0 AND w.log_wait_ms > 0
      THEN r.executions * CASE WHEN w.log_wait_ms * 1000.0 >= r.duration_us THEN 1.0 ELSE w.log_wait_ms * 1000.0 / r.duration_us END
      ELSE 0 END`;
  }
  return `CASE WHEN r.log_bytes > 0 AND r.log_bytes <= ${LOG_BLOCK_BYTES}.0 * r.executions THEN r.executions ELSE 0 END`;
}

/** What a ranking can use on this server and setting: the SQL falls back (and the report says so) when it cannot. */
export interface RankingPlan {
  requested: TopLogRanking;
  /** The order actually used: 'executions' on a server that keeps no log bytes (SQL Server 2016). */
  used: TopLogRanking | 'executions';
  /** Wait statistics are read (2017+ and capture on). */
  waits: boolean;
  logBytes: boolean;
}

export function planRanking(requested: TopLogRanking, capabilities: QueryStoreCapabilities, waitCaptureOn: boolean): RankingPlan {
  const waits = capabilities.waits && waitCaptureOn;
  const logBytes = capabilities.logBytes;
  let used: RankingPlan['used'] = requested;
  if (requested === 'wait' && !waits) used = logBytes ? 'log' : 'executions';
  if (used === 'log' && !logBytes) used = 'executions';
  if (used === 'alone' && !logBytes) used = 'executions';
  return { requested, used, waits, logBytes };
}

/**
 * Which queries a ranking lists: the ones that wrote log (by log bytes, and for "alone", whose statements that wrote
 * log but committed inside a larger transaction rank last), or that waited on it; every query when the server keeps
 * neither (SQL Server 2016, ranked by executions).
 */
const FILTER: Record<RankingPlan['used'], string> = {
  log: '\nWHERE r.log_bytes > 0',
  wait: '\nWHERE w.log_wait_ms > 0',
  alone: '\nWHERE r.log_bytes > 0',
  executions: '',
};

const ORDER: Record<RankingPlan['used'], string> = {
  log: 'r.log_bytes DESC, r.executions DESC',
  wait: 'w.log_wait_ms DESC, r.log_bytes DESC',
  alone: 'commits_alone_score DESC, r.executions DESC',
  executions: 'r.executions DESC',
};

/**
 * The heaviest log writers: TOP (@top) queries of the window in the planned order, with their module
 * (sys.query_store_query.object_id: "0 if the query isn't executed as part of a database object (ad-hoc query)";
 * OBJECT_SCHEMA_NAME / OBJECT_NAME in this database, NULL when the login may not see the object's metadata), the
 * query_hash (binary(8), as 0x… text by CONVERT style 1), and the statement text cut at 4,000 characters (its full
 * length beside it). https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-query-transact-sql,
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-query-text-transact-sql,
 * https://learn.microsoft.com/sql/t-sql/functions/object-schema-name-transact-sql, https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql
 */
export function topLogWritersSql(plan: RankingPlan): string {
  const waitColumns = plan.waits ? 'w.log_wait_ms, w.total_wait_ms' : 'CAST(NULL AS bigint) AS log_wait_ms, CAST(NULL AS bigint) AS total_wait_ms';
  const waitJoin = plan.waits ? `\nLEFT JOIN (\n  ${WAITS_DERIVED}\n) AS w ON w.query_id = r.query_id` : '';
  const score = plan.logBytes ? aloneScore(plan.waits) : 'CAST(0 AS float)';
  return `SELECT TOP (@top)
  r.query_id,
  q.object_id,
  OBJECT_SCHEMA_NAME(q.object_id) AS schema_name,
  OBJECT_NAME(q.object_id) AS object_name,
  CONVERT(nvarchar(18), q.query_hash, 1) AS query_hash,
  LEFT(t.query_sql_text, 4000) AS query_sql_text,
  LEN(t.query_sql_text) AS query_sql_text_length,
  r.executions, r.unfinished_executions, r.log_bytes, r.duration_us, r.first_execution_time, r.last_execution_time,
  ${waitColumns},
  ${score} AS commits_alone_score
FROM (
  ${runtimeDerived(plan)}
) AS r
JOIN sys.query_store_query AS q ON q.query_id = r.query_id
JOIN sys.query_store_query_text AS t ON t.query_text_id = q.query_text_id${waitJoin}${FILTER[plan.used]}
ORDER BY ${ORDER[plan.used]}, r.query_id;`;
}

/** The whole database over the window, for each row's share: executions and log bytes of every query, not only the top. */
export function queryStoreTotalsSql(capabilities: QueryStoreCapabilities): string {
  const log = capabilities.logBytes ? 'SUM(rs.avg_log_bytes_used * rs.count_executions)' : 'CAST(NULL AS float)';
  return `SELECT SUM(rs.count_executions) AS executions, ${log} AS log_bytes, COUNT(DISTINCT p.query_id) AS queries
FROM sys.query_store_runtime_stats AS rs
JOIN sys.query_store_runtime_stats_interval AS i ON i.runtime_stats_interval_id = rs.runtime_stats_interval_id
JOIN sys.query_store_plan AS p ON p.plan_id = rs.plan_id
WHERE i.end_time > DATEADD(MINUTE, -@window_minutes, SYSDATETIMEOFFSET());`;
}

/**
 * A module's definition as the server keeps it, for a row with no match in the workspace. NULL when the object is
 * encrypted or the caller lacks permission ("Returns NULL on error or if a caller does not have permission to view the
 * object", https://learn.microsoft.com/sql/t-sql/functions/object-definition-transact-sql). The id comes from Query Store.
 */
export const OBJECT_DEFINITION_SQL = `SELECT OBJECT_SCHEMA_NAME(@object_id) AS schema_name, OBJECT_NAME(@object_id) AS object_name, OBJECT_DEFINITION(@object_id) AS definition;`;
