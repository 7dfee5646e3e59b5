// Diagnosis rules over a ComparisonModel: each finding says what it concluded and cites the figures it used, so
// the user can check the reasoning. Thresholds are ours (named constants), not SQL Server facts.
import type { RunResult } from '../profile/types';
import type { ComparisonModel, Evidence, Finding, MetricRow } from './comparisonModel';
import { topWait } from './verdict';
import { MIN_RUNS_FOR_CONCLUSIVE, MORE_RUNS_HINT, runsText } from './stats';
import { formatCount, formatDuration, formatFactor } from './units';

export type { Evidence, Finding } from './comparisonModel';

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

/** WRITELOG at least this share of elapsed: the session spent most of its time waiting for log flushes. */
export const WRITELOG_SHARE_HIGH = 0.5;
/** Fewer WRITELOG waits than this say nothing about a flush per commit (S5 warned on one 0.00 ms wait). */
export const MIN_WRITELOG_WAITS = 20;
/** WRITELOG below this share of the elapsed time is not what the workload waits on: no flush warning. */
export const MIN_WRITELOG_SHARE = 0.1;
/** A wait below this share of the elapsed time gets no card of its own. */
export const MIN_SHARE_FOR_CARD = 0.05;
/** A session wait this share of the session's waits or more, not a log wait, leads the diagnosis. */
export const TOP_WAIT_LEAD_SHARE = 0.5;

/**
 * What the session's top wait means, paraphrased from the wait-type table of sys.dm_os_wait_stats
 * (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-wait-stats-transact-sql;
 * team reference sqlserver.md §2.4). Wait types not listed get a generic sentence.
 */
const WAIT_MEANING: { match: RegExp; meaning: string; advice: string }[] = [
  { match: /^IO_COMPLETION$/, meaning: 'waiting for I/O to finish, generally non-data-page I/O (data pages show as PAGEIOLATCH_*)', advice: 'Look at the File IO tab: which file was read or written, and at what latency; checkpoints, sorts and spills, backups and integrity checks cause such I/O.' },
  { match: /^ASYNC_IO_COMPLETION$/, meaning: 'waiting for asynchronous non-data I/O (backups, log shipping, mirroring, some bulk imports)', advice: 'Look at the File IO tab for the read and write throughput per file.' },
  { match: /^PAGEIOLATCH_/, meaning: 'waiting for data pages being read from or written to disk', advice: 'The data files’ read latency (File IO tab) and the buffer pool size decide this wait.' },
];

function waitMeaning(waitType: string): { meaning: string; advice: string } {
  return WAIT_MEANING.find((w) => w.match.test(waitType)) ?? { meaning: 'a wait of the workload session that is not a log flush', advice: 'Look the wait type up in sys.dm_os_wait_stats; the Waits tab lists the session\'s waits.' };
}

const CAVEAT = 'Delayed durability trades durability for speed: commits whose log was not flushed can be lost on a crash, shutdown or restart.';

/**
 * What a crash can cost, only as strong as the sources (reference, DELAYED_DURABILITY): Microsoft Learn says unflushed
 * delayed durable commits can be lost on a crash, shutdown or restart and gives no size bound; Paul Randal describes
 * log blocks being flushed when they reach their 60 KB maximum, which bounds the loss at about one such buffer.
 */
export const LOSS_CAVEAT =
  'On a crash, shutdown or restart, delayed durable commits whose log was not yet flushed can be lost (Microsoft Learn, "Control Transaction Durability"); ' +
  'a log block is flushed when it reaches its 60 KB maximum (Paul Randal), so up to about one 60 KB log buffer per database of committed work can be lost. ' +
  'Run sys.sp_flush_log to harden everything committed so far.';

/** Two decimals, but small ratios keep two significant digits (0.004, not 0.00). */
function perCommitText(v: number): string {
  return v !== 0 && Math.abs(v) < 0.1 ? String(Number(v.toPrecision(2))) : v.toFixed(2);
}

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

  // A failed workload's figures describe a run cut short: the error is the finding, and no speed-up is judged.
  const failure = model.failure;
  if (failure) {
    findings.push({
      id: 'workload-failed',
      severity: 'error',
      title: `The workload failed${failure.line !== null ? ` at line ${failure.line + 1}` : ''} with SQL error ${failure.number}`,
      detail: `${failure.message} The figures below cover only what ran before the error.`,
      suggestion: 'Fix the error (it is marked at its line in the editor) and run again; a script that needs setup can mark it with -- durability-lens: setup-end.',
      evidence: [],
    });
  }

  // The session's top wait decides what leads: a wait that is not a log flush gets its own finding (S4: IO_COMPLETION
  // was 85 % of the session's waits while WRITELOG was 2 % of the elapsed time).
  const top = topWait(model, base);
  const topIsLog = top !== null && (top.waitType === 'WRITELOG' || top.waitType === 'LOGBUFFER');
  if (top && !topIsLog && (top.shareOfWaits ?? 0) >= TOP_WAIT_LEAD_SHARE) {
    const { meaning, advice } = waitMeaning(top.waitType);
    const ofElapsed = top.shareOfElapsed !== null ? `, ${Math.round(top.shareOfElapsed * 100)}% of the elapsed time` : '';
    findings.push({
      id: 'top-wait',
      severity: (top.shareOfElapsed ?? 0) >= WRITELOG_SHARE_HIGH ? 'warning' : 'info',
      title: `${top.waitType} was ${Math.round((top.shareOfWaits ?? 0) * 100)}% of the session's waits in ${label(base)}`,
      detail: `The session waited ${top.ms.toFixed(0)} ms on ${top.waitType}${ofElapsed}: ${meaning}. Delayed durability does not shorten this wait; it only removes the wait for each commit's log flush (WRITELOG).`,
      suggestion: advice,
      evidence: [ev(`wait.${top.waitType}`, base, top.ms), ...(median(model, 'waits.sessionTotalMs', base) !== null ? [ev('waits.sessionTotalMs', base, median(model, 'waits.sessionTotalMs', base)!)] : [])],
    });
  }

  // S2 rule of thumb: WRITELOG average wait vs the log file's average write latency.
  const wlCount = median(model, 'writelog.count', base);
  const wlAvg = median(model, 'writelog.avgMs', base);
  const msPerWrite = median(model, 'log.msPerWrite', base);
  const wlMs = median(model, 'writelog.ms', base);
  const baseElapsed = median(model, 'elapsed', base);
  // Thresholds on the evidence before a warning: enough waits, and enough of the elapsed time to matter.
  const wlMatters = wlCount !== null && wlCount >= MIN_WRITELOG_WAITS && wlAvg !== null && wlAvg > 0 && wlMs !== null && baseElapsed !== null && baseElapsed > 0 && wlMs / baseElapsed >= MIN_WRITELOG_SHARE;
  if (wlMatters && wlCount !== null && wlAvg !== null) {
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

  // WRITELOG share of elapsed: how much of the client's wall time the session spent waiting for log flushes.
  const shares = model.columns
    .map((c) => ({ c, wl: median(model, 'writelog.ms', c), el: median(model, 'elapsed', c) }))
    .filter((x): x is { c: string; wl: number; el: number } => x.wl !== null && x.el !== null && x.el > 0);
  const baseShare = shares.find((x) => x.c === base);
  if (baseShare && baseShare.wl > 0 && baseShare.wl / baseShare.el >= MIN_SHARE_FOR_CARD) {
    // Above 100 %: in a concurrency sweep the sessions' WRITELOG waits add up (see writelog in RunResult.concurrency).
    const pct = (x: { wl: number; el: number }) => (x.wl > x.el ? 'more than 100%' : `${Math.round((100 * x.wl) / x.el)}%`);
    findings.push({
      id: 'writelog-share',
      severity: baseShare.wl / baseShare.el >= WRITELOG_SHARE_HIGH ? 'warning' : 'info',
      title: `WRITELOG was ${pct(baseShare)} of the elapsed time in ${label(base)}`,
      detail: `The session waited ${baseShare.wl.toFixed(0)} ms on WRITELOG during ${baseShare.el.toFixed(0)} ms of elapsed time${shares.length > 1 ? ` (${shares.filter((x) => x.c !== base).map((x) => `${x.c}: ${pct(x)}`).join(', ')})` : ''}: that is the time commits spent waiting for their log to reach disk.`,
      suggestion: null,
      evidence: shares.flatMap((x) => [ev('writelog.ms', x.c, x.wl), ev('elapsed', x.c, x.el)]),
    });
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

  // Flushes per commit in every column: ~1 means each commit waited for its own flush; far below 1, they were shared.
  const perCommit = model.columns
    .map((c) => {
      const id = median(model, 'flushes.counter', c) !== null ? 'flushes.counter' : 'flushes.xe';
      return { c, id, flushes: median(model, id, c), commits: median(model, 'commits', c) };
    })
    .filter((x): x is { c: string; id: string; flushes: number; commits: number } => x.flushes !== null && x.commits !== null && x.commits > 0);
  if (perCommit.length > 0) {
    findings.push({
      id: 'flushes-per-commit',
      severity: 'info',
      title: `Log flushes: ${perCommit.map((x) => `${x.c === 'RUN' ? '' : `${x.c} `}${perCommitText(x.flushes / x.commits)} per commit`).join(', ')}`,
      detail: `${perCommit.map((x) => `${label(x.c)}: ${formatCount(x.flushes)} flushes for ${formatCount(x.commits)} write transactions`).join('; ')}. About 1 flush per commit means every commit waited for its own flush; well below 1 per commit means commits shared flushes (delayed durability, or larger transactions).`,
      suggestion: null,
      evidence: perCommit.flatMap((x) => [ev(x.id, x.c, x.flushes), ev('commits', x.c, x.commits)]),
    });
  }

  // A single set-based statement commits once: nothing for delayed durability to save.
  const elapsedRow = model.rows.find((r) => r.id === 'elapsed');
  if (!failure && commits !== null && commits <= SET_BASED_MAX_COMMITS) {
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

  // The comparison's headline: what a delayed mode saved, with the spread the runs allow, and what it risks.
  const saved = (ratio: number) => Math.round((1 - ratio) * 100);
  for (const [column, cell] of Object.entries(failure ? {} : (elapsedRow?.ratios ?? {}))) {
    if (!cell || cell.ratio === null) continue;
    const before = median(model, 'elapsed', base);
    const after = median(model, 'elapsed', column);
    if (before === null || after === null) continue;
    // spread.min is the best case for the other column (fastest vs slowest baseline): the most it saved.
    const spread = cell.spread.min !== null && cell.spread.max !== null ? ` (spread ${saved(cell.spread.max)}% to ${saved(cell.spread.min)}% over the runs' ranges)` : '';
    const evidence = [ev('elapsed', base, before), ev('elapsed', column, after)];
    const runs = runsText([[base, elapsedRow?.cells[base]?.n ?? 0], [column, elapsedRow?.cells[column]?.n ?? 0]]);
    // One run per mode (issue 28): the gain is shown as indicative — no spread, so never "conclusive", never "noise".
    const indicative = (elapsedRow?.cells[base]?.n ?? 0) < MIN_RUNS_FOR_CONCLUSIVE || (elapsedRow?.cells[column]?.n ?? 0) < MIN_RUNS_FOR_CONCLUSIVE;
    if (indicative && cell.verdict !== 'neutral' && cell.ratio > 0) {
      const by = cell.ratio < 1 ? `${formatFactor(1 / cell.ratio)} faster` : `${formatFactor(cell.ratio)} slower`;
      findings.push({
        id: 'delayed-durability-indicative',
        severity: 'info',
        title: `${column} ran ${by} than ${base} (indicative: ${runs})`,
        detail: `Median elapsed ${formatDuration(after)} vs ${formatDuration(before)} (${cell.ratio < 1 ? `${saved(cell.ratio)}% saved` : `${Math.round((cell.ratio - 1) * 100)}% more`}) from ${runs}: a single run has no spread to judge noise by, so this is not conclusive.`,
        suggestion: `To decide, ${MORE_RUNS_HINT} (at least ${MIN_RUNS_FOR_CONCLUSIVE} runs per mode). ${cell.ratio < 1 ? LOSS_CAVEAT : ''}`.trim(),
        evidence,
      });
    } else if (!cell.inconclusive && cell.verdict === 'better') {
      findings.push({
        id: 'delayed-durability-gain',
        severity: 'info',
        title: `${column} ran ${(1 / cell.ratio).toFixed(1)}× faster than ${base}`,
        detail: `Delayed durability saved ${saved(cell.ratio)}% of the elapsed time${spread}: median ${formatDuration(after)} vs ${formatDuration(before)} over ${runs}, with no overlap between the runs' ranges (conclusive).`,
        suggestion: LOSS_CAVEAT,
        evidence,
      });
    } else if (cell.inconclusive && column !== 'DISABLED' && base === 'DISABLED') {
      findings.push({
        id: 'delayed-durability-inconclusive',
        severity: 'info',
        title: `${column} vs ${base}: no difference beyond the noise`,
        detail: `Median elapsed ${formatDuration(after)} vs ${formatDuration(before)} (${saved(cell.ratio)}% saved${spread}) over ${runs}, but the runs' ranges overlap, so the difference may be noise. Add repetitions to decide (the "Compare: Repetitions" setting, or --repeat N on the command line).`,
        suggestion: null,
        evidence,
      });
    }
  }
  return leadFirst(findings, top?.waitType ?? null);
}

/** The failure first, then the findings about the session's top wait, then the rest in the order they were made. */
function leadFirst(findings: Finding[], topWaitType: string | null): Finding[] {
  const lead: Record<string, Finding['id'][]> = {
    WRITELOG: ['writelog-internal-contention', 'too-many-log-flushes', 'writelog-share', 'commit-per-row'],
    LOGBUFFER: ['logbuffer-high'],
  };
  const leading = new Set<string>(['workload-failed', 'restart-invalid', 'top-wait', ...(topWaitType ? (lead[topWaitType] ?? []) : [])]);
  const rank = (f: Finding) => (f.id === 'workload-failed' ? 0 : f.id === 'restart-invalid' ? 1 : leading.has(f.id) ? 2 : 3);
  return findings.map((f, i) => ({ f, i })).sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i).map((x) => x.f);
}
