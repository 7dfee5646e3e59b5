// One measured run on open sessions: preflight, before snapshot (MONITOR), log-flush trace and sampler, the user's
// batches (WORKLOAD), after snapshot (also after a cancel), trace read + drop in finally, diff → RunResult.
import { prefetch } from '../db/batch';
import type { SqlClient, SqlSession, WorkloadBatch, WorkloadMessage } from '../db/types';
import {
  captureSnapshot,
  diffSnapshots,
  grantContextOf,
  identifyWithPreflight,
  notApplicable,
  snapshotQueries,
  readCounterInstance,
  valueOf,
  type BenignWaitOptions,
  type Measurement,
  type PreflightResult,
  type ServerIdentity,
  type Snapshot,
  type SnapshotDiff,
} from '../probes';
import { num, text } from '../probes/values';
import type { LogFlushTrace } from '../xe/aggregate';
import { isNameCollision, LogFlushSession } from '../xe/logFlushTrace';
import { planningQueries } from '../xe/plan';
import { statementPlanningQueries } from '../xe/statementTrace';
import { dropSessionSql, statementSessionName } from '../xe/sessionSql';
import { runConcurrent, type ConcurrentSessions } from './concurrency';
import { reconcileRun } from './consistency';
import { tediousExecutor } from './connections';
import { PrintSeriesCollector } from './printSeries';
import { RUN_RESULT_SCHEMA_VERSION, runSchemaFields, runServerOf } from './runSchema';
import { startSampler, type RunningSampler, type SamplerResult } from './sampler';
import type { StatementAttribution, StatementFigure } from './statementAttribution';
import { collectStatementTrace, disposeStatementTrace, prepareStatementTrace, startPreparedStatementTrace, startStatementTrace, type StatementTraceStart } from './statementRun';
import type {
  BatchOutcome,
  DurabilityMode,
  FigureSource,
  LiveProgress,
  MissingMeasurement,
  ProfileCallbacks,
  ProfileStep,
  CancelInfo,
  CommitPath,
  RunError,
  RunConcurrency,
  RunResult,
  SamplingOptions,
  WorkloadDatabaseChange,
  WorkloadExecutor,
  XeOptions,
} from './types';

/** Live workload progress is reported at most this often (batch starts are always reported). */
export const LIVE_PROGRESS_MS = 250;

/** The monitor connection is opened in the target database; DB_ID()/DB_NAME() name it (Learn: db-id-transact-sql). */
export const TARGET_DATABASE_SQL = `SELECT DB_ID() AS database_id, DB_NAME() AS database_name;`;

/**
 * Thrown when the AbortSignal fired before the before-snapshot (nothing was measured yet); everything the run
 * opened or created was cleaned up first. A cancel during the workload returns a RunResult with status 'cancelled'.
 */
export class ProfileCancelledError extends Error {
  constructor(message = 'The run was cancelled.') {
    super(message);
    this.name = 'AbortError';
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ProfileCancelledError();
}

function noLogFlushTrace(err: unknown): MissingMeasurement {
  return { measurement: 'extendedEvents', reason: `No log-flush trace: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null };
}

/** The stand-in's @@VERSION says "Durability Lens stand-in"; anything else is treated as a real SQL Server. */
export function figureSourceOf(versionText: string): FigureSource {
  return /durability lens stand-in/i.test(versionText) ? 'stand-in' : 'sql-server';
}

export interface TargetDatabase {
  databaseId: number;
  databaseName: string;
}

export async function readTargetDatabase(monitor: SqlClient): Promise<TargetDatabase> {
  const row = (await monitor.query(TARGET_DATABASE_SQL))[0] ?? {};
  const databaseId = num(row.database_id);
  const databaseName = text(row.database_name);
  if (databaseId === null || databaseName === null) throw new Error('The monitor connection could not read DB_ID()/DB_NAME().');
  return { databaseId, databaseName };
}

/** Everything one measured run needs besides the batches; the comparison runner reuses it across runs. */
export interface RunContext extends ProfileCallbacks {
  workload: SqlSession;
  monitor: SqlSession;
  target: TargetDatabase;
  executor?: WorkloadExecutor;
  xe?: XeOptions;
  signal?: AbortSignal;
  /** Reopens a monitor connection so the event session can still be dropped when the first one died. */
  reconnectMonitor?: () => Promise<SqlClient>;
  /** Read once per comparison; a plain run reads it itself. */
  preflight?: PreflightResult | null;
  /** Default: on, every 1000 ms. */
  sampling?: SamplingOptions;
  /** Cancel the workload (attention) after this many ms; the run ends 'cancelled' with reason 'timeout'. */
  workloadTimeoutMs?: number;
  /** The user's changes to the shipped benign-wait list for the server waits (include un-hides, exclude hides). */
  waits?: BenignWaitOptions;
  /** A concurrency sweep's level: the batches run on these sessions at once instead of on `workload` (concurrency.ts). */
  concurrent?: ConcurrentSessions;
}

export interface MeasureOptions {
  mode?: DurabilityMode | null;
  repetition?: number | null;
  warmup?: boolean;
  /** Recorded in the result (setup run by the caller before this run). */
  setupBatchCount?: number;
}

function progress(ctx: ProfileCallbacks, step: ProfileStep, detail?: string): void {
  ctx.onProgress?.({ step, at: Date.now(), ...(detail ? { detail } : {}) });
}

function unavailable(m: Measurement<unknown>): MissingMeasurement | null {
  if (m.status === 'ok') return null;
  return { measurement: m.measurement, reason: m.reason, grant: m.grant, ...(m.required ? { required: m.required } : {}) };
}

function collectMissing(before: Snapshot, diff: SnapshotDiff, extra: MissingMeasurement[]): MissingMeasurement[] {
  const candidates = [
    before.database,
    before.fileStats,
    before.serverWaits,
    before.sessionWaits,
    before.logCounters,
    before.logStats,
    before.logSpace,
    before.vlfs,
    before.server.startTime,
    diff.files,
    diff.sessionWaits,
    // The after-snapshot can fail on its own (e.g. an empty source): its diff is then not measured either.
    diff.logCounters,
    diff.serverWaits,
  ];
  const out: MissingMeasurement[] = [];
  const seen = new Set<string>();
  for (const m of [...candidates.map(unavailable), ...extra]) {
    if (!m || seen.has(m.measurement)) continue;
    seen.add(m.measurement);
    out.push(m);
  }
  return out;
}

/** Sum of a cumulative perf counter's delta, or null when the counter was not read. */
export function counterDelta(diff: SnapshotDiff, counterName: string): number | null {
  const counters = valueOf(diff.logCounters);
  const c = counters?.find((x) => x.counterName.toLowerCase() === counterName.toLowerCase());
  return c && c.kind === 'cumulative' ? c.delta : null;
}

/**
 * Runs `batches` once between two snapshots on already-open sessions. A workload error ends the batches but the
 * run is still measured (status 'workload-error'). A cancel (signal or workloadTimeoutMs) sends an attention, waits
 * for its acknowledgement (the batch report), still takes the after-snapshot and returns status 'cancelled'; only a
 * cancel before the before-snapshot throws ProfileCancelledError.
 */
export async function measureRun(ctx: RunContext, batches: readonly WorkloadBatch[], options: MeasureOptions = {}): Promise<RunResult> {
  const { workload, monitor, target, signal } = ctx;
  const executor = ctx.executor ?? tediousExecutor;
  const startedAt = new Date().toISOString();
  const notes: string[] = [];
  const extraMissing: MissingMeasurement[] = [];
  throwIfAborted(signal);

  let preflight = ctx.preflight;
  let identity: ServerIdentity | undefined;
  const xeWanted = ctx.xe?.enabled !== false;
  const statementsWanted = xeWanted && ctx.xe?.statements !== false;
  // Both traces' planning reads, composed into the preflight's request (or one request of their own when the
  // preflight was read by the caller), so the traces start in one more.
  const xePlanningReads = xeWanted ? [...planningQueries({}), ...(statementsWanted ? statementPlanningQueries(true) : [])] : [];
  let xePlanning: SqlClient = monitor;
  if (preflight === undefined) {
    progress(ctx, 'preflight');
    try {
      let answers: SqlClient;
      ({ identity, preflight, answers } = await identifyWithPreflight(monitor, target.databaseName, xePlanningReads));
      xePlanning = answers;
    } catch (err) {
      preflight = null;
      notes.push(`The permission preflight failed (${(err as Error).message}); each measurement reports for itself.`);
    }
  }
  throwIfAborted(signal);

  // In a concurrency run the session rows describe session 1; the sessions' summed WRITELOG is in `concurrency`.
  const snapshotTarget = { databaseId: target.databaseId, databaseName: target.databaseName, workloadSpid: ctx.concurrent?.sessions[0]?.spid ?? workload.spid };
  progress(ctx, 'snapshot-before');
  // One round trip each (db/batch.ts); the identity tells which probes to compose.
  const before = await captureSnapshot(monitor, snapshotTarget, identity ? { identity } : {});
  throwIfAborted(signal);

  const xeMissing = preflight?.missing.find((m) => m.measurement === 'extendedEvents');
  const traceOptions = { databaseId: target.databaseId, ...(ctx.xe?.target ? { target: ctx.xe.target } : {}) };
  let trace: LogFlushSession | null = null;
  let logFlushTrace: LogFlushTrace | null = null;
  const batchOutcomes: BatchOutcome[] = [];
  const errors: RunError[] = [];
  const kept: WorkloadMessage[] = [];
  let messageCount = 0;
  let errorCount = 0;
  let cancel: CancelInfo | null = null;
  let after: Snapshot | null = null;
  let endOfRun: SqlClient = monitor;
  let diff: SnapshotDiff;
  let sampler: RunningSampler | null = null;
  let sampled: SamplerResult | null = null;
  // The workload's own abort: the caller's signal or the time limit, whichever comes first.
  const workloadAbort = new AbortController();
  let workloadStartedAt = 0;
  const abortWorkload = (reason: CancelInfo['reason']) => {
    if (workloadAbort.signal.aborted) return;
    cancel = { reason, atMs: workloadStartedAt === 0 ? 0 : Date.now() - workloadStartedAt };
    workloadAbort.abort();
  };
  const onCallerAbort = () => abortWorkload('user');
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  let timeout: ReturnType<typeof setTimeout> | null = null;
  const series = new PrintSeriesCollector(Date.now());
  let historyAtStart = 0;
  let concurrency: RunConcurrency | null = null;
  let statementTrace: StatementTraceStart = { trace: null, missing: null };
  let statements: StatementFigure[] = [];
  let statementAttribution: StatementAttribution | null = null;

  try {
    if (!xeWanted) {
      extraMissing.push({ measurement: 'extendedEvents', reason: 'The log-flush trace was turned off for this run.', grant: null });
    } else if (xeMissing) {
      extraMissing.push({ measurement: 'extendedEvents', reason: `No ${xeMissing.label}: the login may not create event sessions.`, grant: xeMissing.grant });
    } else {
      progress(ctx, 'xe-start');
      if (preflight !== undefined && xePlanning === monitor) xePlanning = await prefetch(monitor, xePlanningReads);
      try {
        trace = await LogFlushSession.prepare(monitor, { ...traceOptions, ...(ctx.xe?.sessionName ? { sessionName: ctx.xe.sessionName } : {}) }, xePlanning);
      } catch (err) {
        extraMissing.push(noLogFlushTrace(err));
      }
    }
    // Per-statement attribution (issue 16): its own session, filtered to the workload's spid.
    const statementsRefused = !statementsWanted
      ? { reason: ctx.xe?.statementsOffReason ?? 'The statement trace was turned off for this run.', grant: null, off: true }
      : ctx.concurrent
        // The session follows one spid and pairs each wait with that session's next statement; N sessions at once
        // would need N such pairings. Not measured, said as such (never an empty trace shown as measured).
        ? { reason: `Statements are traced on one session; this run used ${ctx.concurrent.sessions.length} sessions at once. Profile without --sessions (one session) for per-statement figures.`, grant: null, off: true }
      : xeMissing
        ? { reason: `No ${xeMissing.label}: the login may not create event sessions.`, grant: xeMissing.grant }
        : null;
    // Named after the run's log-flush session (or the name the caller claimed), so the ledger and orphan cleanup see
    // it as that run's companion, not a leftover.
    const statementName = (name: string | undefined) => (name ? statementSessionName(name) : undefined);
    statementTrace = await prepareStatementTrace(monitor, workload.spid, trace?.plan.platform, statementsRefused, ctx.xe?.target, statementName(trace?.name ?? ctx.xe?.sessionName), xePlanning);
    if (trace) {
      // Both sessions' CREATE + START in one request, each START only after its own CREATE worked, each session in
      // its own TRY block (db/batch.ts): the statement session's failure leaves the log-flush session running.
      const prepared = statementTrace.trace?.state === 'prepared' ? statementTrace.trace : null;
      const started = await prefetch(monitor, [...trace.startQueries(), ...(prepared ? prepared.startQueries() : [])]);
      try {
        try {
          await trace.start(started);
        } catch (err) {
          if (!isNameCollision(err)) throw err;
          // Someone else's session has this name: never drop theirs (so this instance is abandoned, not disposed),
          // and try once more under a fresh random name.
          notes.push(`An event session named ${trace.name} already existed (not ours, left as it is); the trace used a new name.`);
          trace = null;
          trace = await LogFlushSession.prepare(monitor, traceOptions);
          await trace.start();
        }
      } catch (err) {
        extraMissing.push(noLogFlushTrace(err));
      }
      statementTrace = await startPreparedStatementTrace(statementTrace, started);
      if (trace && statementTrace.nameTaken && prepared && prepared.name !== statementSessionName(trace.name)) {
        // Its name was taken too (e.g. left by an earlier run under the claimed name): once more after the log-flush
        // session's new name, in requests of its own (a rare path).
        statementTrace = await startStatementTrace(monitor, workload.spid, trace.plan.platform, null, ctx.xe?.target, statementName(trace.name));
      }
      const partner = statementTrace.trace;
      // Its status read with the log-flush STOPs and its DROP in the same request as the log-flush DROP.
      if (trace && partner && partner.plan.platform.scope === trace.plan.scope) trace.partners = [partner.name];
    } else {
      statementTrace = await startPreparedStatementTrace(statementTrace);
    }

    // Live progress (issue 20): batch, GO iteration, elapsed time and the sampler's log figures, at most every
    // LIVE_PROGRESS_MS so a GO 10000 loop does not flood the notification.
    const live: LiveProgress = { batch: 0, batches: batches.length, iterationsDone: 0, iterations: 1, elapsedMs: 0, logFlushes: null, logBytes: null };
    let lastLive = 0;
    const reportLive = (force = false) => {
      if (workloadStartedAt === 0) return;
      const now = Date.now();
      if (!force && now - lastLive < LIVE_PROGRESS_MS) return;
      lastLive = now;
      live.elapsedMs = now - workloadStartedAt;
      const iterations = live.iterations > 1 ? `, GO iteration ${Math.min(live.iterationsDone + 1, live.iterations)} of ${live.iterations}` : '';
      ctx.onProgress?.({ step: 'workload-progress', at: now, detail: `batch ${live.batch} of ${live.batches}${iterations}`, live: { ...live } });
    };
    if (ctx.sampling?.enabled !== false) {
      // On MI / Azure SQL Database the counters name the database by its GUID (probes/perfCounters.ts).
      const counterInstance = await readCounterInstance(monitor, target.databaseId, target.databaseName, before.server.identity.platform).catch(() => undefined);
      sampler = startSampler(monitor, {
        ...(counterInstance ? { counterInstance } : {}),
        onSample: (s) => {
          live.logFlushes = s.logFlushes;
          // Log bytes from the log files' writes (the counter can be unreadable where file stats are not).
          const logIds = new Set((before.fileStats.status === 'ok' ? before.fileStats.value : []).filter((f) => f.kind === 'log').map((f) => f.fileId));
          live.logBytes = logIds.size > 0 ? s.files.filter((f) => logIds.has(f.fileId)).reduce((n, f) => n + f.bytesWritten, 0) : s.logBytesFlushed;
          reportLive();
        },
        ...(ctx.sampling?.intervalMs !== undefined ? { intervalMs: ctx.sampling.intervalMs } : {}),
        databaseId: target.databaseId,
        databaseName: target.databaseName,
        monitorInTargetDb: before.server.identity.currentDatabase === target.databaseName,
        grantContext: grantContextOf(before.server.identity, target.databaseName),
        // Count from the before-snapshot, so samples and the final deltas share one baseline.
        ...(before.fileStats.status === 'ok' && before.logCounters.status === 'ok'
          ? { baseline: { at: before.capturedAtMs, files: before.fileStats.value, counters: before.logCounters.value } }
          : {}),
      });
    }

    progress(ctx, 'workload', `${batches.length} batch(es)`);
    historyAtStart = workload.databaseHistory?.length ?? 0;
    workloadStartedAt = Date.now();
    series.reset(workloadStartedAt);
    if (signal?.aborted) abortWorkload('user');
    if (ctx.workloadTimeoutMs !== undefined && ctx.workloadTimeoutMs > 0) timeout = setTimeout(() => abortWorkload('timeout'), ctx.workloadTimeoutMs);
    if (ctx.concurrent && !workloadAbort.signal.aborted) {
      const c = await runConcurrent(monitor, ctx.concurrent, batches, executor, {
        signal: workloadAbort.signal,
        grantContext: grantContextOf(before.server.identity, target.databaseName),
        onMessage: (m) => {
          series.add(m);
          ctx.onMessage?.(m);
        },
      });
      concurrency = c.concurrency;
      batchOutcomes.push(...c.batches);
      errors.push(...c.errors);
      messageCount += c.messageCount;
      for (const m of c.messages) {
        if (m.kind === 'error') errorCount++;
        if (kept.length < 100) kept.push(m);
      }
      if (c.connectionLost) notes.push('A workload connection was lost during the run; its session and any open transaction are gone.');
      if (c.cancelled) cancel ??= { reason: 'user', atMs: Date.now() - workloadStartedAt };
    }
    for (const [index, batch] of (ctx.concurrent ? [] : batches).entries()) {
      if (workloadAbort.signal.aborted) break;
      live.batch = index + 1;
      live.iterations = Math.max(1, batch.repeat);
      live.iterationsDone = 0;
      reportLive(true);
      const run = executor.run(workload, batch, {
        onMessage: (m) => {
          series.add(m);
          ctx.onMessage?.(m);
        },
        signal: workloadAbort.signal,
        onIteration: (done) => {
          live.iterationsDone = done;
          reportLive();
        },
      });
      const report = await run.done;
      batchOutcomes.push({
        batchIndex: index,
        firstLine: batch.firstLine,
        repeat: batch.repeat,
        elapsedMs: report.elapsedMs,
        iterationsCompleted: report.iterationsCompleted,
        statements: report.statements,
        rowsAffected: report.rowsAffected,
        rowsReturned: report.rowsReturned,
      });
      messageCount += report.messageCount;
      for (const m of report.messages) {
        if (m.kind === 'error') errorCount++;
        if (kept.length < 100) kept.push(m);
      }
      if (report.cancelled) {
        if (report.connectionLost) notes.push(`The workload connection was closed while its cancel was pending (${report.error?.message ?? 'no acknowledgement'}); its session and any open transaction are gone (the server rolls that back).`);
        // The batch report arrives after the server acknowledged the attention (tedious ECANCEL).
        cancel ??= { reason: 'user', atMs: Date.now() - workloadStartedAt };
        break;
      }
      for (const e of report.statementErrors ?? []) errors.push({ number: e.number, message: e.message, documentLine: e.documentLine, batchIndex: index, endedRun: false });
      if (report.statementErrors?.length) {
        const first = report.statementErrors[0]!;
        notes.push(
          `Batch ${index + 1} raised ${report.statementErrors.length} SQL error(s), the first ${first.number}${first.documentLine !== null ? ` at line ${first.documentLine + 1}` : ''}: the server carried on (severity below 20), so did the run — the figures cover the whole workload as the server ran it.`,
        );
      }
      if (report.error) {
        if (report.connectionLost) notes.push('The workload connection was lost during the run (socket closed); its session and any open transaction are gone.');
        errors.push({ number: report.error.number, message: report.error.message, documentLine: report.error.documentLine, batchIndex: index, endedRun: true });
        notes.push(`The workload stopped at an error in batch ${index + 1}${report.error.documentLine !== null ? ` (line ${report.error.documentLine + 1})` : ''}: the figures cover what ran before it.`);
        break;
      }
    }
    if (timeout) clearTimeout(timeout);
    if (cancel) {
      const c = cancel as CancelInfo;
      progress(ctx, 'cancel', c.reason === 'timeout' ? `workload time limit ${ctx.workloadTimeoutMs} ms` : 'cancelled');
      notes.push(
        c.reason === 'timeout'
          ? `The workload was stopped after ${ctx.workloadTimeoutMs} ms (the workload time limit): the figures cover what ran until the server acknowledged the cancel.`
          : 'The run was cancelled: the figures cover what ran until the server acknowledged the cancel. An open transaction of the workload was rolled back by the server only if the batch had XACT_ABORT or its own handling; check @@TRANCOUNT before reusing the session.',
      );
    }
    if (sampler) {
      sampled = await sampler.stop();
      sampler = null;
    }

    progress(ctx, 'snapshot-after');
    try {
      // The after-snapshot and both traces' target reads + STOPs share one request (db/batch.ts): one round trip, and
      // the counters and the traces' exact targets describe the same moment.
      const statementStop = statementTrace.trace?.state === 'started' ? statementTrace.trace.stopQueries() : [];
      const endQueries = [
        ...snapshotQueries(snapshotTarget, before.server.identity, { countersOnly: true }),
        ...(trace?.state === 'started' ? trace.stopQueries(statementStop) : statementStop),
      ];
      endOfRun = await prefetch(monitor, endQueries);
      after = await captureSnapshot(endOfRun, snapshotTarget, { countersOnly: true, identity: before.server.identity });
    } catch (err) {
      // The monitor connection died during the run: the DMVs are server-wide, so a new connection can still take
      // the after-snapshot (the workload session's waits are read by its spid).
      if (!ctx.reconnectMonitor) throw err;
      notes.push(`The monitor connection failed during the run (${(err as Error).message}); the after-snapshot was taken on a new connection.`);
      after = await captureSnapshot(await ctx.reconnectMonitor(), snapshotTarget, { countersOnly: true, identity: before.server.identity });
    }
    // One diff serves the trace's counter cross-check and the result. Session waits unabridged (every wait type of
    // the session); server waits beyond the top 100 are summed in `others`.
    const benign = { ...(ctx.waits?.include ? { include: ctx.waits.include } : {}), ...(ctx.waits?.exclude ? { exclude: ctx.waits.exclude } : {}) };
    diff = diffSnapshots(before, after, { sessionWaits: { topN: 1000 }, waits: { topN: 100, ...benign } });

    if (trace && trace.state === 'started') {
      progress(ctx, 'xe-read');
      try {
        await trace.stop(endOfRun);
        logFlushTrace = await trace.collect({
          commitCount: counterDelta(diff, 'Write Transactions/sec'),
          counterLogFlushes: counterDelta(diff, 'Log Flushes/sec'),
        });
        if (logFlushTrace.notMeasured) extraMissing.push({ measurement: 'extendedEvents', reason: logFlushTrace.notMeasured, grant: null });
      } catch (err) {
        extraMissing.push({ measurement: 'extendedEvents', reason: `The log-flush trace could not be read: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null });
      }
    }
    const attributed = await collectStatementTrace(statementTrace, batches, diff, ctx.xe?.modules, endOfRun);
    statements = attributed.statements;
    statementAttribution = attributed.attribution;
    if (attributed.missing) extraMissing.push(attributed.missing);
  } finally {
    if (timeout) clearTimeout(timeout);
    signal?.removeEventListener('abort', onCallerAbort);
    // An error above must not leave the sampler querying the monitor while the trace is dropped.
    if (sampler) await sampler.stop().catch(() => undefined);
    if (trace || statementTrace.trace) progress(ctx, 'xe-drop');
    // Both sessions' DROPs in one request (composeDrops never throws; a failed request leaves each DROP to itself).
    const drops = trace ? await trace.composeDrops().catch(() => undefined) : undefined;
    await disposeStatementTrace(statementTrace, ctx.reconnectMonitor, notes, drops);
    if (trace) {
      try {
        await trace.dispose(ctx.reconnectMonitor);
      } catch (err) {
        notes.push(`The event session ${trace.name} could not be dropped (${(err as Error).message}). Drop it with: ${dropSessionSql(trace.name, trace.plan.scope)}`);
      }
    }
  }

  notes.push(...diff.notes);
  const workloadDatabaseChange = databaseChangeOf(workload.databaseHistory, historyAtStart, target.databaseName);
  if (workloadDatabaseChange) notes.push(workloadDatabaseChange.message);
  if (sampled) notes.push(...sampled.notes);
  const printed = series.result();
  if (printed.droppedPoints > 0) notes.push(`${printed.droppedPoints} PRINT value(s) were not kept (series limits).`);
  const databaseInfo = valueOf(before.database);
  const workloadElapsedMs = concurrency ? (concurrency as RunConcurrency).wallMs : batchOutcomes.reduce((s, b) => s + b.elapsedMs, 0);
  const finalCancel = cancel as CancelInfo | null;
  const commitPath = commitPathOf(before);
  // The session's CPU (issue 29's time basis) is missing only when refused or failed, like the commit path's settings.
  const cpuMissing = diff.sessionCpu && diff.sessionCpu.status !== 'ok' && diff.sessionCpu.cause !== 'not-applicable' ? [unavailable(diff.sessionCpu)!] : [];
  const missing = collectMissing(before, diff, [...extraMissing, ...commitPathMissing(commitPath), ...cpuMissing]);
  // Independent sources reconciled on every run; the WRITELOG time check also settles the wait event's unit (D2).
  const reconciled = reconcileRun({ diff, logFlushTrace, statements, statementAttribution, missing, concurrentSessions: (concurrency as RunConcurrency | null)?.sessions ?? null });
  return {
    schemaVersion: RUN_RESULT_SCHEMA_VERSION,
    source: figureSourceOf(before.server.identity.versionText),
    status: finalCancel ? 'cancelled' : errors.length > 0 ? 'workload-error' : 'completed',
    mode: options.mode ?? null,
    repetition: options.repetition ?? null,
    warmup: options.warmup ?? false,
    startedAt,
    workloadElapsedMs,
    snapshotIntervalMs: diff.elapsedMs,
    server: runServerOf(before.server),
    database: databaseInfo,
    delayedDurability: databaseInfo?.delayedDurability ?? null,
    workloadSpid: workload.spid,
    batches: batchOutcomes,
    diff,
    logFlushTrace,
    messages: { total: messageCount, errors: errorCount, info: messageCount - errorCount, first: kept },
    errors,
    missing,
    preflight: preflight ?? null,
    notes,
    ...runSchemaFields(diff, workloadElapsedMs),
    samples: sampled?.samples ?? [],
    sampleIntervalMs: sampled?.intervalMs ?? null,
    printSeries: printed.series,
    cancel: finalCancel,
    setupBatchCount: options.setupBatchCount ?? 0,
    workloadDatabaseChange,
    ...(concurrency ? { concurrency } : {}),
    statements: reconciled.statements,
    statementAttribution: reconciled.statementAttribution,
    consistency: reconciled.checks,
    commitPath,
  };
}

/** The commit path's settings from the before-snapshot (issue 29); a snapshot without them reads "not captured". */
function commitPathOf(before: Snapshot): CommitPath {
  const absent = <T>(m: 'logRateGovernance' | 'hyperscaleLogRate' | 'inMemoryTables') => notApplicable<T>(m, 'Not captured in this snapshot.');
  return {
    logRateGovernance: before.logRateGovernance ?? absent('logRateGovernance'),
    hyperscaleLogRate: before.hyperscaleLogRate ?? absent('hyperscaleLogRate'),
    inMemoryTables: before.inMemoryTables ?? absent('inMemoryTables'),
  };
}

/** Only a refused or failed read is "missing": a source this platform does not have is not supported, not missing. */
function commitPathMissing(path: CommitPath): MissingMeasurement[] {
  return Object.values(path)
    .filter((m) => m.status !== 'ok' && m.cause !== 'not-supported' && m.cause !== 'not-applicable')
    .map((m) => unavailable(m)!)
    .filter((m) => m !== null);
}

/**
 * The workload session's databases during the run (tedious 'databaseChange', kept by the session): the one it was in
 * when the run started and every USE since. Anything other than the measured database means the monitor measured
 * one database while the workload wrote to another.
 */
export function databaseChangeOf(history: readonly string[] | undefined, atStart: number, measured: string): WorkloadDatabaseChange | null {
  if (!history || history.length === 0) return null;
  const during = [...(atStart > 0 ? [history[atStart - 1]!] : []), ...history.slice(atStart)];
  const same = (a: string) => a.toLowerCase() === measured.toLowerCase();
  const visited = [...new Set(during.filter((d) => !same(d)))];
  if (visited.length === 0) return null;
  const list = visited.map((d) => `"${d}"`).join(', ');
  return {
    measured,
    visited,
    message: `The workload session ran in ${list} (a USE in the workload moved it), while the measurements describe "${measured}": per-file IO, log counters and the log-flush trace cover "${measured}" only, so the work done in ${list} is not in them (the session's own waits cover both). Remove the USE, or connect to that database and measure it there.`,
  };
}

