// A scripted stand-in for SqlClient in xe tests: records every statement, answers the xe catalog/status queries from a
// tiny model of event sessions, and fails chosen statements with driver-shaped errors. Several clients share one model.

import type { QueryParameter, Row, SqlClient } from '../../../src/db/types';
import { answerComposed } from '../../support/composedBatch';

export interface Call {
  kind: 'query' | 'execute';
  sql: string;
  params?: readonly QueryParameter[];
}

export interface FakeOptions {
  engineEdition?: number;
  majorVersion?: number;
  permissions?: string[];
  events?: string[];
  eventSequence?: boolean;
  /** event → fields (description per field); default: the fields public scripts use. */
  fields?: Record<string, Record<string, string | null>>;
  ringBufferXml?: string | null;
  /** target_data of event_counter / histogram (absent: the target returns no row). */
  counterXml?: string | null;
  histogramXml?: string | null;
  /** target_data of the latency companion session's histogram. */
  latencyXml?: string | null;
  /** fn_xe_file_target_read_file rows in file order: {object_name, event_data, file_name, file_offset}. */
  eventFileRows?: Row[];
}

export function serverError(number: number, message: string): Error & { number: number } {
  return Object.assign(new Error(message), { number, state: 1, class: 14 });
}

const DEFAULT_FIELDS: Record<string, Record<string, string | null>> = {
  databases_log_flush: { database_id: null, count: null },
  databases_log_flush_wait: { database_id: null },
  log_flush_start: { database_id: null, log_block_id: null, write_size: null },
  log_flush_complete: { database_id: null, file_id: null, duration: 'Duration of the log flush in microseconds', write_size: null },
  flush_file_buffers: { file_handle: null },
};

export class FakeServer {
  readonly calls: Call[] = [];
  /** Requests (round trips) received: a composed batch is one, however many statements it records in `calls`. */
  requests = 0;
  readonly sessions = new Map<string, { running: boolean }>();
  private readonly failures: { match: RegExp; error: unknown }[] = [];
  constructor(readonly opts: FakeOptions = {}) {}

  /** Fail every statement matching `match` from now on. */
  failOn(match: RegExp, error: unknown): void {
    this.failures.push({ match, error });
  }

  client(): FakeClient {
    return new FakeClient(this);
  }

  sqls(): string[] {
    return this.calls.map((c) => c.sql);
  }

  handle(call: Call): Row[] {
    this.calls.push(call);
    const failure = this.failures.find((f) => f.match.test(call.sql));
    if (failure) throw failure.error;
    const sql = call.sql;
    const name = call.params?.find((p) => p.name === 'name')?.value as string | undefined;
    const o = this.opts;
    if (sql.includes("SERVERPROPERTY('EngineEdition')")) {
      return [{ engine_edition: o.engineEdition ?? 3, product_major_version: o.majorVersion ?? 15, login_name: 'app', user_name: 'app_user' }];
    }
    if (sql.includes('fn_my_permissions')) return (o.permissions ?? ['ALTER ANY EVENT SESSION', 'VIEW SERVER STATE']).map((p) => ({ permission_name: p }));
    const events = o.events ?? Object.keys(DEFAULT_FIELDS);
    if (sql.includes('o.object_type') && sql.includes('event_sequence')) {
      const rows: Row[] = events.map((e) => ({ package_name: 'sqlserver', object_name: e, object_type: 'event' }));
      if (o.eventSequence ?? true) rows.push({ package_name: 'package0', object_name: 'event_sequence', object_type: 'action' });
      return rows;
    }
    if (sql.includes('sys.dm_xe_object_columns')) {
      const fields = o.fields ?? DEFAULT_FIELDS;
      return events.flatMap((e) => Object.entries(fields[e] ?? {}).map(([f, d]) => ({ event_name: e, field_name: f, type_name: 'uint64', description: d })));
    }
    if (sql.includes('AS is_defined')) {
      const s = name !== undefined ? this.sessions.get(name) : undefined;
      return [{ is_defined: s ? 1 : 0, is_running: s?.running ? 1 : 0 }];
    }
    if (sql.includes('t.target_data')) {
      const s = name !== undefined ? this.sessions.get(name) : undefined;
      const rows: Row[] = [];
      if (s?.running) {
        rows.push({ session_name: name, target_name: 'ring_buffer', target_data: o.ringBufferXml ?? null });
        if (o.counterXml !== undefined) rows.push({ session_name: name, target_name: 'event_counter', target_data: o.counterXml });
        if (o.histogramXml !== undefined) rows.push({ session_name: name, target_name: 'histogram', target_data: o.histogramXml });
      }
      const companion = call.params?.find((p) => p.name === 'companion')?.value as string | undefined;
      if (companion !== undefined && companion !== name && this.sessions.get(companion)?.running && o.latencyXml !== undefined) {
        rows.push({ session_name: companion, target_name: 'histogram', target_data: o.latencyXml });
      }
      return rows;
    }
    if (sql.includes('sys.fn_xe_file_target_read_file')) {
      // Events up to and including (@file, @offset) are skipped; then TOP (@top) rows of @event.
      const p = (n: string) => call.params?.find((x) => x.name === n)?.value;
      const all = (o.eventFileRows ?? []).filter((r) => r.object_name === p('event'));
      let from = 0;
      if (p('file') !== null && p('file') !== undefined) {
        const last = all.map((r) => `${String(r.file_name)}|${String(r.file_offset)}`).lastIndexOf(`${String(p('file'))}|${String(p('offset'))}`);
        from = last + 1;
      }
      return all.slice(from, from + Number(p('top')));
    }
    if (sql.includes("LIKE N'durability[_]lens[_]%'")) return [...this.sessions.keys()].sort().map((n) => ({ name: n }));
    let m = /^CREATE EVENT SESSION \[((?:[^\]]|\]\])+)\]/.exec(sql);
    if (m) {
      const n = m[1]!.replace(/]]/g, ']');
      if (this.sessions.has(n)) throw serverError(25631, `The event session, "${n}", already exists.`);
      this.sessions.set(n, { running: false });
      return [];
    }
    m = /^ALTER EVENT SESSION \[((?:[^\]]|\]\])+)\] ON \w+ STATE = (START|STOP);$/.exec(sql);
    if (m) {
      const s = this.sessions.get(m[1]!.replace(/]]/g, ']'));
      if (!s) throw serverError(15151, 'Cannot alter the event session, because it does not exist or you do not have permission.');
      s.running = m[2] === 'START';
      return [];
    }
    m = /^DROP EVENT SESSION \[((?:[^\]]|\]\])+)\]/.exec(sql);
    if (m) {
      const n = m[1]!.replace(/]]/g, ']');
      if (!this.sessions.delete(n)) throw serverError(15151, `Cannot drop the event session '${n}', because it does not exist or you do not have permission.`);
      return [];
    }
    throw new Error(`fake server has no answer for: ${sql}`);
  }
}

export class FakeClient implements SqlClient {
  /** A dead connection rejects everything, like a socket that went away. */
  dead = false;
  constructor(private readonly server: FakeServer) {}

  async query(sql: string, params?: readonly QueryParameter[]): Promise<Row[]> {
    if (this.dead) throw Object.assign(new Error('Connection lost - read ECONNRESET'), { code: 'ESOCKET' });
    this.server.requests++;
    return answerComposed(sql, params, (s, p) => this.server.handle({ kind: 'query', sql: s, params: p })) ?? this.server.handle({ kind: 'query', sql, params });
  }

  async execute(sql: string, params?: readonly QueryParameter[]): Promise<void> {
    if (this.dead) throw Object.assign(new Error('Connection lost - read ECONNRESET'), { code: 'ESOCKET' });
    this.server.requests++;
    this.server.handle({ kind: 'execute', sql, params });
  }
}
