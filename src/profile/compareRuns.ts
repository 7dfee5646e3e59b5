// A confirmed, claimed comparison's runs: the plan's order (once per level in a sweep), each run step by step —
// level connections, setup, ALTER to its mode, setting re-read, measured run, re-read — and how each way of stopping
// (a workload error, a cancel, another session's change, a lost claim) becomes the comparison's status and message.
// The restore is not here: compare.ts runs it in finally, whatever this ended with.
import type { SqlSession, WorkloadBatch } from '../db/types';
import { closeSessions, openWorkloadSessions } from './concurrency';
import { keptText, workloadErrorText, type ComparisonError, type ComparisonStatus, type DiscardedRun } from './comparisonResult';
import { ownershipLostText, reclaimedNote } from './compareClaim';
import { DurabilityChangeError, OwnershipLostError, type DurabilityGuard } from './durabilityGuard';
import type { ComparisonPlan } from './plan';
import { measureRun, ProfileCancelledError, throwIfAborted, type TargetDatabase } from './measureRun';
import { progress } from './runContext';
import { eventSessionOfRun } from './runEventSessions';
import { runSetup } from './setupRun';
import { STATEMENTS_OFF_IN_COMPARISON } from './statementRun';

import type { DurabilityMode, ProfileCallbacks, ProgressEvent, RunResult, SamplingOptions, WorkloadExecutor, XeOptions } from './types';
import type { BenignWaitOptions, PreflightResult } from '../probes';

/** How long closing the workload session (the server rolls back its open transaction) may take before the restore. */
export const WORKLOAD_CLOSE_TIMEOUT_MS = 10_000;

/** The connections a comparison opened, so every path out closes them; cleanup opens get their own time limit. */
export interface ComparisonConnections {
  open(role: 'workload' | 'monitor', signal?: AbortSignal): Promise<SqlSession>;
  /** A monitor for cleanup (after-snapshot, trace drop, restore): works after a cancel too. */
  openForCleanup(signal?: AbortSignal): Promise<SqlSession>;
  /** No longer ours to close (closed by the caller). */
  forget(session: SqlSession): void;
}

/** What the runs need from the comparison: built once in compare.ts and handed down. */
export interface ScheduleInput extends ProfileCallbacks {
  plan: ComparisonPlan;
  levels: number[] | null;
  guard: DurabilityGuard;
  connections: ComparisonConnections;
  workload: SqlSession;
  monitor: SqlSession;
  target: TargetDatabase;
  originalSetting: DurabilityMode;
  setup: readonly WorkloadBatch[];
  measured: readonly WorkloadBatch[];
  /** The measured part with its @session filled for one session. */
  measuredSerial: readonly WorkloadBatch[];
  sessionParam: string | null;
  executor: WorkloadExecutor;
  finishRun: (run: RunResult) => RunResult;
  xe: XeOptions | undefined;
  signal: AbortSignal | undefined;
  sampling: SamplingOptions | undefined;
  workloadTimeoutMs: number | undefined;
  waits: BenignWaitOptions | undefined;
}

type PlannedRun = ComparisonPlan['order'][number] & { level: number | null };

export class ComparisonSchedule {
  readonly runs: RunResult[] = [];
  readonly discardedRuns: DiscardedRun[] = [];
  status: ComparisonStatus = 'completed';
  error: ComparisonError | null = null;
  /** An error that ended a run had no server message: the connection was lost. */
  connectionLost = false;
  private levelSessions: SqlSession[] = [];
  private current: DurabilityMode;
  private preflight: PreflightResult | null | undefined;

  constructor(private readonly input: ScheduleInput) {
    this.current = input.originalSetting;
  }

  private progress(step: ProgressEvent['step'], detail?: string): void {
    progress(this.input, step, detail);
  }

  private stop(status: ComparisonStatus, error: ComparisonError): false {
    this.status = status;
    this.error = error;
    return false;
  }

  /** Every planned run until one stops the comparison; a thrown error becomes the status, never escapes. */
  async run(): Promise<void> {
    const { plan, levels, signal, guard } = this.input;
    try {
      throwIfAborted(signal);
      // A sweep runs the plan (warm-up included) once per level, on that level's connections.
      const schedule: PlannedRun[] = (levels ?? [null]).flatMap((level) => plan.order.map((p) => ({ ...p, level })));
      for (const [i, planned] of schedule.entries()) {
        throwIfAborted(signal);
        if (!(await this.runOne(planned, i, schedule.length))) break;
      }
    } catch (err) {
      if (err instanceof ProfileCancelledError || signal?.aborted) {
        this.stop('cancelled', { kind: 'cancelled', message: `The comparison was cancelled; ${keptText(this.runs)}` });
      } else if (err instanceof OwnershipLostError || (err instanceof DurabilityChangeError && guard.monitorLost)) {
        this.stop('failed', { kind: 'ownership-lost', message: `${err.message} The comparison stopped changing the database; ${keptText(this.runs)}` });
      } else if (err instanceof DurabilityChangeError) {
        this.stop('failed', { kind: 'durability-change', message: err.message });
      } else {
        this.stop('failed', { kind: 'other', message: (err as Error).message ?? String(err) });
      }
    }
  }

  /** One run; false when the comparison stops here. */
  private async runOne(planned: PlannedRun, i: number, total: number): Promise<boolean> {
    const { plan, guard, setup } = this.input;
    const label = `run ${i + 1} of ${total}: ${planned.mode}${planned.level !== null ? `, ${planned.level} session${planned.level === 1 ? '' : 's'}` : ''}${planned.warmup ? ' (warm-up)' : ''}`;
    const repetition = planned.warmup ? null : planned.repetition;
    await this.openLevel(planned.level);
    if (setup.length > 0 && !(await this.runSetup(label))) return false;
    if (this.current !== planned.mode) {
      this.progress('set-durability', `${planned.mode} (${label})`);
      await guard.apply(planned.mode);
      this.current = planned.mode;
    }
    // Another session may change the setting at any time (ALTER DATABASE needs no lock of ours): measure only
    // under the planned mode, and never switch it back over their change.
    const { setting: before, reclaimed: lostBefore } = await guard.readSetting();
    if (lostBefore) return this.stop('failed', { kind: 'ownership-lost', message: ownershipLostText(plan.database, label, 'before') });
    if (before !== planned.mode) {
      this.discardedRuns.push({ mode: planned.mode, repetition, warmup: planned.warmup, settingFound: before, when: 'before' });
      return this.stop('failed', { kind: 'external-change', message: externalChangeText(plan.database, planned.mode, before, label, false) });
    }
    const run = await this.measure(planned, label, repetition);
    this.preflight = run.preflight;
    // The monitor may have died during the run: then the claim is taken back first, and the run is kept only when
    // the setting is still its mode — after which nothing more is changed (ownership-lost), only restored.
    const reread = await guard.readSetting().catch((err: unknown) => {
      if (err instanceof OwnershipLostError) throw err;
      return null;
    });
    const after = reread?.setting ?? null;
    if (after !== null && after !== planned.mode) {
      this.discardedRuns.push({ mode: planned.mode, repetition, warmup: planned.warmup, settingFound: after, when: 'after' });
      return this.stop('failed', { kind: 'external-change', message: externalChangeText(plan.database, planned.mode, after, label, true) });
    }
    const last = i === total - 1;
    // The last run leaves nothing more to change: the comparison completes and its restore follows as usual.
    this.runs.push(reread?.reclaimed && last ? { ...run, notes: [...run.notes, reclaimedNote(plan.database)] } : run);
    if (reread?.reclaimed && !last) return this.stop('failed', { kind: 'ownership-lost', message: ownershipLostText(plan.database, label, 'after') });
    return this.judge(run, planned.mode);
  }

  /** A sweep's level: that many workload connections, opened when the level changes. */
  private async openLevel(level: number | null): Promise<void> {
    if (level === null || this.levelSessions.length === level) return;
    await this.closeLevel();
    this.progress('connect', `${level} workload connection${level === 1 ? '' : 's'}`);
    this.levelSessions = await openWorkloadSessions((signal) => this.input.connections.open('workload', signal), level, this.input.signal);
  }

  async closeLevel(): Promise<void> {
    const closing = this.levelSessions;
    this.levelSessions = [];
    for (const s of closing) this.input.connections.forget(s);
    await closeWithin({ close: () => closeSessions(closing) }, WORKLOAD_CLOSE_TIMEOUT_MS);
  }

  private async runSetup(label: string): Promise<boolean> {
    const { workload, setup, executor } = this.input;
    this.progress('setup', label);
    const outcome = await runSetup(workload, setup, executor, { onMessage: this.input.onMessage, signal: this.input.signal });
    if (outcome.status === 'cancelled') throw new ProfileCancelledError();
    if (outcome.status === 'failed') return this.stop('workload-error', { kind: 'workload', message: outcome.error.message });
    return true;
  }

  private async measure(planned: PlannedRun, label: string, repetition: number | null): Promise<RunResult> {
    const input = this.input;
    const onProgress = input.onProgress;
    return input.finishRun(await measureRun(
      {
        workload: input.workload,
        monitor: input.monitor,
        target: input.target,
        executor: input.executor,
        // No per-statement trace in a comparison: it adds work to every statement and would blur the elapsed
        // times being compared (profile the script for per-statement figures).
        // Named after the run (unless the caller named it): recovery drops what a killed process left (runEventSessions.ts).
        xe: { ...input.xe, sessionName: input.xe?.sessionName ?? this.runSessionName(), statements: false, statementsOffReason: STATEMENTS_OFF_IN_COMPARISON },
        signal: input.signal,
        // Every event of the run says which run it is (the progress notification and panel show it).
        onProgress: onProgress && ((e: ProgressEvent) => onProgress({ ...e, run: label })),
        onMessage: input.onMessage,
        preflight: this.preflight,
        sampling: input.sampling,
        workloadTimeoutMs: input.workloadTimeoutMs,
        waits: input.waits,
        concurrent: planned.level !== null ? { sessions: this.levelSessions, parameter: input.sessionParam } : undefined,
        reconnectMonitor: () => input.connections.openForCleanup(),
      },
      planned.level !== null ? input.measured : input.measuredSerial,
      { mode: planned.mode, repetition, warmup: planned.warmup, setupBatchCount: input.setup.length },
    ));
  }

  private runSessionName(): string | undefined {
    const run = this.input.guard.journalEntry?.id;
    return run === undefined ? undefined : eventSessionOfRun(run);
  }

  /** A cancelled run stops the comparison; a workload error stops it only when it ended the run. */
  private judge(run: RunResult, mode: DurabilityMode): boolean {
    if (run.status === 'cancelled') {
      const message = run.cancel?.reason === 'timeout' ? `A ${mode} run hit the workload time limit and was cancelled; ${keptText(this.runs)}` : `The comparison was cancelled; ${keptText(this.runs)}`;
      return this.stop('cancelled', { kind: 'cancelled', message });
    }
    if (run.status !== 'workload-error') return true;
    // Statement errors (the server carried on) are reported and the comparison goes on; an error that ended
    // the run (lost connection, fatal severity) stops it.
    const ended = run.errors.find((x) => x.endedRun !== false);
    const e = ended ?? run.errors[0];
    if (this.error === null || ended) {
      this.status = 'workload-error';
      this.error = { kind: 'workload', message: e ? workloadErrorText(mode, e, !ended) : 'The workload failed.' };
    }
    if (!ended) return true;
    if (ended.number === 0) this.connectionLost = true;
    return false;
  }
}

export async function closeWithin(session: Pick<SqlSession, 'close'>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([session.close().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function externalChangeText(database: string, planned: DurabilityMode, found: DurabilityMode, label: string, measured: boolean): string {
  return `Another session changed DELAYED_DURABILITY of ${database} to ${found} ${measured ? 'during' : 'before'} ${label}: ${measured ? 'that run was measured' : 'it would have run'} under ${found}, not ${planned}, so it was discarded and the comparison stopped; the change was not overwritten.`;
}
