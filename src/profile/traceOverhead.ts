// The per-statement trace's own cost (issue 28 item 5): the same workload run with and without the statement trace,
// alternating, summarised as elapsed medians and ranges, a ratio and, where the trace counted every execution, a cost
// per statement. Pure (types and arithmetic only), so the report and the webview read it without the profile layer.
// RunResult (types.ts) carries it, so this file names the run status and figure source itself (no import circle).
import type { StatementAttribution } from './statementAttribution';
import type { StatementFigure } from './statementFigure';

type FigureSource = 'sql-server' | 'stand-in';
type RunStatus = 'completed' | 'workload-error' | 'cancelled';

/** How to switch the per-statement trace off, said with every figure. */
export const STATEMENT_TRACE_SWITCH_OFF = 'the setting durabilityLens.xe.statements: false (CLI: --no-statements)';

/** How to ask for the measurement, said when it was not asked for. */
export const TRACE_OVERHEAD_SWITCH_ON = 'the setting durabilityLens.xe.traceOverheadRuns: 2 (CLI: profile --trace-overhead 2)';

/** Runs with the trace (and as many without) when asked: at least 2 each, so a range exists; at most 10. */
export const TRACE_OVERHEAD_MIN_RUNS = 2;
export const TRACE_OVERHEAD_MAX_RUNS = 10;

/** One run of the alternation, in the order it was made. */
export interface TraceOverheadRun {
  /** 1-based position in the alternation (1 = the run whose figures the report shows). */
  order: number;
  /** Whether the per-statement trace ran during it (the log-flush trace runs in both, as configured). */
  trace: 'with' | 'without';
  /** Client wall time of the measured batches (the run's workloadElapsedMs), ms. */
  elapsedMs: number;
  status: RunStatus;
}

/** Elapsed times of one side of the alternation. */
export interface ElapsedSummary {
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
}

/**
 * The trace's cost. Every figure is null when `status` is 'not-measured' (never a 0): `reason` says why and `fix`
 * what turns it on. docs/run-result-schema.md "traceOverhead".
 */
export interface TraceOverhead {
  status: 'measured' | 'not-measured';
  /** Why it was not measured; null when measured. */
  reason: string | null;
  /** The setting or flag that would measure it; null when measured or when nothing the user sets would help. */
  fix: string | null;
  /** Where the elapsed times come from: the stand-in's figures are its model's, never SQL Server's. */
  source: FigureSource;
  /** Runs asked for on each side; null when not asked for. */
  runsEach: number | null;
  /** Every run made, in order (also when the alternation stopped early). */
  runs: TraceOverheadRun[];
  withTrace: ElapsedSummary | null;
  withoutTrace: ElapsedSummary | null;
  /** Median with ÷ median without (3 decimals). */
  ratio: number | null;
  /** (ratio − 1) × 100, one decimal: how much the trace slowed the run (negative: no slowdown seen). */
  percent: number | null;
  /** Median with − median without, ms. */
  extraMs: number | null;
  /** The two min–max ranges overlap: the difference may be noise. */
  rangesOverlap: boolean | null;
  /** extraMs ÷ statementExecutions (ms per traced statement), 4 decimals; null when not derivable (perStatementReason). */
  perStatementMs: number | null;
  /** Statement executions the trace counted in the first run with it; null when its counts are not exact. */
  statementExecutions: number | null;
  /** Why perStatementMs is null (when the overhead itself was measured). */
  perStatementReason: string | null;
  /** How to switch the per-statement trace off. */
  switchOff: string;
}

/** "Not measured" with why and what would measure it: every figure null. */
export function traceOverheadNotMeasured(reason: string, fix: string | null, source: FigureSource, runsEach: number | null = null, runs: TraceOverheadRun[] = []): TraceOverhead {
  return {
    status: 'not-measured', reason, fix, source, runsEach, runs,
    withTrace: null, withoutTrace: null, ratio: null, percent: null, extraMs: null, rangesOverlap: null,
    perStatementMs: null, statementExecutions: null, perStatementReason: null, switchOff: STATEMENT_TRACE_SWITCH_OFF,
  };
}

/** The order of the alternation: with, without, with, without … (the first run is a plain profile's run). */
export function alternation(runsEach: number): Array<'with' | 'without'> {
  const out: Array<'with' | 'without'> = [];
  for (let i = 0; i < runsEach; i++) out.push('with', 'without');
  return out;
}

function median(sorted: readonly number[]): number {
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarizeElapsed(values: readonly number[]): ElapsedSummary | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return { runs: sorted.length, medianMs: median(sorted), minMs: sorted[0]!, maxMs: sorted[sorted.length - 1]! };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * Statement executions of a traced run when the trace counted every one of them: the server's exact counts, or a
 * sample that kept every event. Otherwise why not.
 */
export function tracedExecutions(attribution: StatementAttribution | null | undefined, statements: readonly StatementFigure[] | undefined): number | string {
  if (!attribution || attribution.status !== 'measured') return 'the first run with the trace has no statement figures';
  const figures = statements ?? [];
  if (figures.some((f) => f.approximate)) return 'the trace\'s statement counts in the first run with it are approximate';
  const exact = figures.length > 0 && figures.every((f) => f.counts === 'exact');
  const complete = attribution.eventsCounted !== null && attribution.eventsSeen !== null && attribution.eventsCounted <= attribution.eventsSeen;
  if (!exact && !complete) return 'the trace kept only part of the first run\'s statements (ring buffer), so their number is not known';
  const executions = figures.reduce((n, f) => n + f.executions, 0) + (attribution.unlisted?.executions ?? 0);
  return executions > 0 ? executions : 'no statement completed while traced';
}

/**
 * Summarises an alternation that ran to its end. `executions` is tracedExecutions() of the first run with the trace.
 * A side without runs, or runs without the trace that took 0 ms, leave it not measured (a ratio of nothing is no 0).
 */
export function summarizeTraceOverhead(runs: readonly TraceOverheadRun[], runsEach: number, executions: number | string, source: FigureSource): TraceOverhead {
  const withTrace = summarizeElapsed(runs.filter((r) => r.trace === 'with').map((r) => r.elapsedMs));
  const withoutTrace = summarizeElapsed(runs.filter((r) => r.trace === 'without').map((r) => r.elapsedMs));
  if (!withTrace || !withoutTrace) return traceOverheadNotMeasured('The alternation has no run on one side (with or without the per-statement trace).', null, source, runsEach, [...runs]);
  if (withoutTrace.medianMs <= 0) {
    return traceOverheadNotMeasured('The runs without the per-statement trace took 0 ms: too short to compare. Give the workload more to do (a longer loop).', null, source, runsEach, [...runs]);
  }
  const extraMs = withTrace.medianMs - withoutTrace.medianMs;
  const ratio = withTrace.medianMs / withoutTrace.medianMs;
  // A cost per statement only for a slowdown: runs with the trace as fast or faster than without it show no cost to
  // spread (noise, a cold run on the other side), and a negative "cost" would read as a gain from tracing.
  const noSlowdown = extraMs <= 0 ? 'the runs with the trace were not slower than those without it (noise or a cold run)' : null;
  const perStatement = typeof executions === 'number' && noSlowdown === null ? round(extraMs / executions, 4) : null;
  const perStatementWhy = typeof executions === 'string' ? executions : noSlowdown;
  return {
    status: 'measured',
    reason: null,
    fix: null,
    source,
    runsEach,
    runs: [...runs],
    withTrace,
    withoutTrace,
    ratio: round(ratio, 3),
    percent: round((ratio - 1) * 100, 1),
    extraMs: round(extraMs, 3),
    rangesOverlap: withTrace.minMs <= withoutTrace.maxMs && withoutTrace.minMs <= withTrace.maxMs,
    perStatementMs: perStatement,
    statementExecutions: typeof executions === 'number' && perStatement !== null ? executions : null,
    perStatementReason: perStatementWhy === null ? null : `No cost per statement: ${perStatementWhy}.`,
    switchOff: STATEMENT_TRACE_SWITCH_OFF,
  };
}
