// Lifecycle of the statement-attribution Extended Events session (issue 16): prepare (events, duration units, the
// WRITELOG map key looked up at run time) → start → stop (targets captured first) → collect → dispose (drop), with the
// same guarantees as the log-flush session: named durability_lens_<random> (orphan cleanup finds it), dropped in the
// caller's finally, on a fresh connection when the first one died.

import type { SqlClient } from '../db/types';
import { durationUnitFromDescription, type DurationUnit } from './aggregate';
import { dropSession } from './cleanup';
import { mapSessionError, XeSessionError, type XePlatform, type XeStep } from './errors';
import { intOrNull, nameParam } from './plan';
import { readRingBufferXml, type LostEvents, type XeEvent } from './reader';
import { newSessionName, PLATFORM_SQL, readTargetsSql, sessionStateSql, type SessionScope } from './sessionSql';
import {
  createStatementSessionSql,
  MAP_KEYS_SQL,
  STATEMENT_CATALOG_SQL,
  STATEMENT_EVENTS,
  WAIT_EVENTS,
  type StatementEventName,
  type StatementSessionDefinition,
  type WaitEventName,
} from './statementTraceSql';
import { parseCounterTarget } from './targetData';

/** Editions whose sessions are ON DATABASE (as the log-flush plan decides: Azure SQL Database, Fabric). */
const DATABASE_SCOPED_EDITIONS = new Set([5, 12]);

export interface StatementTracePlan {
  sessionName: string;
  platform: XePlatform;
  statementEvents: StatementEventName[];
  wait: { event: WaitEventName; writelogKey: number; endOpcodeKey: number | null; durationUnit: DurationUnit } | null;
  statementDurationUnit: DurationUnit;
  createSql: string;
  /** What the plan could not do (no wait event, no WRITELOG key): shown with the attribution. */
  notes: string[];
}

export interface StatementTraceOptions {
  spid: number;
  /** The log-flush plan's platform when there is one (saves a round trip); else read here. */
  platform?: XePlatform;
  sessionName?: string;
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
}

export async function planStatementTrace(client: SqlClient, opts: StatementTraceOptions): Promise<StatementTracePlan> {
  const sessionName = opts.sessionName ?? newSessionName();
  let platform: XePlatform = opts.platform ?? { scope: 'server', majorVersion: null, principal: null };
  const fail = (err: unknown) => mapSessionError('prepare', sessionName, platform, err);
  const notes: string[] = [];
  let catalog;
  let maps;
  try {
    if (!opts.platform) {
      const [row] = await client.query(PLATFORM_SQL);
      const edition = intOrNull(row?.engine_edition);
      const scope: SessionScope = edition !== null && DATABASE_SCOPED_EDITIONS.has(edition) ? 'database' : 'server';
      const principal = scope === 'server' ? row?.login_name : row?.user_name;
      platform = { scope, majorVersion: intOrNull(row?.product_major_version), principal: typeof principal === 'string' ? principal : null };
    }
    catalog = await client.query(STATEMENT_CATALOG_SQL);
    maps = await client.query(MAP_KEYS_SQL);
  } catch (err) {
    throw fail(err);
  }
  const has = new Map(catalog.map((r) => [String(r.event_name), typeof r.duration_description === 'string' ? r.duration_description : null]));
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
  const def: StatementSessionDefinition = {
    name: sessionName,
    scope: platform.scope,
    spid: opts.spid,
    statementEvents,
    wait: wait ? { event: wait.event, writelogKey: wait.writelogKey, endOpcodeKey: wait.endOpcodeKey } : null,
    maxEventsLimit: opts.maxEventsLimit ?? 1_000_000,
  };
  return {
    sessionName,
    platform,
    statementEvents,
    wait,
    statementDurationUnit: durationUnitFromDescription(has.get('sql_statement_completed')),
    createSql: createStatementSessionSql(def),
    notes,
  };
}

/** One statement-attribution session on the monitor connection. The caller disposes it in finally. */
export class StatementTraceSession {
  state: 'prepared' | 'started' | 'stopped' | 'dropped' | 'failed' = 'prepared';
  private createAttempted = false;
  private captured: { ring: string | null; counter: string | null } | null = null;

  private constructor(
    private readonly client: SqlClient,
    readonly plan: StatementTracePlan,
  ) {}

  static async prepare(client: SqlClient, opts: StatementTraceOptions): Promise<StatementTraceSession> {
    return new StatementTraceSession(client, await planStatementTrace(client, opts));
  }

  get name(): string {
    return this.plan.sessionName;
  }

  private fail(step: XeStep, err: unknown): XeSessionError {
    this.state = 'failed';
    return mapSessionError(step, this.name, this.plan.platform, err);
  }

  async start(): Promise<void> {
    if (this.state !== 'prepared') throw new Error(`cannot start a session that is ${this.state}`);
    this.createAttempted = true;
    try {
      await this.client.execute(this.plan.createSql);
    } catch (err) {
      throw this.fail('create', err);
    }
    try {
      await this.client.execute(sessionStateSql(this.name, this.plan.platform.scope, 'START'));
    } catch (err) {
      throw this.fail('start', err);
    }
    this.state = 'started';
  }

  /** Captures the memory targets (they vanish with the running session), then stops the session. */
  async stop(): Promise<void> {
    if (this.state !== 'started') return;
    try {
      const rows = await this.client.query(readTargetsSql(this.plan.platform.scope), [...nameParam(this.name), { name: 'companion', type: 'nvarchar', value: this.name }]);
      const data = (target: string) => {
        const v = rows.find((r) => r.target_name === target)?.target_data;
        return typeof v === 'string' ? v : null;
      };
      this.captured = { ring: data('ring_buffer'), counter: data('event_counter') };
    } catch (err) {
      throw this.fail('read', err);
    }
    try {
      await this.client.execute(sessionStateSql(this.name, this.plan.platform.scope, 'STOP'));
    } catch (err) {
      throw this.fail('stop', err);
    }
    this.state = 'stopped';
  }

  /** Streams the captured ring buffer's events, in the order they fired, into `onEvent`. */
  collect(onEvent: (event: XeEvent) => void): StatementTraceRead {
    let seen = 0;
    const read = readRingBufferXml(this.captured?.ring ?? null, (e) => {
      seen++;
      onEvent(e);
    });
    const counter = this.captured?.counter ? parseCounterTarget(this.captured.counter) : null;
    return { counts: counter && counter.parseError === null ? counter.counts : null, seen, lost: read.lost, notes: read.notes };
  }

  /** Drops the session if it may exist; retries on a fresh connection from `reconnect` when the first drop failed. */
  async dispose(reconnect?: () => Promise<SqlClient>): Promise<void> {
    if (!this.createAttempted || this.state === 'dropped') return;
    try {
      await dropSession(this.client, this.name, this.plan.platform.scope, this.plan.platform);
    } catch (first) {
      if (!reconnect) throw first;
      await dropSession(await reconnect(), this.name, this.plan.platform.scope, this.plan.platform);
    }
    this.state = 'dropped';
  }
}
