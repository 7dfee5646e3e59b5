// Wait statistics: server-wide (sys.dm_os_wait_stats), the workload session's own (sys.dm_exec_session_wait_stats,
// read from the monitor connection), in-flight waits for sampling, and the delta: benign filter, top N, averages.
import benignWaitsData from '../../data/benign-waits.json';
import type { SqlClient } from '../db/types';
import type { PlannedQuery } from '../db/batch';
import { EmptySourceError, measure, type Measurement } from './measurement';
import { requiredPermission, type GrantContext, type RequiredPermission } from './permissions';
import { mapInFlightWait, mapWaitRow, type InFlightWait, type WaitRow } from './rows';
import { bool, delta, num, ratio } from './values';
import { byCodeUnits } from '../shared/textOrder';

/** Completed waits only; wait_time_ms includes signal_wait_time_ms (reference §2.1, sys-dm-os-wait-stats-transact-sql). */
export const SERVER_WAITS_SQL = `SELECT wait_type, waiting_tasks_count, wait_time_ms, max_wait_time_ms, signal_wait_time_ms
FROM sys.dm_os_wait_stats
WHERE waiting_tasks_count > 0;`;

/**
 * 2016+; cleared when the session opens or is reset. Without VIEW SERVER STATE (≤ 2019) / VIEW SERVER PERFORMANCE
 * STATE (2022+) the view shows only the caller's own session — other sessions' rows are filtered out silently, no
 * error (reference §2.2,
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-session-wait-stats-transact-sql).
 */
export const SESSION_WAITS_SQL = `SELECT wait_type, waiting_tasks_count, wait_time_ms, max_wait_time_ms, signal_wait_time_ms
FROM sys.dm_exec_session_wait_stats
WHERE session_id = @spid;`;

/**
 * Asked only when the workload session shows no rows: may this login see other sessions at all? HAS_PERMS_BY_NAME
 * counts implied permissions and returns NULL for a name the version does not know
 * (https://learn.microsoft.com/sql/t-sql/functions/has-perms-by-name-transact-sql).
 */
export const SESSION_VISIBILITY_SQL = `SELECT @@SPID AS own_spid, HAS_PERMS_BY_NAME(NULL, NULL, @permission) AS can_see_all;`;

/** Azure SQL Database accepts only database-level securables in HAS_PERMS_BY_NAME. */
export const SESSION_VISIBILITY_AZURE_SQL = `SELECT @@SPID AS own_spid, HAS_PERMS_BY_NAME(DB_NAME(), N'DATABASE', @permission) AS can_see_all;`;

/**
 * What the workload session waits on right now (for sampling during a run).
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-requests-transact-sql
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-waiting-tasks-transact-sql
 */
export const IN_FLIGHT_WAITS_SQL = `SELECT
  r.session_id,
  r.status,
  r.command,
  r.wait_type,
  r.wait_time AS wait_time_ms,
  r.last_wait_type,
  r.blocking_session_id,
  wt.wait_type AS task_wait_type,
  wt.wait_duration_ms AS task_wait_duration_ms,
  wt.resource_description
FROM sys.dm_exec_requests AS r
LEFT JOIN sys.dm_os_waiting_tasks AS wt ON wt.session_id = r.session_id
WHERE r.session_id = @spid;`;

export { IN_FLIGHT_WAIT_COLUMNS, mapInFlightWait, mapWaitRow, WAIT_COLUMNS, type InFlightWait, type WaitRow } from './rows';

/** Server waits as a measurement: denied or failed reads are "not measured" with the GRANT, never an empty list. */
export async function captureServerWaits(monitor: SqlClient, ctx: GrantContext): Promise<Measurement<WaitRow[]>> {
  return measure('waitStats', ctx, async () => (await monitor.query(SERVER_WAITS_SQL)).map(mapWaitRow));
}

/**
 * The permission that decides whether this login sees other sessions' rows of sys.dm_exec_session_wait_stats. It comes
 * from the grant context, never from the caller, so no caller can read another session's waits without the check
 * (issue 33 D1: a concurrency sweep once did, and showed a measured "0 WRITELOG" for invisible sessions).
 */
export function sessionVisibility(ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): RequiredPermission {
  return requiredPermission('sessionWaits', ctx) ?? { permission: 'VIEW SERVER STATE', scope: 'server' };
}

/**
 * The queries captureSessionWaits may ask: the waits, and the visibility check it asks only on no rows — planned too,
 * so a composed round trip has its answer ready either way.
 */
export function sessionWaitsQueries(spid: number, ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): PlannedQuery[] {
  const visibility = sessionVisibility(ctx);
  const waits: PlannedQuery = { sql: SESSION_WAITS_SQL, parameters: [{ name: 'spid', type: 'int', value: spid }] };
  const sql = visibility.scope === 'database' ? SESSION_VISIBILITY_AZURE_SQL : SESSION_VISIBILITY_SQL;
  return [waits, { sql, parameters: [{ name: 'permission', type: 'nvarchar', value: visibility.permission }] }];
}

/**
 * The workload session's waits. No rows is ambiguous (a fresh session has waited on nothing yet; another session is
 * invisible without the permission), so then the visibility is asked: when the login cannot see other sessions — or
 * the server does not know the permission name (HAS_PERMS_BY_NAME NULL) — the waits are not measured, with the GRANT.
 */
async function readSessionWaits(monitor: SqlClient, spid: number, ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): Promise<WaitRow[]> {
  const [waits, visibilityCheck] = sessionWaitsQueries(spid, ctx);
  const rows = (await monitor.query(waits!.sql, waits!.parameters)).map(mapWaitRow);
  if (rows.length > 0) return rows;
  const check = (await monitor.query(visibilityCheck!.sql, visibilityCheck!.parameters))[0];
  if (num(check?.own_spid) === spid || bool(check?.can_see_all) === true) return rows;
  const visibility = sessionVisibility(ctx);
  throw new EmptySourceError(
    `sys.dm_exec_session_wait_stats shows no row for the workload session (${spid}): without ${visibility.permission} a login sees only its own session's waits.`,
    visibility,
  );
}

/** One session's waits as a measurement (the visibility check included, always). */
export async function captureSessionWaits(monitor: SqlClient, spid: number, ctx: GrantContext): Promise<Measurement<WaitRow[]>> {
  return measure('sessionWaits', ctx, () => readSessionWaits(monitor, spid, ctx));
}

export async function captureInFlightWaits(monitor: SqlClient, spid: number, ctx: GrantContext): Promise<Measurement<InFlightWait[]>> {
  return measure('inFlightWaits', ctx, async () => (await monitor.query(IN_FLIGHT_WAITS_SQL, [{ name: 'spid', type: 'int', value: spid }])).map(mapInFlightWait));
}

// ---- Benign list ----

/** The benign list shipped in data/benign-waits.json (source cited there). */
export const DEFAULT_BENIGN_WAITS: readonly string[] = benignWaitsData.waitTypes;

export interface BenignWaitOptions {
  /** Extra wait types to treat as benign. */
  exclude?: readonly string[] | undefined;
  /** Wait types to keep visible even though the list calls them benign (e.g. PREEMPTIVE_OS_FLUSHFILEBUFFERS). */
  include?: readonly string[] | undefined;
}

export function benignWaitSet(options: BenignWaitOptions = {}, base: readonly string[] = DEFAULT_BENIGN_WAITS): Set<string> {
  const set = new Set(base.map((w) => w.toUpperCase()));
  for (const w of options.exclude ?? []) set.add(w.toUpperCase());
  for (const w of options.include ?? []) set.delete(w.toUpperCase());
  return set;
}

// ---- Diff ----

export interface WaitDelta {
  waitType: string;
  waitingTasks: number;
  waitTimeMs: number;
  signalWaitTimeMs: number;
  /** wait − signal (reference §2.1). */
  resourceWaitTimeMs: number;
  /** Share of the total (non-benign) wait time in the interval, 0–100; null when the total is 0. */
  percent: number | null;
  avgWaitMs: number | null;
  avgResourceWaitMs: number | null;
  avgSignalWaitMs: number | null;
  /** max_wait_time_ms is a high-water mark since start, not a delta: the after value is reported as is. */
  maxWaitTimeMsSinceStart: number;
}

export interface WaitStatsDiff {
  /** Top N by wait time, largest first. */
  top: WaitDelta[];
  /** Sum over the remaining non-benign waits beyond the top N. */
  others: { waitTypes: number; waitTimeMs: number; waitingTasks: number };
  totalWaitTimeMs: number;
  totalSignalWaitTimeMs: number;
  totalResourceWaitTimeMs: number;
  /** Wait time filtered out as benign (for transparency). */
  benignWaitTimeMs: number;
}

export interface WaitDiffOptions extends BenignWaitOptions {
  /** Default 20 (the S2 tutorial's top 20). */
  topN?: number;
  /** Apply the benign filter (server waits: yes; the session's own waits: usually no). Default true. */
  filterBenign?: boolean;
}

export function diffWaits(before: readonly WaitRow[], after: readonly WaitRow[], options: WaitDiffOptions = {}): WaitStatsDiff {
  const topN = options.topN ?? 20;
  const benign = options.filterBenign === false ? new Set<string>() : benignWaitSet(options);
  const beforeByType = new Map(before.map((w) => [w.waitType, w]));
  const deltas: WaitDelta[] = [];
  let benignWaitTimeMs = 0;
  for (const a of after) {
    const b = beforeByType.get(a.waitType);
    const waitingTasks = delta(b?.waitingTasks ?? '0', a.waitingTasks);
    const waitTimeMs = delta(b?.waitTimeMs ?? '0', a.waitTimeMs);
    const signalWaitTimeMs = delta(b?.signalWaitTimeMs ?? '0', a.signalWaitTimeMs);
    if (waitingTasks <= 0 && waitTimeMs <= 0) continue;
    if (benign.has(a.waitType.toUpperCase())) {
      benignWaitTimeMs += waitTimeMs;
      continue;
    }
    const resourceWaitTimeMs = waitTimeMs - signalWaitTimeMs;
    deltas.push({
      waitType: a.waitType,
      waitingTasks,
      waitTimeMs,
      signalWaitTimeMs,
      resourceWaitTimeMs,
      percent: null,
      avgWaitMs: ratio(waitTimeMs, waitingTasks),
      avgResourceWaitMs: ratio(resourceWaitTimeMs, waitingTasks),
      avgSignalWaitMs: ratio(signalWaitTimeMs, waitingTasks),
      maxWaitTimeMsSinceStart: Number(a.maxWaitTimeMs),
    });
  }
  const totalWaitTimeMs = deltas.reduce((s, d) => s + d.waitTimeMs, 0);
  const totalSignalWaitTimeMs = deltas.reduce((s, d) => s + d.signalWaitTimeMs, 0);
  for (const d of deltas) d.percent = totalWaitTimeMs === 0 ? null : (100 * d.waitTimeMs) / totalWaitTimeMs;
  // Largest wait time first; ties by count then name so the order is stable.
  deltas.sort((x, y) => y.waitTimeMs - x.waitTimeMs || y.waitingTasks - x.waitingTasks || byCodeUnits(x.waitType, y.waitType));
  const top = deltas.slice(0, topN);
  const rest = deltas.slice(topN);
  return {
    top,
    others: {
      waitTypes: rest.length,
      waitTimeMs: rest.reduce((s, d) => s + d.waitTimeMs, 0),
      waitingTasks: rest.reduce((s, d) => s + d.waitingTasks, 0),
    },
    totalWaitTimeMs,
    totalSignalWaitTimeMs,
    totalResourceWaitTimeMs: totalWaitTimeMs - totalSignalWaitTimeMs,
    benignWaitTimeMs,
  };
}
