// The Query Store catalog views over the model's Query Store (queryStore.ts), with the columns the Learn pages give
// them (each cited below). Each view shows the current database's Query Store. Permission, as every one of these
// pages says: "Requires the VIEW DATABASE STATE permission", and "Permissions for SQL Server 2022 and later: Requires
// the VIEW DATABASE PERFORMANCE STATE permission on the database" (sys.query_store_runtime_stats_interval page). The
// refusal's number and text (300 + 297, as the model's Azure DMV refusal) are NOT CONFIRMED for these views.
import { register, type VRow } from './catalog';
import type { BatchContext } from './eval';
import { errors } from './errors';
import { hasLogBytesColumns, hasQueryStoreWaits, queryStoreOf, WAIT_CATEGORY_NAMES, type QueryStoreState, type Sums } from './queryStore';

const EXECUTION_TYPE_DESC: Record<number, string> = { 0: 'Regular', 3: 'Aborted', 4: 'Exception' };
const MODE_CODES: Record<string, number> = { OFF: 0, READ_ONLY: 1, READ_WRITE: 2, ERROR: 3 };

function requireQueryStoreRead(b: BatchContext, line: number): void {
  const perm = b.server.options.major >= 16 && b.server.options.product === 'sqlserver' ? 'VIEW DATABASE PERFORMANCE STATE' : 'VIEW DATABASE STATE';
  if (!b.server.hasDatabasePermission(b.session.login, b.session.db, perm)) throw errors.viewDatabasePermission(b.session.db.name, line);
}

function current(b: BatchContext): QueryStoreState {
  return queryStoreOf(b.server, b.session.db);
}

/** avg / last / min / max / stdev of one measure, as the runtime and wait stats pages name them (`<prefix>_<name>`). */
function stats(name: string, s: Sums, scale = 1, floor = false): VRow {
  const n = s.n || 1;
  const avg = s.sum / n;
  const variance = Math.max(0, s.sumSq / n - avg * avg);
  const whole = (v: number) => BigInt(Math.round(floor ? Math.floor(v / scale) : v / scale));
  return {
    [`avg_${name}`]: avg / scale,
    [`last_${name}`]: whole(s.last),
    [`min_${name}`]: whole(s.n ? s.min : 0),
    [`max_${name}`]: whole(s.max),
    [`stdev_${name}`]: Math.sqrt(variance) / scale,
  };
}

export function registerQueryStoreTables(): void {
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql
  // wait_stats_capture_mode(_desc): "Applies to: SQL Server 2017 (14.x) and later". On 2016 the model reads them as NULL
  // (SQL Server 2016 has no such columns and would raise 207: not modelled, MODEL.md).
  register({
    name: 'sys.database_query_store_options',
    check: requireQueryStoreRead,
    columns: 'desired_state smallint, desired_state_desc nvarchar(60), actual_state smallint, actual_state_desc nvarchar(60), readonly_reason int, ' +
      'current_storage_size_mb bigint, flush_interval_seconds bigint, interval_length_minutes bigint, max_storage_size_mb bigint, ' +
      'stale_query_threshold_days bigint, max_plans_per_query bigint, query_capture_mode smallint, query_capture_mode_desc nvarchar(60), ' +
      'size_based_cleanup_mode smallint, size_based_cleanup_mode_desc nvarchar(60), wait_stats_capture_mode smallint, wait_stats_capture_mode_desc nvarchar(60)',
    rows: (b) => {
      const qs = current(b);
      const o = qs.options;
      const row: VRow = {
        desired_state: MODE_CODES[o.desired]!, desired_state_desc: o.desired, actual_state: MODE_CODES[o.actual]!, actual_state_desc: o.actual,
        readonly_reason: o.readonlyReason, current_storage_size_mb: BigInt(Math.ceil(qs.queries.size / 200)), flush_interval_seconds: BigInt(o.flushIntervalSeconds),
        interval_length_minutes: BigInt(o.intervalLengthMinutes), max_storage_size_mb: BigInt(o.maxStorageSizeMb), stale_query_threshold_days: BigInt(o.staleQueryThresholdDays),
        max_plans_per_query: 200n, query_capture_mode: 1, query_capture_mode_desc: 'ALL', size_based_cleanup_mode: 1, size_based_cleanup_mode_desc: 'AUTO',
      };
      if (hasQueryStoreWaits(b.server)) {
        row.wait_stats_capture_mode = o.waitStatsCapture ? 1 : 0;
        row.wait_stats_capture_mode_desc = o.waitStatsCapture ? 'ON' : 'OFF';
      }
      return [row];
    },
  });
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-query-transact-sql
  register({
    name: 'sys.query_store_query',
    check: requireQueryStoreRead,
    columns: 'query_id bigint, query_text_id bigint, context_settings_id bigint, object_id bigint, batch_sql_handle nvarchar(130), query_hash nvarchar(18), ' +
      'is_internal_query bit, query_parameterization_type tinyint, query_parameterization_type_desc nvarchar(60), last_execution_time datetimeoffset, count_compiles bigint',
    rows: (b) => [...current(b).queries.values()].map((q) => ({
      query_id: BigInt(q.queryId), query_text_id: BigInt(q.queryTextId), context_settings_id: 1n, object_id: BigInt(q.objectId), batch_sql_handle: null,
      query_hash: q.hash, is_internal_query: false, query_parameterization_type: 0, query_parameterization_type_desc: 'None', last_execution_time: q.lastExecution, count_compiles: 1n,
    })),
  });
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-query-text-transact-sql
  register({
    name: 'sys.query_store_query_text',
    check: requireQueryStoreRead,
    columns: 'query_text_id bigint, query_sql_text nvarchar(max), statement_sql_handle nvarchar(130), is_part_of_encrypted_module bit, has_restricted_text bit',
    rows: (b) => [...current(b).queries.values()].map((q) => ({ query_text_id: BigInt(q.queryTextId), query_sql_text: q.text, statement_sql_handle: null, is_part_of_encrypted_module: false, has_restricted_text: false })),
  });
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-plan-transact-sql (one plan per query here)
  register({
    name: 'sys.query_store_plan',
    check: requireQueryStoreRead,
    columns: 'plan_id bigint, query_id bigint, plan_group_id bigint, engine_version nvarchar(32), compatibility_level smallint, is_forced_plan bit, count_compiles bigint',
    rows: (b) => [...current(b).queries.values()].map((q) => ({
      plan_id: BigInt(q.planId), query_id: BigInt(q.queryId), plan_group_id: 0n, engine_version: b.server.productVersion(), compatibility_level: b.server.options.major * 10, is_forced_plan: false, count_compiles: 1n,
    })),
  });
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-interval-transact-sql
  register({
    name: 'sys.query_store_runtime_stats_interval',
    check: requireQueryStoreRead,
    columns: 'runtime_stats_interval_id bigint, start_time datetimeoffset, end_time datetimeoffset, comment nvarchar(32)',
    rows: (b) => current(b).intervals.map((i) => ({ runtime_stats_interval_id: BigInt(i.id), start_time: i.start, end_time: i.end, comment: null })),
  });
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-transact-sql
  // Durations and CPU in microseconds, log bytes in bytes; averages per row, which is per plan, interval and execution type.
  // On 2016 the *_log_bytes_used columns read NULL here (hasLogBytesColumns; the missing-column 207 is not modelled).
  register({
    name: 'sys.query_store_runtime_stats',
    check: requireQueryStoreRead,
    columns: 'runtime_stats_id bigint, plan_id bigint, runtime_stats_interval_id bigint, execution_type tinyint, execution_type_desc nvarchar(128), ' +
      'first_execution_time datetimeoffset, last_execution_time datetimeoffset, count_executions bigint, ' +
      'avg_duration float, last_duration bigint, min_duration bigint, max_duration bigint, stdev_duration float, ' +
      'avg_cpu_time float, last_cpu_time bigint, min_cpu_time bigint, max_cpu_time bigint, stdev_cpu_time float, ' +
      'avg_rowcount float, last_rowcount bigint, min_rowcount bigint, max_rowcount bigint, stdev_rowcount float, ' +
      'avg_log_bytes_used float, last_log_bytes_used bigint, min_log_bytes_used bigint, max_log_bytes_used bigint, stdev_log_bytes_used float',
    rows: (b) => current(b).runtime.map((r) => ({
      runtime_stats_id: BigInt(r.id), plan_id: BigInt(r.planId), runtime_stats_interval_id: BigInt(r.intervalId), execution_type: r.executionType,
      execution_type_desc: EXECUTION_TYPE_DESC[r.executionType]!, first_execution_time: r.first, last_execution_time: r.last, count_executions: BigInt(r.count),
      ...stats('duration', r.duration), ...stats('cpu_time', r.cpu), ...stats('rowcount', r.rows),
      ...(hasLogBytesColumns(b.server) ? stats('log_bytes_used', r.logBytes) : {}),
    })),
  });
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-wait-stats-transact-sql
  // "Applies to: SQL Server 2017 (14.x) and later, Azure SQL Database": 208 on 2016. Times in milliseconds.
  register({
    name: 'sys.query_store_wait_stats',
    check: (b, line) => {
      if (!hasQueryStoreWaits(b.server)) throw errors.invalidObject('sys.query_store_wait_stats', line);
      requireQueryStoreRead(b, line);
    },
    columns: 'wait_stats_id bigint, plan_id bigint, runtime_stats_interval_id bigint, wait_category smallint, wait_category_desc nvarchar(128), ' +
      'execution_type tinyint, execution_type_desc nvarchar(128), total_query_wait_time_ms bigint, avg_query_wait_time_ms float, ' +
      'last_query_wait_time_ms bigint, min_query_wait_time_ms bigint, max_query_wait_time_ms bigint, stdev_query_wait_time_ms float',
    rows: (b) => current(b).waits.map((w) => ({
      wait_stats_id: BigInt(w.id), plan_id: BigInt(w.planId), runtime_stats_interval_id: BigInt(w.intervalId), wait_category: w.category,
      wait_category_desc: WAIT_CATEGORY_NAMES[w.category] ?? 'Unknown', execution_type: w.executionType, execution_type_desc: EXECUTION_TYPE_DESC[w.executionType]!,
      total_query_wait_time_ms: BigInt(Math.floor(w.waits.sum / 1000)), ...stats('query_wait_time_ms', w.waits, 1000, true),
    })),
  });
}
