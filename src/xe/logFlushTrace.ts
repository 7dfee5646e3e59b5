// The log-flush Extended Events session: its plan (plan.ts), the latency companion, the targets it captures at STOP
// and how its events become the RunResult summary (aggregate.ts). The lifecycle itself — CREATE, START, STOP, DROP,
// retried on a fresh connection — is the shared runner's (sessionRunner.ts); withLogFlushTrace guarantees the drop.

import { prefetch, type PlannedQuery } from '../db/batch';
import type { SqlClient } from '../db/types';
import { LogFlushAggregator, type AggregateContext, type ExactTargets, type LogFlushTrace } from './aggregate';
import type { XeSessionError } from './errors';
import { readEventFile, streamEventFile, type EventFileCursor } from './eventFile';
import { planLogFlushTrace, planningQueries, type LogFlushTraceOptions, type TracePlan } from './plan';
import { readRingBufferXml, XeXmlReader, lostEventsOf, lostEventsNote, type XeReadResult } from './reader';
import { dropSessionSql, nameParam, readTargetsSql, sessionStateSql, sessionStatusSql } from './sessionSql';
import { CompanionSession, EventSessionRunner, targetDataOf, withEventSession, type SessionState, type WithTraceOptions } from './sessionRunner';
import { parseCounterTarget, parseHistogramTarget } from './targetData';

export { dropOrphanSessions, dropSession, findOrphanSessions } from './cleanup';
export { planLogFlushTrace, ringBufferEventsLimit, type LogFlushTraceOptions, type TracePlan } from './plan';
export { isNameCollision, type SessionState, type WithTraceOptions } from './sessionRunner';

/** The session's target_data rows as read just before STOP (memory targets vanish with the running session). */
interface TargetSnapshot {
  ringBuffer: string | null;
  exact: ExactTargets;
}

type SummaryExtra = Pick<AggregateContext, 'commitCount' | 'counterLogFlushes' | 'counterTolerance'>;

/** One log-flush session on one connection. Use withLogFlushTrace so the drop cannot be forgotten. */
export class LogFlushSession {
  /** Set when the drop failed; the session is then an orphan that findOrphanSessions will list. */
  cleanupError: XeSessionError | null = null;
  private readonly runner: EventSessionRunner;
  /** The latency companion session: optional, so its failures become notes, never the run's failure. */
  private readonly companion: CompanionSession | null;
  private snapshot: TargetSnapshot | null = null;
  /** The sessions' status as read right after STOP (stopQueries), so dispose() does not ask again. */
  private statusAfterStop: SqlClient | null = null;
  private fileCursor: EventFileCursor | null = null;
  /** The drop request composed by composeDrops (for this session and its partners), used once by dispose(). */
  private composed: SqlClient | null = null;
  /**
   * Other sessions of the run on this connection and scope that their own owner drops (the statement session): their
   * status is read with this session's STOPs and their STOP/DROP go in this session's drop request (composeDrops).
   */
  partners: string[] = [];

  private constructor(
    private readonly client: SqlClient,
    readonly plan: TracePlan,
  ) {
    const l = plan.latency;
    this.companion = l ? new CompanionSession({ name: l.sessionName, createSql: l.createSql, what: 'latency histogram', fallback: 'latencies come from the sampled events' }, plan.scope) : null;
    this.runner = new EventSessionRunner(client, plan.sessionName, plan.platform, plan.createSql, this.companion);
  }

  /**
   * Reads platform, permissions and the event catalog in one round trip (db/batch.ts), then plans. `planning` may
   * already hold those answers (planningQueries composed into an earlier request); the session itself uses `client`.
   */
  static async prepare(client: SqlClient, opts: LogFlushTraceOptions, planning: SqlClient = client): Promise<LogFlushSession> {
    return new LogFlushSession(client, await planLogFlushTrace(await prefetch(planning, planningQueries(opts)), opts));
  }

  get name(): string {
    return this.plan.sessionName;
  }

  get platform(): TracePlan['platform'] {
    return this.plan.platform;
  }

  get state(): SessionState {
    return this.runner.state;
  }

  get startedAt(): Date | null {
    return this.runner.startedAt;
  }

  /**
   * CREATE + START; call just before the measured batches. The latency companion starts first, so it sees every flush
   * the main session sees. All four statements go in one round trip (db/batch.ts), each START only after its own
   * CREATE worked (so a name clash never starts another session), the companion's failure not stopping the main one.
   */
  startQueries(): PlannedQuery[] {
    return [...(this.companion?.startQueries(false) ?? []), ...this.runner.startQueries()];
  }

  /** `answers`: a client that may already hold the startQueries() answers (composed with another session's). */
  async start(answers: SqlClient = this.client): Promise<void> {
    this.runner.assertPrepared();
    // Marked before the request: whatever the request did on the server, dispose() then drops what may exist.
    this.runner.markCreateAttempted();
    if (this.companion) this.companion.state = 'failed';
    const steps = await prefetch(answers, this.startQueries());
    await this.companion?.start(steps);
    await this.runner.createAndStart(steps);
  }

  /**
   * What stop() sends, in one round trip: the targets, STOP, and the companion's STOP, each only after the one before
   * it worked. ring_buffer, event_counter and histogram live only while the session runs (sys.dm_xe_sessions lists
   * running sessions, reference §4.5), so their target_data is read first; reading the targets also flushes pending
   * buffers (reference §4.3). A caller may compose these after its own reads (the run's after-snapshot) and pass the
   * answers to stop().
   */
  stopQueries(partnerStops: readonly PlannedQuery[] = []): PlannedQuery[] {
    const companionStop = this.companion?.stopSql() ?? null;
    return [
      this.targetsQuery(),
      { sql: this.runner.stopSql(), dependsOnPrevious: true },
      ...(companionStop ? [{ sql: companionStop, dependsOnPrevious: true }] : []),
      // The partners' own target reads and STOPs (their owners consume the answers), before the statuses below.
      ...partnerStops,
      // Read after the STOPs (whatever they did), for dispose(): its drop plan then needs no status request of its own.
      ...this.statusQueries([...this.runner.dropNames(), ...this.partners]),
    ];
  }

  private statusQueries(names: readonly string[]): PlannedQuery[] {
    return names.map((name) => ({ sql: sessionStatusSql(this.plan.scope), parameters: nameParam(name) }));
  }

  /** `answers`: a client that may already hold the stopQueries() answers (anything else goes to the session's connection). */
  async stop(answers: SqlClient = this.client): Promise<void> {
    if (this.state !== 'started') return;
    const steps = await prefetch(answers, this.stopQueries());
    this.statusAfterStop = steps;
    this.snapshot = await this.queryTargets(steps);
    await this.runner.stop(steps);
    await this.companion?.stop(steps);
  }

  private targetsQuery(): PlannedQuery {
    const companion = this.plan.latency?.sessionName ?? this.name;
    return { sql: readTargetsSql(this.plan.scope), parameters: [...nameParam(this.name), { name: 'companion', type: 'nvarchar', value: companion }] };
  }

  private async queryTargets(client: SqlClient = this.client): Promise<TargetSnapshot> {
    let data: ReturnType<typeof targetDataOf>;
    try {
      const q = this.targetsQuery();
      data = targetDataOf(await client.query(q.sql, q.parameters));
    } catch (err) {
      throw this.runner.fail('read', err);
    }
    const counterXml = data(this.name, 'event_counter');
    const histogramXml = data(this.name, 'histogram');
    const latencyXml = this.plan.latency && this.companion?.state === 'started' ? data(this.plan.latency.sessionName, 'histogram') : undefined;
    const h = this.plan.histogram;
    return {
      ringBuffer: data(this.name, 'ring_buffer') ?? null,
      exact: {
        counter: counterXml === undefined ? null : parseCounterTarget(counterXml),
        histogram: h && histogramXml !== undefined ? { ...parseHistogramTarget(histogramXml), event: h.event, field: h.field } : null,
        latency: latencyXml !== undefined ? { ...parseHistogramTarget(latencyXml), event: 'log_flush_complete', field: this.plan.latency!.field } : null,
      },
    };
  }

  /** Events so far: the ring buffer (live, or as captured at stop), or the flush rows of the event_file since the last read. */
  async read(): Promise<XeReadResult> {
    if (this.plan.target.kind === 'ring_buffer') {
      const xml = this.state === 'started' ? (await this.queryTargets()).ringBuffer : (this.snapshot?.ringBuffer ?? null);
      return readRingBufferXml(xml);
    }
    try {
      const result = await readEventFile(this.client, this.plan.eventFilePattern!, this.fileCursor, this.flushEventName());
      this.fileCursor = result.cursor;
      return result;
    } catch (err) {
      throw this.runner.fail('read', err);
    }
  }

  /** The event the timeline draws: the same preference as the counts (aggregate.ts). */
  private flushEventName(): string {
    return (['databases_log_flush', 'log_flush_complete', 'log_flush_start'] as const).find((e) => this.plan.events.includes(e)) ?? this.plan.events[0]!;
  }

  private context(extra: SummaryExtra): AggregateContext {
    return {
      sessionName: this.name,
      target: this.plan.target.kind,
      durationUnit: this.plan.durationUnit,
      missingEvents: this.plan.missingEvents,
      missingFields: this.plan.missingFields,
      timelineStart: this.startedAt,
      scope: this.plan.scope,
      exact: this.snapshot?.exact,
      ...extra,
    };
  }

  /** The RunResult summary of a read, with the exact counts captured at stop. */
  summarize(read: XeReadResult, extra: SummaryExtra = {}): LogFlushTrace {
    const agg = new LogFlushAggregator(100, this.startedAt?.getTime() ?? null);
    for (const e of read.events) agg.add(e);
    return agg.finish({ ...this.context(extra), lost: read.lost, readNotes: [...this.plan.notes, ...(this.companion?.notes ?? []), ...read.notes] });
  }

  /**
   * After stop(): reads the sample (ring buffer, already captured) or streams the event_file in pages, straight into
   * the aggregator — memory bounded, round trips: the one target read at stop, plus one per event_file page.
   */
  async collect(extra: SummaryExtra = {}): Promise<LogFlushTrace> {
    const agg = new LogFlushAggregator(100, this.startedAt?.getTime() ?? null);
    const readNotes = [...this.plan.notes, ...(this.companion?.notes ?? [])];
    if (this.plan.target.kind === 'ring_buffer') {
      const xml = this.snapshot?.ringBuffer ?? null;
      const reader = new XeXmlReader((e) => agg.add(e));
      if (xml === null || xml.length === 0) readNotes.push('The ring_buffer returned no data: the timeline has no sample.');
      else reader.readDocument(xml, 'ring_buffer target_data');
      const lost = lostEventsOf(reader.ringBuffer, reader.parsed + reader.duplicates);
      const lostNote = lostEventsNote(lost, reader.ringBuffer?.truncated ?? false);
      if (lostNote) readNotes.push(`Timeline sample: ${lostNote}.`);
      if (reader.parseError) readNotes.push(reader.parseError);
      return agg.finish({ ...this.context(extra), lost, readNotes });
    }
    const pattern = this.plan.eventFilePattern!;
    let stream;
    try {
      stream = await streamEventFile(this.client, pattern, this.fileCursor, (e) => agg.add(e), { event: this.flushEventName() });
    } catch (err) {
      throw this.runner.fail('read', err);
    }
    this.fileCursor = stream.cursor;
    readNotes.push(...stream.notes);
    readNotes.push(
      `The event_file target's files stay on the server after the session is dropped (DROP EVENT SESSION does not delete them): ` +
        `${stream.files.length > 0 ? stream.files.join(', ') : pattern}. Delete them on the server when no longer needed.`,
    );
    const lost = { dropped: 0, evicted: 0, truncatedAway: 0, total: stream.malformed };
    return agg.finish({ ...this.context(extra), lost, readNotes, eventFiles: { pattern, files: stream.files } });
  }

  /**
   * What dropSession (cleanup.ts) will ask, answered in two round trips for all names instead of two per name: first
   * every session's status, then the STOP (if running) and DROP of each defined one, DROP only after its STOP worked.
   * dropSession runs unchanged over the answers (anything unplanned, e.g. its re-check after an error, goes to the server).
   */
  private async composedDrops(names: readonly string[]): Promise<SqlClient> {
    const statusSql = sessionStatusSql(this.plan.scope);
    // Read with the STOPs when stop() ran (nothing changes the sessions in between); otherwise one request now.
    const statuses = await prefetch(this.statusAfterStop ?? this.client, this.statusQueries(names));
    this.statusAfterStop = null;
    const drops: PlannedQuery[] = [];
    for (const name of names) {
      const status = statuses.peek(statusSql, nameParam(name));
      if (!status?.ok) continue; // dropSession will try the DROP and let its error speak
      const row = status.rows[0];
      if (Number(row?.is_defined) !== 1) continue;
      if (Number(row?.is_running) === 1) drops.push({ sql: sessionStateSql(name, this.plan.scope, 'STOP') }, { sql: dropSessionSql(name, this.plan.scope), dependsOnPrevious: true });
      else drops.push({ sql: dropSessionSql(name, this.plan.scope) });
    }
    return drops.length > 0 ? prefetch(statuses, drops) : statuses;
  }

  /**
   * The drop request for this session, its companion and its partners, composed now (one request; two when the status
   * was not read with the STOPs). The partners' owners drop theirs over the returned client; dispose() uses it too.
   * Never throws: a request that fails leaves every DROP to be asked on its own.
   */
  async composeDrops(): Promise<SqlClient> {
    this.composed ??= await this.composedDrops([...this.runner.dropNames(), ...this.partners]);
    return this.composed;
  }

  /** Drops the session (and its latency companion) if they may exist; on failure retries on a fresh connection from `reconnect`. */
  async dispose(reconnect?: () => Promise<SqlClient>): Promise<void> {
    const names = this.runner.dropNames();
    const composed = this.composed;
    this.composed = null;
    if (names.length === 0) return;
    await this.runner.dropAll(composed ?? (await this.composedDrops(names)), reconnect);
  }
}

/**
 * Prepares a session, runs `body` (which calls start/stop/read), and drops the session in `finally` whatever happened.
 * A drop failure is thrown when `body` succeeded; when `body` failed its error wins and the drop failure is reported aside.
 */
export async function withLogFlushTrace<T>(
  client: SqlClient,
  opts: LogFlushTraceOptions,
  body: (session: LogFlushSession) => Promise<T>,
  withOpts: WithTraceOptions = {},
): Promise<T> {
  return withEventSession(await LogFlushSession.prepare(client, opts), body, withOpts);
}
