// Test harness: logs in to a Standin and runs batches directly through the Engine contract, draining row
// iterables the way the TDS layer does, so tests can assert on result sets, messages and DONE counts.
import type { Column, ExecRequest, Output, ServerMessage, SessionHandle, SqlValue } from '../../standin/engine';
import type { Standin } from '../../standin/model/index';

export interface ResultSet {
  columns: Column[];
  rows: SqlValue[][];
  /** Rows keyed by column name. */
  objects: Array<Record<string, SqlValue>>;
}

export interface RunResult {
  resultSets: ResultSet[];
  errors: ServerMessage[];
  infos: ServerMessage[];
  dones: Array<{ rowCount?: number; inProc?: boolean; error?: boolean }>;
  outputs: Output[];
  dropped: boolean;
}

export async function connect(standin: Standin, opts: { user?: string; password?: string; database?: string; appName?: string } = {}): Promise<SessionHandle> {
  const r = await standin.login({
    userName: opts.user ?? 'sa', password: opts.password ?? 'StandIn-1', database: opts.database ?? 'lab', appName: opts.appName ?? 'standin-test',
    hostName: 'test-host', encrypted: true, clientPid: 4242, packetSize: 4096, tdsVersion: 0x74000004,
  });
  if (!r.ok) throw new Error(`login failed: ${r.error.number} ${r.error.message}`);
  return r.session;
}

export async function exec(standin: Standin, session: SessionHandle, request: ExecRequest | string, options: { signal?: AbortSignal; resetConnection?: boolean } = {}): Promise<RunResult> {
  const req: ExecRequest = typeof request === 'string' ? { kind: 'batch', sql: request } : request;
  const result: RunResult = { resultSets: [], errors: [], infos: [], dones: [], outputs: [], dropped: false };
  const signal = options.signal ?? new AbortController().signal;
  for await (const out of standin.execute(session, req, { signal, resetConnection: !!options.resetConnection })) {
    result.outputs.push(out);
    switch (out.kind) {
      case 'resultSet': {
        const rows: SqlValue[][] = [];
        for await (const r of out.rows as AsyncIterable<SqlValue[]>) rows.push(r);
        result.resultSets.push({ columns: out.columns, rows, objects: rows.map((r) => Object.fromEntries(out.columns.map((c, i) => [c.name, r[i] ?? null]))) });
        break;
      }
      case 'error': result.errors.push(out.message); break;
      case 'info': result.infos.push(out.message); break;
      case 'done': result.dones.push({ rowCount: out.rowCount, inProc: out.inProc, error: out.error }); break;
      case 'dropConnection': result.dropped = true; break;
      default: break;
    }
  }
  return result;
}

/** Runs a batch that must succeed and returns its result sets. */
export async function query(standin: Standin, session: SessionHandle, sql: string): Promise<ResultSet[]> {
  const r = await exec(standin, session, sql);
  if (r.errors.length) throw new Error(`unexpected SQL error ${r.errors[0]!.number}: ${r.errors[0]!.message} (line ${r.errors[0]!.lineNumber})`);
  return r.resultSets;
}

/** First result set's rows as objects. */
export async function rows(standin: Standin, session: SessionHandle, sql: string): Promise<Array<Record<string, SqlValue>>> {
  const sets = await query(standin, session, sql);
  if (!sets.length) throw new Error('no result set');
  return sets[0]!.objects;
}
