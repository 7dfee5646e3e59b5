// The durability comparison: plan → confirm → journal → per run (setup, ALTER to the mode, measured run) in
// alternating order → restore + verify in finally, whatever happened (error, cancel, dropped monitor).
import type { SqlSession, WorkloadBatch } from '../db/types';
import { DurabilityChangeError, DurabilityGuard, type RestoreOutcome } from './durabilityGuard';
import { preparePlan, splitSetup, type ComparisonPlan } from './plan';
import { measureRun, ProfileCancelledError, readTargetDatabase, throwIfAborted } from './profileRun';
import type { RestoreJournal } from './restoreJournal';
import { tediousExecutor } from './connections';
import type { ConnectionSource, DurabilityMode, ProfileCallbacks, RunError, RunResult, SamplingOptions, WorkloadExecutor, XeOptions } from './types';
import { runSetup } from './setupRun';
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
  error: { kind: 'durability-change' | 'workload' | 'cancelled' | 'other'; message: string } | null;
}

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
}

export async function runComparison(options: CompareOptions): Promise<ComparisonResult> {
  const executor = options.executor ?? tediousExecutor;
  const finishRun = options.finishRun ?? ((run: RunResult) => run);
  const usable = options.batches.filter((b) => !b.empty).map(({ text, repeat, firstLine }) => ({ text, repeat, firstLine }));
  const { setup, measured } = splitSetup(usable, options.setupBatches);
  const source = options.connections;
  const opened: SqlSession[] = [];
  const open = async (role: 'workload' | 'monitor') => {
    const s = await source.open(role, options.signal);
    opened.push(s);
    return s;
  };
  const progress = (step: Parameters<NonNullable<ProfileCallbacks['onProgress']>>[0]['step'], detail?: string) =>
    options.onProgress?.({ step, at: Date.now(), ...(detail ? { detail } : {}) });

  try {
    progress('connect');
    const monitor = await open('monitor');
    const workload = await open('workload');
    progress('plan');
    const { plan, grantContext } = await preparePlan(monitor, {
      server: source.serverLabel,
      ...(options.modes ? { modes: options.modes } : {}),
      ...(options.repetitions !== undefined ? { repetitions: options.repetitions } : {}),
      ...(options.warmup !== undefined ? { warmup: options.warmup } : {}),
      ...(options.workloadHasDelayedCommits !== undefined ? { workloadHasDelayedCommits: options.workloadHasDelayedCommits } : {}),
      ...(options.allowAvailabilityGroup !== undefined ? { allowAvailabilityGroup: options.allowAvailabilityGroup } : {}),
      measuredBatchCount: measured.length,
    });
    const base = { schemaVersion: 1 as const, plan, runs: [] as RunResult[], setupBatchCount: setup.length, restore: null, error: null };
    if (!plan.canProceed) return { ...base, status: 'refused' };
    if (!(await options.confirm(plan))) return { ...base, status: 'declined' };

    const target = await readTargetDatabase(monitor);
    const guard = new DurabilityGuard({
      journal: options.journal,
      server: source.serverLabel,
      database: plan.database,
      monitor,
      reopenMonitor: () => open('monitor'),
      // Named in the error when the server refuses the ALTER (5011) although the preflight said it may.
      grant: grantFor('durabilityToggle', { ...grantContext, databaseName: plan.database }) ?? undefined,
    });
    const runs: RunResult[] = [];
    let status: ComparisonStatus = 'completed';
    let error: ComparisonResult['error'] = null;
    let restore: RestoreOutcome | null = null;
    let connectionLost = false;
    try {
      throwIfAborted(options.signal);
      await guard.begin(plan.currentSetting);
      let current: DurabilityMode = plan.currentSetting;
      let preflight: PreflightResult | null | undefined;
      for (const [i, planned] of plan.order.entries()) {
        throwIfAborted(options.signal);
        const label = `run ${i + 1} of ${plan.order.length}: ${planned.mode}${planned.warmup ? ' (warm-up)' : ''}`;
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
        const run = finishRun(await measureRun(
          {
            workload,
            monitor,
            target,
            executor,
            ...(options.xe ? { xe: options.xe } : {}),
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onProgress ? { onProgress: options.onProgress } : {}),
            ...(options.onMessage ? { onMessage: options.onMessage } : {}),
            ...(preflight !== undefined ? { preflight } : {}),
            ...(options.sampling ? { sampling: options.sampling } : {}),
            ...(options.workloadTimeoutMs !== undefined ? { workloadTimeoutMs: options.workloadTimeoutMs } : {}),
            ...(options.waits ? { waits: options.waits } : {}),
            reconnectMonitor: () => open('monitor'),
          },
          measured,
          { mode: planned.mode, repetition: planned.warmup ? null : planned.repetition, warmup: planned.warmup, setupBatchCount: setup.length },
        ));
        preflight = run.preflight;
        runs.push(run);
        if (run.status === 'cancelled') {
          status = 'cancelled';
          error = {
            kind: 'cancelled',
            message: run.cancel?.reason === 'timeout' ? `A ${planned.mode} run hit the workload time limit and was cancelled; the runs so far are kept.` : 'The comparison was cancelled; the runs so far are kept.',
          };
          break;
        }
        if (run.status === 'workload-error') {
          status = 'workload-error';
          const e = run.errors[0];
          if (e && e.number === 0) connectionLost = true;
          error = { kind: 'workload', message: e ? workloadErrorText(planned.mode, e) : 'The workload failed.' };
          break;
        }
      }
    } catch (err) {
      if (err instanceof ProfileCancelledError || options.signal?.aborted) {
        status = 'cancelled';
        error = { kind: 'cancelled', message: 'The comparison was cancelled; the runs so far are kept.' };
      } else if (err instanceof DurabilityChangeError) {
        status = 'failed';
        error = { kind: 'durability-change', message: err.message };
      } else {
        status = 'failed';
        error = { kind: 'other', message: (err as Error).message ?? String(err) };
      }
    } finally {
      progress('restore-durability');
      restore = await guard.restore();
    }
    // A lost workload connection has no server message to explain it: say what it meant for the database.
    if (connectionLost && error && restore) error = { ...error, message: `${error.message} ${restoreSummary(restore)}` };
    progress('done');
    return { ...base, status, runs, restore, error };
  } finally {
    for (const s of opened) await s.close().catch(() => undefined);
  }
}

/** "SQL error n: text" for a server error; a lost connection (no server error, number 0) says so instead. */
export function workloadErrorText(mode: DurabilityMode, e: RunError): string {
  const where = e.documentLine !== null ? ` (line ${e.documentLine + 1})` : '';
  if (e.number === 0) {
    return `The workload failed in ${mode}${where}: the connection to the server was lost (${e.message.replace(/\.+$/, '')}), so the comparison stopped; the runs so far are kept.`;
  }
  return `The workload failed in ${mode}${where}: SQL error ${e.number}: ${e.message}`;
}

function restoreSummary(restore: RestoreOutcome): string {
  if (restore.status === 'failed') return `DELAYED_DURABILITY was NOT restored to ${restore.originalSetting}: ${restore.message}`;
  if (restore.status === 'restored') return `DELAYED_DURABILITY was restored to ${restore.originalSetting} (verified).`;
  return `DELAYED_DURABILITY is ${restore.originalSetting}, as before (verified).`;
}
