// The WRITELOG family: a commit's wait for its log flush, split into what the disk took beyond a healthy write
// (log-disk), what any flush per commit costs even on a healthy disk (tiny-flushes), waiting for a flush other commits
// share (group-commit), and queueing deeper than one write — or LOGBUFFER — where the log writer cannot keep up
// (log-writer-limit). Thresholds are ours (named below), set on Learn's I/O grading; the split is arithmetic over the
// session's WRITELOG, the log file's writes and the flush and commit counters, each shown as evidence.
import { formatBytes, formatCount, formatDuration, formatFixed, formatNumber } from '../units';
import { waitsSource, type CauseInputs } from './inputs';
import type { CauseNotMeasured } from './types';

/**
 * The log write latency a healthy device delivers: Learn's I/O troubleshooting page grades 2–5 ms "Very good" and calls
 * 10–15 ms consistently a bottleneck (LEARN_SLOW_IO). The part of each write above this is the disk's; below it, the
 * cost of flushing at all. So a 10 ms write is half disk, half flush — past Learn's bottleneck mark the disk leads.
 */
export const HEALTHY_LOG_WRITE_MS = 5;
/** Flushes per commit at or above this count as one flush per commit (no sharing). */
export const OWN_FLUSH_PER_COMMIT = 0.8;

export interface Part {
  /** Attributed wait time (ms); null when not measured. */
  ms: number | null;
  evidence: string[];
  notMeasured: CauseNotMeasured | null;
}

export interface LogWriteParts {
  logDisk: Part;
  tinyFlushes: Part;
  groupCommit: Part;
  logWriterLimit: Part;
  /** Figures the verdict line names: average WRITELOG wait, average log write, flushes per commit, bytes per write. */
  figures: { writelogAvgMs: number | null; writeMs: number | null; flushesPerCommit: number | null; bytesPerWrite: number | null };
}

const ms = (v: number) => formatDuration(v);

/** Flushes per commit as the verdict writes them: two decimals, small ratios two significant digits (0.004). */
export function perCommit(v: number): string {
  return v !== 0 && Math.abs(v) < 0.1 ? String(Number(v.toPrecision(2))) : formatFixed(v, 2);
}

export function logWriteParts(inp: CauseInputs): LogWriteParts {
  const figures: LogWriteParts['figures'] = { writelogAvgMs: null, writeMs: null, flushesPerCommit: null, bytesPerWrite: null };
  if (!inp.waits.ok) {
    const part = (): Part => ({ ms: null, evidence: [], notMeasured: (inp.waits as { why: CauseNotMeasured }).why });
    return { logDisk: part(), tinyFlushes: part(), groupCommit: part(), logWriterLimit: part(), figures };
  }
  const w = inp.waits.value.get('WRITELOG') ?? { ms: 0, count: 0 };
  const logBuffer = inp.waits.value.get('LOGBUFFER') ?? { ms: 0, count: 0 };
  const scope = inp.scope === 'server-wide' ? ' (server-wide)' : inp.sessions > 1 ? ` (session 1 of ${inp.sessions})` : '';
  const file = inp.logFile.ok ? inp.logFile.value : null;
  const writeMs = file && file.writes > 0 ? file.stallMs / file.writes : null;
  const bytesPerWrite = file && file.writes > 0 ? file.bytes / file.writes : null;
  const flushesPerCommit = inp.flushes.ok && inp.commits.ok && inp.commits.value > 0 ? inp.flushes.value / inp.commits.value : null;
  const avg = w.count > 0 ? w.ms / w.count : null;
  Object.assign(figures, { writelogAvgMs: avg, writeMs, flushesPerCommit, bytesPerWrite });

  const writelogLine = `WRITELOG${scope}: ${ms(w.ms)} over ${formatCount(w.count)} waits${avg !== null ? ` (${formatNumber(avg, 2)} ms each)` : ''} — ${waitsSource(inp)}`;
  const fileLine = file
    ? file.writes > 0
      ? `log file: ${formatCount(file.writes)} writes, ${formatNumber(writeMs!, 2)} ms each (io_stall_write_ms), ${formatBytes(bytesPerWrite!)} per write — sys.dm_io_virtual_file_stats`
      : 'log file: no writes between the snapshots — sys.dm_io_virtual_file_stats'
    : null;
  const flushLine = flushesPerCommit !== null ? `${perCommit(flushesPerCommit)} log flushes per commit (${formatCount((inp.flushes as { value: number }).value)} flushes, ${formatCount((inp.commits as { value: number }).value)} write transactions) — Log Flushes/sec, Write Transactions/sec` : null;
  const sizeLine = inp.averageFlushBytes !== null ? `${formatBytes(inp.averageFlushBytes)} per flush on average — log-flush trace` : null;
  const logBufferLine = logBuffer.ms > 0 ? `LOGBUFFER${scope}: ${ms(logBuffer.ms)} over ${formatCount(logBuffer.count)} waits — waiting for space in the log buffer ("the log devices cannot keep up", sys.dm_os_wait_stats)` : null;

  if (w.ms <= 0 || w.count === 0) {
    const none = `no WRITELOG wait${scope}: commits did not wait for a log flush`;
    return {
      logDisk: { ms: 0, evidence: [none, ...(fileLine ? [fileLine] : [])], notMeasured: null },
      tinyFlushes: { ms: 0, evidence: [none, ...(flushLine ? [flushLine] : [])], notMeasured: null },
      groupCommit: { ms: 0, evidence: [none], notMeasured: null },
      logWriterLimit: { ms: logBuffer.ms, evidence: logBufferLine ? [logBufferLine] : [none, 'no LOGBUFFER wait'], notMeasured: null },
      figures,
    };
  }

  const shared = flushesPerCommit === null ? 0 : Math.max(0, 1 - Math.min(1, flushesPerCommit));
  if (writeMs === null) {
    // Without the log file's writes the wait cannot be split into disk and queue: all of it is flush cost, shared by
    // the flushes-per-commit ratio; the disk and the writer's queue read "not measured".
    const why: CauseNotMeasured = inp.logFile.ok ? { reason: 'The log file recorded no writes, so its write latency is unknown.', grant: null } : inp.logFile.why;
    return {
      logDisk: { ms: null, evidence: [writelogLine], notMeasured: why },
      tinyFlushes: { ms: w.ms * (1 - shared), evidence: [writelogLine, ...(flushLine ? [flushLine] : ['flushes per commit not measured: the whole wait counted as one flush per commit']), ...(sizeLine ? [sizeLine] : [])], notMeasured: null },
      groupCommit: { ms: w.ms * shared, evidence: [writelogLine, ...(flushLine ? [flushLine] : [])], notMeasured: null },
      logWriterLimit: { ms: logBuffer.ms, evidence: [...(logBufferLine ? [logBufferLine] : ['no LOGBUFFER wait']), 'queueing behind other log writes not measured (no log write latency to compare the wait with)'], notMeasured: null },
      figures,
    };
  }

  const n = w.count;
  const a = w.ms / n;
  const device = n * Math.min(a, writeMs);
  const oneWriteQueue = n * Math.min(Math.max(a - writeMs, 0), writeMs);
  const deepQueue = n * Math.max(a - 2 * writeMs, 0);
  const disk = writeMs > 0 ? device * (Math.max(0, writeMs - HEALTHY_LOG_WRITE_MS) / writeMs) : 0;
  const base = device - disk;
  // One session that flushes per commit shares no flush: the wait beyond its write is the log writer's own (Learn's
  // "log writer threads not scheduled fast enough"), not a group's.
  const alone = inp.sessions <= 1 && (flushesPerCommit === null || flushesPerCommit >= OWN_FLUSH_PER_COMMIT) && inp.scope === 'session';
  const tiny = base * (1 - shared);
  const group = base * shared + (alone ? 0 : oneWriteQueue);
  const writer = deepQueue + (alone ? oneWriteQueue : 0) + logBuffer.ms;
  const waitVsWrite = `a WRITELOG wait lasted ${formatNumber(a, 2)} ms for a ${formatNumber(writeMs, 2)} ms log write (${formatNumber(a / Math.max(writeMs, 1e-9), 1)}×)`;
  return {
    logDisk: {
      ms: disk,
      evidence: [fileLine!, writeMs > HEALTHY_LOG_WRITE_MS ? `${formatNumber(writeMs - HEALTHY_LOG_WRITE_MS, 2)} ms of each write is above the ${HEALTHY_LOG_WRITE_MS} ms a healthy log device delivers (Learn grades 2–5 ms "very good"; 10–15 ms consistently is an I/O bottleneck)` : `log writes take ${formatNumber(writeMs, 2)} ms, within the ${HEALTHY_LOG_WRITE_MS} ms of a healthy log device`, ...(inp.vlfCount !== null && inp.vlfCount > 1000 ? [`${formatCount(inp.vlfCount)} VLFs (Learn lists too many VLFs among WRITELOG's causes)`] : [])],
      notMeasured: null,
    },
    tinyFlushes: { ms: tiny, evidence: [writelogLine, ...(flushLine ? [flushLine] : ['flushes per commit not measured: the flush cost counted as one flush per commit']), ...(sizeLine ? [sizeLine] : []), `${formatBytes(bytesPerWrite!)} per log write`], notMeasured: null },
    groupCommit: {
      ms: group,
      evidence: [
        inp.sessions > 1 ? `${inp.sessions} sessions committing at once` : 'one workload session',
        ...(flushLine ? [flushLine] : []),
        alone ? 'no flush shared: one session, about one flush per commit' : waitVsWrite,
      ],
      notMeasured: null,
    },
    logWriterLimit: {
      ms: writer,
      evidence: [waitVsWrite, deepQueue > 0 ? `${ms(deepQueue)} queued behind more than one log write: more writes than the log writer has in flight` : 'no wait beyond one log write in flight', ...(logBufferLine ? [logBufferLine] : ['no LOGBUFFER wait'])],
      notMeasured: null,
    },
    figures,
  };
}
