// Lifecycle of the log-flush Extended Events session: prepare (platform, permissions, events) → start → stop → read
// → drop, with withLogFlushTrace guaranteeing the drop (on a fresh connection if the first one died).

import { prefetch, type PlannedQuery } from '../db/batch';
import type { Row, SqlClient } from '../db/types';
import { LogFlushAggregator, type AggregateContext, type ExactTargets, type LogFlushTrace } from './aggregate';
import { dropSession } from './cleanup';
import { mapSessionError, type XeSessionError, type XeStep } from './errors';
import { readEventFile, streamEventFile, type EventFileCursor } from './eventFile';
import { nameParam, planLogFlushTrace, planningQueries, type LogFlushTraceOptions, type TracePlan } from './plan';
import { readRingBufferXml, XeXmlReader, lostEventsOf, lostEventsNote, type XeReadResult } from './reader';
import { dropSessionSql, readTargetsSql, sessionStateSql, sessionStatusSql } from './sessionSql';
import { parseCounterTarget, parseHistogramTarget } from './targetData';

export { dropOrphanSessions, dropSession, findOrphanSessions } from './cleanup';
export { planLogFlushTrace, ringBufferEventsLimit, type LogFlushTraceOptions, type TracePlan } from './plan';

export type SessionState = 'prepared' | 'started' | 'stopped' | 'dropped' | 'failed';

/** The session's target_data rows as read just before STOP (memory targets vanish with the running session). */
interface TargetSnapshot {
  ringBuffer: string | null;
  exact: ExactTargets;
}

/** CREATE EVENT SESSION on a name in use: error 25631 "The event session, "x", already exists." */
export function isNameCollision(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = (e as { cause?: unknown }).cause) {
    const { number, message, serverErrorNumber } = e as { number?: unknown; message?: unknown; serverErrorNumber?: unknown };
    if (number === 25631 || serverErrorNumber === 25631) return true;
    if (typeof message === 'string' && /event session.*already exists/i.test(message)) return true;
  }
  return false;
}

type CompanionState = 'none' | 'created' | 'started' | 'stopped' | 'failed';

/** One log-flush session on one connection. Use withLogFlushTrace so the drop cannot be forgotten. */
export class LogFlushSession {
  state: SessionState = 'prepared';
  startedAt: Date | null = null;
  /** Set when the drop failed; the session is then an orphan that findOrphanSessions will list. */
  cleanupError: XeSessionError | null = null;
  private createAttempted = false;
  /** The latency companion session: optional, so its failures become notes, never the run's failure. */
  private companion: CompanionState = 'none';
  private readonly companionNotes: string[] = [];
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
  ) {}

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

  private fail(step: XeStep, err: unknown): XeSessionError {
    this.state = 'failed';
    return mapSessionError(step, this.name, this.plan.platform, err);
  }

  /**
   * CREATE + START; call just before the measured batches. The latency companion starts first, so it sees every flush
   * the main session sees. All four statements go in one round trip (db/batch.ts), each START only after its own
   * CREATE worked (so a name clash never starts another session), the companion's failure not stopping the main one.
   */
  startQueries(): PlannedQuery[] {
    const l = this.plan.latency;
    return [
      ...(l ? [{ sql: l.createSql }, { sql: sessionStateSql(l.sessionName, this.plan.scope, 'START'), dependsOnPrevious: true }] : []),
      { sql: this.plan.createSql },
      { sql: sessionStateSql(this.name, this.plan.scope, 'START'), dependsOnPrevious: true },
    ];
  }

  /** `answers`: a client that may already hold the startQueries() answers (composed with another session's). */
  async start(answers: SqlClient = this.client): Promise<void> {
    if (this.state !== 'prepared') throw new Error(`cannot start a session that is ${this.state}`);
    // Marked before the request: whatever the request did on the server, dispose() then drops what may exist.
    this.createAttempted = true;
    if (this.plan.latency) this.companion = 'failed';
    const steps = await prefetch(answers, this.startQueries());
    await this.startCompanion(steps);
    try {
      await steps.execute(this.plan.createSql);
    } catch (err) {
      // The companion is ours whatever happened to the main CREATE (a caller may abandon this instance on a name clash).
      await this.dropCompanion();
      throw this.fail('create', err);
    }
    try {
      await steps.execute(sessionStateSql(this.name, this.plan.scope, 'START'));
    } catch (err) {
      throw this.fail('start', err);
    }
    this.state = 'started';
    this.startedAt = new Date();
  }

  private async dropCompanion(): Promise<void> {
    if (this.companion === 'none') return;
    try {
      await dropSession(this.client, this.plan.latency!.sessionName, this.plan.scope, this.plan.platform);
      this.companion = 'none';
    } catch {
      // dispose tries again (and reports it).
    }
  }

  private async startCompanion(steps: SqlClient): Promise<void> {
    const l = this.plan.latency;
    if (!l) return;
    try {
      this.companion = 'failed';
      await steps.execute(l.createSql);
      this.companion = 'created';
      await steps.execute(sessionStateSql(l.sessionName, this.plan.scope, 'START'));
      this.companion = 'started';
    } catch (err) {
      this.companionNotes.push(`The latency histogram session ${l.sessionName} could not be started (${(err as Error).message}); latencies come from the sampled events.`);
    }
  }

  /**
   * Stops the session. ring_buffer, event_counter and histogram live only while the session runs (sys.dm_xe_sessions
   * lists running sessions, reference §4.5), so all their target_data is captured first, in one round trip; reading
   * the targets also flushes pending buffers (reference §4.3).
   */
  /**
   * What stop() sends, in one round trip: the targets, STOP, and the companion's STOP, each only after the one before
   * it worked (as in sequence). A caller may compose these after its own reads (the run's after-snapshot) and pass
   * the answers to stop().
   */
  stopQueries(partnerStops: readonly PlannedQuery[] = []): PlannedQuery[] {
    const companionStop = this.companion === 'started' ? sessionStateSql(this.plan.latency!.sessionName, this.plan.scope, 'STOP') : null;
    return [
      this.targetsQuery(),
      { sql: sessionStateSql(this.name, this.plan.scope, 'STOP'), dependsOnPrevious: true },
      ...(companionStop ? [{ sql: companionStop, dependsOnPrevious: true }] : []),
      // The partners' own target reads and STOPs (their owners consume the answers), before the statuses below.
      ...partnerStops,
      // Read after the STOPs (whatever they did), for dispose(): its drop plan then needs no status request of its own.
      ...this.statusQueries([...this.dropNames(), ...this.partners]),
    ];
  }

  private statusQueries(names: readonly string[]): PlannedQuery[] {
    return names.map((name) => ({ sql: sessionStatusSql(this.plan.scope), parameters: nameParam(name) }));
  }

  /** The sessions dispose() must drop: the main one once CREATE was attempted, the companion once it may exist. */
  private dropNames(): string[] {
    const names: string[] = [];
    if (this.createAttempted && this.state !== 'dropped') names.push(this.name);
    if (this.companion !== 'none') names.push(this.plan.latency!.sessionName);
    return names;
  }

  /** `answers`: a client that may already hold the stopQueries() answers (anything else goes to the session's connection). */
  async stop(answers: SqlClient = this.client): Promise<void> {
    if (this.state !== 'started') return;
    const companionStop = this.companion === 'started' ? sessionStateSql(this.plan.latency!.sessionName, this.plan.scope, 'STOP') : null;
    const steps = await prefetch(answers, this.stopQueries());
    this.statusAfterStop = steps;
    this.snapshot = await this.queryTargets(steps);
    try {
      await steps.execute(sessionStateSql(this.name, this.plan.scope, 'STOP'));
    } catch (err) {
      throw this.fail('stop', err);
    }
    this.state = 'stopped';
    if (companionStop) {
      try {
        await steps.execute(companionStop);
        this.companion = 'stopped';
      } catch {
        // Dropping it (dispose) ends it as well.
      }
    }
  }

  private targetsQuery(): PlannedQuery {
    const companion = this.plan.latency?.sessionName ?? this.name;
    return { sql: readTargetsSql(this.plan.scope), parameters: [...nameParam(this.name), { name: 'companion', type: 'nvarchar', value: companion }] };
  }

  private async queryTargets(client: SqlClient = this.client): Promise<TargetSnapshot> {
    let rows: Row[];
    try {
      const q = this.targetsQuery();
      rows = await client.query(q.sql, q.parameters);
    } catch (err) {
      throw this.fail('read', err);
    }
    const data = (session: string, target: string): string | null | undefined => {
      const row = rows.find((r) => r.target_name === target && (r.session_name === undefined || r.session_name === session));
      if (!row) return undefined;
      return typeof row.target_data === 'string' ? row.target_data : null;
    };
    const counterXml = data(this.name, 'event_counter');
    const histogramXml = data(this.name, 'histogram');
    const latencyXml = this.plan.latency && this.companion === 'started' ? data(this.plan.latency.sessionName, 'histogram') : undefined;
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
      throw this.fail('read', err);
    }
  }

  /** The event the timeline draws: the same preference as the counts (aggregate.ts). */
  private flushEventName(): string {
    return (['databases_log_flush', 'log_flush_complete', 'log_flush_start'] as const).find((e) => this.plan.events.includes(e)) ?? this.plan.events[0]!;
  }

  private context(extra: Pick<AggregateContext, 'commitCount' | 'counterLogFlushes' | 'counterTolerance'>): AggregateContext {
    return {
      sessionName: this.name,
      target: this.plan.target.kind,
      durationUnit: this.plan.durationUnit,
      missingEvents: this.plan.missingEvents,
      missingFields: this.plan.missingFields,
      timelineStart: this.startedAt,
      scope: this.plan.scope,
      ...(this.snapshot ? { exact: this.snapshot.exact } : {}),
      ...extra,
    };
  }

  /** The RunResult summary of a read, with the exact counts captured at stop. */
  summarize(read: XeReadResult, extra: Pick<AggregateContext, 'commitCount' | 'counterLogFlushes' | 'counterTolerance'> = {}): LogFlushTrace {
    const agg = new LogFlushAggregator(100, this.startedAt?.getTime() ?? null);
    for (const e of read.events) agg.add(e);
    return agg.finish({ ...this.context(extra), lost: read.lost, readNotes: [...this.plan.notes, ...this.companionNotes, ...read.notes] });
  }

  /**
   * After stop(): reads the sample (ring buffer, already captured) or streams the event_file in pages, straight into
   * the aggregator — memory bounded, round trips: the one target read at stop, plus one per event_file page.
   */
  async collect(extra: Pick<AggregateContext, 'commitCount' | 'counterLogFlushes' | 'counterTolerance'> = {}): Promise<LogFlushTrace> {
    const agg = new LogFlushAggregator(100, this.startedAt?.getTime() ?? null);
    const readNotes = [...this.plan.notes, ...this.companionNotes];
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
      throw this.fail('read', err);
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
    this.composed ??= await this.composedDrops([...this.dropNames(), ...this.partners]);
    return this.composed;
  }

  /** Drops the session (and its latency companion) if they may exist; on failure retries on a fresh connection from `reconnect`. */
  async dispose(reconnect?: () => Promise<SqlClient>): Promise<void> {
    const names = this.dropNames();
    const composed = this.composed;
    this.composed = null;
    if (names.length === 0) return;
    let client = composed ?? (await this.composedDrops(names));
    let reconnected = false;
    let firstError: unknown = null;
    for (const name of names) {
      try {
        await dropSession(client, name, this.plan.scope, this.plan.platform);
      } catch (first) {
        if (!reconnect) {
          firstError ??= first;
          continue;
        }
        // The usual cause is a dropped connection: a new one can still drop the server-side session.
        if (!reconnected) {
          client = await reconnect();
          reconnected = true;
        }
        try {
          await dropSession(client, name, this.plan.scope, this.plan.platform);
        } catch (second) {
          firstError ??= second;
        }
      }
    }
    if (firstError !== null) throw firstError;
    this.companion = 'none';
    if (this.createAttempted) this.state = 'dropped';
  }
}

export interface WithTraceOptions {
  /** Opens a fresh connection when the drop fails on the original one. */
  reconnect?: () => Promise<SqlClient>;
  /** Told when the drop failed after `body` failed (the body's error is the one rethrown). */
  onCleanupError?: (err: XeSessionError) => void;
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
  const session = await LogFlushSession.prepare(client, opts);
  let bodyFailed = false;
  try {
    return await body(session);
  } catch (err) {
    bodyFailed = true;
    throw err;
  } finally {
    try {
      await session.dispose(withOpts.reconnect);
    } catch (err) {
      const mapped = mapSessionError('drop', session.name, session.plan.platform, err);
      session.cleanupError = mapped;
      if (!bodyFailed) throw mapped;
      withOpts.onCleanupError?.(mapped);
    }
  }
}
