// Diagnosis rules over a ComparisonModel: each finding says what it concluded and cites the figures it used, so
// the user can check the reasoning. Thresholds are ours (named constants), not SQL Server facts.
import type { RunResult } from '../profile/types';
import type { ComparisonModel, MetricRow } from './comparison';

export interface Evidence {
  metric: string;
  column: string;
  value: number;
}

export interface Finding {
  id: 'restart-invalid' | 'writelog-internal-contention' | 'too-many-log-flushes' | 'commit-per-row' | 'no-gain-set-based' | 'logbuffer-high' | 'delayed-durability-gain';
  severity: 'info' | 'warning' | 'error';
  title: string;
  detail: string;
  suggestion: string | null;
  evidence: Evidence[];
}

/** "Much longer" in the S2 rule of thumb: WRITELOG average at least this many times the log write latency. */
export const CONTENTION_FACTOR = 2;
/** Flushes within this fraction of commits count as one flush per commit. */
export const FLUSH_PER_COMMIT_TOLERANCE = 0.2;
/** Fewer commits than this never make the commit-per-row finding (too little to judge). */
export const MIN_COMMITS_FOR_PER_ROW = 50;
/** At most this many commits: the workload is set-based (one or a few statements). */
export const SET_BASED_MAX_COMMITS = 3;
/** LOGBUFFER above this share of the session's wait time counts as high. */
export const LOGBUFFER_SHARE = 0.1;

const CAVEAT = 'Delayed durability trades durability for speed: commits whose log was not flushed can be lost on a crash, shutdown or restart.';

function median(model: ComparisonModel, id: string, column: string): number | null {
  const row: MetricRow | undefined = model.rows.find((r) => r.id === id);
  return row?.cells[column]?.median ?? null;
}

function ev(metric: string, column: string, value: number): Evidence {
  return { metric, column, value };
}

export function diagnose(model: ComparisonModel, runs: readonly RunResult[]): Finding[] {
  const findings: Finding[] = [];
  const restarted = runs.filter((r) => r.diff.restartDetected === true);
  if (restarted.length > 0) {
    findings.push({
      id: 'restart-invalid',
      severity: 'error',
      title: 'SQL Server restarted during the measurement',
      detail: `${restarted.length} run(s) spanned an engine restart, so their cumulative counters started over; those runs are invalid and left out.`,
      suggestion: 'Run the measurement again.',
      evidence: [],
    });
  }

  const base = model.baseline;
  const label = (c: string) => (c === 'RUN' ? 'the run' : c);

  // S2 rule of thumb: WRITELOG average wait vs the log file's average write latency.
  const wlCount = median(model, 'writelog.count', base);
  const wlAvg = median(model, 'writelog.avgMs', base);
  const msPerWrite = median(model, 'log.msPerWrite', base);
  if (wlCount !== null && wlCount > 0 && wlAvg !== null) {
    if (msPerWrite !== null && msPerWrite > 0 && wlAvg >= CONTENTION_FACTOR * msPerWrite) {
      findings.push({
        id: 'writelog-internal-contention',
        severity: 'warning',
        title: 'WRITELOG waits are much longer than the log writes themselves',
        detail: `In ${label(base)}, WRITELOG averaged ${wlAvg.toFixed(2)} ms per wait while a log write took ${msPerWrite.toFixed(2)} ms on average: the time goes to contention inside SQL Server, not to the disk.`,
        suggestion: 'Look at concurrent sessions committing to the same log, and at the other waits; a faster disk would not help much.',
        evidence: [ev('writelog.avgMs', base, wlAvg), ev('log.msPerWrite', base, msPerWrite), ev('writelog.count', base, wlCount)],
      });
    } else {
      findings.push({
        id: 'too-many-log-flushes',
        severity: 'warning',
        title: 'The workload waits on many small log flushes',
        detail: `In ${label(base)}, WRITELOG averaged ${wlAvg.toFixed(2)} ms per wait over ${wlCount} waits${msPerWrite !== null ? `, close to the log write latency (${msPerWrite.toFixed(2)} ms)` : ''}: the disk is not slow, the workload simply asks for a flush per commit.`,
        suggestion: `Batch the commits (one transaction around many rows), or consider delayed durability. ${CAVEAT}`,
        evidence: [ev('writelog.avgMs', base, wlAvg), ev('writelog.count', base, wlCount), ...(msPerWrite !== null ? [ev('log.msPerWrite', base, msPerWrite)] : [])],
      });
    }
  }

  // Commit per row: log flushes ≈ commits.
  const commits = median(model, 'commits', base);
  // The counter is exact; the XE count can lose events (ring buffer limits), so it is the fallback.
  const flushId = median(model, 'flushes.counter', base) !== null ? 'flushes.counter' : 'flushes.xe';
  const flushes = median(model, flushId, base);
  if (commits !== null && flushes !== null && commits >= MIN_COMMITS_FOR_PER_ROW && Math.abs(flushes - commits) <= FLUSH_PER_COMMIT_TOLERANCE * commits) {
    findings.push({
      id: 'commit-per-row',
      severity: 'warning',
      title: 'One log flush per commit',
      detail: `In ${label(base)}, ${flushes} log flushes for ${commits} write transactions: each commit waited for its own flush (typical of a loop committing every row).`,
      suggestion: `Wrap the loop in one transaction (or commit every N rows). ${CAVEAT}`,
      evidence: [ev(flushId, base, flushes), ev('commits', base, commits)],
    });
  }

  // A single set-based statement commits once: nothing for delayed durability to save.
  const elapsedRow = model.rows.find((r) => r.id === 'elapsed');
  if (commits !== null && commits <= SET_BASED_MAX_COMMITS) {
    const others = Object.entries(elapsedRow?.ratios ?? {}).filter(([, cell]) => cell !== null);
    const noGain = others.filter(([, cell]) => cell!.inconclusive || (cell!.ratio !== null && cell!.ratio > 0.8 && cell!.ratio < 1.25));
    if (others.length === 0 || noGain.length > 0) {
      findings.push({
        id: 'no-gain-set-based',
        severity: 'info',
        title: 'Little to gain from delayed durability here',
        detail: `The workload made ${commits} write transaction(s) in ${label(base)}: a set-based statement commits once, so it waits for at most a few flushes${noGain.length > 0 ? `, and ${noGain.map(([c]) => c).join(', ')} ran no faster beyond the noise` : ''}.`,
        suggestion: null,
        evidence: [ev('commits', base, commits), ...noGain.map(([c]) => ev('elapsed', c, median(model, 'elapsed', c) ?? 0))],
      });
    }
  }

  // LOGBUFFER: sessions waiting for space in the log buffer → the log device cannot keep up.
  const lbMs = median(model, 'logbuffer.ms', base);
  const totalMs = median(model, 'waits.sessionTotalMs', base);
  if (lbMs !== null && totalMs !== null && lbMs > 0 && lbMs >= LOGBUFFER_SHARE * totalMs) {
    findings.push({
      id: 'logbuffer-high',
      severity: 'warning',
      title: 'LOGBUFFER waits are high',
      detail: `In ${label(base)}, LOGBUFFER took ${lbMs} ms of the session's ${totalMs} ms of waits: log records waited for space in the log buffer, so the log device cannot keep up with the log generated.`,
      suggestion: 'Check the log file volume latency and throughput; move the log to faster storage.',
      evidence: [ev('logbuffer.ms', base, lbMs), ev('waits.sessionTotalMs', base, totalMs)],
    });
  }

  // The comparison's headline: a delayed mode that ran clearly faster.
  for (const [column, cell] of Object.entries(elapsedRow?.ratios ?? {})) {
    if (!cell || cell.inconclusive || cell.verdict !== 'better' || cell.ratio === null) continue;
    const before = median(model, 'elapsed', base);
    const after = median(model, 'elapsed', column);
    if (before === null || after === null) continue;
    findings.push({
      id: 'delayed-durability-gain',
      severity: 'info',
      title: `${column} ran ${(1 / cell.ratio).toFixed(1)}× faster than ${base}`,
      detail: `Median elapsed ${after.toFixed(0)} ms vs ${before.toFixed(0)} ms, with no overlap between the runs' ranges.`,
      suggestion: CAVEAT,
      evidence: [ev('elapsed', base, before), ev('elapsed', column, after)],
    });
  }
  return findings;
}
