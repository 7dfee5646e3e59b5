// The measured part of a run: the user's batches on the workload session (or a concurrency level's sessions at once),
// with live progress fed by the sampler, and a cancel — the caller's signal or the time limit — that sends an
// attention, waits for its acknowledgement, and lets the run go on to its after-snapshot.
import type { WorkloadBatch, WorkloadMessage } from '../db/types';
import { grantContextOf, readCounterInstance, type Snapshot } from '../probes';
import { runConcurrent } from './concurrency';
import { tediousExecutor } from './connections';
import { PrintSeriesCollector } from './printSeries';
import { LIVE_PROGRESS_MS, progress, type RunContext } from './runContext';
import { startSampler, type RunningSampler, type SamplerResult } from './sampler';
import type { BatchOutcome, CancelInfo, LiveProgress, RunConcurrency, RunError } from './types';

/** At most this many of the workload's messages are kept in the result (all are counted). */
const KEPT_MESSAGES = 100;

export class WorkloadStep {
  readonly batchOutcomes: BatchOutcome[] = [];
  readonly errors: RunError[] = [];
  readonly kept: WorkloadMessage[] = [];
  messageCount = 0;
  errorCount = 0;
  cancel: CancelInfo | null = null;
  concurrency: RunConcurrency | null = null;
  readonly series = new PrintSeriesCollector(Date.now());
  /** Databases the workload session had been in before the run (tedious databaseChange history). */
  historyAtStart = 0;
  private startedAt = 0;
  private sampler: RunningSampler | null = null;
  /** The workload's own abort: the caller's signal or the time limit, whichever comes first. */
  private readonly abort = new AbortController();
  private timeout: ReturnType<typeof setTimeout> | null = null;
  private readonly onCallerAbort = () => this.abortWorkload('user');
  // Live progress (issue 20): batch, GO iteration, elapsed time and the sampler's log figures, at most every
  // LIVE_PROGRESS_MS so a GO 10000 loop does not flood the notification.
  private readonly live: LiveProgress;
  private lastLive = 0;

  constructor(
    private readonly ctx: RunContext,
    private readonly batches: readonly WorkloadBatch[],
    /** The run's notes, added to as the workload goes. */
    private readonly notes: string[],
  ) {
    this.live = { batch: 0, batches: batches.length, iterationsDone: 0, iterations: 1, elapsedMs: 0, logFlushes: null, logBytes: null };
    ctx.signal?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get elapsedMs(): number {
    return this.concurrency ? this.concurrency.wallMs : this.batchOutcomes.reduce((s, b) => s + b.elapsedMs, 0);
  }

  private abortWorkload(reason: CancelInfo['reason']): void {
    if (this.abort.signal.aborted) return;
    this.cancel = { reason, atMs: this.startedAt === 0 ? 0 : Date.now() - this.startedAt };
    this.abort.abort();
  }

  private reportLive(force = false): void {
    if (this.startedAt === 0) return;
    const now = Date.now();
    if (!force && now - this.lastLive < LIVE_PROGRESS_MS) return;
    this.lastLive = now;
    const live = this.live;
    live.elapsedMs = now - this.startedAt;
    const iterations = live.iterations > 1 ? `, GO iteration ${Math.min(live.iterationsDone + 1, live.iterations)} of ${live.iterations}` : '';
    this.ctx.onProgress?.({ step: 'workload-progress', at: now, detail: `batch ${live.batch} of ${live.batches}${iterations}`, live: { ...live } });
  }

  /** Samples the log while the workload runs (unless turned off), counting from the before-snapshot. */
  async startSampler(before: Snapshot): Promise<void> {
    const { ctx } = this;
    const { monitor, target } = ctx;
    if (ctx.sampling?.enabled === false) return;
    // On MI / Azure SQL Database the counters name the database by its GUID (probes/perfCounters.ts).
    const counterInstance = await readCounterInstance(monitor, target.databaseId, target.databaseName, before.server.identity.platform).catch(() => undefined);
    // Log bytes from the log files' writes (the counter can be unreadable where file stats are not).
    const logIds = new Set((before.fileStats.status === 'ok' ? before.fileStats.value : []).filter((f) => f.kind === 'log').map((f) => f.fileId));
    this.sampler = startSampler(monitor, {
      counterInstance,
      onSample: (s) => {
        this.live.logFlushes = s.logFlushes;
        this.live.logBytes = logIds.size > 0 ? s.files.filter((f) => logIds.has(f.fileId)).reduce((n, f) => n + f.bytesWritten, 0) : s.logBytesFlushed;
        this.reportLive();
      },
      intervalMs: ctx.sampling?.intervalMs,
      databaseId: target.databaseId,
      databaseName: target.databaseName,
      monitorInTargetDb: before.server.identity.currentDatabase === target.databaseName,
      grantContext: grantContextOf(before.server.identity, target.databaseName),
      // Count from the before-snapshot, so samples and the final deltas share one baseline.
      baseline: before.fileStats.status === 'ok' && before.logCounters.status === 'ok' ? { at: before.capturedAtMs, files: before.fileStats.value, counters: before.logCounters.value } : undefined,
    });
  }

  /** Stops the sampler's timer and waits for its reading in flight: the monitor is free for the after-snapshot. */
  async pauseSampler(): Promise<void> {
    await this.sampler?.pause();
  }

  /**
   * The sampler's series; null when it did not run. The after-snapshot's file stats and counters (the same reads as a
   * sample's) serve as its last reading when it needs one, instead of a request of its own.
   */
  async stopSampler(after: Snapshot): Promise<SamplerResult | null> {
    const sampler = this.sampler;
    this.sampler = null;
    const last = after.fileStats.status === 'ok' && after.logCounters.status === 'ok' ? { at: after.capturedAtMs, files: after.fileStats.value, counters: after.logCounters.value } : undefined;
    return sampler ? sampler.stop(last) : null;
  }

  /**
   * Runs the batches. A workload error ends the batches but the run is still measured; a cancel waits for the
   * server's acknowledgement (the batch report) and says what the figures cover.
   */
  async run(before: Snapshot): Promise<void> {
    const { ctx, batches, notes } = this;
    const { workload, signal } = ctx;
    const executor = ctx.executor ?? tediousExecutor;
    progress(ctx, 'workload', `${batches.length} batch(es)`);
    this.historyAtStart = workload.databaseHistory?.length ?? 0;
    this.startedAt = Date.now();
    this.series.reset(this.startedAt);
    if (signal?.aborted) this.abortWorkload('user');
    if (ctx.workloadTimeoutMs !== undefined && ctx.workloadTimeoutMs > 0) this.timeout = setTimeout(() => this.abortWorkload('timeout'), ctx.workloadTimeoutMs);
    const onMessage = (m: WorkloadMessage) => {
      this.series.add(m);
      ctx.onMessage?.(m);
    };
    if (ctx.concurrent && !this.abort.signal.aborted) {
      const c = await runConcurrent(ctx.monitor, ctx.concurrent, batches, executor, { signal: this.abort.signal, grantContext: grantContextOf(before.server.identity, ctx.target.databaseName), onMessage });
      this.concurrency = c.concurrency;
      this.batchOutcomes.push(...c.batches);
      this.errors.push(...c.errors);
      this.keep(c.messageCount, c.messages);
      if (c.connectionLost) notes.push('A workload connection was lost during the run; its session and any open transaction are gone.');
      if (c.cancelled) this.cancel ??= { reason: 'user', atMs: Date.now() - this.startedAt };
    }
    for (const [index, batch] of (ctx.concurrent ? [] : batches).entries()) {
      if (this.abort.signal.aborted) break;
      if (!(await this.runBatch(index, batch, executor, onMessage))) break;
    }
    this.clearTimeout();
    if (this.cancel) {
      const c = this.cancel;
      progress(ctx, 'cancel', c.reason === 'timeout' ? `workload time limit ${ctx.workloadTimeoutMs} ms` : 'cancelled');
      notes.push(
        c.reason === 'timeout'
          ? `The workload was stopped after ${ctx.workloadTimeoutMs} ms (the workload time limit): the figures cover what ran until the server acknowledged the cancel.`
          : 'The run was cancelled: the figures cover what ran until the server acknowledged the cancel. An open transaction of the workload was rolled back by the server only if the batch had XACT_ABORT or its own handling; check @@TRANCOUNT before reusing the session.',
      );
    }
  }

  private keep(count: number, messages: readonly WorkloadMessage[]): void {
    this.messageCount += count;
    for (const m of messages) {
      if (m.kind === 'error') this.errorCount++;
      if (this.kept.length < KEPT_MESSAGES) this.kept.push(m);
    }
  }

  /** One batch on the workload session; false when the run ends here (cancelled or an error that ends the batch). */
  private async runBatch(index: number, batch: WorkloadBatch, executor: NonNullable<RunContext['executor']>, onMessage: (m: WorkloadMessage) => void): Promise<boolean> {
    const { notes, live } = this;
    live.batch = index + 1;
    live.iterations = Math.max(1, batch.repeat);
    live.iterationsDone = 0;
    this.reportLive(true);
    const run = executor.run(this.ctx.workload, batch, {
      onMessage,
      signal: this.abort.signal,
      onIteration: (done) => {
        live.iterationsDone = done;
        this.reportLive();
      },
    });
    const report = await run.done;
    this.batchOutcomes.push({
      batchIndex: index,
      firstLine: batch.firstLine,
      repeat: batch.repeat,
      elapsedMs: report.elapsedMs,
      iterationsCompleted: report.iterationsCompleted,
      statements: report.statements,
      rowsAffected: report.rowsAffected,
      rowsReturned: report.rowsReturned,
    });
    this.keep(report.messageCount, report.messages);
    if (report.cancelled) {
      if (report.connectionLost) notes.push(`The workload connection was closed while its cancel was pending (${report.error?.message ?? 'no acknowledgement'}); its session and any open transaction are gone (the server rolls that back).`);
      // The batch report arrives after the server acknowledged the attention (tedious ECANCEL).
      this.cancel ??= { reason: 'user', atMs: Date.now() - this.startedAt };
      return false;
    }
    for (const e of report.statementErrors ?? []) this.errors.push({ number: e.number, message: e.message, documentLine: e.documentLine, batchIndex: index, endedRun: false });
    if (report.statementErrors?.length) {
      const first = report.statementErrors[0]!;
      notes.push(
        `Batch ${index + 1} raised ${report.statementErrors.length} SQL error(s), the first ${first.number}${first.documentLine !== null ? ` at line ${first.documentLine + 1}` : ''}: the server carried on (severity below 20), so did the run — the figures cover the whole workload as the server ran it.`,
      );
    }
    if (report.error) {
      if (report.connectionLost) notes.push('The workload connection was lost during the run (socket closed); its session and any open transaction are gone.');
      this.errors.push({ number: report.error.number, message: report.error.message, documentLine: report.error.documentLine, batchIndex: index, endedRun: true });
      notes.push(`The workload stopped at an error in batch ${index + 1}${report.error.documentLine !== null ? ` (line ${report.error.documentLine + 1})` : ''}: the figures cover what ran before it.`);
      return false;
    }
    return true;
  }

  private clearTimeout(): void {
    if (this.timeout) clearTimeout(this.timeout);
  }

  /** Whatever happened: no timer left, no listener on the caller's signal, no sampler querying the monitor. */
  async dispose(): Promise<void> {
    this.clearTimeout();
    this.ctx.signal?.removeEventListener('abort', this.onCallerAbort);
    await this.sampler?.stop().catch(() => undefined);
    this.sampler = null;
  }
}
