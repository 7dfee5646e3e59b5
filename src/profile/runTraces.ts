// The measured run's two event sessions on the monitor connection: the log-flush trace and the statement trace.
// Planned from reads composed into the preflight's request, started together in one request, stopped in the
// after-snapshot's request, read into the RunResult, and dropped together in the run's finally. A trace that cannot
// run becomes "not measured" with why and the GRANT; it never fails the run.
import { prefetch, PrefetchedClient, type PlannedQuery } from '../db/batch';
import type { SqlClient, WorkloadBatch } from '../db/types';
import type { PreflightResult, SnapshotDiff } from '../probes';
import type { LogFlushTrace } from '../xe/aggregate';
import { LogFlushSession } from '../xe/logFlushTrace';
import { planningQueries } from '../xe/plan';
import { dropSessionSql, statementSessionName } from '../xe/sessionSql';
import { isNameCollision } from '../xe/sessionRunner';
import { answerLost } from '../xe/errors';
import { statementPlanningQueries } from '../xe/statementTrace';
import { counterDelta } from './runResult';
import { progress, type RunContext } from './runContext';
import type { StatementAttribution, StatementFigure } from './statementAttribution';
import { collectStatementTrace, disposeStatementTrace, prepareStatementTrace, startPreparedStatementTrace, startStatementTrace, type StatementTraceStart } from './statementRun';
import type { MissingMeasurement } from './types';

/**
 * The statement session's name for a log-flush session's (or the name the caller claimed), so the ledger and orphan
 * cleanup see it as that run's companion, not a leftover.
 */
function statementName(name: string | undefined): string | undefined {
  return name ? statementSessionName(name) : undefined;
}

/** Why a composed request failed as a whole when no server error says so (its effect on the server is unknown), or null. */
function unansweredFailure(client: SqlClient): Error | null {
  if (!(client instanceof PrefetchedClient) || client.batchFailure === null) return null;
  return answerLost(client.batchFailure) ? client.batchFailure : null;
}

/** A client that sends nothing: every statement fails with `err`. */
function failingClient(err: Error): SqlClient {
  const fail = () => Promise.reject(err);
  return { query: fail, execute: fail };
}

function noLogFlushTrace(err: unknown): MissingMeasurement {
  return { measurement: 'extendedEvents', reason: `No log-flush trace: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null };
}

export class RunTraces {
  readonly xeWanted: boolean;
  readonly statementsWanted: boolean;
  /** Both traces' planning reads, for composing into the preflight's request (or one request of their own). */
  readonly planningReads: PlannedQuery[];
  logFlush: LogFlushSession | null = null;
  statement: StatementTraceStart = { trace: null, missing: null };
  logFlushTrace: LogFlushTrace | null = null;
  statements: StatementFigure[] = [];
  statementAttribution: StatementAttribution | null = null;
  /** The log-flush trace was wanted and allowed: start() reports the 'xe-start' step. */
  private startsLogFlush = false;

  constructor(
    private readonly ctx: RunContext,
    /** The run's notes and missing measurements, added to as the traces go. */
    private readonly notes: string[],
    private readonly missing: MissingMeasurement[],
  ) {
    this.xeWanted = ctx.xe?.enabled !== false;
    this.statementsWanted = this.xeWanted && ctx.xe?.statements !== false;
    this.planningReads = this.xeWanted ? [...planningQueries({}), ...(this.statementsWanted ? statementPlanningQueries(true) : [])] : [];
  }

  /** The log-flush session's options every prepare shares: the target database and the caller's target choice. */
  private traceOptions() {
    return { databaseId: this.ctx.target.databaseId, target: this.ctx.xe?.target };
  }

  /**
   * Plans both sessions (nothing changes on the server). `planning` may hold the planning reads' answers (composed
   * into the preflight's request).
   */
  async prepare(preflight: PreflightResult | null | undefined, planning: SqlClient): Promise<void> {
    const { ctx, missing } = this;
    const { monitor, workload } = ctx;
    const xeMissing = preflight?.missing.find((m) => m.measurement === 'extendedEvents');
    const traceOptions = this.traceOptions();
    if (!this.xeWanted) {
      missing.push({ measurement: 'extendedEvents', reason: 'The log-flush trace was turned off for this run.', grant: null });
    } else if (xeMissing) {
      missing.push({ measurement: 'extendedEvents', reason: `No ${xeMissing.label}: the login may not create event sessions.`, grant: xeMissing.grant });
    } else {
      this.startsLogFlush = true;
      if (preflight !== undefined && planning === monitor) planning = await prefetch(monitor, this.planningReads);
      try {
        this.logFlush = await LogFlushSession.prepare(monitor, { ...traceOptions, sessionName: ctx.xe?.sessionName }, planning);
      } catch (err) {
        missing.push(noLogFlushTrace(err));
      }
    }
    // Per-statement attribution (issue 16): its own session, filtered to the workload's spid.
    const statementsRefused = !this.statementsWanted
      ? { reason: ctx.xe?.statementsOffReason ?? 'The statement trace was turned off for this run.', grant: null, off: true }
      : ctx.concurrent
        // The session follows one spid and pairs each wait with that session's next statement; N sessions at once
        // would need N such pairings. Not measured, said as such (never an empty trace shown as measured).
        ? { reason: `Statements are traced on one session; this run used ${ctx.concurrent.sessions.length} sessions at once. Profile without --sessions (one session) for per-statement figures.`, grant: null, off: true }
      : xeMissing
        ? { reason: `No ${xeMissing.label}: the login may not create event sessions.`, grant: xeMissing.grant }
        : null;
    this.statement = await prepareStatementTrace(monitor, workload.spid, this.logFlush?.plan.platform, statementsRefused, ctx.xe?.target, statementName(this.logFlush?.name ?? ctx.xe?.sessionName), planning);
  }

  /** Both prepared sessions' CREATE + START, each START only after its own CREATE worked, each session in its own TRY block (db/batch.ts). */
  startQueries(): PlannedQuery[] {
    const prepared = this.statement.trace?.state === 'prepared' ? this.statement.trace : null;
    return [...(this.logFlush?.startQueries() ?? []), ...(prepared ? prepared.startQueries() : [])];
  }

  /**
   * Starts what prepare() planned, in one request (or none: `answers` may hold the startQueries() answers, composed
   * into the before-snapshot's request). The statement session's failure leaves the log-flush session running.
   */
  async start(answers: SqlClient = this.ctx.monitor): Promise<void> {
    const { ctx, missing } = this;
    const { monitor, workload } = ctx;
    if (this.startsLogFlush) progress(ctx, 'xe-start');
    let trace = this.logFlush;
    const prepared = this.statement.trace?.state === 'prepared' ? this.statement.trace : null;
    // A start request that failed without the server's answer (a request timeout, a lost connection) may have run any
    // of its CREATEs and STARTs. Sent again, they would meet our own sessions' names and leave those sessions running as
    // "someone else's": instead nothing more is sent, each trace fails with that error (not measured, why), and the
    // run's finally drops every session that may exist.
    const lostBefore = unansweredFailure(answers);
    const requested = lostBefore ? failingClient(lostBefore) : await prefetch(answers, this.startQueries());
    const lost = lostBefore ?? unansweredFailure(requested);
    const started = lost ? failingClient(lost) : requested;
    if (!trace) {
      this.statement = await startPreparedStatementTrace(this.statement, started);
      return;
    }
    try {
      try {
        await trace.start(started);
      } catch (err) {
        if (!isNameCollision(err)) throw err;
        // Someone else's session has this name: never drop theirs (so this instance is abandoned, not disposed),
        // and try once more under a fresh random name.
        this.notes.push(`An event session named ${trace.name} already existed (not ours, left as it is); the trace used a new name.`);
        trace = this.logFlush = null;
        trace = this.logFlush = await LogFlushSession.prepare(monitor, this.traceOptions());
        await trace.start();
      }
    } catch (err) {
      missing.push(noLogFlushTrace(err));
    }
    this.statement = await startPreparedStatementTrace(this.statement, started);
    if (trace && this.statement.nameTaken && prepared && prepared.name !== statementSessionName(trace.name)) {
      // Its name was taken too (e.g. left by an earlier run under the claimed name): once more after the log-flush
      // session's new name, in requests of its own (a rare path).
      this.statement = await startStatementTrace(monitor, workload.spid, trace.plan.platform, null, ctx.xe?.target, statementName(trace.name));
    }
    const partner = this.statement.trace;
    // Its status read with the log-flush STOPs and its DROP in the same request as the log-flush DROP.
    if (trace && partner && partner.plan.platform.scope === trace.plan.scope) trace.partners = [partner.name];
  }

  /** Both traces' target reads and STOPs, for the after-snapshot's request: the counters and the exact targets describe one moment. */
  stopQueries(): PlannedQuery[] {
    const statementStop = this.statement.trace?.state === 'started' ? this.statement.trace.stopQueries() : [];
    return this.logFlush?.state === 'started' ? this.logFlush.stopQueries(statementStop) : statementStop;
  }

  /** Stops and reads both traces (`endOfRun` may hold the stopQueries() answers); failures become not measured. */
  async collect(diff: SnapshotDiff, batches: readonly WorkloadBatch[], endOfRun: SqlClient): Promise<void> {
    const trace = this.logFlush;
    if (trace && trace.state === 'started') {
      progress(this.ctx, 'xe-read');
      try {
        await trace.stop(endOfRun);
        this.logFlushTrace = await trace.collect({
          commitCount: counterDelta(diff, 'Write Transactions/sec'),
          counterLogFlushes: counterDelta(diff, 'Log Flushes/sec'),
        });
        if (this.logFlushTrace.notMeasured) this.missing.push({ measurement: 'extendedEvents', reason: this.logFlushTrace.notMeasured, grant: null });
      } catch (err) {
        this.missing.push({ measurement: 'extendedEvents', reason: `The log-flush trace could not be read: ${(err as Error).message}`, grant: (err as { grant?: string | null }).grant ?? null });
      }
    }
    const attributed = await collectStatementTrace(this.statement, batches, diff, this.ctx.xe?.modules, endOfRun);
    this.statements = attributed.statements;
    this.statementAttribution = attributed.attribution;
    if (attributed.missing) this.missing.push(attributed.missing);
  }

  /** Both sessions' DROPs in one request (composeDrops never throws; a failed request leaves each DROP to itself). Never throws. */
  async drop(): Promise<void> {
    const trace = this.logFlush;
    if (trace || this.statement.trace) progress(this.ctx, 'xe-drop');
    const drops = trace ? await trace.composeDrops().catch(() => undefined) : undefined;
    await disposeStatementTrace(this.statement, this.ctx.reconnectMonitor, this.notes, drops);
    if (!trace) return;
    try {
      await trace.dispose(this.ctx.reconnectMonitor);
    } catch (err) {
      this.notes.push(`The event session ${trace.name} could not be dropped (${(err as Error).message}). Drop it with: ${dropSessionSql(trace.name, trace.plan.scope)}`);
    }
  }
}
