// Lifecycle of the log-flush Extended Events session: prepare (platform, permissions, events) → start → stop → read
// → drop, with withLogFlushTrace guaranteeing the drop (on a fresh connection if the first one died).

import type { QueryParameter, SqlClient } from '../db/types';
import { LogFlushAggregator, durationUnitFromDescription, type AggregateContext, type DurationUnit, type LogFlushTrace } from './aggregate';
import { isMissingSessionError, mapSessionError, XeSessionError, type XePlatform, type XeStep } from './errors';
import { readEventFile, type EventFileCursor } from './eventFile';
import { readRingBufferXml, type XeReadResult } from './reader';
import {
  createSessionSql,
  dropSessionSql,
  EVENT_CATALOG_SQL,
  EVENT_COLUMNS_SQL,
  eventFileReadPattern,
  EXPECTED_FIELDS,
  LOG_FLUSH_EVENTS,
  myPermissionsSql,
  newSessionName,
  orphanSessionsSql,
  PLATFORM_SQL,
  readTargetSql,
  RING_BUFFER_MAX_MEMORY_KB,
  SESSION_NAME_PREFIX,
  sessionStateSql,
  sessionStatusSql,
  type LogFlushEventName,
  type SessionScope,
  type TargetOptions,
} from './sessionSql';

export interface LogFlushTraceOptions {
  /** The database whose flushes are traced (the predicate value). */
  databaseId: number;
  target?:
    | { kind: 'ring_buffer'; maxEventsLimit?: number; maxMemoryKb?: number }
    | { kind: 'event_file'; path: string; maxFileSizeMb?: number; maxRolloverFiles?: number };
  /** Also trace sqlserver.flush_file_buffers (only if it exists and has a database_id field). */
  includeFlushFileBuffers?: boolean;
  /** Fixed name (tests); default durability_lens_<random hex>. */
  sessionName?: string;
  /** Override the scope chosen from EngineEdition. */
  scope?: SessionScope;
  /** Flushes the run may cause (e.g. its commit count): sizes MAX_EVENTS_LIMIT when the target does not set it. */
  expectedFlushes?: number;
}

export interface TracePlan {
  sessionName: string;
  scope: SessionScope;
  platform: XePlatform & { engineEdition: number | null };
  events: LogFlushEventName[];
  /** Wanted events this server does not have, or that cannot be filtered by database (no database_id field). */
  missingEvents: string[];
  /** `event.field` pairs public scripts use that this server's event lacks. */
  missingFields: string[];
  eventSequence: boolean;
  durationUnit: DurationUnit | null;
  target: TargetOptions;
  createSql: string;
  notes: string[];
}

export type SessionState = 'prepared' | 'started' | 'stopped' | 'dropped' | 'failed';

const DEFAULT_MAX_EVENTS = 50_000;
/** EngineEdition values that require ON DATABASE: 5 Azure SQL Database, 12 Fabric SQL DB (reference §0, §4.2). */
const DATABASE_SCOPED_EDITIONS = new Set([5, 12]);

function nameParam(name: string): QueryParameter[] {
  return [{ name: 'name', type: 'nvarchar', value: name }];
}

function intOrNull(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

/** The permissions each step needs, any one of a group being enough (reference §8); names as fn_my_permissions lists them. */
function requiredPermissions(scope: SessionScope): { step: XeStep; anyOf: string[] }[] {
  if (scope === 'database') {
    return [
      { step: 'create', anyOf: ['CREATE ANY DATABASE EVENT SESSION', 'ALTER ANY DATABASE EVENT SESSION'] },
      { step: 'start', anyOf: ['ALTER ANY DATABASE EVENT SESSION ENABLE', 'ALTER ANY DATABASE EVENT SESSION'] },
      { step: 'drop', anyOf: ['DROP ANY DATABASE EVENT SESSION', 'ALTER ANY DATABASE EVENT SESSION'] },
    ];
  }
  return [
    { step: 'create', anyOf: ['CREATE ANY EVENT SESSION', 'ALTER ANY EVENT SESSION'] },
    { step: 'start', anyOf: ['ALTER ANY EVENT SESSION ENABLE', 'ALTER ANY EVENT SESSION'] },
    { step: 'drop', anyOf: ['DROP ANY EVENT SESSION', 'ALTER ANY EVENT SESSION'] },
    { step: 'read', anyOf: ['VIEW SERVER STATE', 'VIEW SERVER PERFORMANCE STATE'] },
  ];
}

/**
 * MAX_EVENTS_LIMIT sized to the run: each expected flush raises up to one event per traced event kind, plus 25%
 * headroom. Bounded below so short runs still catch stray flushes; the 1 MB ring MAX_MEMORY caps it in practice anyway.
 */
export function ringBufferEventsLimit(expectedFlushes: number | undefined, eventKinds: number): number {
  if (expectedFlushes === undefined || !Number.isFinite(expectedFlushes) || expectedFlushes <= 0) return DEFAULT_MAX_EVENTS;
  return Math.min(1_000_000, Math.max(1000, Math.ceil(expectedFlushes * Math.max(1, eventKinds) * 1.25)));
}

function resolveTarget(opts: LogFlushTraceOptions, eventKinds: number): TargetOptions {
  const t = opts.target ?? { kind: 'ring_buffer' };
  if (t.kind === 'ring_buffer') {
    const limit = t.maxEventsLimit ?? ringBufferEventsLimit(opts.expectedFlushes, eventKinds);
    return { kind: 'ring_buffer', maxEventsLimit: limit, maxMemoryKb: t.maxMemoryKb ?? RING_BUFFER_MAX_MEMORY_KB };
  }
  return { kind: 'event_file', path: t.path, maxFileSizeMb: t.maxFileSizeMb ?? 64, maxRolloverFiles: t.maxRolloverFiles ?? 4 };
}

/** Reads platform, permissions and the event catalog, and decides what the session will contain. Changes nothing. */
export async function planLogFlushTrace(client: SqlClient, opts: LogFlushTraceOptions): Promise<TracePlan> {
  const sessionName = opts.sessionName ?? newSessionName();
  const notes: string[] = [];
  let platform: TracePlan['platform'] = { scope: opts.scope ?? 'server', majorVersion: null, principal: null, engineEdition: null };
  const fail = (err: unknown) => mapSessionError('prepare', sessionName, platform, err);

  try {
    const [row] = await client.query(PLATFORM_SQL);
    const engineEdition = intOrNull(row?.engine_edition);
    const scope = opts.scope ?? (engineEdition !== null && DATABASE_SCOPED_EDITIONS.has(engineEdition) ? 'database' : 'server');
    const principal = scope === 'server' ? row?.login_name : row?.user_name;
    platform = { scope, engineEdition, majorVersion: intOrNull(row?.product_major_version), principal: typeof principal === 'string' ? principal : null };
  } catch (err) {
    throw fail(err);
  }
  const scope = platform.scope;

  await checkPermissions(client, sessionName, platform, notes);

  let catalog;
  let columns;
  try {
    catalog = await client.query(EVENT_CATALOG_SQL);
    columns = await client.query(EVENT_COLUMNS_SQL);
  } catch (err) {
    throw fail(err);
  }
  const available = new Set(catalog.filter((r) => r.object_type === 'event').map((r) => String(r.object_name)));
  const eventSequence = catalog.some((r) => r.object_type === 'action' && r.object_name === 'event_sequence');
  const fields = new Map<string, Map<string, string | null>>();
  for (const r of columns) {
    const ev = String(r.event_name);
    if (!fields.has(ev)) fields.set(ev, new Map());
    fields.get(ev)!.set(String(r.field_name), typeof r.description === 'string' ? r.description : null);
  }

  const wanted: LogFlushEventName[] = [...LOG_FLUSH_EVENTS, ...(opts.includeFlushFileBuffers ? (['flush_file_buffers'] as const) : [])];
  const events: LogFlushEventName[] = [];
  const missingEvents: string[] = [];
  const missingFields: string[] = [];
  for (const ev of wanted) {
    if (!available.has(ev)) {
      missingEvents.push(ev);
      continue;
    }
    const have = fields.get(ev) ?? new Map<string, string | null>();
    // The predicate needs the event's own database_id; without it the event would trace every database.
    if (!have.has('database_id')) {
      missingEvents.push(ev);
      missingFields.push(`${ev}.database_id`);
      notes.push(`${ev} has no database_id field here, so it cannot be limited to one database and is left out.`);
      continue;
    }
    for (const f of EXPECTED_FIELDS[ev]) if (!have.has(f)) missingFields.push(`${ev}.${f}`);
    events.push(ev);
  }
  if (events.length === 0) {
    throw new XeSessionError(
      'prepare',
      sessionName,
      `None of the log-flush events (${wanted.join(', ')}) can be traced on this server. Nothing was changed on the server. ` +
        'The run continues without an Extended Events trace; the Log Flushes/sec counter still counts flushes.',
      {},
    );
  }
  if (!eventSequence) notes.push('package0.event_sequence is not available: duplicate events cannot be detected.');
  const durationField = fields.get('log_flush_complete')?.get('duration');
  const durationUnit = events.includes('log_flush_complete') && durationField !== undefined ? durationUnitFromDescription(durationField) : null;
  if (durationUnit === 'assumed-microseconds') notes.push('The server does not name the unit of log_flush_complete.duration; microseconds assumed.');

  const target = resolveTarget(opts, events.length);
  let createSql: string;
  try {
    createSql = createSessionSql({ name: sessionName, scope, databaseId: opts.databaseId, events, eventSequence, target });
  } catch (err) {
    throw new XeSessionError('prepare', sessionName, `Invalid trace option: ${(err as Error).message}. Nothing was changed on the server.`, { cause: err });
  }
  return { sessionName, scope, platform, events, missingEvents, missingFields, eventSequence, durationUnit, target, createSql, notes };
}

async function checkPermissions(client: SqlClient, sessionName: string, platform: XePlatform, notes: string[]): Promise<void> {
  let rows;
  try {
    rows = await client.query(myPermissionsSql(platform.scope));
  } catch {
    notes.push('Could not list effective permissions; the session statements will tell.');
    return;
  }
  if (rows.length === 0) {
    notes.push('The server listed no effective permissions; the session statements will tell.');
    return;
  }
  const held = new Set(rows.map((r) => String(r.permission_name).trim().toUpperCase()));
  const lacking = requiredPermissions(platform.scope).filter((need) => !need.anyOf.some((p) => held.has(p)));
  if (lacking.length === 0) return;
  const mapped = lacking.map((l) => mapSessionError(l.step, sessionName, platform, { number: 297, message: 'permission denied' }));
  const grants = [...new Set(mapped.map((m) => m.grant!))];
  throw new XeSessionError(
    'prepare',
    sessionName,
    `Missing permission to trace log flushes with Extended Events (${lacking.map((l) => l.step).join(', ')}). ` +
      `Nothing was changed on the server. Ask an administrator to run: ${grants.join(' ')}`,
    { grant: grants.join('\n') },
  );
}

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

/** Stops (if running) and drops a session; "does not exist" is success. Returns whether it existed. */
export async function dropSession(client: SqlClient, name: string, scope: SessionScope = 'server', platform?: XePlatform): Promise<boolean> {
  const p = platform ?? { scope, majorVersion: null, principal: null };
  const status = async () => {
    const [row] = await client.query(sessionStatusSql(scope), nameParam(name));
    return { defined: intOrNull(row?.is_defined) === 1, running: intOrNull(row?.is_running) === 1 };
  };
  let s: { defined: boolean; running: boolean };
  try {
    s = await status();
  } catch {
    s = { defined: true, running: false }; // cannot look: try the DROP and let its error speak
  }
  if (!s.defined) return false;
  try {
    if (s.running) await client.execute(sessionStateSql(name, scope, 'STOP'));
    await client.execute(dropSessionSql(name, scope));
  } catch (err) {
    if (!isMissingSessionError(err)) throw mapSessionError('drop', name, p, err);
    // 15151 also means "no permission": it is only success if the session is really gone.
    let still = true;
    try {
      still = (await status()).defined;
    } catch {
      still = true;
    }
    if (still) throw mapSessionError('drop', name, p, { number: 297, message: 'permission denied', cause: err });
    return false;
  }
  return true;
}

/** Sessions named durability_lens_* that no live run owns (left by a crash or a dropped connection). */
export async function findOrphanSessions(client: SqlClient, liveNames: Iterable<string>, scope: SessionScope = 'server'): Promise<string[]> {
  const live = new Set(liveNames);
  const rows = await client.query(orphanSessionsSql(scope));
  return rows.map((r) => String(r.name)).filter((n) => n.startsWith(SESSION_NAME_PREFIX) && !live.has(n));
}

export async function dropOrphanSessions(
  client: SqlClient,
  names: readonly string[],
  scope: SessionScope = 'server',
): Promise<{ name: string; dropped: boolean; error: string | null }[]> {
  const out = [];
  for (const name of names) {
    try {
      out.push({ name, dropped: await dropSession(client, name, scope), error: null });
    } catch (err) {
      out.push({ name, dropped: false, error: (err as Error).message });
    }
  }
  return out;
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
