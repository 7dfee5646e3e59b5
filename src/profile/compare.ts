// The durability comparison: plan → confirm → claim (database lock, no other run's ownership marker, original read
// under the lock, journal, our marker, run lock; durabilityGuard.ts) → per run (setup, ALTER to the mode, setting
// re-read, measured run, re-read) in alternating order → workload session closed → restore + verify in finally,
// whatever happened (error, cancel, dropped monitor: the claim is taken back first) → marker dropped, lock released.
import type { SqlSession, WorkloadBatch } from '../db/types';
import { DurabilityChangeError, DurabilityGuard, OwnershipLostError, type RestoreOutcome } from './durabilityGuard';
import type { LockHolder } from './databaseLock';
import { claimDatabase, inspectClaim, ownershipLostText, reclaimedNote, withOwnershipStatements } from './compareClaim';
import type { OwnershipMarker } from './ownershipMarker';
import { preparePlan, splitSetup, type ComparisonPlan } from './plan';
import { measureRun, ProfileCancelledError, readTargetDatabase, throwIfAborted } from './profileRun';
import type { RestoreJournal } from './restoreJournal';
import { tediousExecutor } from './connections';
import type { ConnectionSource, DurabilityMode, ProfileCallbacks, RunError, RunResult, SamplingOptions, WorkloadExecutor, XeOptions } from './types';
import { runSetup } from './setupRun';
import { closeSessions, connectionLimitProblem, MAX_SESSIONS_DEFAULT, openWorkloadSessions, readConnectionLimit } from './concurrency';
import { sessionParamOf, withSessionParam } from './sessionParam';
import { STATEMENTS_OFF_IN_COMPARISON } from './statementRun';
import { grantFor, type BenignWaitOptions, type PreflightResult } from '../probes';

export type ComparisonStatus = 'completed' | 'refused' | 'declined' | 'workload-error' | 'cancelled' | 'failed';

export interface ComparisonResult {
  schemaVersion: 1;
  status: ComparisonStatus;
  plan: ComparisonPlan;
  /** Every run in the order it ran, warm-up included (flagged `warmup`). */
  runs: RunResult[];
  setupBatchCount: number;
  /** null when nothing was changed (refused, declined, or failed before the first ALTER). */
  restore: RestoreOutcome | null;
  /** Why the comparison stopped early. */
  error: { kind: 'durability-change' | 'workload' | 'cancelled' | 'external-change' | 'ownership-lost' | 'other'; message: string } | null;
  /** Runs measured under a setting other than their planned mode (another session changed it): not in `runs`. */
  discardedRuns?: DiscardedRun[];
  /** Status 'refused' because another comparison holds the database: who holds it. */
  heldBy?: LockHolder;
  /** Status 'refused' because another run's ownership marker is on the database: what it says. */
  ownedBy?: OwnershipMarker;
}

export interface DiscardedRun {
  mode: DurabilityMode;
  repetition: number | null;
  warmup: boolean;
  /** The setting found instead of `mode`. */
  settingFound: DurabilityMode;
  when: 'before' | 'after';
}

/** How long the restore's own reconnect may take (the run's AbortSignal is never reused for it). */
const CLEANUP_CONNECT_TIMEOUT_MS = 15_000;
/** How long closing the workload session (the server rolls back its open transaction) may take before the restore. */
const WORKLOAD_CLOSE_TIMEOUT_MS = 10_000;

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
  const executor = options.executor ?? tediousExecutor;
  const finishRun = options.finishRun ?? ((run: RunResult) => run);
  const usable = options.batches.filter((b) => !b.empty).map(({ text, repeat, firstLine, call }) => ({ text, repeat, firstLine, ...(call ? { call } : {}) }));
  const { setup, measured } = splitSetup(usable, options.setupBatches);
  const source = options.connections;
  const opened: SqlSession[] = [];
  const open = async (role: 'workload' | 'monitor', signal: AbortSignal | undefined = options.signal) => {
    const s = await source.open(role, signal);
    opened.push(s);
    return s;
  };
  // Cleanup (after-snapshot on a new connection, dropping the trace, restoring) must work after a cancel too.
  const openForCleanup = (signal?: AbortSignal) => open('monitor', signal ?? AbortSignal.timeout(CLEANUP_CONNECT_TIMEOUT_MS));
  const progress = (step: Parameters<NonNullable<ProfileCallbacks['onProgress']>>[0]['step'], detail?: string) =>
    options.onProgress?.({ step, at: Date.now(), ...(detail ? { detail } : {}) });

  try {
    progress('connect');
    const monitor = await open('monitor');
    const workload = await open('workload');
    progress('plan');
    const levels = options.sessions && options.sessions.length > 0 ? [...options.sessions] : null;
    const prepared = await preparePlan(monitor, {
      server: source.serverLabel,
      ...(options.modes ? { modes: options.modes } : {}),
      ...(options.repetitions !== undefined ? { repetitions: options.repetitions } : {}),
      ...(options.warmup !== undefined ? { warmup: options.warmup } : {}),
      ...(options.workloadHasDelayedCommits !== undefined ? { workloadHasDelayedCommits: options.workloadHasDelayedCommits } : {}),
      ...(options.allowAvailabilityGroup !== undefined ? { allowAvailabilityGroup: options.allowAvailabilityGroup } : {}),
      measuredBatchCount: measured.length,
    });
    const { grantContext } = prepared;
    // What the user confirms names the sweep: its levels, the runs in all and the connections it opens.
    // It also names the ownership marker written before the first ALTER and removed after the verified restore.
    const plan: ComparisonPlan = withOwnershipStatements(levels ? { ...prepared.plan, sessions: levels } : prepared.plan);
    const base = { schemaVersion: 1 as const, plan, runs: [] as RunResult[], setupBatchCount: setup.length, restore: null, error: null, discardedRuns: [] as DiscardedRun[] };
    if (levels) {
      const largest = Math.max(...levels);
      const max = options.maxSessions ?? MAX_SESSIONS_DEFAULT;
      const problem = largest > max
        ? `A level of ${largest} sessions is above the limit of ${max} connections per level. Nothing was changed.`
        : connectionLimitProblem(await readConnectionLimit(monitor), largest);
      if (problem) {
        const refusedPlan: ComparisonPlan = { ...plan, canProceed: false, refusals: [...plan.refusals, { code: 'too-many-connections', message: problem }] };
        return { ...base, plan: refusedPlan, status: 'refused', error: { kind: 'other', message: problem } };
      }
    }
    // The marker may sit anywhere in the script (a header comment lands in the setup part); it fills the measured part.
    const sessionParam = sessionParamOf([...setup, ...measured]);
    // On one session a script written for a sweep runs as session 1 (its @session is filled, not left undeclared).
    const measuredSerial = withSessionParam(measured, sessionParam, 1);
    if (!plan.canProceed) return { ...base, status: 'refused' };
    // Another run's claim: its FORCED must not become this plan's "current setting" to restore to.
    const owned = await inspectClaim(monitor, plan.database);
    if (owned) {
      const refusedPlan: ComparisonPlan = { ...plan, canProceed: false, refusals: [...plan.refusals, { code: 'in-use', message: owned.message }] };
      return { ...base, plan: refusedPlan, status: 'refused', ownedBy: owned.ownedBy, error: { kind: 'other', message: owned.message } };
    }
    if (!(await options.confirm(plan))) return { ...base, status: 'declined' };

    const target = await readTargetDatabase(monitor);
    const guard = new DurabilityGuard({
      journal: options.journal,
      server: source.serverLabel,
      database: plan.database,
      monitor,
      // The run lock on the workload session keeps the claim alive when only the monitor connection is killed.
      workload,
      reopenMonitor: openForCleanup,
      // Named in the error when the server refuses the ALTER (5011) although the preflight said it may.
      grant: grantFor('durabilityToggle', { ...grantContext, databaseName: plan.database }) ?? undefined,
    });
    // One comparison per database: taken after the confirmation, before anything is read for the restore.
    if (options.signal?.aborted) return { ...base, status: 'cancelled', error: { kind: 'cancelled', message: 'The comparison was cancelled before anything was changed.' } };
    const claim = await claimDatabase(guard, monitor, plan.database);
    if (claim.kind === 'refused') {
      const refusedPlan: ComparisonPlan = { ...plan, canProceed: false, refusals: [...plan.refusals, { code: 'in-use', message: claim.message }] };
      return { ...base, plan: refusedPlan, status: 'refused', heldBy: claim.heldBy, ownedBy: claim.ownedBy, error: { kind: 'other', message: claim.message } };
    }
    if (claim.kind === 'failed') return { ...base, status: 'failed', error: { kind: 'other', message: claim.message } };
    const entry = claim.entry;
    const runs: RunResult[] = [];
    const discardedRuns: DiscardedRun[] = [];
    let levelSessions: SqlSession[] = [];
    const closeLevel = async () => {
      const closing = levelSessions;
      levelSessions = [];
      for (const s of closing) if (opened.includes(s)) opened.splice(opened.indexOf(s), 1);
      await closeWithin({ close: () => closeSessions(closing) }, WORKLOAD_CLOSE_TIMEOUT_MS);
    };
    let status: ComparisonStatus = 'completed';
    let error: ComparisonResult['error'] = null;
    let restore: RestoreOutcome | null = null;
    let connectionLost = false;
    try {
      throwIfAborted(options.signal);
      let current: DurabilityMode = entry.originalSetting;
      let preflight: PreflightResult | null | undefined;
      // A sweep runs the plan (warm-up included) once per level, on that level's connections.
      const schedule = (levels ?? [null]).flatMap((level) => plan.order.map((p) => ({ ...p, level })));
      for (const [i, planned] of schedule.entries()) {
        throwIfAborted(options.signal);
        const label = `run ${i + 1} of ${schedule.length}: ${planned.mode}${planned.level !== null ? `, ${planned.level} session${planned.level === 1 ? '' : 's'}` : ''}${planned.warmup ? ' (warm-up)' : ''}`;
        if (planned.level !== null && levelSessions.length !== planned.level) {
          await closeLevel();
          progress('connect', `${planned.level} workload connection${planned.level === 1 ? '' : 's'}`);
          levelSessions = await openWorkloadSessions((signal) => open('workload', signal), planned.level, options.signal);
        }
        if (setup.length > 0) {
          progress('setup', label);
          const outcome = await runSetup(workload, setup, executor, { ...(options.onMessage ? { onMessage: options.onMessage } : {}), ...(options.signal ? { signal: options.signal } : {}) });
          if (outcome.status === 'cancelled') throw new ProfileCancelledError();
          if (outcome.status === 'failed') {
            status = 'workload-error';
            error = { kind: 'workload', message: outcome.error.message };
            break;
          }
        }
        if (current !== planned.mode) {
          progress('set-durability', `${planned.mode} (${label})`);
          await guard.apply(planned.mode);
          current = planned.mode;
        }
        // Another session may change the setting at any time (ALTER DATABASE needs no lock of ours): measure only
        // under the planned mode, and never switch it back over their change.
        const { setting: before, reclaimed: lostBefore } = await guard.readSetting();
        if (lostBefore) {
          status = 'failed';
          error = { kind: 'ownership-lost', message: ownershipLostText(plan.database, label, 'before') };
          break;
        }
        if (before !== planned.mode) {
          discardedRuns.push({ mode: planned.mode, repetition: planned.warmup ? null : planned.repetition, warmup: planned.warmup, settingFound: before, when: 'before' });
          status = 'failed';
          error = { kind: 'external-change', message: externalChangeText(plan.database, planned.mode, before, label, false) };
          break;
        }
        const run = finishRun(await measureRun(
          {
            workload,
            monitor,
            target,
            executor,
            // No per-statement trace in a comparison: it adds work to every statement and would blur the elapsed
            // times being compared (profile the script for per-statement figures).
            xe: { ...options.xe, statements: false, statementsOffReason: STATEMENTS_OFF_IN_COMPARISON },
            ...(options.signal ? { signal: options.signal } : {}),
            // Every event of the run says which run it is (the progress notification and panel show it).
            ...(options.onProgress ? { onProgress: (e: Parameters<NonNullable<ProfileCallbacks['onProgress']>>[0]) => options.onProgress!({ ...e, run: label }) } : {}),
            ...(options.onMessage ? { onMessage: options.onMessage } : {}),
            ...(preflight !== undefined ? { preflight } : {}),
            ...(options.sampling ? { sampling: options.sampling } : {}),
            ...(options.workloadTimeoutMs !== undefined ? { workloadTimeoutMs: options.workloadTimeoutMs } : {}),
            ...(options.waits ? { waits: options.waits } : {}),
            ...(planned.level !== null ? { concurrent: { sessions: levelSessions, parameter: sessionParam } } : {}),
            reconnectMonitor: () => openForCleanup(),
          },
          planned.level !== null ? measured : measuredSerial,
          { mode: planned.mode, repetition: planned.warmup ? null : planned.repetition, warmup: planned.warmup, setupBatchCount: setup.length },
        ));
        preflight = run.preflight;
        // The monitor may have died during the run: then the claim is taken back first, and the run is kept only when
        // the setting is still its mode — after which nothing more is changed (ownership-lost), only restored.
        const reread = await guard.readSetting().catch((err: unknown) => {
          if (err instanceof OwnershipLostError) throw err;
          return null;
        });
        const after = reread?.setting ?? null;
        if (after !== null && after !== planned.mode) {
          discardedRuns.push({ mode: planned.mode, repetition: planned.warmup ? null : planned.repetition, warmup: planned.warmup, settingFound: after, when: 'after' });
          status = 'failed';
          error = { kind: 'external-change', message: externalChangeText(plan.database, planned.mode, after, label, true) };
          break;
        }
        const last = i === schedule.length - 1;
        // The last run leaves nothing more to change: the comparison completes and its restore follows as usual.
        runs.push(reread?.reclaimed && last ? { ...run, notes: [...run.notes, reclaimedNote(plan.database)] } : run);
        if (reread?.reclaimed && !last) {
          status = 'failed';
          error = { kind: 'ownership-lost', message: ownershipLostText(plan.database, label, 'after') };
          break;
        }
        if (run.status === 'cancelled') {
          status = 'cancelled';
          error = {
            kind: 'cancelled',
            message: run.cancel?.reason === 'timeout' ? `A ${planned.mode} run hit the workload time limit and was cancelled; ${keptText(runs)}` : `The comparison was cancelled; ${keptText(runs)}`,
          };
          break;
        }
        if (run.status === 'workload-error') {
          // Statement errors (the server carried on) are reported and the comparison goes on; an error that ended
          // the run (lost connection, fatal severity) stops it.
          const ended = run.errors.find((x) => x.endedRun !== false);
          const e = ended ?? run.errors[0];
          if (error === null || ended) {
            status = 'workload-error';
            error = { kind: 'workload', message: e ? workloadErrorText(planned.mode, e, !ended) : 'The workload failed.' };
          }
          if (ended) {
            if (ended.number === 0) connectionLost = true;
            break;
          }
        }
      }
    } catch (err) {
      if (err instanceof ProfileCancelledError || options.signal?.aborted) {
        status = 'cancelled';
        error = { kind: 'cancelled', message: `The comparison was cancelled; ${keptText(runs)}` };
      } else if (err instanceof OwnershipLostError || (err instanceof DurabilityChangeError && guard.monitorLost)) {
        status = 'failed';
        error = { kind: 'ownership-lost', message: `${err.message} The comparison stopped changing the database; ${keptText(runs)}` };
      } else if (err instanceof DurabilityChangeError) {
        status = 'failed';
        error = { kind: 'durability-change', message: err.message };
      } else {
        status = 'failed';
        error = { kind: 'other', message: (err as Error).message ?? String(err) };
      }
    } finally {
      // The workload sessions go first: closing them ends their sessions on the server, which rolls back an open
      // transaction and releases its locks, so the restoring ALTER does not wait on our own workload.
      await closeLevel();
      await closeWithin(workload, WORKLOAD_CLOSE_TIMEOUT_MS);
      opened.splice(opened.indexOf(workload), 1);
      progress('restore-durability');
      restore = await guard.restore();
      await guard.release();
    }
    // A lost workload connection has no server message to explain it: say what it meant for the database.
    if ((connectionLost || error?.kind === 'ownership-lost') && error && restore) error = { ...error, message: `${error.message} ${restoreSummary(restore)}` };
    progress('done');
    return { ...base, status, runs, restore, error, discardedRuns };
  } finally {
    for (const s of opened) await s.close().catch(() => undefined);
  }
}

/** What a stopped comparison keeps: never "the runs so far" when the warm-up was all that ran (issue 20). */
export function keptText(runs: readonly Pick<RunResult, 'warmup'>[]): string {
  const measured = runs.filter((r) => !r.warmup).length;
  if (measured === 0) return runs.length > 0 ? 'it stopped in the warm-up, so no run was measured.' : 'no run was measured.';
  return `the ${measured} measured run${measured === 1 ? '' : 's'} so far ${measured === 1 ? 'is' : 'are'} kept.`;
}

async function closeWithin(session: Pick<SqlSession, 'close'>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([session.close().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function externalChangeText(database: string, planned: DurabilityMode, found: DurabilityMode, label: string, measured: boolean): string {
  return `Another session changed DELAYED_DURABILITY of ${database} to ${found} ${measured ? 'during' : 'before'} ${label}: ${measured ? 'that run was measured' : 'it would have run'} under ${found}, not ${planned}, so it was discarded and the comparison stopped; the change was not overwritten.`;
}

/** "SQL error n: text" for a server error; a lost connection (no server error, number 0) says so instead. */
export function workloadErrorText(mode: DurabilityMode, e: RunError, continued = false): string {
  const where = e.documentLine !== null ? ` (line ${e.documentLine + 1})` : '';
  if (continued) return `The workload raised an error in ${mode}${where}: SQL error ${e.number}: ${e.message} — the server carried on past it, so did the comparison (every run is kept; see each run's errors).`;
  if (e.number === 0) {
    return `The workload failed in ${mode}${where}: the connection to the server was lost (${e.message.replace(/\.+$/, '')}), so the comparison stopped; the runs so far are kept.`;
  }
  return `The workload failed in ${mode}${where}: SQL error ${e.number}: ${e.message}`;
}

function restoreSummary(restore: RestoreOutcome): string {
  if (restore.status === 'failed') return `DELAYED_DURABILITY was NOT restored to ${restore.originalSetting}: ${restore.message}`;
  if (restore.status === 'external-change' || restore.status === 'in-use') return restore.message;
  if (restore.status === 'restored') return `DELAYED_DURABILITY was restored to ${restore.originalSetting} (verified).`;
  return `DELAYED_DURABILITY is ${restore.originalSetting}, as before (verified).`;
}
