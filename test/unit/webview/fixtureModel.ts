// A rich fixture for the webview screenshot test: a DISABLED vs FORCED comparison (3 repetitions, XE histogram and
// timeline, per-file IO, diagnosis) and a single profile run with samples — all on a database with a hostile name.
import { panelDataFromComparison, panelDataFromRun } from '../../../src/extension/panel/panelData';
import { ok } from '../../../src/probes/measurement';
import type { ComparisonResult } from '../../../src/profile/compare';
import { alterDurabilitySql, DATA_LOSS_CAVEAT } from '../../../src/profile/durabilityGuard';
import { runOrder } from '../../../src/profile/plan';
import type { DurabilityMode, RunResult } from '../../../src/profile/types';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { makeRun } from '../report/runFixture';

export const HOSTILE_DATABASE = '<img src=x onerror=alert(1)>';

const SIZE_LABELS = ['≤512 B', '≤1 KB', '≤4 KB', '≤16 KB', '≤60 KB', '>60 KB'];

function trace(mode: DurabilityMode, flushes: number, bytes: number): LogFlushTrace {
  const small = mode === 'DISABLED';
  return {
    sessionName: 'durability_lens_5f3a9c', target: 'ring_buffer', eventCount: flushes * 2, eventsByName: { log_flush_start: flushes, log_flush_complete: flushes }, flushEvent: 'log_flush_complete',
    flushes, bytes, sizeEvent: 'log_flush_complete', lostEvents: 0, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 },
    latencyMs: small ? { p50: 0.21, p95: 0.58, p99: 1.4, max: 3.2 } : { p50: 0.9, p95: 2.1, p99: 3.3, max: 4.8 }, durationUnit: 'microseconds',
    sizeHistogram: { edgesBytes: [512, 1024, 4096, 16384, 61440], labels: SIZE_LABELS, counts: small ? [flushes - 40, 30, 10, 0, 0, 0] : [2, 3, 6, 11, flushes - 22, 0] },
    flushesPerCommit: small ? 1 : flushes / 5000, commitCount: 5000,
    timeline: { bucketMs: 100, startUtc: '2026-01-01T00:00:00.000Z', counts: small ? [480, 520, 505, 495, 510, 490, 500, 500, 500, 500] : [40, 38, 42, 41] },
    missingEvents: [], missingFields: [], counterCrossCheck: { counterFlushes: flushes, xeFlushes: flushes, relativeDifference: 0, agrees: true }, notes: [],
  } as LogFlushTrace;
}

function run(mode: DurabilityMode, rep: number, elapsedMs: number): RunResult {
  const disabled = mode === 'DISABLED';
  const flushes = disabled ? 5000 - rep : 161 + rep;
  const bytes = disabled ? 5000 * 1536 : 161 * 47_000;
  const r = makeRun({
    mode,
    elapsedMs,
    commits: 5000,
    flushesCounter: flushes,
    waits: disabled ? { WRITELOG: { count: 5000, ms: elapsedMs * 0.82 }, SOS_SCHEDULER_YIELD: { count: 40, ms: 3 } } : { LOGBUFFER: { count: 3, ms: 1.5 }, SOS_SCHEDULER_YIELD: { count: 35, ms: 2 } },
    log: { writes: flushes, bytes, stallMs: disabled ? 1100 : 90 },
    data: { writes: 12, bytes: 12 * 8192 },
    source: 'stand-in',
    environment: { traceFlags: [{ flag: 3979, status: false, global: false, session: false }], log: { vlfCount: { before: 16, after: 16 }, logSizeMb: { before: 72, after: 72 }, usedBytes: { before: 4_000_000, after: 11_500_000, delta: 7_500_000 }, usedPercent: { before: 5.3, after: 15.2 } }, recoveryModel: 'FULL' },
  });
  r.repetition = rep;
  r.server.identity.serverName = 'SQL1';
  r.database = { databaseId: 7, name: HOSTILE_DATABASE, state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: mode, cdcEnabled: false, published: false, logReuseWait: null, inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: ok([]) };
  r.diff.files = ok({
    files: [
      { fileId: 1, kind: 'data', logicalName: 'lab', physicalName: '/var/opt/mssql/data/lab.mdf', intervalMs: elapsedMs, reads: 2, bytesRead: 16384, readStallMs: 1, writes: 12, bytesWritten: 12 * 8192, writeStallMs: 4, ioStallMs: 5, avgBytesPerWrite: 8192, msPerWrite: 0.33, avgBytesPerRead: 8192, msPerRead: 0.5 },
      { fileId: 2, kind: 'log', logicalName: 'lab_log', physicalName: '/var/opt/mssql/data/lab_log.ldf', intervalMs: elapsedMs, reads: 0, bytesRead: 0, readStallMs: 0, writes: flushes, bytesWritten: bytes, writeStallMs: disabled ? 1100 : 90, ioStallMs: disabled ? 1100 : 90, avgBytesPerWrite: bytes / flushes, msPerWrite: (disabled ? 1100 : 90) / flushes, avgBytesPerRead: null, msPerRead: null },
    ],
    totals: [
      { kind: 'data', files: 1, reads: 2, bytesRead: 16384, writes: 12, bytesWritten: 12 * 8192, writeStallMs: 4, readStallMs: 1, avgBytesPerWrite: 8192, msPerWrite: 0.33 },
      { kind: 'log', files: 1, reads: 0, bytesRead: 0, writes: flushes, bytesWritten: bytes, writeStallMs: disabled ? 1100 : 90, readStallMs: 0, avgBytesPerWrite: bytes / flushes, msPerWrite: (disabled ? 1100 : 90) / flushes },
    ],
    unmatchedFileIds: [],
  } as never);
  r.logFlushTrace = trace(mode, flushes, bytes);
  return r;
}

export function comparisonFixture(): PanelData {
  const modes: DurabilityMode[] = ['DISABLED', 'FORCED'];
  const order = runOrder(modes, 3, false);
  const elapsed: Record<string, number[]> = { DISABLED: [2410, 2380, 2455], FORCED: [402, 417, 395] };
  const runs = order.map((p) => run(p.mode, p.repetition, elapsed[p.mode]![p.repetition]!));
  const result: ComparisonResult = {
    schemaVersion: 1,
    status: 'completed',
    plan: { server: 'sql1,1433', serverVersion: 'Durability Lens stand-in', source: 'stand-in', database: HOSTILE_DATABASE, databaseId: 7, currentSetting: 'DISABLED', modes, repetitions: 3, warmup: false, order, statements: [alterDurabilitySql(HOSTILE_DATABASE, 'FORCED')], restoreStatement: alterDurabilitySql(HOSTILE_DATABASE, 'DISABLED'), dataLossCaveat: DATA_LOSS_CAVEAT, refusals: [], warnings: [], canProceed: true, grant: null },
    runs,
    setupBatchCount: 1,
    restore: { status: 'restored', server: 'sql1,1433', database: HOSTILE_DATABASE, originalSetting: 'DISABLED', verifiedSetting: 'DISABLED', journalCleared: true, restoreStatement: alterDurabilitySql(HOSTILE_DATABASE, 'DISABLED'), message: 'ok' },
    error: null,
  } as ComparisonResult;
  return panelDataFromComparison(result, new Date('2026-01-01T10:00:00Z'));
}

/** A single cancelled profile run with samples every second (log flushes and bytes growing, then a quiet phase). */
export function profileFixture(): PanelData {
  const r = run('DISABLED', 0, 2410);
  r.status = 'cancelled';
  r.cancel = { reason: 'user', atMs: 2400 };
  let flushes = 0;
  let logBytes = 0;
  let dataBytes = 0;
  r.samples = Array.from({ length: 8 }, (_, i) => {
    const active = i < 5;
    flushes += active ? 950 + i * 20 : 3;
    logBytes += active ? 950 * 1536 : 1024;
    dataBytes += i === 6 ? 96 * 8192 : 0;
    return { tMs: i * 1000, files: [{ fileId: 1, reads: 0, bytesRead: 0, writes: 0, bytesWritten: dataBytes, ioStallReadMs: 0, ioStallWriteMs: 0 }, { fileId: 2, reads: 0, bytesRead: 0, writes: flushes, bytesWritten: logBytes, ioStallReadMs: 0, ioStallWriteMs: 0 }], logFlushes: flushes, logBytesFlushed: logBytes, logFlushWaitTimeMs: null };
  });
  r.sampleIntervalMs = 1000;
  // S4-style PRINT "INS: <ms> - CHKPT: <ms>" per iteration: steady inserts, a checkpoint spike every 10th.
  const ins = Array.from({ length: 40 }, (_, i) => (i % 10 === 9 ? 38 : 4 + (i % 3)));
  r.printSeries = [
    { label: 'INS', values: ins, atMs: ins.map((_, i) => i * 60) },
    { label: 'CHKPT', values: ins.map((_, i) => (i % 10 === 9 ? 31 : 0)), atMs: ins.map((_, i) => i * 60) },
  ];
  return panelDataFromRun(r, 'sql1,1433', new Date('2026-01-01T10:05:00Z'));
}
