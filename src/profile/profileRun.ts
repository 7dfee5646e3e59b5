// A profile run: opens WORKLOAD and MONITOR (or uses the caller's), runs the script's setup part unmeasured, then
// measureRun (measureRun.ts) between the snapshots, and closes what it opened.
import { closeSessions, connectionLimitProblem, openWorkloadSessions, parseSessionLevels, readConnectionLimit } from './concurrency';
import { sessionParamOf, withSessionParam } from './sessionParam';
import type { SqlSession, WorkloadBatch } from '../db/types';
import type { BenignWaitOptions } from '../probes';
import { tediousExecutor } from './connections';
import { ProfileCancelledError, readTargetDatabase, throwIfAborted } from './measureRun';
import { progress } from './runContext';
import { runSetup } from './setupRun';
import { hasLineMarkers, SetupMarkerError, splitSetup, usableBatches } from './setupMarkers';
import { measureWithTraceOverhead, traceOverheadRunsProblem } from './traceOverheadRun';
import { checkDurabilityAfterRun } from './workloadDurability';
import type { ConnectionSource, ProfileCallbacks, RunResult, RunTarget, SamplingOptions, WorkloadExecutor, XeOptions } from './types';

export * from './measureRun';

export interface ProfileRunOptions extends ProfileCallbacks {
  /** What the user picked (selection / batch / transaction / document), carried into the result for the UI. */
  target?: RunTarget;
  /** Either a source to open both connections (closed again at the end) or sessions the caller owns. */
  connections: ConnectionSource | { workload: SqlSession; monitor: SqlSession };
  /** The batches to run (from analyze(): the selection, one batch, or the document); empty ones are skipped. */
  batches: readonly (WorkloadBatch & { empty?: boolean })[];
  executor?: WorkloadExecutor;
  xe?: XeOptions;
  signal?: AbortSignal;
  /** Explicit count of setup batches; default: the script's markers (see setupMarkers.ts), else none. */
  setupBatches?: number;
  sampling?: SamplingOptions;
  /** Cancel the workload after this many ms (status 'cancelled', cancel.reason 'timeout'). */
  workloadTimeoutMs?: number;
  /** Changes to the shipped benign-wait list applied to the server waits (durabilityLens.waits.benign.*). */
  waits?: BenignWaitOptions;
  /**
   * Run the measured batches on this many workload connections released together (concurrency.ts); needs a
   * ConnectionSource. Setup still runs once, on the workload connection. Absent: one session.
   */
  sessions?: number;
  /**
   * Also measure the per-statement trace's cost (issue 28): after this run, run the workload again on the same sessions
   * — alternating without and with the trace — this many times each way in all (2–10; the setup before each run), and
   * summarise the elapsed times as `traceOverhead`. Absent: one run, and `traceOverhead` says not measured.
   */
  traceOverheadRuns?: number | undefined;
}

function isSource(c: ProfileRunOptions['connections']): c is ConnectionSource {
  return typeof (c as ConnectionSource).open === 'function';
}

async function closeQuietly(session: SqlSession | null): Promise<void> {
  if (!session) return;
  try {
    await session.close();
  } catch {
    // Closing is best effort: the socket may already be gone.
  }
}

/**
 * The setup and measured batches a profile sends, and the session variable, by the run's rule — for a caller that must
 * know before it asks or connects. Throws SetupMarkerError for markers that do not pair or leave nothing to measure,
 * an Error when there is no batch with a statement.
 */
export function profileScript(batches: readonly (WorkloadBatch & { empty?: boolean })[], setupBatches?: number): { setup: WorkloadBatch[]; measured: WorkloadBatch[]; sessionParam: ReturnType<typeof sessionParamOf> } {
  const usable = usableBatches(batches);
  let split = splitSetup(usable, setupBatches);
  // Profiling only the setup batch (cursor on the batch holding '-- durability-lens: setup-end') runs it measured:
  // the batch-level alias must not turn a run of just that batch into "nothing to measure".
  if (split.measured.length === 0 && setupBatches === undefined && !hasLineMarkers(usable)) split = { setup: [], measured: usable };
  const { setup, measured } = split;
  // The marker may sit anywhere in the script (a header comment lands in the setup part); it fills the measured part.
  const sessionParam = sessionParamOf([...setup, ...measured]);
  if (measured.length === 0) {
    if (setup.length > 0) throw new SetupMarkerError('Nothing to measure: every line is inside the setup section.');
    throw new Error('Nothing to run: the target holds no batch with a statement.');
  }
  return { setup, measured, sessionParam };
}

/** Opens WORKLOAD + MONITOR (when given a source), runs measureRun, closes what it opened in finally. */
export async function profileRun(options: ProfileRunOptions): Promise<RunResult> {
  const { setup, measured: batches, sessionParam } = profileScript(options.batches, options.setupBatches);
  if (options.traceOverheadRuns !== undefined) {
    const problem = traceOverheadRunsProblem(options.traceOverheadRuns);
    if (problem) throw new RangeError(problem);
  }
  throwIfAborted(options.signal);
  const owned = isSource(options.connections);
  let workload: SqlSession | null = null;
  let monitor: SqlSession | null = null;
  const reopened: SqlSession[] = [];
  let concurrent: SqlSession[] = [];
  try {
    progress(options, 'connect');
    if (isSource(options.connections)) {
      const source = options.connections;
      // Both logins at once: on a distant server each costs several round trips, and neither waits for the other.
      // Whichever opened is closed in finally; the monitor's failure is reported first, as when they opened in turn.
      const [m, w] = await Promise.allSettled([source.open('monitor', options.signal), source.open('workload', options.signal)]);
      if (m.status === 'fulfilled') monitor = m.value;
      if (w.status === 'fulfilled') workload = w.value;
      if (m.status === 'rejected') throw m.reason;
      if (w.status === 'rejected') throw w.reason;
      if (!monitor || !workload) throw new Error('unreachable: both connections opened');
    } else {
      ({ workload, monitor } = options.connections);
    }
    // A monitor opened here read its database and DELAYED_DURABILITY with its login (before any setup runs).
    const target = await readTargetDatabase(monitor, { fresh: owned });
    const source = owned ? (options.connections as ConnectionSource) : null;
    const sessions = options.sessions;
    if (sessions !== undefined) {
      if (!source) throw new Error('A run on several sessions needs a connection source to open them.');
      const levels = parseSessionLevels([sessions]);
      if (typeof levels === 'string') throw new RangeError(levels);
      const problem = connectionLimitProblem(await readConnectionLimit(monitor), sessions);
      if (problem) throw new Error(problem);
    }
    const reconnectMonitor = source
      ? async () => {
          const fresh = await source.open('monitor');
          reopened.push(fresh);
          return fresh;
        }
      : undefined;
    const setupSession = workload;
    const repeatSetup = async (): Promise<void> => {
      progress(options, 'setup', `${setup.length} batch(es)`);
      const outcome = await runSetup(setupSession, setup, options.executor ?? tediousExecutor, { onMessage: options.onMessage, signal: options.signal });
      if (outcome.status === 'cancelled') throw new ProfileCancelledError('The run was cancelled during its setup; nothing was measured.');
      if (outcome.status === 'failed') throw outcome.error;
    };
    if (setup.length > 0) await repeatSetup();
    if (sessions !== undefined && source) {
      progress(options, 'connect', `${sessions} workload connection${sessions === 1 ? '' : 's'}`);
      concurrent = await openWorkloadSessions((signal) => source.open('workload', signal), sessions, options.signal);
    }
    const result = await measureWithTraceOverhead(
      {
        workload,
        monitor,
        target,
        executor: options.executor,
        xe: options.xe,
        signal: options.signal,
        onProgress: options.onProgress,
        onMessage: options.onMessage,
        sampling: options.sampling,
        workloadTimeoutMs: options.workloadTimeoutMs,
        waits: options.waits,
        concurrent: concurrent.length > 0 ? { sessions: concurrent, parameter: sessionParam } : undefined,
        reconnectMonitor,
      },
      // On one session a script written for a sweep runs as session 1 (its @session is filled, not left undeclared).
      concurrent.length > 0 ? batches : withSessionParam(batches, sessionParam, 1),
      { setupBatchCount: setup.length },
      { runsEach: options.traceOverheadRuns, repeatSetup: setup.length > 0 ? repeatSetup : undefined },
    );
    // The script may have changed DELAYED_DURABILITY (setup or workload): said, with the statement that puts it back.
    // One run: the after-snapshot read it. After the trace-overhead alternation the last run decides: read it again.
    const known = result.traceOverhead?.runs && result.traceOverhead.runs.length > 1 ? null : result.delayedDurabilityAfter;
    const durabilityChange = await checkDurabilityAfterRun(monitor, target.databaseName, target.delayedDurability, known, reconnectMonitor);
    const checked = durabilityChange ? { ...result, workloadDurabilityChange: durabilityChange, notes: [durabilityChange.message, ...result.notes] } : result;
    progress(options, 'done');
    return options.target ? { ...checked, target: options.target } : checked;
  } finally {
    await closeSessions(concurrent);
    for (const s of reopened) await closeQuietly(s);
    if (owned) {
      await closeQuietly(workload);
      await closeQuietly(monitor);
    }
  }
}
