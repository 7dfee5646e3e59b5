// Planning the log-flush session without changing anything: platform and scope, effective permissions, which
// events and fields this server has, and the CREATE EVENT SESSION text that follows from them.

import type { PlannedQuery } from '../db/batch';
import type { SqlClient } from '../db/types';
import { durationUnitFromDescription, type DurationUnit } from './aggregate';
import { mapSessionError, XeSessionError, type XePlatform, type XeStep } from './errors';
import {
  createLatencySessionSql,
  createSessionSql,
  EVENT_CATALOG_SQL,
  EVENT_COLUMNS_SQL,
  EXPECTED_FIELDS,
  LATENCY_HISTOGRAM_SLOTS,
  latencySessionName,
  LOG_FLUSH_EVENTS,
  myPermissionsSql,
  newSessionName,
  PLATFORM_SQL,
  RING_BUFFER_MAX_MEMORY_KB,
  SIZE_HISTOGRAM_SLOTS,
  type HistogramSpec,
  type LogFlushEventName,
  type SessionScope,
  type TargetOptions,
} from './sessionSql';
import { invalidTraceOption, platformOf, sessionEventFile } from './sessionRunner';

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
  /** The sample target (ring_buffer) or full stream (event_file, its path already unique to this session). */
  target: TargetOptions;
  /** The exact-size histogram (null when no traced event carries write_size). event_counter is always added. */
  histogram: HistogramSpec | null;
  /** event_file only: the pattern that reads this session's files and no others. */
  eventFilePattern: string | null;
  /** The companion session holding the latency histogram (null when log_flush_complete has no duration here). */
  latency: { sessionName: string; field: string; slots: number; createSql: string } | null;
  createSql: string;
  notes: string[];
}

const DEFAULT_MAX_EVENTS = 50_000;


/** The permissions each step needs, any one of a group being enough (reference §8); names as fn_my_permissions lists them. */
function requiredPermissions(scope: SessionScope): { step: XeStep; anyOf: string[] }[] {
  // CONTROL covers all of them (reference §4.2); listed explicitly in case a server reports it without the implied ones.
  if (scope === 'database') {
    return [
      { step: 'create', anyOf: ['CREATE ANY DATABASE EVENT SESSION', 'ALTER ANY DATABASE EVENT SESSION', 'CONTROL'] },
      { step: 'start', anyOf: ['ALTER ANY DATABASE EVENT SESSION ENABLE', 'ALTER ANY DATABASE EVENT SESSION', 'CONTROL'] },
      { step: 'drop', anyOf: ['DROP ANY DATABASE EVENT SESSION', 'ALTER ANY DATABASE EVENT SESSION', 'CONTROL'] },
    ];
  }
  return [
    { step: 'create', anyOf: ['CREATE ANY EVENT SESSION', 'ALTER ANY EVENT SESSION', 'CONTROL SERVER'] },
    { step: 'start', anyOf: ['ALTER ANY EVENT SESSION ENABLE', 'ALTER ANY EVENT SESSION', 'CONTROL SERVER'] },
    { step: 'drop', anyOf: ['DROP ANY EVENT SESSION', 'ALTER ANY EVENT SESSION', 'CONTROL SERVER'] },
    { step: 'read', anyOf: ['VIEW SERVER STATE', 'VIEW SERVER PERFORMANCE STATE', 'CONTROL SERVER'] },
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

/** The event_file path gets the session name, so each run writes (and reads) only its own files. */
function resolveTarget(opts: LogFlushTraceOptions, eventKinds: number, sessionName: string, platform: TracePlan['platform']): { target: TargetOptions; pattern: string | null } {
  const t = opts.target ?? { kind: 'ring_buffer' };
  if (t.kind === 'ring_buffer') {
    const limit = t.maxEventsLimit ?? ringBufferEventsLimit(opts.expectedFlushes, eventKinds);
    return { target: { kind: 'ring_buffer', maxEventsLimit: limit, maxMemoryKb: t.maxMemoryKb ?? RING_BUFFER_MAX_MEMORY_KB }, pattern: null };
  }
  const file = sessionEventFile(t.path, sessionName, platform);
  return { target: { kind: 'event_file', path: file.path, maxFileSizeMb: t.maxFileSizeMb ?? 64, maxRolloverFiles: t.maxRolloverFiles ?? 4 }, pattern: file.pattern };
}

/** write_size of log_flush_complete (or log_flush_start) feeds the size histogram, when this server has the field. */
function histogramSpec(events: readonly LogFlushEventName[], fields: ReadonlyMap<string, ReadonlyMap<string, string | null>>): HistogramSpec | null {
  for (const event of ['log_flush_complete', 'log_flush_start'] as const) {
    if (events.includes(event) && fields.get(event)?.has('write_size')) return { event, field: 'write_size', slots: SIZE_HISTOGRAM_SLOTS };
  }
  return null;
}

/**
 * The reads planLogFlushTrace makes, in its order, for composing them into one round trip (db/batch.ts). The
 * permission list assumes server scope unless `opts.scope` says otherwise; where the platform turns out
 * database-scoped (Azure SQL Database) that one read costs its own round trip.
 */
export function planningQueries(opts: Pick<LogFlushTraceOptions, 'scope'>): PlannedQuery[] {
  return [{ sql: PLATFORM_SQL }, { sql: myPermissionsSql(opts.scope ?? 'server') }, { sql: EVENT_CATALOG_SQL }, { sql: EVENT_COLUMNS_SQL }];
}

/** Reads platform, permissions and the event catalog, and decides what the session will contain. Changes nothing. */
export async function planLogFlushTrace(client: SqlClient, opts: LogFlushTraceOptions): Promise<TracePlan> {
  const sessionName = opts.sessionName ?? newSessionName();
  const notes: string[] = [];
  let platform: TracePlan['platform'] = { scope: opts.scope ?? 'server', majorVersion: null, principal: null, engineEdition: null };
  const fail = (err: unknown) => mapSessionError('prepare', sessionName, platform, err);

  try {
    const [row] = await client.query(PLATFORM_SQL);
    platform = platformOf(row, opts.scope);
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
        'Profile without the Extended Events trace; the Log Flushes/sec counter still counts flushes.',
      {},
    );
  }
  if (!eventSequence) notes.push('package0.event_sequence is not available: duplicate events cannot be detected.');
  const durationField = fields.get('log_flush_complete')?.get('duration');
  const durationUnit = events.includes('log_flush_complete') && durationField !== undefined ? durationUnitFromDescription(durationField) : null;

  const histogram = histogramSpec(events, fields);
  if (!histogram) notes.push('No traced event carries write_size here: bytes and flush sizes come from the sampled events only.');
  let createSql: string;
  let target: TargetOptions;
  let eventFilePattern: string | null;
  try {
    ({ target, pattern: eventFilePattern } = resolveTarget(opts, events.length, sessionName, platform));
    createSql = createSessionSql({ name: sessionName, scope, databaseId: opts.databaseId, events, eventSequence, target, eventCounter: true, histogram });
  } catch (err) {
    throw invalidTraceOption(sessionName, err);
  }
  let latency: TracePlan['latency'] = null;
  if (events.includes('log_flush_complete') && durationField !== undefined) {
    const name = latencySessionName(sessionName);
    latency = { sessionName: name, field: 'duration', slots: LATENCY_HISTOGRAM_SLOTS, createSql: createLatencySessionSql({ name, scope, databaseId: opts.databaseId, field: 'duration', slots: LATENCY_HISTOGRAM_SLOTS }) };
  }
  return { sessionName, scope, platform, events, missingEvents, missingFields, eventSequence, durationUnit, target, histogram, eventFilePattern, latency, createSql, notes };
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
