// Measuring the per-statement trace's cost inside a profile (issue 28 item 5): the first run is the profile's own run
// (with the trace, as configured); when asked, the workload then runs again on the same sessions, alternating without
// and with the trace, and the result carries the elapsed times as `traceOverhead` (traceOverhead.ts). A run that cannot
// be compared (error, cancel, a trace that did not run) ends the alternation: the result stays, the overhead says
// "not measured" with why. Running the workload more than once is only done when asked (the CLI flag or the setting,
// shown in the confirmation), never by default.
import type { WorkloadBatch } from '../db/types';
import { measureRun, ProfileCancelledError, type MeasureOptions, type RunContext } from './measureRun';
import {
  alternation,
  summarizeTraceOverhead,
  tracedExecutions,
  traceOverheadNotMeasured,
  TRACE_OVERHEAD_MAX_RUNS,
  TRACE_OVERHEAD_MIN_RUNS,
  TRACE_OVERHEAD_SWITCH_ON,
  type TraceOverhead,
  type TraceOverheadRun,
} from './traceOverhead';
import type { RunResult } from './types';

/** What profileRun hands over: how many runs each way, and how to repeat the script's setup before a run. */
export interface TraceOverheadPlan {
  /** Runs with the per-statement trace and as many without; undefined: not asked for (one run, as always). */
  runsEach: number | undefined;
  /** Runs the script's setup again before each further run (undefined: the script has none). Throws on failure. */
  repeatSetup?: (() => Promise<void>) | undefined;
}

/** The user-facing description of the plan ("runs the selection 4 times: 2 with the per-statement trace, 2 without"). */
export function traceOverheadPlanText(runsEach: number): string {
  return `runs the workload ${runsEach * 2} times: ${runsEach} with the per-statement trace, ${runsEach} without (alternating, to measure what the trace costs)`;
}

/** A usage problem with the number of runs, or null; `given`: the text it was read from, as the message quotes it. */
export function traceOverheadRunsProblem(runsEach: number, given = String(runsEach)): string | null {
  return Number.isInteger(runsEach) && runsEach >= TRACE_OVERHEAD_MIN_RUNS && runsEach <= TRACE_OVERHEAD_MAX_RUNS
    ? null
    : `the trace-overhead measurement takes ${TRACE_OVERHEAD_MIN_RUNS}–${TRACE_OVERHEAD_MAX_RUNS} runs each way, not '${given}'`;
}

/** The profile's run, plus (when asked) the alternation and its summary as the result's `traceOverhead`. */
export async function measureWithTraceOverhead(ctx: RunContext, batches: readonly WorkloadBatch[], options: MeasureOptions, plan: TraceOverheadPlan): Promise<RunResult> {
  // Why the alternation cannot run, decided before the first run (so its progress is not labelled as one of several).
  const refused = refusalOf(ctx, plan.runsEach);
  const runsEach = refused ? undefined : plan.runsEach;
  const total = runsEach === undefined ? 1 : runsEach * 2;
  const labelled = (order: number, trace: 'with' | 'without'): RunContext =>
    runsEach === undefined || !ctx.onProgress ? ctx : { ...ctx, onProgress: (e) => ctx.onProgress!({ ...e, run: `run ${order} of ${total}: ${trace} the per-statement trace` }) };
  const first = await measureRun(labelled(1, 'with'), batches, options);
  const traceOverhead = refused
    ? traceOverheadNotMeasured(refused.reason, refused.fix, first.source, plan.runsEach ?? null)
    : await alternate(ctx, batches, options, { ...plan, runsEach: runsEach! }, first, labelled);
  return { ...first, traceOverhead };
}

/** Why this run gets no alternation: the trace is off, the run is on several sessions, or nobody asked. */
function refusalOf(ctx: RunContext, runsEach: number | undefined): { reason: string; fix: string | null } | null {
  if (ctx.xe?.enabled === false || ctx.xe?.statements === false) {
    const off = ctx.xe?.enabled === false ? 'Extended Events were off for this run (durabilityLens.xe.enabled / --no-xe)' : 'the per-statement trace was off for this run (durabilityLens.xe.statements / --no-statements)';
    return { reason: `Not measured: ${off}, so it did not slow this run.`, fix: null };
  }
  if (ctx.concurrent) return { reason: 'Not measured: the per-statement trace follows one session and this run used several (--sessions).', fix: null };
  if (runsEach === undefined) {
    return { reason: 'Not measured: the per-statement trace adds work to every statement of this run; its cost is measured only when asked, since that runs the workload several times.', fix: TRACE_OVERHEAD_SWITCH_ON };
  }
  return null;
}

async function alternate(
  ctx: RunContext,
  batches: readonly WorkloadBatch[],
  options: MeasureOptions,
  plan: TraceOverheadPlan & { runsEach: number },
  first: RunResult,
  labelled: (order: number, trace: 'with' | 'without') => RunContext,
): Promise<TraceOverhead> {
  const source = first.source;
  const runsEach = plan.runsEach;
  const firstRun: TraceOverheadRun = { order: 1, trace: 'with', elapsedMs: first.workloadElapsedMs, status: first.status };
  const runs: TraceOverheadRun[] = [firstRun];
  const stop = (why: string, fix: string | null = null) => traceOverheadNotMeasured(`Not measured: ${why}`, fix, source, runsEach, runs);
  const unusable = (r: RunResult, order: number): string | null => {
    if (r.status === 'cancelled') return `run ${order} of ${runsEach * 2} was cancelled, so the runs cannot be compared.`;
    if (r.status === 'workload-error') return `run ${order} of ${runsEach * 2} ended with a workload error (${r.errors[0]?.message ?? 'see the run'}), so the runs cannot be compared.`;
    return null;
  };
  const firstProblem = unusable(first, 1);
  if (firstProblem) return stop(firstProblem);
  const attribution = first.statementAttribution;
  if (attribution?.status !== 'measured') return stop(`the per-statement trace did not run (${attribution?.reason ?? 'no statement figures'}).`, attribution?.grant ?? null);
  const order = alternation(runsEach);
  for (let i = 1; i < order.length; i++) {
    const trace = order[i]!;
    const position = i + 1;
    if (ctx.signal?.aborted) return stop(`cancelled after ${i} of ${order.length} runs.`);
    let run: RunResult;
    try {
      await plan.repeatSetup?.();
      const runCtx = labelled(position, trace);
      const xe = { ...ctx.xe, statements: trace === 'with', statementsOffReason: trace === 'with' ? undefined : 'A run without the per-statement trace, made to measure what the trace costs.' };
      run = await measureRun({ ...runCtx, xe }, batches, { ...options, repetition: i });
    } catch (err) {
      if (err instanceof ProfileCancelledError || ctx.signal?.aborted) return stop(`cancelled after ${i} of ${order.length} runs.`);
      return stop(`run ${position} of ${order.length} failed (${(err as Error).message}); the report shows run 1.`);
    }
    runs.push({ order: position, trace, elapsedMs: run.workloadElapsedMs, status: run.status });
    const problem = unusable(run, position);
    if (problem) return stop(problem);
    if (trace === 'with' && run.statementAttribution?.status !== 'measured') {
      return stop(`the per-statement trace did not run in run ${position} (${run.statementAttribution?.reason ?? 'no statement figures'}).`, run.statementAttribution?.grant ?? null);
    }
  }
  return summarizeTraceOverhead(runs, runsEach, tracedExecutions(attribution, first.statements), source);
}
