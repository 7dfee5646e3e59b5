// captureSnapshot runs every probe on the MONITOR connection in ONE round trip (db/batch.ts composes them; each
// one still degrades on its own); diffSnapshots turns two snapshots into typed deltas and refuses to diff across an
// engine restart.
// JSON choice: cumulative counters are exact decimal strings (they may exceed 2^53); deltas are numbers.
import type { QueryParameter, SqlClient } from '../db/types';
import { prefetch, type PlannedQuery, type PrefetchedClient } from '../db/batch';
import { AG_REPLICAS_SQL, CHANGE_TRACKING_SQL, captureDatabaseInfo, DATABASE_SQL, DURABILITY_NOW_SQL, PAAS_REPLICAS_SQL, readDurabilityNow, type DatabaseInfo } from './databaseInfo';
import { captureFileStats, captureVolumes, diffFileStats, fileStatsQuery, volumesQuery, type FileStatsDiff, type FileStatsRow, type VolumeRow } from './fileStats';
import { captureLogSpace, captureLogStats, captureVlfCount, diffLog, LOG_SPACE_SQL, LOG_STATS_SQL, VLF_SQL, type LogDiff, type LogSpace, type LogStats, type VlfCount } from './logInfo';
import { notApplicable, ok, valueOf, type Measurement } from './measurement';
import { captureLogCounters, diffCounters, logCountersQuery, PHYSICAL_DATABASE_NAME_SQL, readCounterInstance, type CounterDelta, type CounterRow } from './perfCounters';
import { PREFLIGHT_SERVER_SQL, preflightPermissions, type MeasurementName, type PreflightResult } from './permissions';
import {
  captureServerIdentity,
  captureServerInfo,
  grantContextOf,
  HOST_INFO_SQL,
  platformRules,
  SERVER_IDENTITY_SQL,
  START_TIME_SQL,
  TRACE_STATUS_SQL,
  type ServerIdentity,
  type ServerInfo,
} from './serverInfo';
import { captureHyperscaleLogRate, DATABASE_EDITION_SQL, type HyperscaleLogRate } from './hyperscaleLogRate';
import { captureInMemoryTables, SCHEMA_ONLY_TABLES_SQL, type InMemoryTables } from './inMemoryTables';
import { captureSessionCpu, diffSessionCpu, sessionCpuQuery, type SessionCpu } from './sessionCpu';
import { captureLogRateGovernance, LOG_RATE_GOVERNANCE_SQL, type LogRateGovernance } from './logRateGovernance';
import { captureServerWaits, captureSessionWaits, diffWaits, SERVER_WAITS_SQL, sessionWaitsQueries, type WaitDiffOptions, type WaitRow, type WaitStatsDiff } from './waitStats';

export interface SnapshotTarget {
  databaseId: number;
  databaseName: string;
  /** @@SPID of the workload connection; null when there is no workload session yet. */
  workloadSpid: number | null;
}

export interface Snapshot {
  schemaVersion: 1;
  /** Wall clock when capture started (ISO) and the same as epoch ms, for intervals between snapshots. */
  capturedAt: string;
  capturedAtMs: number;
  target: SnapshotTarget;
  server: ServerInfo;
  database: Measurement<DatabaseInfo>;
  fileStats: Measurement<FileStatsRow[]>;
  volumes: Measurement<VolumeRow[]>;
  serverWaits: Measurement<WaitRow[]>;
  sessionWaits: Measurement<WaitRow[]>;
  logCounters: Measurement<CounterRow[]>;
  logStats: Measurement<LogStats>;
  logSpace: Measurement<LogSpace>;
  vlfs: Measurement<VlfCount>;
  /**
   * What decides a commit's path besides the disk (issue 29; read before the run only, as settings): Azure SQL
   * Database's log-rate cap, Hyperscale's log-rate limits, SCHEMA_ONLY memory-optimized tables. Absent in snapshots
   * made before they existed.
   */
  logRateGovernance?: Measurement<LogRateGovernance | null>;
  hyperscaleLogRate?: Measurement<HyperscaleLogRate>;
  inMemoryTables?: Measurement<InMemoryTables>;
  /** The workload session's cumulative CPU (sys.dm_exec_sessions.cpu_time); absent without a workload session. */
  sessionCpu?: Measurement<SessionCpu>;
  /**
   * After-snapshots only (countersOnly): DELAYED_DURABILITY as read with the counters, null when unreadable. The
   * before-snapshot has it in `database`.
   */
  delayedDurabilityNow?: 'DISABLED' | 'ALLOWED' | 'FORCED' | null;
}

export interface CaptureOptions {
  /** Skip the probes that do not change during a run (volumes, database info): for the "after" snapshot. Default false. */
  countersOnly?: boolean;
  now?: () => number;
  /**
   * The monitor connection's identity as last read (the preflight's, or the before-snapshot's): it decides which
   * queries to compose, so the snapshot is one round trip. The snapshot reads the identity again in the same batch
   * and re-asks what was planned for a different one. Without it (and without an earlier snapshot on this
   * connection) the identity costs one round trip first.
   */
  identity?: ServerIdentity | undefined;
}

/** Identity last read per monitor connection: later snapshots on it plan from this. */
const knownIdentity = new WeakMap<SqlClient, ServerIdentity>();

/** What the composed queries depend on: same key → same plan. */
function planKey(identity: ServerIdentity, databaseName: string): string {
  return JSON.stringify([identity.currentDatabase === databaseName, identity.engineEdition, identity.majorVersion, identity.loginName, identity.userName]);
}

const byDatabaseId = (databaseId: number): QueryParameter[] => [{ name: 'database_id', type: 'int', value: databaseId }];

/**
 * Every query captureSnapshot's probes will ask for this identity, in the order they ask — the composition of one
 * round trip. Follow-ups that depend on an answer (the GUID instance name of counters on MI / Azure SQL Database, the
 * DBCC LOGINFO fallback before 2016 SP2) are not planned and cost their own round trip where they apply.
 */
export function snapshotQueries(target: SnapshotTarget, identity: ServerIdentity, options: Pick<CaptureOptions, 'countersOnly'> = {}): PlannedQuery[] {
  const ctx = grantContextOf(identity, target.databaseName);
  const inTargetDb = identity.currentDatabase === target.databaseName;
  const azure = identity.isAzureSqlDatabase;
  const q: PlannedQuery[] = [{ sql: SERVER_IDENTITY_SQL }, { sql: START_TIME_SQL }];
  if (!azure) q.push({ sql: HOST_INFO_SQL }, { sql: TRACE_STATUS_SQL });
  if (!options.countersOnly) {
    const param = byDatabaseId(target.databaseId);
    // The replica probe runs only for a replicated database; its SQL depends on the platform (sys.dm_hadr_* are SQL
    // Server only; databaseInfo.ts, issue 33 D3).
    const replicas = identity.platform === 'sql-server' ? AG_REPLICAS_SQL : PAAS_REPLICAS_SQL;
    q.push({ sql: DATABASE_SQL, parameters: param }, { sql: CHANGE_TRACKING_SQL, parameters: param }, { sql: replicas, parameters: param });
  }
  q.push(fileStatsQuery(target.databaseId, inTargetDb));
  if (!options.countersOnly && !azure) q.push(volumesQuery(target.databaseId, inTargetDb));
  q.push({ sql: SERVER_WAITS_SQL });
  if (target.workloadSpid !== null) q.push(...sessionWaitsQueries(target.workloadSpid, ctx), sessionCpuQuery(target.workloadSpid));
  if (platformRules(identity.platform).databaseNamesAreGuids) q.push({ sql: PHYSICAL_DATABASE_NAME_SQL, parameters: byDatabaseId(target.databaseId) });
  else q.push(logCountersQuery({ databaseName: target.databaseName, physicalDatabaseName: null }));
  q.push({ sql: LOG_STATS_SQL, parameters: byDatabaseId(target.databaseId) });
  if (inTargetDb) q.push({ sql: LOG_SPACE_SQL });
  q.push({ sql: VLF_SQL, parameters: byDatabaseId(target.databaseId) });
  // The setting after a run (a script may change it); the before-snapshot reads it with the database's other settings.
  if (options.countersOnly) q.push({ sql: DURABILITY_NOW_SQL, parameters: byDatabaseId(target.databaseId) });
  if (!options.countersOnly) {
    // The commit path's settings (issue 29): Azure SQL Database's cap and tier; the Hyperscale DMF follows only there.
    if (azure) q.push({ sql: LOG_RATE_GOVERNANCE_SQL }, { sql: DATABASE_EDITION_SQL });
    if (inTargetDb) q.push({ sql: SCHEMA_ONLY_TABLES_SQL });
  }
  return q;
}

/** The monitor's identity, its grant context and a client holding every planned answer: one round trip when planned right. */
async function prefetchSnapshot(monitor: SqlClient, target: SnapshotTarget, options: CaptureOptions): Promise<{ identity: ServerIdentity; probes: PrefetchedClient }> {
  const assumed = options.identity ?? knownIdentity.get(monitor) ?? (await captureServerIdentity(monitor));
  let probes = await prefetch(monitor, snapshotQueries(target, assumed, options));
  let identity = await captureServerIdentity(probes);
  if (planKey(identity, target.databaseName) !== planKey(assumed, target.databaseName)) {
    // Planned for another database / platform / login than the connection has now: ask again for this identity.
    probes = await prefetch(monitor, snapshotQueries(target, identity, options));
    identity = await captureServerIdentity(probes);
  }
  knownIdentity.set(monitor, identity);
  return { identity, probes };
}

/**
 * The monitor's identity and the permission preflight in one round trip: the SQL Server form of the preflight is
 * composed with the identity; on Azure SQL Database its own form (and the service objective) follow as before.
 */
export async function identifyWithPreflight(
  monitor: SqlClient,
  databaseName: string,
  /** More reads to compose into the same request (e.g. the log-flush trace's planning reads); `answers` serves them. */
  extra: readonly PlannedQuery[] = [],
): Promise<{ identity: ServerIdentity; preflight: PreflightResult; answers: SqlClient }> {
  const probes = await prefetch(monitor, [{ sql: SERVER_IDENTITY_SQL }, { sql: PREFLIGHT_SERVER_SQL, parameters: [{ name: 'database_name', type: 'nvarchar', value: databaseName }] }, ...extra]);
  const identity = await captureServerIdentity(probes);
  knownIdentity.set(monitor, identity);
  return { identity, preflight: await preflightPermissions(probes, grantContextOf(identity, databaseName)), answers: probes };
}

export async function captureSnapshot(connection: SqlClient, target: SnapshotTarget, options: CaptureOptions = {}): Promise<Snapshot> {
  const capturedAtMs = (options.now ?? Date.now)();
  const { identity, probes: monitor } = await prefetchSnapshot(connection, target, options);
  const ctx = grantContextOf(identity, target.databaseName);
  const inTargetDb = identity.currentDatabase === target.databaseName;
  const skipped = <T>(m: MeasurementName) => notApplicable<T>(m, 'Not captured in this snapshot (it does not change during a run).');

  const server = await captureServerInfo(monitor, identity, ctx);
  const database = options.countersOnly ? skipped<DatabaseInfo>('databaseInfo') : await captureDatabaseInfo(monitor, target.databaseId, ctx);
  const fileStats = await captureFileStats(monitor, target.databaseId, inTargetDb, ctx);
  const volumes = options.countersOnly
    ? skipped<VolumeRow[]>('volumes')
    : identity.isAzureSqlDatabase
      ? notApplicable<VolumeRow[]>('volumes', 'sys.dm_os_volume_stats applies to SQL Server only.')
      : await captureVolumes(monitor, target.databaseId, inTargetDb, ctx);
  const serverWaits = await captureServerWaits(monitor, ctx);
  const sessionWaits =
    target.workloadSpid === null
      ? notApplicable<WaitRow[]>('sessionWaits', 'No workload session to read waits for.')
      : await captureSessionWaits(monitor, target.workloadSpid, ctx);
  const sessionCpu = target.workloadSpid === null ? undefined : await captureSessionCpu(monitor, target.workloadSpid, ctx);
  const logCounters = await captureLogCounters(monitor, await readCounterInstance(monitor, target.databaseId, target.databaseName, identity.platform), ctx);
  const logStats = await captureLogStats(monitor, target.databaseId, ctx);
  const logSpace = inTargetDb
    ? await captureLogSpace(monitor, ctx)
    : notApplicable<LogSpace>('logSpace', `sys.dm_db_log_space_usage describes only the current database; the monitor connection is in "${identity.currentDatabase}", not "${target.databaseName}".`);
  const vlfs = await captureVlfCount(monitor, target.databaseId, inTargetDb, ctx);
  const logRateGovernance = options.countersOnly ? skipped<LogRateGovernance | null>('logRateGovernance') : await captureLogRateGovernance(monitor, ctx);
  const hyperscaleLogRate = options.countersOnly ? skipped<HyperscaleLogRate>('hyperscaleLogRate') : await captureHyperscaleLogRate(monitor, ctx);
  const inMemoryTables = options.countersOnly ? skipped<InMemoryTables>('inMemoryTables') : await captureInMemoryTables(monitor, inTargetDb, ctx);
  const delayedDurabilityNow = options.countersOnly ? await readDurabilityNow(monitor, target.databaseId) : undefined;

  return {
    schemaVersion: 1,
    capturedAt: new Date(capturedAtMs).toISOString(),
    capturedAtMs,
    target,
    server,
    database,
    fileStats,
    volumes,
    serverWaits,
    sessionWaits,
    logCounters,
    logStats,
    logSpace,
    vlfs,
    logRateGovernance,
    hyperscaleLogRate,
    inMemoryTables,
    sessionCpu,
    delayedDurabilityNow,
  };
}

// ---- Diff ----

export interface SnapshotDiff {
  /** False when the deltas must not be used (engine restart, different database); notes say why. */
  valid: boolean;
  notes: string[];
  /** true / false, or null when the start time could not be read. */
  restartDetected: boolean | null;
  elapsedMs: number;
  files: Measurement<FileStatsDiff>;
  serverWaits: Measurement<WaitStatsDiff>;
  sessionWaits: Measurement<WaitStatsDiff>;
  logCounters: Measurement<CounterDelta[]>;
  log: LogDiff;
  /** CPU ms the workload session used between the snapshots (issue 29); absent without a workload session or in older results. */
  sessionCpu?: Measurement<{ cpuMs: number }>;
}

export interface DiffOptions {
  /** Server waits: benign filter and top N. */
  waits?: WaitDiffOptions;
  /** The session's own waits are usually shown unfiltered. */
  sessionWaits?: WaitDiffOptions;
}

function pair<A, R>(before: Measurement<A>, after: Measurement<A>, fn: (b: A, a: A) => R): Measurement<R> {
  if (before.status !== 'ok') return before;
  if (after.status !== 'ok') return after;
  return ok(fn(before.value, after.value));
}

export function diffSnapshots(before: Snapshot, after: Snapshot, options: DiffOptions = {}): SnapshotDiff {
  const notes: string[] = [];
  const elapsedMs = after.capturedAtMs - before.capturedAtMs;
  const startBefore = valueOf(before.server.startTime);
  const startAfter = valueOf(after.server.startTime);
  const restartDetected = startBefore !== null && startAfter !== null ? startBefore !== startAfter : null;
  let valid = true;
  if (restartDetected) {
    valid = false;
    notes.push(
      `SQL Server restarted between the snapshots (start time ${startBefore} → ${startAfter}); cumulative counters started over, so no deltas are shown. Run the measurement again.`,
    );
  } else if (restartDetected === null) {
    notes.push('Could not read sqlserver_start_time, so a restart between the snapshots cannot be ruled out.');
  }
  if (before.target.databaseId !== after.target.databaseId) {
    valid = false;
    notes.push(`The snapshots describe different databases (${before.target.databaseName} vs ${after.target.databaseName}).`);
  }
  const invalid = <T>(m: MeasurementName): Measurement<T> => notApplicable<T>(m, notes[0] ?? 'The snapshots cannot be compared.');

  if (!valid) {
    return {
      valid,
      notes,
      restartDetected,
      elapsedMs,
      files: invalid('fileStats'),
      serverWaits: invalid('waitStats'),
      sessionWaits: invalid('sessionWaits'),
      logCounters: invalid('perfCounters'),
      log: { vlfCount: null, logSizeMb: null, usedBytes: null, usedPercent: null },
    };
  }

  let sessionWaits: Measurement<WaitStatsDiff>;
  if (before.target.workloadSpid !== after.target.workloadSpid) {
    sessionWaits = notApplicable('sessionWaits', 'The workload session changed between the snapshots; its waits cannot be compared.');
    notes.push('The workload session changed between the snapshots (different @@SPID).');
  } else {
    sessionWaits = pair(before.sessionWaits, after.sessionWaits, (b, a) => {
      // Session waits are cleared when the session is reset (reference §2.2): a counter going down means that.
      const beforeByType = new Map(b.map((w) => [w.waitType, w]));
      if (a.some((w) => BigInt(w.waitTimeMs) < BigInt(beforeByType.get(w.waitType)?.waitTimeMs ?? '0'))) {
        notes.push('The workload session\'s wait counters went down: the session was reset between snapshots, so its waits are understated.');
      }
      return diffWaits(b, a, { filterBenign: false, ...options.sessionWaits });
    });
  }

  return {
    valid,
    notes,
    restartDetected,
    elapsedMs,
    files: pair(before.fileStats, after.fileStats, diffFileStats),
    serverWaits: pair(before.serverWaits, after.serverWaits, (b, a) => diffWaits(b, a, options.waits)),
    sessionWaits,
    logCounters: pair(before.logCounters, after.logCounters, (b, a) => diffCounters(b, a, elapsedMs / 1000)),
    sessionCpu: before.target.workloadSpid === after.target.workloadSpid ? diffSessionCpu(before.sessionCpu, after.sessionCpu) : undefined,
    log: diffLog(
      { stats: valueOf(before.logStats), space: valueOf(before.logSpace), vlfs: valueOf(before.vlfs) },
      { stats: valueOf(after.logStats), space: valueOf(after.logSpace), vlfs: valueOf(after.vlfs) },
    ),
  };
}
