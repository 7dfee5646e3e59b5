// The durability comparison as a short sequence of named steps: plan → refuse or confirm → claim (database lock, no
// other run's ownership marker, original read under the lock, journal, our marker, run lock; durabilityGuard.ts) →
// the runs (compareRuns.ts: setup, ALTER to the mode, setting re-read, measured run, re-read, in alternating order) →
// workload session closed → restore + verify in finally, whatever happened (error, cancel, dropped monitor: the claim
// is taken back first) → marker dropped, lock released.
import type { SqlClient, SqlSession, WorkloadBatch } from '../db/types';
import { grantFor, type BenignWaitOptions, type GrantContext } from '../probes';
import { connectionLimitProblem, MAX_SESSIONS_DEFAULT, readConnectionLimit } from './concurrency';
import { claimDatabase, inspectClaim, withOwnershipStatements } from './compareClaim';
import { closeWithin, ComparisonSchedule, WORKLOAD_CLOSE_TIMEOUT_MS, type ComparisonConnections } from './compareRuns';
import { restoreSummary, type ComparisonResult, type DiscardedRun } from './comparisonResult';
import { tediousExecutor } from './connections';
import { DurabilityGuard, type RestoreOutcome } from './durabilityGuard';
import { readTargetDatabase } from './measureRun';
import { progress } from './runContext';
import { preparePlan, splitSetup, type ComparisonPlan } from './plan';
import { usableBatches } from './setupMarkers';
import type { RestoreJournal } from './restoreJournal';
import { sessionParamOf, withSessionParam } from './sessionParam';
import type { ConnectionSource, DurabilityMode, ProfileCallbacks, ProgressEvent, RunResult, SamplingOptions, WorkloadExecutor, XeOptions } from './types';

export { keptText, workloadErrorText, type ComparisonError, type ComparisonResult, type ComparisonStatus, type DiscardedRun } from './comparisonResult';

/** How long the restore's own reconnect may take (the run's AbortSignal is never reused for it). */
const CLEANUP_CONNECT_TIMEOUT_MS = 15_000;

export interface CompareOptions extends ProfileCallbacks {
  connections: ConnectionSource;
  batches: readonly (WorkloadBatch & { empty?: boolean })[];
  /** Explicit setup batch count; default: the script's markers (setup … measure, or setup-end), else none. */
  setupBatches?: number;
  modes?: DurabilityMode[];
  repetitions?: number;
  warmup?: boolean;
  workloadHasDelayedCommits?: boolean;
  allowAvailabilityGroup?: boolean;
  journal: RestoreJournal;
  /** Shown the plan; nothing changes unless it resolves true. */
  confirm: (plan: ComparisonPlan) => boolean | Promise<boolean>;
  executor?: WorkloadExecutor;
  xe?: XeOptions;
  signal?: AbortSignal;
  sampling?: SamplingOptions;
  /** Per measured run: cancel the workload after this many ms (the comparison then ends 'cancelled'). */
  workloadTimeoutMs?: number;
  /** Changes to the shipped benign-wait list applied to every run's server waits. */
  waits?: BenignWaitOptions;
  /**
   * Completes each measured run's result before it is kept: an external program's workload (recording.ts
   * CommandWorkload, whose `executor` runs the program) adds its exit code and drops the per-session figures.
   */
  finishRun?: (run: RunResult) => RunResult;
  /**
   * Concurrency sweep (issue 18): run the whole plan once per level, each measured run on that many workload
   * connections released together. Absent: the usual single workload session.
   */
  sessions?: readonly number[];
  /** Largest level allowed (default MAX_SESSIONS_DEFAULT, 64). */
  maxSessions?: number;
}

export async function runComparison(options: CompareOptions): Promise<ComparisonResult> {
  const script = scriptParts(options);
  const connections = new OpenedConnections(options.connections, options.signal);
  const progress = progressOf(options);
  try {
    progress('connect');
    const monitor = await connections.open('monitor');
    const workload = await connections.open('workload');
    progress('plan');
    const { plan, grantContext, levels, base } = await planComparison(monitor, options, script);
    const refused = await refusalOf(monitor, options, plan, levels, base);
    if (refused) return refused;
    if (!(await options.confirm(plan))) return { ...base, status: 'declined' };
    const target = await readTargetDatabase(monitor);
    const claimed = await claim(monitor, workload, connections, options, plan, grantContext, base);
    if ('status' in claimed) return claimed;
    const { guard, originalSetting } = claimed;
    const schedule = new ComparisonSchedule({
      plan,
      levels,
      guard,
      connections,
      workload,
      monitor,
      target,
      originalSetting,
      ...script,
      executor: options.executor ?? tediousExecutor,
      finishRun: options.finishRun ?? ((run: RunResult) => run),
      xe: options.xe,
      signal: options.signal,
      sampling: options.sampling,
      workloadTimeoutMs: options.workloadTimeoutMs,
      waits: options.waits,
      onProgress: options.onProgress,
      onMessage: options.onMessage,
    });
    let restore: RestoreOutcome | null = null;
    try {
      await schedule.run();
    } finally {
      restore = await restoreDatabase(schedule, workload, connections, guard, progress);
    }
    let error = schedule.error;
    // A lost workload connection has no server message to explain it: say what it meant for the database.
    if ((schedule.connectionLost || error?.kind === 'ownership-lost') && error && restore) error = { ...error, message: `${error.message} ${restoreSummary(restore)}` };
    progress('done');
    return { ...base, status: schedule.status, runs: schedule.runs, restore, error, discardedRuns: schedule.discardedRuns };
  } finally {
    await connections.closeAll();
  }
}

type Progress = (step: ProgressEvent['step'], detail?: string) => void;

function progressOf(options: ProfileCallbacks): Progress {
  return (step, detail) => progress(options, step, detail);
}

/** The script's usable batches (empty ones dropped), split into setup and measured parts, with the sweep's @session. */
function scriptParts(options: CompareOptions): { setup: WorkloadBatch[]; measured: WorkloadBatch[]; measuredSerial: WorkloadBatch[]; sessionParam: string | null } {
  const { setup, measured } = splitSetup(usableBatches(options.batches), options.setupBatches);
  // The marker may sit anywhere in the script (a header comment lands in the setup part); it fills the measured part.
  const sessionParam = sessionParamOf([...setup, ...measured]);
  // On one session a script written for a sweep runs as session 1 (its @session is filled, not left undeclared).
  return { setup, measured, measuredSerial: withSessionParam(measured, sessionParam, 1), sessionParam };
}

/** Every connection the comparison opened, closed on every path out; cleanup opens never reuse the run's signal. */
class OpenedConnections implements ComparisonConnections {
  private readonly opened: SqlSession[] = [];

  constructor(
    private readonly source: ConnectionSource,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async open(role: 'workload' | 'monitor', signal: AbortSignal | undefined = this.signal): Promise<SqlSession> {
    const s = await this.source.open(role, signal);
    this.opened.push(s);
    return s;
  }

  // Cleanup (after-snapshot on a new connection, dropping the trace, restoring) must work after a cancel too.
  openForCleanup(signal?: AbortSignal): Promise<SqlSession> {
    return this.open('monitor', signal ?? AbortSignal.timeout(CLEANUP_CONNECT_TIMEOUT_MS));
  }

  forget(session: SqlSession): void {
    if (this.opened.includes(session)) this.opened.splice(this.opened.indexOf(session), 1);
  }

  async closeAll(): Promise<void> {
    for (const s of this.opened) await s.close().catch(() => undefined);
  }
}

type BaseResult = Pick<ComparisonResult, 'schemaVersion' | 'plan' | 'runs' | 'setupBatchCount' | 'restore' | 'error'> & { discardedRuns: DiscardedRun[] };

/** The plan the user confirms: it names the sweep (its levels, the runs in all, the connections it opens) and the ownership marker. */
async function planComparison(monitor: SqlClient, options: CompareOptions, script: { setup: readonly WorkloadBatch[]; measured: readonly WorkloadBatch[] }): Promise<{ plan: ComparisonPlan; grantContext: GrantContext; levels: number[] | null; base: BaseResult }> {
  const levels = options.sessions && options.sessions.length > 0 ? [...options.sessions] : null;
  const prepared = await preparePlan(monitor, {
    server: options.connections.serverLabel,
    modes: options.modes,
    repetitions: options.repetitions,
    warmup: options.warmup,
    workloadHasDelayedCommits: options.workloadHasDelayedCommits,
    allowAvailabilityGroup: options.allowAvailabilityGroup,
    measuredBatchCount: script.measured.length,
    traced: options.xe?.enabled !== false,
  });
  // It also names the ownership marker written before the first ALTER and removed after the verified restore.
  const plan: ComparisonPlan = withOwnershipStatements(levels ? { ...prepared.plan, sessions: levels } : prepared.plan);
  const base: BaseResult = { schemaVersion: 1, plan, runs: [], setupBatchCount: script.setup.length, restore: null, error: null, discardedRuns: [] };
  return { plan, grantContext: prepared.grantContext, levels, base };
}

/** The plan with one more refusal, as the result of a comparison that changed nothing. */
function refusedWith(base: BaseResult, plan: ComparisonPlan, code: ComparisonPlan['refusals'][number]['code'], message: string, extra: Pick<ComparisonResult, 'heldBy' | 'ownedBy'> = {}): ComparisonResult {
  const refusedPlan: ComparisonPlan = { ...plan, canProceed: false, refusals: [...plan.refusals, { code, message }] };
  return { ...base, ...extra, plan: refusedPlan, status: 'refused', error: { kind: 'other', message } };
}

/** Why the comparison must not start, before anyone is asked: a sweep beyond the limits, the plan's refusals, another run's claim. */
async function refusalOf(monitor: SqlClient, options: CompareOptions, plan: ComparisonPlan, levels: number[] | null, base: BaseResult): Promise<ComparisonResult | null> {
  if (levels) {
    const largest = Math.max(...levels);
    const max = options.maxSessions ?? MAX_SESSIONS_DEFAULT;
    const problem = largest > max
      ? `A level of ${largest} sessions is above the limit of ${max} connections per level. Nothing was changed.`
      : connectionLimitProblem(await readConnectionLimit(monitor), largest);
    if (problem) return refusedWith(base, plan, 'too-many-connections', problem);
  }
  if (!plan.canProceed) return { ...base, status: 'refused' };
  // Another run's claim: its FORCED must not become this plan's "current setting" to restore to.
  const owned = await inspectClaim(monitor, plan.database);
  return owned ? refusedWith(base, plan, 'in-use', owned.message, { ownedBy: owned.ownedBy }) : null;
}

/** One comparison per database: the claim is taken after the confirmation, before anything is read for the restore. */
async function claim(
  monitor: SqlSession,
  workload: SqlSession,
  connections: OpenedConnections,
  options: CompareOptions,
  plan: ComparisonPlan,
  grantContext: GrantContext,
  base: BaseResult,
): Promise<{ guard: DurabilityGuard; originalSetting: DurabilityMode } | ComparisonResult> {
  const guard = new DurabilityGuard({
    journal: options.journal,
    server: options.connections.serverLabel,
    database: plan.database,
    monitor,
    // The run lock on the workload session keeps the claim alive when only the monitor connection is killed.
    workload,
    reopenMonitor: (signal) => connections.openForCleanup(signal),
    // Named in the error when the server refuses the ALTER (5011) although the preflight said it may.
    grant: grantFor('durabilityToggle', { ...grantContext, databaseName: plan.database }) ?? undefined,
  });
  if (options.signal?.aborted) return { ...base, status: 'cancelled', error: { kind: 'cancelled', message: 'The comparison was cancelled before anything was changed.' } };
  const claimed = await claimDatabase(guard, monitor, plan.database);
  if (claimed.kind === 'refused') return refusedWith(base, plan, 'in-use', claimed.message, { heldBy: claimed.heldBy, ownedBy: claimed.ownedBy });
  if (claimed.kind === 'failed') return { ...base, status: 'failed', error: { kind: 'other', message: claimed.message } };
  return { guard, originalSetting: claimed.entry.originalSetting };
}

/**
 * The workload sessions go first: closing them ends their sessions on the server, which rolls back an open
 * transaction and releases its locks, so the restoring ALTER does not wait on our own workload. Then the restore and
 * its verification, and the claim released.
 */
async function restoreDatabase(schedule: ComparisonSchedule, workload: SqlSession, connections: OpenedConnections, guard: DurabilityGuard, progress: Progress): Promise<RestoreOutcome | null> {
  await schedule.closeLevel();
  await closeWithin(workload, WORKLOAD_CLOSE_TIMEOUT_MS);
  connections.forget(workload);
  progress('restore-durability');
  const restore = await guard.restore();
  await guard.release();
  return restore;
}
