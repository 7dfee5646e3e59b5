// Lifecycle of the log-flush Extended Events session: prepare (platform, permissions, events) → start → stop → read
// → drop, with withLogFlushTrace guaranteeing the drop (on a fresh connection if the first one died).

import type { SqlClient } from '../db/types';
import { LogFlushAggregator, type AggregateContext, type LogFlushTrace } from './aggregate';
import { dropSession } from './cleanup';
import { mapSessionError, type XeSessionError, type XeStep } from './errors';
import { readEventFile, type EventFileCursor } from './eventFile';
import { nameParam, planLogFlushTrace, type LogFlushTraceOptions, type TracePlan } from './plan';
import { readRingBufferXml, type XeReadResult } from './reader';
import { eventFileReadPattern, readTargetSql, sessionStateSql } from './sessionSql';

export { dropOrphanSessions, dropSession, findOrphanSessions } from './cleanup';
export { planLogFlushTrace, ringBufferEventsLimit, type LogFlushTraceOptions, type TracePlan } from './plan';

export type SessionState = 'prepared' | 'started' | 'stopped' | 'dropped' | 'failed';

/** One log-flush session on one connection. Use withLogFlushTrace so the drop cannot be forgotten. */
export class LogFlushSession {
  state: SessionState = 'prepared';
  startedAt: Date | null = null;
  /** Set when the drop failed; the session is then an orphan that findOrphanSessions will list. */
  cleanupError: XeSessionError | null = null;
  private createAttempted = false;
  private ringSnapshot: string | null | undefined = undefined;
  private fileCursor: EventFileCursor | null = null;

  private constructor(
    private readonly client: SqlClient,
    readonly plan: TracePlan,
  ) {}

  static async prepare(client: SqlClient, opts: LogFlushTraceOptions): Promise<LogFlushSession> {
    return new LogFlushSession(client, await planLogFlushTrace(client, opts));
  }

  get name(): string {
    return this.plan.sessionName;
  }

  private fail(step: XeStep, err: unknown): XeSessionError {
    this.state = 'failed';
    return mapSessionError(step, this.name, this.plan.platform, err);
  }

  /** CREATE + START; call just before the measured batches. */
  async start(): Promise<void> {
    if (this.state !== 'prepared') throw new Error(`cannot start a session that is ${this.state}`);
    this.createAttempted = true;
    try {
      await this.client.execute(this.plan.createSql);
    } catch (err) {
      throw this.fail('create', err);
    }
    try {
      await this.client.execute(sessionStateSql(this.name, this.plan.scope, 'START'));
    } catch (err) {
      throw this.fail('start', err);
    }
    this.state = 'started';
    this.startedAt = new Date();
  }

  /**
   * Stops the session. A ring_buffer lives only while the session runs (sys.dm_xe_sessions lists running sessions,
   * reference §4.5), so its XML is captured first; reading the target also flushes pending buffers (reference §4.3).
   */
  async stop(): Promise<void> {
    if (this.state !== 'started') return;
    if (this.plan.target.kind === 'ring_buffer') this.ringSnapshot = await this.queryRingBuffer();
    try {
      await this.client.execute(sessionStateSql(this.name, this.plan.scope, 'STOP'));
    } catch (err) {
      throw this.fail('stop', err);
    }
    this.state = 'stopped';
  }

  private async queryRingBuffer(): Promise<string | null> {
    try {
      const rows = await this.client.query(readTargetSql(this.plan.scope, 'ring_buffer'), nameParam(this.name));
      const data = rows[0]?.target_data;
      return typeof data === 'string' ? data : null;
    } catch (err) {
      throw this.fail('read', err);
    }
  }

  /** Events so far: the ring buffer (live, or as captured at stop), or the event_file rows since the last read. */
  async read(): Promise<XeReadResult> {
    if (this.plan.target.kind === 'ring_buffer') {
      const xml = this.state === 'started' ? await this.queryRingBuffer() : (this.ringSnapshot ?? null);
      return readRingBufferXml(xml);
    }
    try {
      const result = await readEventFile(this.client, eventFileReadPattern(this.plan.target.path, this.plan.scope), this.fileCursor);
      this.fileCursor = result.cursor;
      return result;
    } catch (err) {
      throw this.fail('read', err);
    }
  }

  /** The RunResult summary of a read, carrying what the plan found missing. */
  summarize(read: XeReadResult, extra: Pick<AggregateContext, 'commitCount' | 'counterLogFlushes' | 'counterTolerance'> = {}): LogFlushTrace {
    const agg = new LogFlushAggregator();
    for (const e of read.events) agg.add(e);
    return agg.finish({
      sessionName: this.name,
      target: this.plan.target.kind,
      durationUnit: this.plan.durationUnit,
      lost: read.lost,
      missingEvents: this.plan.missingEvents,
      missingFields: this.plan.missingFields,
      readNotes: [...this.plan.notes, ...read.notes],
      timelineStart: this.startedAt,
      ...extra,
    });
  }

  /** Drops the session if it may exist; on failure retries on a fresh connection from `reconnect`. */
  async dispose(reconnect?: () => Promise<SqlClient>): Promise<void> {
    if (!this.createAttempted || this.state === 'dropped') return;
    try {
      await dropSession(this.client, this.name, this.plan.scope, this.plan.platform);
    } catch (first) {
      if (!reconnect) throw first;
      // The usual cause is a dropped connection: a new one can still drop the server-side session.
      const fresh = await reconnect();
      await dropSession(fresh, this.name, this.plan.scope, this.plan.platform);
    }
    this.state = 'dropped';
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
