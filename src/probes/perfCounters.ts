// Log-related performance counters of the target database (SQLServer:Databases) and their interpretation by
// cntr_type at run time — the reference could not confirm each counter's type, so nothing is hard-coded. Real rows
// (test/fixtures/real-server/dmv/otel-perf-counters-databases.json) show 272696576 for the flush, byte, wait-time and
// transaction counters and 65792 for Percent Log Used and Log Growths; Log Flush Waits/sec and Log Flush Write Time (ms)
// were in no real sample.
import type { SqlClient } from '../db/types';
import type { PlannedQuery } from '../db/batch';
import { EmptySourceError, measure, type Measurement } from './measurement';
import type { GrantContext } from './permissions';
import { platformRules, type ServerPlatform } from './serverInfo';
import { mapCounterRow, type CounterRow } from './rows';
import { delta, ratio, text } from './values';

export const LOG_COUNTER_NAMES = [
  'Log Flushes/sec',
  'Log Bytes Flushed/sec',
  'Log Flush Waits/sec',
  'Log Flush Wait Time',
  'Log Flush Write Time (ms)',
  'Transactions/sec',
  'Write Transactions/sec',
  'Log Growths',
  'Percent Log Used',
] as const;

/**
 * The target database's rows of the SQLServer:Databases object.
 * - object_name: the prefix differs (SQLServer: / MSSQL$<instance>: / Azure), so LIKE N'%:Databases' — on the
 *   RTRIMmed value. The three name columns are nchar(128), padded with blanks, and "When you use Unicode data
 *   (nchar or nvarchar data types) with LIKE, trailing blanks are significant" (LIKE, "Pattern matching by using
 *   LIKE", https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql): an untrimmed
 *   `object_name LIKE N'%:Databases'` returns no rows at all on SQL Server. `=` and `IN` ignore trailing blanks.
 * - instance_name: the database name, or on Managed Instance (and Azure SQL Database) a GUID that is
 *   sys.databases.physical_database_name (MI known issues, "GUID values shown instead of database names"). Both are
 *   passed; @physical_database_name is NULL on SQL Server, and `IN (x, NULL)` matches only x. On Azure SQL Database
 *   "some instance_name values have an additional identifier appended after the GUID" (influxdata/telegraf
 *   plugins/inputs/sqlserver/azuresqldbqueries.go, which joins on LEFT(instance_name, 36)): an instance that starts
 *   with the GUID is read too, and selectCounterInstance keeps one instance only (issue 33 D6; NOT CONFIRMED by a
 *   Microsoft page).
 * Columns and types: https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-performance-counters-transact-sql
 * Counters: https://learn.microsoft.com/sql/relational-databases/performance-monitor/sql-server-databases-object
 */
export const LOG_COUNTERS_SQL = `SELECT
  RTRIM(object_name) AS object_name,
  RTRIM(counter_name) AS counter_name,
  RTRIM(instance_name) AS instance_name,
  cntr_value,
  cntr_type
FROM sys.dm_os_performance_counters
WHERE RTRIM(object_name) LIKE N'%:Databases'
  AND (RTRIM(instance_name) IN (@database_name, @physical_database_name)
    OR (@physical_database_name IS NOT NULL AND LEFT(RTRIM(instance_name), 36) = @physical_database_name))
  AND RTRIM(counter_name) IN (${LOG_COUNTER_NAMES.map((n) => `N'${n}'`).join(', ')});`;

/**
 * The GUID counters and XEvents use for a database on Managed Instance / Azure SQL Database. The column exists from
 * SQL Server 2019 and on Azure SQL Database (sys-databases-transact-sql), so it is read only on those platforms.
 */
export const PHYSICAL_DATABASE_NAME_SQL = `SELECT physical_database_name
FROM sys.databases
WHERE database_id = @database_id;`;

/** How the counters name one database: its name, plus the GUID on platforms that use one. */
export interface CounterInstance {
  databaseName: string;
  physicalDatabaseName: string | null;
}

export async function readCounterInstance(monitor: SqlClient, databaseId: number, databaseName: string, platform: ServerPlatform): Promise<CounterInstance> {
  if (!platformRules(platform).databaseNamesAreGuids) return { databaseName, physicalDatabaseName: null };
  const rows = await monitor.query(PHYSICAL_DATABASE_NAME_SQL, [{ name: 'database_id', type: 'int', value: databaseId }]);
  return { databaseName, physicalDatabaseName: text(rows[0]?.physical_database_name) };
}

/** winperf.h counter types as decimal cntr_type values (reference §3.1). */
export const CounterType = {
  rawValue: 65792, // PERF_COUNTER_LARGE_RAWCOUNT: last observed value
  perSecond: 272696320, // PERF_COUNTER_COUNTER: cumulative, rate = delta / seconds
  bulkCount: 272696576, // PERF_COUNTER_BULK_COUNT: cumulative, rate = delta / seconds
  rawFraction: 537003264, // PERF_LARGE_RAW_FRACTION: delta / delta(base)
  averageBulk: 1073874176, // PERF_AVERAGE_BULK: delta / delta(base)
  base: 1073939712, // PERF_LARGE_RAW_BASE: denominator of the two above
} as const;

export { COUNTER_COLUMNS, mapCounterRow, type CounterRow } from './rows';

/**
 * Every database has its SQLServer:Databases instance, so no rows means the filter did not match (a name the server
 * spells differently) or counters are off: not measured, never zeros.
 */
/** The query captureLogCounters asks (for composing it into one round trip with others, db/batch.ts). */
export function logCountersQuery(instance: string | CounterInstance): PlannedQuery {
  const { databaseName, physicalDatabaseName } = typeof instance === 'string' ? { databaseName: instance, physicalDatabaseName: null } : instance;
  return {
    sql: LOG_COUNTERS_SQL,
    parameters: [
      { name: 'database_name', type: 'nvarchar', value: databaseName },
      { name: 'physical_database_name', type: 'nvarchar', value: physicalDatabaseName },
    ],
  };
}

/**
 * The rows of one counter instance. Preference: the database name, then the GUID exactly, then one instance that starts
 * with the GUID (the Azure SQL Database suffix). Two suffixed instances and no exact one cannot be told apart: that is
 * not measured (which one is this database's is unknown), never a sum of both.
 */
export function selectCounterInstance(rows: readonly CounterRow[], instance: CounterInstance): { rows: CounterRow[]; instanceName: string } | { ambiguous: string[] } | null {
  const byInstance = new Map<string, CounterRow[]>();
  for (const r of rows) byInstance.set(r.instanceName, [...(byInstance.get(r.instanceName) ?? []), r]);
  const exact = (name: string | null) => (name === null ? undefined : [...byInstance.keys()].find((k) => k.toLowerCase() === name.toLowerCase()));
  const chosen = exact(instance.databaseName) ?? exact(instance.physicalDatabaseName);
  if (chosen !== undefined) return { rows: byInstance.get(chosen)!, instanceName: chosen };
  const guid = instance.physicalDatabaseName?.toLowerCase();
  const suffixed = guid ? [...byInstance.keys()].filter((k) => k.toLowerCase().startsWith(guid)) : [];
  if (suffixed.length === 1) return { rows: byInstance.get(suffixed[0]!)!, instanceName: suffixed[0]! };
  if (suffixed.length > 1) return { ambiguous: suffixed };
  return null;
}

async function readLogCounters(monitor: SqlClient, instance: string | CounterInstance): Promise<CounterRow[]> {
  const named: CounterInstance = typeof instance === 'string' ? { databaseName: instance, physicalDatabaseName: null } : instance;
  const query = logCountersQuery(named);
  const selected = selectCounterInstance((await monitor.query(query.sql, query.parameters)).map(mapCounterRow), named);
  if (selected && 'ambiguous' in selected) {
    throw new EmptySourceError(
      `sys.dm_os_performance_counters has several SQLServer:Databases instances starting with "${named.physicalDatabaseName}" (${selected.ambiguous.map((a) => `"${a}"`).join(', ')}) and none named exactly; which one is this database's is not known.`,
      null,
    );
  }
  if (!selected) {
    throw new EmptySourceError(
      `sys.dm_os_performance_counters has no SQLServer:Databases rows for instance "${named.databaseName}"${named.physicalDatabaseName ? ` or "${named.physicalDatabaseName}"` : ''} (performance counters may be disabled on this server, or it names the database differently).`,
      null,
    );
  }
  return selected.rows;
}

/** The database's log counters as a measurement (no rows, several candidate instances, a denial: not measured). */
export async function captureLogCounters(monitor: SqlClient, instance: string | CounterInstance, ctx: GrantContext): Promise<Measurement<CounterRow[]>> {
  return measure('perfCounters', ctx, () => readLogCounters(monitor, instance));
}

export type CounterDelta =
  /** Cumulative counter: how much happened, and per second over the interval. */
  | { counterName: string; kind: 'cumulative'; type: number; delta: number; perSecond: number | null }
  /** Point-in-time value: before and after as read. */
  | { counterName: string; kind: 'point'; type: number; before: number; after: number }
  /** Ratio or average against a base counter: delta / delta(base); null when the base did not move. */
  | { counterName: string; kind: 'ratio'; type: number; value: number | null; delta: number; baseDelta: number }
  | { counterName: string; kind: 'unknown-type'; type: number; before: string; after: string };

/** The base of "X" is reported as "X base" (any case); e.g. "Avg Wait Time (ms)" / "Avg Wait Time Base". */
function findBase(rows: readonly CounterRow[], name: string): CounterRow | undefined {
  const stem = name.replace(/\s*\(ms\)\s*$/i, '').replace(/\/sec$/i, '').toLowerCase();
  return rows.find((r) => r.type === CounterType.base && r.counterName.toLowerCase().replace(/\s*base$/, '') === stem);
}

export function diffCounters(before: readonly CounterRow[], after: readonly CounterRow[], elapsedSeconds: number): CounterDelta[] {
  const beforeByName = new Map(before.map((r) => [r.counterName, r]));
  const out: CounterDelta[] = [];
  for (const a of after) {
    if (a.type === CounterType.base) continue;
    const b = beforeByName.get(a.counterName);
    if (!b) continue;
    switch (a.type) {
      case CounterType.perSecond:
      case CounterType.bulkCount: {
        const d = delta(b.value, a.value);
        out.push({ counterName: a.counterName, kind: 'cumulative', type: a.type, delta: d, perSecond: elapsedSeconds > 0 ? d / elapsedSeconds : null });
        break;
      }
      case CounterType.rawValue:
        out.push({ counterName: a.counterName, kind: 'point', type: a.type, before: Number(b.value), after: Number(a.value) });
        break;
      case CounterType.rawFraction:
      case CounterType.averageBulk: {
        const baseAfter = findBase(after, a.counterName);
        const baseBefore = findBase(before, a.counterName);
        const d = delta(b.value, a.value);
        const baseDelta = baseAfter && baseBefore ? delta(baseBefore.value, baseAfter.value) : 0;
        out.push({ counterName: a.counterName, kind: 'ratio', type: a.type, value: ratio(d, baseDelta), delta: d, baseDelta });
        break;
      }
      default:
        out.push({ counterName: a.counterName, kind: 'unknown-type', type: a.type, before: b.value, after: a.value });
    }
  }
  return out;
}
