// Builds RunResults with chosen figures for report tests: only the fields the metrics read are meaningful.
import { ok, notApplicable } from '../../../src/probes/measurement';
import type { WaitDelta } from '../../../src/probes/waitStats';
import type { CommitPath, DurabilityMode, RunResult } from '../../../src/profile/types';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { runSchemaFields, runServerOf } from '../../../src/profile/runSchema';

export interface RunFigures {
  mode?: DurabilityMode | null;
  warmup?: boolean;
  elapsedMs?: number;
  commits?: number;
  flushesCounter?: number;
  flushesXe?: number | null;
  waits?: Record<string, { count: number; ms: number }>;
  /** null: the session's waits were not readable. */
  sessionWaitsReadable?: boolean;
  log?: { writes: number; bytes: number; stallMs: number };
  data?: { writes: number; bytes: number };
  restart?: boolean;
  source?: 'stand-in' | 'sql-server';
  /** Environment block figures (trace flags, log size/VLFs, recovery model). */
  environment?: {
    traceFlags?: { flag: number; status: boolean; global: boolean; session: boolean }[];
    log?: RunResult['diff']['log'];
    recoveryModel?: string;
  };
}

function wait(type: string, count: number, ms: number): WaitDelta {
  return {
    waitType: type,
    waitingTasks: count,
    waitTimeMs: ms,
    signalWaitTimeMs: 0,
    resourceWaitTimeMs: ms,
    percent: null,
    avgWaitMs: count === 0 ? null : ms / count,
    avgResourceWaitMs: count === 0 ? null : ms / count,
    avgSignalWaitMs: count === 0 ? null : 0,
    maxWaitTimeMsSinceStart: ms,
  };
}

export function makeRun(f: RunFigures = {}): RunResult {
  const waits = Object.entries(f.waits ?? {}).map(([type, w]) => wait(type, w.count, w.ms));
  const total = waits.reduce((s, w) => s + w.waitTimeMs, 0);
  const log = f.log ?? { writes: 100, bytes: 409600, stallMs: 20 };
  const data = f.data ?? { writes: 0, bytes: 0 };
  const totals = [
    { kind: 'data' as const, files: 1, reads: 0, bytesRead: 0, writes: data.writes, bytesWritten: data.bytes, writeStallMs: 0, readStallMs: 0, avgBytesPerWrite: data.writes ? data.bytes / data.writes : null, msPerWrite: data.writes ? 0 : null },
    { kind: 'log' as const, files: 1, reads: 0, bytesRead: 0, writes: log.writes, bytesWritten: log.bytes, writeStallMs: log.stallMs, readStallMs: 0, avgBytesPerWrite: log.writes ? log.bytes / log.writes : null, msPerWrite: log.writes ? log.stallMs / log.writes : null },
  ];
  const restart = f.restart ?? false;
  const trace: LogFlushTrace | null =
    f.flushesXe === null || f.flushesXe === undefined
      ? null
      : ({ sessionName: 'durability_lens_test', target: 'ring_buffer', eventCount: f.flushesXe, eventsByName: {}, flushEvent: 'databases_log_flush', flushes: f.flushesXe, bytes: null, sizeEvent: null, lostEvents: 0, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, latencyMs: null, durationUnit: null, sizeHistogram: null, flushesPerCommit: null, commitCount: null, timeline: { bucketMs: 100, startUtc: null, counts: [] }, missingEvents: [], missingFields: [], counterCrossCheck: null, notes: [] } as unknown as LogFlushTrace);
  const diff: RunResult['diff'] = {
    valid: !restart,
    notes: restart ? ['SQL Server restarted between the snapshots.'] : [],
    restartDetected: restart,
    elapsedMs: 1050,
    files: ok({ files: [], totals, unmatchedFileIds: [] }),
    serverWaits: ok({ top: [], others: { waitTypes: 0, waitTimeMs: 0, waitingTasks: 0 }, totalWaitTimeMs: 0, totalSignalWaitTimeMs: 0, totalResourceWaitTimeMs: 0, benignWaitTimeMs: 0 }),
    sessionWaits:
      f.sessionWaitsReadable === false
        ? { status: 'unavailable', measurement: 'sessionWaits', cause: 'permission', reason: 'no permission', grant: 'GRANT VIEW SERVER STATE TO [lens];', errorNumber: 300 }
        : ok({ top: waits, others: { waitTypes: 0, waitTimeMs: 0, waitingTasks: 0 }, totalWaitTimeMs: total, totalSignalWaitTimeMs: 0, totalResourceWaitTimeMs: total, benignWaitTimeMs: 0 }),
    logCounters: ok([
      ...(f.flushesCounter === undefined ? [] : [{ counterName: 'Log Flushes/sec', kind: 'cumulative' as const, type: 272696576, delta: f.flushesCounter, perSecond: null }]),
      { counterName: 'Write Transactions/sec', kind: 'cumulative', type: 272696576, delta: f.commits ?? 0, perSecond: null },
    ]),
    log: f.environment?.log ?? { vlfCount: null, logSizeMb: null, usedBytes: null, usedPercent: null },
  };
  const elapsedMs = f.elapsedMs ?? 1000;
  return {
    schemaVersion: 1,
    source: f.source ?? 'sql-server',
    status: 'completed',
    mode: f.mode === undefined ? 'DISABLED' : f.mode,
    repetition: 0,
    warmup: f.warmup ?? false,
    startedAt: '2026-01-01T00:00:00.000Z',
    workloadElapsedMs: elapsedMs,
    snapshotIntervalMs: (f.elapsedMs ?? 1000) + 50,
    server: runServerOf({
      identity: { versionText: 'Microsoft SQL Server 2022', serverName: 'SQL1', productVersion: '16.0.1000.6', majorVersion: 16, edition: 'Developer', engineEdition: 3, platform: 'sql-server', isAzureSqlDatabase: false, loginName: 'lens', userName: 'dbo', currentDatabase: 'lab' },
      startTime: ok('2026-01-01T00:00:00.000Z'),
      host: notApplicable('hostInfo', 'test'),
      traceFlags: ok(f.environment?.traceFlags ?? []),
    }),
    database: null,
    delayedDurability: f.mode ?? null,
    workloadSpid: 55,
    batches: [],
    diff,
    logFlushTrace: trace,
    messages: { total: 0, errors: 0, info: 0, first: [] },
    errors: [],
    missing: [],
    preflight: null,
    notes: [],
    ...runSchemaFields(diff, elapsedMs),
    samples: [],
    sampleIntervalMs: null,
    printSeries: [],
    cancel: null,
    setupBatchCount: 0,
  };
}

/** A run with the session's CPU read (the server-time basis) unless `cpuMs` is null. */
export function causesRun(f: RunFigures & { cpuMs?: number | null; path?: Partial<CommitPath>; database?: Partial<NonNullable<RunResult['database']>> }): RunResult {
  const r = makeRun(f);
  if (f.cpuMs !== null) r.diff.sessionCpu = ok({ cpuMs: f.cpuMs ?? 0 });
  const absent = (m: 'logRateGovernance' | 'hyperscaleLogRate' | 'inMemoryTables') => notApplicable<never>(m, 'test');
  r.commitPath = { logRateGovernance: absent('logRateGovernance'), hyperscaleLogRate: absent('hyperscaleLogRate'), inMemoryTables: absent('inMemoryTables'), ...f.path };
  if (f.database) {
    r.database = {
      databaseId: 5, name: 'lab', state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: 'DISABLED', cdcEnabled: false, published: false, logReuseWait: null,
      inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: notApplicable('availabilityGroup', 'test'), ...f.database,
    };
  }
  return r;
}
