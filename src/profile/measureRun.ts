// One measured run on open sessions, step by step: preflight (MONITOR) → before snapshot with both event sessions'
// start (runTraces.ts) → sampler and the user's batches (WORKLOAD, runWorkload.ts) → after snapshot with the traces'
// STOPs (also after a cancel) → traces read → sessions dropped in finally → diff → RunResult (runResult.ts).
import { prefetch } from '../db/batch';
import type { SqlClient, WorkloadBatch } from '../db/types';
import { captureSnapshot, diffSnapshots, identifyWithPreflight, snapshotQueries, type PreflightResult, type ServerIdentity, type Snapshot, type SnapshotDiff } from '../probes';
import { progress, throwIfAborted, type MeasureOptions, type RunContext } from './runContext';
import { runResultOf } from './runResult';
import { RunTraces } from './runTraces';
import { WorkloadStep } from './runWorkload';
import type { SamplerResult } from './sampler';
import type { DurabilityMode, MissingMeasurement, RunResult } from './types';

export { figureSourceOf, LIVE_PROGRESS_MS, ProfileCancelledError, readTargetDatabase, TARGET_DATABASE_SQL, throwIfAborted, type MeasureOptions, type RunContext, type TargetDatabase } from './runContext';
export { counterDelta, databaseChangeOf } from './runResult';

type SnapshotTarget = Parameters<typeof captureSnapshot>[1];

/**
 * Runs `batches` once between two snapshots on already-open sessions. A workload error ends the batches but the
 * run is still measured (status 'workload-error'). A cancel (signal or workloadTimeoutMs) sends an attention, waits
 * for its acknowledgement (the batch report), still takes the after-snapshot and returns status 'cancelled'; only a
 * cancel before the before-snapshot throws ProfileCancelledError.
 */
export async function measureRun(ctx: RunContext, batches: readonly WorkloadBatch[], options: MeasureOptions = {}): Promise<RunResult> {
  const { workload, target, signal } = ctx;
  const startedAt = new Date().toISOString();
  const notes: string[] = [];
  const extraMissing: MissingMeasurement[] = [];
  throwIfAborted(signal);

  const traces = new RunTraces(ctx, notes, extraMissing);
  const { preflight, identity, planning } = await readPreflight(ctx, traces.planningReads, notes);
  throwIfAborted(signal);

  // In a concurrency run the session rows describe session 1; the sessions' summed WRITELOG is in `concurrency`.
  const snapshotTarget: SnapshotTarget = { databaseId: target.databaseId, databaseName: target.databaseName, workloadSpid: ctx.concurrent?.sessions[0]?.spid ?? workload.spid };
  // Planned from the preflight's answers: nothing is created yet.
  await traces.prepare(preflight, planning);

  const run = new WorkloadStep(ctx, batches, notes);
  let before: Snapshot;
  let sampled: SamplerResult | null;
  let diff: SnapshotDiff;
  let delayedDurabilityAfter: DurabilityMode | null = null;
  try {
    progress(ctx, 'snapshot-before');
    before = await takeBeforeSnapshot(ctx, snapshotTarget, identity, traces);
    throwIfAborted(signal);
    await run.startSampler(before);
    await run.run(before);
    await run.pauseSampler();
    progress(ctx, 'snapshot-after');
    const { after, endOfRun } = await takeAfterSnapshot(ctx, snapshotTarget, before, traces, notes);
    sampled = await run.stopSampler(after);
    delayedDurabilityAfter = after.delayedDurabilityNow ?? null;
    // One diff serves the trace's counter cross-check and the result. Session waits unabridged (every wait type of
    // the session); server waits beyond the top 100 are summed in `others`.
    diff = diffSnapshots(before, after, { sessionWaits: { topN: 1000 }, waits: { topN: 100, include: ctx.waits?.include, exclude: ctx.waits?.exclude } });
    await traces.collect(diff, batches, endOfRun);
  } finally {
    // An error above must not leave the sampler querying the monitor while the traces are dropped.
    await run.dispose();
    await traces.drop();
  }

  const result = runResultOf({
    startedAt,
    options,
    workloadSpid: workload.spid,
    databaseHistory: workload.databaseHistory,
    measuredDatabase: target.databaseName,
    preflight,
    before,
    diff,
    workload: run,
    sampled,
    logFlushTrace: traces.logFlushTrace,
    statements: traces.statements,
    statementAttribution: traces.statementAttribution,
    extraMissing,
    notes,
    delayedDurabilityAfter,
  });
  // One run knows nothing of others: a profile's alternation (traceOverheadRun.ts) fills it in; comparison, sweep and
  // recording runs never run the per-statement trace, so theirs stays null (their statementAttribution says why).
  return { ...result, traceOverhead: null };
}

/**
 * The permission preflight and the server's identity in one request, with the traces' planning reads composed in
 * (so the traces start in one more); skipped when the caller read it (a comparison reads it once). A failed preflight
 * is a note: each measurement then reports for itself.
 */
async function readPreflight(ctx: RunContext, planningReads: Parameters<typeof identifyWithPreflight>[2], notes: string[]): Promise<{ preflight: PreflightResult | null | undefined; identity: ServerIdentity | undefined; planning: SqlClient }> {
  if (ctx.preflight !== undefined) return { preflight: ctx.preflight, identity: undefined, planning: ctx.monitor };
  progress(ctx, 'preflight');
  try {
    const { identity, preflight, answers } = await identifyWithPreflight(ctx.monitor, ctx.target.databaseName, planningReads);
    return { preflight, identity, planning: answers };
  } catch (err) {
    notes.push(`The permission preflight failed (${(err as Error).message}); each measurement reports for itself.`);
    return { preflight: null, identity: undefined, planning: ctx.monitor };
  }
}

/**
 * The before-snapshot, then both event sessions' CREATE + START: one request when the identity (from the preflight)
 * plans the snapshot (db/batch.ts; the snapshot's reads come first in it, so they still precede the sessions). The
 * sessions are started from its answers before anything else is read from them, so a failure after the request still
 * leaves them marked as possibly existing: the caller's finally drops them. Without the identity (a comparison's runs
 * read it once, before) the snapshot identifies the server first and the sessions start in a request of their own.
 */
async function takeBeforeSnapshot(ctx: RunContext, snapshotTarget: SnapshotTarget, identity: ServerIdentity | undefined, traces: RunTraces): Promise<Snapshot> {
  if (!identity) {
    const before = await captureSnapshot(ctx.monitor, snapshotTarget, {});
    await traces.start();
    return before;
  }
  const startOfRun = await prefetch(ctx.monitor, [...snapshotQueries(snapshotTarget, identity), ...traces.startQueries()]);
  await traces.start(startOfRun);
  return captureSnapshot(startOfRun, snapshotTarget, { identity });
}

/**
 * The after-snapshot and both traces' target reads + STOPs share one request (db/batch.ts): one round trip, and the
 * counters and the traces' exact targets describe the same moment. When the monitor connection died during the run,
 * a new connection still takes the after-snapshot (the DMVs are server-wide; the workload session's waits are read by
 * its spid).
 */
async function takeAfterSnapshot(ctx: RunContext, snapshotTarget: SnapshotTarget, before: Snapshot, traces: RunTraces, notes: string[]): Promise<{ after: Snapshot; endOfRun: SqlClient }> {
  const identity = before.server.identity;
  let endOfRun: SqlClient = ctx.monitor;
  try {
    endOfRun = await prefetch(ctx.monitor, [...snapshotQueries(snapshotTarget, identity, { countersOnly: true }), ...traces.stopQueries()]);
    return { after: await captureSnapshot(endOfRun, snapshotTarget, { countersOnly: true, identity }), endOfRun };
  } catch (err) {
    if (!ctx.reconnectMonitor) throw err;
    notes.push(`The monitor connection failed during the run (${(err as Error).message}); the after-snapshot was taken on a new connection.`);
    // The traces still read from what the end request answered (its failure speaks for them).
    return { after: await captureSnapshot(await ctx.reconnectMonitor(), snapshotTarget, { countersOnly: true, identity }), endOfRun };
  }
}
