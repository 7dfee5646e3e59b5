// The concurrency sweep's curve (issue 18): per durability mode and session count, commits per second, log flushes
// per commit, average flush size and WRITELOG per commit (median and min–max over the repetitions), p95 commit
// latency where measurable, and a verdict on how the gain of delayed durability changes with concurrency.
import { valueOf } from '../probes/measurement';
import type { RunResult } from '../profile/types';
import { counter } from './metrics';
import { conclusiveness, MIN_RUNS_FOR_CONCLUSIVE, MORE_RUNS_HINT, summarize, type Summary } from './stats';
import { CONCURRENCY_METRICS, concurrencyCellText, type ConcurrencyMetricId } from './concurrencyFormat';
import { formatFactor } from './units';
import { byCodeUnits } from '../shared/textOrder';

export { CONCURRENCY_METRICS, concurrencyCellText, type ConcurrencyMetric, type ConcurrencyMetricId } from './concurrencyFormat';

/** One point of the curve. The flat figures are the medians; `spread` holds median/min/max/n of each. */
export interface ConcurrencyPoint {
  sessions: number;
  mode: string;
  /** Measured runs at this point (warm-ups excluded). */
  runs: number;
  commitsPerSec: number | null;
  flushesPerCommit: number | null;
  averageFlushBytes: number | null;
  writelogMsPerCommit: number | null;
  /** Not measurable from a client for commits inside a batch: null, with the why in `notMeasured`. */
  p95CommitLatencyMs: number | null;
  spread: Record<ConcurrencyMetricId, Summary | null>;
  /** Figures not measured at this point and why ("not measured" is never zero). */
  notMeasured: Array<{ metric: string; reason: string }>;
}

export interface ConcurrencyModel {
  /** Session counts in ascending order. */
  levels: number[];
  modes: string[];
  points: ConcurrencyPoint[];
  /** "At 8 sessions FORCED gains 1.3× commits per second over DISABLED, at 1 session 9.8×"; null without both modes. */
  verdict: string | null;
}

export const P95_NOT_MEASURED =
  'Commit latency per commit is not observable from the client when the commits happen inside a batch (a loop, a procedure); WRITELOG per commit is the average wait, and the log-flush trace gives the flush latency p95.';

const MODE_ORDER = ['DISABLED', 'ALLOWED', 'FORCED'];

function div(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

interface RunFigures {
  commitsPerSec: number | null;
  flushesPerCommit: number | null;
  averageFlushBytes: number | null;
  writelogMsPerCommit: number | null;
  notMeasured: Array<{ metric: string; reason: string }>;
}

/** One run's figures: commits and flushes from the database's counters, WRITELOG from the sessions' own waits. */
export function runConcurrencyFigures(run: RunResult): RunFigures {
  const notMeasured: RunFigures['notMeasured'] = [];
  const commits = counter(run, 'Write Transactions/sec');
  const flushes = counter(run, 'Log Flushes/sec') ?? run.logFlushTrace?.flushes ?? null;
  const logTotal = valueOf(run.diff.files)?.totals.find((t) => t.kind === 'log');
  const bytes = counter(run, 'Log Bytes Flushed/sec') ?? logTotal?.bytesWritten ?? null;
  const wallMs = run.concurrency?.wallMs ?? run.workloadElapsedMs;
  if (commits === null) notMeasured.push({ metric: 'commits', reason: 'The Write Transactions/sec counter was not read (see "Not measured"): commits per second and the per-commit figures are not measured.' });
  if (flushes === null) notMeasured.push({ metric: 'flushesPerCommit', reason: 'Neither the Log Flushes/sec counter nor the log-flush trace was read.' });
  const writelog = run.concurrency?.writelog ?? null;
  if (writelog === null) notMeasured.push({ metric: 'writelogMsPerCommit', reason: run.concurrency?.writelogNotMeasured ?? "The workload sessions' waits were not read." });
  return {
    commitsPerSec: div(commits, wallMs > 0 ? wallMs / 1000 : null),
    flushesPerCommit: div(flushes, commits),
    averageFlushBytes: div(bytes, flushes),
    writelogMsPerCommit: div(writelog?.waitTimeMs ?? null, commits),
    notMeasured,
  };
}

/** A sweep's runs at its first level (the comparison table's and per-run charts' runs); every run when not a sweep. */
export function firstLevelRuns<R extends Pick<RunResult, 'concurrency'>>(runs: readonly R[]): R[] {
  const first = runs.find((r) => r.concurrency)?.concurrency?.sessions;
  return first === undefined ? [...runs] : runs.filter((r) => r.concurrency?.sessions === first);
}

export function buildConcurrencyModel(allRuns: readonly RunResult[]): ConcurrencyModel | null {
  // A cancelled run's rate covers part of the workload: it is no point on the curve.
  const runs = allRuns.filter((r) => !r.warmup && r.concurrency && r.diff.valid && r.status !== 'cancelled');
  if (!allRuns.some((r) => r.concurrency)) return null;
  const levels = [...new Set(runs.map((r) => r.concurrency!.sessions))].sort((a, b) => a - b);
  const modes = [...new Set(runs.map((r) => r.mode ?? r.delayedDurability ?? 'RUN'))].sort((a, b) => rank(a) - rank(b) || byCodeUnits(a, b));
  const points: ConcurrencyPoint[] = [];
  for (const sessions of levels) {
    for (const mode of modes) {
      const at = runs.filter((r) => r.concurrency!.sessions === sessions && (r.mode ?? r.delayedDurability ?? 'RUN') === mode);
      if (at.length === 0) continue;
      const figures = at.map(runConcurrencyFigures);
      const spread = Object.fromEntries(
        (['commitsPerSec', 'flushesPerCommit', 'averageFlushBytes', 'writelogMsPerCommit'] as const).map((id) => [id, summarize(figures.map((f) => f[id]))]),
      ) as Record<ConcurrencyMetricId, Summary | null>;
      const notMeasured = [...new Map(figures.flatMap((f) => f.notMeasured).map((m) => [m.metric, m])).values()];
      notMeasured.push({ metric: 'p95CommitLatencyMs', reason: P95_NOT_MEASURED });
      points.push({
        sessions,
        mode,
        runs: at.length,
        commitsPerSec: spread.commitsPerSec?.median ?? null,
        flushesPerCommit: spread.flushesPerCommit?.median ?? null,
        averageFlushBytes: spread.averageFlushBytes?.median ?? null,
        writelogMsPerCommit: spread.writelogMsPerCommit?.median ?? null,
        p95CommitLatencyMs: null,
        spread,
        notMeasured,
      });
    }
  }
  return { levels, modes, points, verdict: concurrencyVerdict(points, levels) };
}

function rank(mode: string): number {
  const i = MODE_ORDER.indexOf(mode);
  return i < 0 ? 99 : i;
}

interface LevelGain {
  n: number;
  gain: number;
  /** The gain the runs' ranges allow (slowest delayed vs fastest DISABLED … and the reverse); null ends when a divisor is 0. */
  min: number | null;
  max: number | null;
  /** Runs of each mode at this level, and whether the gain is conclusive there (stats.ts conclusiveness). */
  runs: { base: number; mode: number };
  conclusive: boolean;
}

/** The delayed mode (FORCED, else ALLOWED) and its gain over DISABLED in commits per second at each level, largest first. */
function curveGains(points: readonly ConcurrencyPoint[], levels: readonly number[]): { other: string; gains: LevelGain[] } | null {
  const other = points.some((p) => p.mode === 'FORCED') ? 'FORCED' : points.some((p) => p.mode === 'ALLOWED') ? 'ALLOWED' : null;
  if (!other) return null;
  const gains: LevelGain[] = [];
  for (const n of [...levels].sort((a, b) => b - a)) {
    const base = points.find((p) => p.sessions === n && p.mode === 'DISABLED')?.spread.commitsPerSec ?? null;
    const mine = points.find((p) => p.sessions === n && p.mode === other)?.spread.commitsPerSec ?? null;
    const gain = div(mine?.median ?? null, base?.median ?? null);
    if (gain === null || !base || !mine) continue;
    const judged = conclusiveness(base, mine);
    gains.push({ n, gain, min: div(mine.min, base.max), max: div(mine.max, base.min), runs: { base: base.n, mode: mine.n }, conclusive: judged.conclusive });
  }
  return gains.length === 0 ? null : { other, gains };
}

const sessionsText = (n: number) => `${n} session${n === 1 ? '' : 's'}`;

/**
 * A sweep's headline (issue 28: the verdict must tell the whole curve, not the first level's speed-up alone): the gain
 * at the fewest and at the most sessions, "FORCED gains 15.1× at 1 session, 3.8× at 8 (commits per second vs
 * DISABLED, 2 session counts; 13.0–17.2× and 3.5–4.1×, 3 runs each; conclusive)" — or "indicative" with one run per
 * point. Null without a delayed mode or with fewer than two levels measured in both modes.
 */
export function concurrencyHeadline(model: Pick<ConcurrencyModel, 'points' | 'levels'>): { mode: string; text: string; conclusive: boolean; gains: Array<{ sessions: number; gain: number; min: number | null; max: number | null; conclusive: boolean }> } | null {
  const curve = curveGains(model.points, model.levels);
  if (!curve || curve.gains.length < 2) return null;
  const fewest = curve.gains[curve.gains.length - 1]!;
  const most = curve.gains[0]!;
  const ends = [fewest, most];
  const counts = curve.gains.flatMap((g) => [g.runs.base, g.runs.mode]);
  const runs = counts.every((c) => c === counts[0]) ? (counts[0] === 1 ? 'one run per mode and session count' : `${counts[0]} runs each`) : `${Math.min(...counts)}–${Math.max(...counts)} runs per mode and session count`;
  const range = (g: LevelGain) => (g.min === null || g.max === null ? 'range unknown' : formatFactor(g.min) === formatFactor(g.max) ? formatFactor(g.min) : `${formatFactor(g.min).replace(/×$/, '')}–${formatFactor(g.max)}`);
  const indicative = counts.some((c) => c < MIN_RUNS_FOR_CONCLUSIVE);
  const unclear = curve.gains.filter((g) => !g.conclusive || g.min === null || g.max === null).map((g) => g.n).sort((a, b) => a - b);
  const judgement = indicative
    ? `indicative (${runs}; ${MORE_RUNS_HINT})`
    : `${ends.map(range).join(' and ')}, ${runs}; ${unclear.length === 0 ? 'conclusive' : `not conclusive at ${unclear.join(', ')} session${unclear.length === 1 && unclear[0] === 1 ? '' : 's'}: the runs' ranges overlap`}`;
  const text = `${curve.other} gains ${formatFactor(fewest.gain)} at ${sessionsText(fewest.n)}, ${formatFactor(most.gain)} at ${sessionsText(most.n)} (commits per second vs DISABLED, ${curve.gains.length} session counts; ${judgement})`;
  return { mode: curve.other, text, conclusive: !indicative && unclear.length === 0, gains: [...curve.gains].reverse().map((g) => ({ sessions: g.n, gain: g.gain, min: g.min, max: g.max, conclusive: g.conclusive })) };
}

/** The gain of the delayed mode (FORCED, else ALLOWED) over DISABLED in commits per second, largest level first. */
export function concurrencyVerdict(points: readonly ConcurrencyPoint[], levels: readonly number[]): string | null {
  const curve = curveGains(points, levels);
  if (!curve) return null;
  const { other, gains } = curve;
  const parts = gains.map(({ n, gain }) => `at ${n} session${n === 1 ? '' : 's'} ${other} gains ${formatFactor(gain)}`);
  const text = `Commits per second, ${other} vs DISABLED: ${parts.join(', ')}.`;
  const most = gains[0]!;
  const fewest = gains[gains.length - 1]!;
  const shared = points.find((p) => p.sessions === most.n && p.mode === 'DISABLED')?.flushesPerCommit ?? null;
  if (gains.length > 1 && most.gain < fewest.gain && shared !== null && shared < 1) {
    return `${text} With ${most.n} sessions DISABLED commits shared log flushes (${shared.toFixed(2)} flushes per commit), which leaves delayed durability less to save.`;
  }
  return text;
}

/** The Markdown section: the verdict, one row per level and mode, and what was not measured. */
export function concurrencyMarkdownLines(model: ConcurrencyModel, md: (text: string) => string): string[] {
  const out = ['## Concurrency', ''];
  if (model.verdict) out.push(md(model.verdict), '');
  out.push(`| Sessions | Mode | Runs | ${CONCURRENCY_METRICS.map((m) => md(m.label)).join(' | ')} | p95 commit latency |`);
  out.push(`| ---: | --- | ---: | ${CONCURRENCY_METRICS.map(() => '---:').join(' | ')} | --- |`);
  for (const p of model.points) {
    out.push(`| ${p.sessions} | ${md(p.mode)} | ${p.runs} | ${CONCURRENCY_METRICS.map((m) => md(concurrencyCellText(p.spread[m.id], m.unit))).join(' | ')} | not measured |`);
  }
  out.push('', 'Cells: median (min – max) over the repetitions. Commits: the Write Transactions/sec counter; per second over the wall time from the release of all sessions to the last one finishing.');
  const reasons = [...new Set(model.points.flatMap((p) => p.notMeasured.map((n) => n.reason)))];
  for (const r of reasons) out.push(`- Not measured: ${md(r)}`);
  return out;
}
