// The statement-attribution Extended Events session (issue 16): its plan (events, duration units, the WRITELOG map key
// looked up at run time), the executions companion, the targets it captures at STOP and how its events are streamed.
// The lifecycle — CREATE, START, STOP, DROP on a fresh connection when the first one died — is the shared runner's
// (sessionRunner.ts), with the same guarantees as the log-flush session.

import { prefetch, type PlannedQuery } from '../db/batch';
import type { Row, SqlClient } from '../db/types';
import { durationUnitFromDescription, type DurationUnit } from './aggregate';
import { answerLost, mapSessionError, XeSessionError, type XePlatform } from './errors';
import { intOrNull, nameParam } from './sessionSql';
import { completeRows } from './eventFile';
import { readRingBufferXml, XeXmlReader, type LostEvents, type XeEvent } from './reader';
import { newSessionName, PLATFORM_SQL, readTargetsSql, statementCountSessionName, type EventFileStorage } from './sessionSql';
import { CompanionSession, EventSessionRunner, invalidTraceOption, platformOf, sessionEventFile, targetDataOf, type SessionState } from './sessionRunner';
import {
  createStatementCountSessionSql,
  createStatementSessionSql,
  MAP_KEYS_SQL,
  READ_STATEMENT_FILE_PAGE_SQL,
  STATEMENT_CATALOG_SQL,
  STATEMENT_EVENTS,
  WAIT_EVENTS,
  type StatementEventName,
  type StatementSessionDefinition,
  type WaitEventName,
} from './statementTraceSql';
import { parseCounterTarget } from './targetData';
import { readStatementHistograms, STATEMENT_HISTOGRAMS_EVENT, type StatementHistograms, type StatementHistogramsEvent } from './statementHistograms';

export { STATEMENT_HISTOGRAMS_EVENT, type StatementHistograms, type StatementHistogramsEvent } from './statementHistograms';

export interface StatementTracePlan {
  sessionName: string;
  platform: XePlatform;
  statementEvents: StatementEventName[];
  wait: { event: WaitEventName; writelogKey: number; endOpcodeKey: number | null; durationUnit: DurationUnit } | null;
  statementDurationUnit: DurationUnit;
  /** event_file target: the session's own file and the pattern that reads it back; null = ring_buffer. */
  eventFile: { path: string; pattern: string; storage: EventFileStorage } | null;
  createSql: string;
  /**
   * Server-side counts by sqlserver.query_hash (when the action exists): WRITELOG waits per hash in this session's
   * histogram, executions per hash in the companion session's (`countSession`). null: only the sample counts.
   */
  countSession: { name: string; createSql: string } | null;
  /** What the plan could not do (no wait event, no WRITELOG key): shown with the attribution. */
  notes: string[];
}

export interface StatementTraceOptions {
  spid: number;
  /** The log-flush plan's platform when there is one (saves a round trip); else read here. */
  platform?: (XePlatform & { engineEdition?: number | null }) | undefined;
  /** The run's trace target (durabilityLens.xe.target): event_file keeps every event of a long run. */
  target?: { kind: 'ring_buffer' } | { kind: 'event_file'; path: string } | undefined;
  sessionName?: string | undefined;
  /** Ring buffer MAX_EVENTS_LIMIT (default 1,000,000: the 1 MB MAX_MEMORY is the real bound). */
  maxEventsLimit?: number;
}

/** What collect() hands back besides the events it streamed. */
export interface StatementTraceRead {
  /** event_counter's exact counts per event name (null when it could not be read). */
  counts: Map<string, number> | null;
  /** Events that reached the reader. */
  seen: number;
  lost: LostEvents;
  notes: string[];
  /** The server-side per-hash counts (also handed to `onEvent` as a STATEMENT_HISTOGRAMS_EVENT); null when not read. */
  histograms?: StatementHistograms | null;
}

/** The reads planStatementTrace makes, for composing into an earlier request (db/batch.ts); PLATFORM_SQL only without a known platform. */
export function statementPlanningQueries(platformKnown: boolean): PlannedQuery[] {
  return [...(platformKnown ? [] : [{ sql: PLATFORM_SQL }]), { sql: STATEMENT_CATALOG_SQL }, { sql: MAP_KEYS_SQL }];
}

export async function planStatementTrace(client: SqlClient, opts: StatementTraceOptions): Promise<StatementTracePlan> {
  const sessionName = opts.sessionName ?? newSessionName();
  let platform: XePlatform = opts.platform ?? { scope: 'server', majorVersion: null, principal: null };
  let engineEdition = opts.platform?.engineEdition ?? null;
  const fail = (err: unknown) => mapSessionError('prepare', sessionName, platform, err);
  const notes: string[] = [];
  let catalog;
  let maps;
  try {
    if (!opts.platform) {
      const [row] = await client.query(PLATFORM_SQL);
      const read = platformOf(row);
      platform = read;
      engineEdition = read.engineEdition;
    }
    catalog = await client.query(STATEMENT_CATALOG_SQL);
    maps = await client.query(MAP_KEYS_SQL);
  } catch (err) {
    throw fail(err);
  }
  const has = new Map(catalog.map((r) => [String(r.event_name), typeof r.duration_description === 'string' ? r.duration_description : null]));
  const queryHash = has.has('query_hash');
  if (!queryHash) notes.push('The sqlserver.query_hash action is not available: per-statement counts come from the sampled events only.');
  const statementEvents = STATEMENT_EVENTS.filter((e) => has.has(e));
  if (!statementEvents.includes('sql_statement_completed')) {
    throw new XeSessionError('prepare', sessionName, 'sqlserver.sql_statement_completed is not available on this server, so statements cannot be attributed. Nothing was changed on the server.', {});
  }
  const writelogKey = intOrNull(maps.find((r) => r.name === 'wait_types')?.map_key);
  const endOpcodeKey = intOrNull(maps.find((r) => r.name === 'event_opcode')?.map_key);
  const waitEvent = WAIT_EVENTS.find((e) => has.has(e) && (e !== 'wait_info' || endOpcodeKey !== null)) ?? null;
  let wait: StatementTracePlan['wait'] = null;
  if (writelogKey === null) notes.push('sys.dm_xe_map_values has no WRITELOG entry in the wait_types map: WRITELOG waits are not measured per statement.');
  else if (waitEvent === null) notes.push('Neither sqlos.wait_completed nor sqlos.wait_info is available: WRITELOG waits are not measured per statement.');
  else wait = { event: waitEvent, writelogKey, endOpcodeKey: waitEvent === 'wait_info' ? endOpcodeKey : null, durationUnit: durationUnitFromDescription(has.get(waitEvent)) };
  if (wait?.durationUnit === 'assumed-microseconds') notes.push(`The unit of ${wait.event}.duration is not stated by the server; microseconds assumed (NOT CONFIRMED).`);
  let eventFile: StatementTracePlan['eventFile'] = null;
  if (opts.target?.kind === 'event_file') {
    try {
      eventFile = sessionEventFile(opts.target.path, sessionName, { scope: platform.scope, engineEdition });
    } catch (err) {
      throw invalidTraceOption(sessionName, err);
    }
  }
  const def: StatementSessionDefinition = {
    name: sessionName,
    scope: platform.scope,
    spid: opts.spid,
    statementEvents,
    wait: wait ? { event: wait.event, writelogKey: wait.writelogKey, endOpcodeKey: wait.endOpcodeKey } : null,
    maxEventsLimit: opts.maxEventsLimit ?? 1_000_000,
    eventFile: eventFile ? { path: eventFile.path, storage: eventFile.storage } : null,
    queryHash,
  };
  const countName = statementCountSessionName(sessionName);
  return {
    sessionName,
    platform,
    statementEvents,
    wait,
    statementDurationUnit: durationUnitFromDescription(has.get('sql_statement_completed')),
    eventFile,
    createSql: createStatementSessionSql(def),
    countSession: queryHash ? { name: countName, createSql: createStatementCountSessionSql({ ...def, countSessionName: countName }) } : null,
    notes,
  };
}

/** One statement-attribution session on the monitor connection. The caller disposes it in finally. */
export class StatementTraceSession {
  private readonly runner: EventSessionRunner;
  /** The executions companion: optional, so its failures become notes, never the trace's failure. */
  private readonly companion: CompanionSession | null;
  private captured: { ring: string | null; counter: string | null; histogram: string | null; counts: string | null } | null = null;

  private constructor(
    private readonly client: SqlClient,
    readonly plan: StatementTracePlan,
  ) {
    const c = plan.countSession;
    this.companion = c ? new CompanionSession({ name: c.name, createSql: c.createSql, what: 'executions histogram', fallback: 'executions per statement come from the sampled events' }, plan.platform.scope) : null;
    this.runner = new EventSessionRunner(client, plan.sessionName, plan.platform, plan.createSql, this.companion);
  }

  /** `planning` may already hold the statementPlanningQueries answers; otherwise they are asked in one request. */
  static async prepare(client: SqlClient, opts: StatementTraceOptions, planning: SqlClient = client): Promise<StatementTraceSession> {
    return new StatementTraceSession(client, await planStatementTrace(await prefetch(planning, statementPlanningQueries(opts.platform !== undefined)), opts));
  }

  get name(): string {
    return this.plan.sessionName;
  }

  get state(): SessionState {
    return this.runner.state;
  }

  private get companionNotes(): string[] {
    return this.companion?.notes ?? [];
  }

  /**
   * What start() sends, in one request (a caller may compose these): this session's CREATE and START, then the
   * executions companion's CREATE and START, each only after the one before it worked. The companion exists only when
   * the main session runs, so a refused CREATE or START leaves nothing extra to drop; both start before the workload
   * does, so the companion still counts every statement.
   */
  startQueries(): PlannedQuery[] {
    return [...this.runner.startQueries(), ...(this.companion?.startQueries(true) ?? [])];
  }

  /** `answers`: a client that may already hold the startQueries() answers. */
  async start(answers: SqlClient = this.client): Promise<void> {
    this.runner.assertPrepared();
    const steps = await prefetch(answers, this.startQueries());
    try {
      await this.runner.createAndStart(steps);
    } catch (err) {
      // No server error: the request's answer was lost (the connection dropped), and the server may have run the
      // companion's CREATE and START after this session's, so dispose drops it too. A server error (a refusal, a name
      // in use) answered for this session's CREATE or START: the companion's CREATE, which waits on them, never ran.
      if (this.companion?.state === 'none' && answerLost(err)) this.companion.state = 'failed';
      throw err;
    }
    await this.companion?.start(steps);
  }

  /**
   * What stop() sends, in one request (a caller may compose these): both sessions' targets, this session's STOP only
   * if the read worked, then the companion's STOP and DROP whatever this session's STOP did (its histogram is read by
   * then, so it ends here rather than costing dispose() requests of its own).
   */
  stopQueries(): PlannedQuery[] {
    const scope = this.plan.platform.scope;
    const companion = this.companion?.state === 'started' ? this.companion.name : null;
    return [
      { sql: readTargetsSql(scope), parameters: [...nameParam(this.name), { name: 'companion', type: 'nvarchar', value: companion ?? this.name }] },
      { sql: this.runner.stopSql(), dependsOnPrevious: true },
      ...(this.companion?.endQueries() ?? []),
    ];
  }

  /** Captures the memory targets (they vanish with the running session), then stops the session. `answers` may hold the stopQueries() answers. */
  async stop(answers: SqlClient = this.client): Promise<void> {
    if (this.state !== 'started') return;
    const queries = this.stopQueries();
    const [targets] = queries;
    const steps = await prefetch(answers, queries);
    try {
      const data = targetDataOf(await steps.query(targets!.sql, targets!.parameters));
      this.captured = {
        ring: data(this.name, 'ring_buffer') ?? null,
        counter: data(this.name, 'event_counter') ?? null,
        histogram: this.plan.countSession && this.plan.wait ? (data(this.name, 'histogram') ?? null) : null,
        counts: this.plan.countSession && this.companion?.state === 'started' ? (data(this.plan.countSession.name, 'histogram') ?? null) : null,
      };
    } catch (err) {
      await this.companion?.end(steps);
      throw this.runner.fail('read', err);
    }
    await this.companion?.end(steps);
    await this.runner.stop(steps);
  }

  /** The histograms as read at stop(), checked against event_counter's totals; null when there were none. */
  private histograms(counts: Map<string, number> | null): StatementHistograms | null {
    const c = this.captured;
    if (!this.plan.countSession || !c) return null;
    return readStatementHistograms({ waits: this.plan.wait ? c.histogram : null, executions: c.counts }, this.plan.wait?.event ?? null, this.plan.statementEvents, counts, this.companionNotes);
  }

  /**
   * Streams every event (event_file) or the captured ring buffer's, in the order they fired, into `onEvent`; then,
   * when the server-side histograms were read, one STATEMENT_HISTOGRAMS_EVENT with the exact per-hash counts.
   * With those counts the per-statement executions and waits no longer depend on what the sample kept, so a partial
   * sample's `counts` is handed back as null (its totals go in a note instead): the caller then states no coverage
   * limit that the exact counts do not have.
   */
  async collect(onEvent: (event: XeEvent) => void): Promise<StatementTraceRead> {
    const counter = this.captured?.counter ? parseCounterTarget(this.captured.counter) : null;
    const exactCounts = counter && counter.parseError === null ? counter.counts : null;
    const histograms = this.histograms(exactCounts);
    const whole = histograms !== null && histograms.executionsByHash !== null && (histograms.waitsByHash !== null || !this.plan.wait);
    const notesBefore = histograms?.notes.length ?? 0;
    const finish = (r: StatementTraceRead): StatementTraceRead => {
      if (histograms) {
        onEvent({ name: STATEMENT_HISTOGRAMS_EVENT, package: 'durability_lens', timestamp: null, data: {}, actions: {}, histograms } as StatementHistogramsEvent);
        // The fold may add notes (not located, shared hashes) while handling the event.
        r.notes.push(...histograms.notes.slice(notesBefore));
      }
      if (!whole) return { ...r, histograms };
      const total = exactCounts ? [...exactCounts.values()].reduce((a, b) => a + b, 0) : null;
      r.notes.push(
        `Executions and WRITELOG waits per statement are exact server-side counts (histogram targets grouped by ${'sqlserver.query_hash'}); ` +
          `the ${this.plan.eventFile ? 'event_file' : 'ring buffer'} sample (${r.seen}${total !== null ? ` of ${total}` : ''} events) places each hash on its line and gives the averages that the ≈ figures (duration, WRITELOG ms, rows) scale.`,
      );
      // A whole sample (event_file) keeps its counts: there is no coverage to state either way.
      return { ...r, counts: total !== null && r.seen >= total ? r.counts : null, histograms };
    };
    if (this.plan.eventFile) {
      try {
        const read = await streamAllEvents(this.client, this.plan.eventFile.pattern, onEvent);
        read.notes.push(`The statement session's event_file stays on the server after the session is dropped: ${read.files.length > 0 ? read.files.join(', ') : this.plan.eventFile.pattern}. Delete it on the server when no longer needed.`);
        return finish({ counts: exactCounts, seen: read.events, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: read.malformed }, notes: [...read.notes, ...(histograms?.notes ?? [])] });
      } catch (err) {
        throw this.runner.fail('read', err);
      }
    }
    let seen = 0;
    const read = readRingBufferXml(this.captured?.ring ?? null, (e) => {
      seen++;
      onEvent(e);
    });
    return finish({ counts: exactCounts, seen, lost: read.lost, notes: [...read.notes, ...(histograms?.notes ?? [])] });
  }

  /**
   * Drops the session (and the companion, normally gone already: stop() drops it) if they may exist; retries on a
   * fresh connection from `reconnect` when a drop failed. `answers` may hold the status read and DROP composed into
   * another request (LogFlushSession.composeDrops).
   */
  async dispose(reconnect?: () => Promise<SqlClient>, answers: SqlClient = this.client): Promise<void> {
    await this.runner.dropAll(answers, reconnect);
  }
}

function offsetText(v: unknown): string | null {
  if (typeof v === 'string' && /^\d+$/.test(v)) return v;
  if (typeof v === 'bigint' && v >= 0n) return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return null;
}

/**
 * Every event of the session's files, a page at a time (memory: one page), resuming after the last complete buffer
 * of each page (an offset names a buffer, and a resume skips the rest of it: eventFile.ts completeRows).
 */
async function streamAllEvents(client: SqlClient, pattern: string, onEvent: (event: XeEvent) => void, pageSize = 5000): Promise<{ events: number; malformed: number; files: string[]; notes: string[] }> {
  const files = new Set<string>();
  const notes: string[] = [];
  let cursor: { file: string; offset: string } | null = null;
  let events = 0;
  let malformed = 0;
  let top = pageSize;
  for (;;) {
    const rows: Row[] = await client.query(READ_STATEMENT_FILE_PAGE_SQL, [
      { name: 'top', type: 'int', value: top },
      { name: 'path', type: 'nvarchar', value: pattern },
      { name: 'file', type: 'nvarchar', value: cursor ? cursor.file : null },
      { name: 'offset', type: 'bigint', value: cursor ? BigInt(cursor.offset) : null },
    ]);
    const full = rows.length >= top;
    let take = full ? completeRows(rows) : rows.length;
    if (full && take === 0) {
      if (top < 1_000_000) {
        top *= 2;
        continue;
      }
      take = rows.length;
      notes.push('An event_file buffer held more than 1,000,000 events; events after that many in it were not read.');
    }
    const before = cursor;
    const reader = new XeXmlReader((e) => {
      events++;
      onEvent(e);
    });
    for (let i = 0; i < take; i++) {
      const row = rows[i]!;
      if (typeof row.event_data !== 'string' || !reader.readDocument(row.event_data, 'event_file row')) malformed++;
      const offset = offsetText(row.file_offset);
      if (typeof row.file_name === 'string' && offset !== null) {
        files.add(row.file_name);
        cursor = { file: row.file_name, offset };
      }
    }
    top = pageSize;
    if (!full) break;
    if (cursor === null || (before !== null && before.file === cursor.file && before.offset === cursor.offset)) {
      notes.push('The event_file rows carry no usable file_name/file_offset, so reading stopped after one page.');
      break;
    }
  }
  if (malformed > 0) notes.push(`${malformed} event_file rows could not be parsed and were skipped.`);
  return { events, malformed, files: [...files].sort(), notes };
}
