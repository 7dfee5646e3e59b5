// SqlSession over one tedious Connection: parameterised queries (sp_executesql), plain batches, one request
// at a time (tedious allows one active request per connection, so calls queue here instead of failing).
import { Request, TYPES, type Connection } from 'tedious';
import { SqlQueryError, sqlErrorsOf } from './errors';
import type { ConnectionRole, ParameterType, QueryParameter, Row, SqlSession } from './types';

const PARAMETER_TYPES: Record<ParameterType, (typeof TYPES)[keyof typeof TYPES]> = {
  int: TYPES.Int,
  bigint: TYPES.BigInt,
  smallint: TYPES.SmallInt,
  bit: TYPES.Bit,
  nvarchar: TYPES.NVarChar,
  varchar: TYPES.VarChar,
  float: TYPES.Float,
  datetime2: TYPES.DateTime2,
};

interface TediousColumn {
  value: unknown;
  metadata: { colName: string };
}

/** Row array (tedious default) → object keyed by column name; later duplicate names win, like most clients. */
export function rowFromColumns(columns: readonly TediousColumn[]): Row {
  const row: Row = {};
  for (const c of columns) row[c.metadata.colName] = c.value;
  return row;
}

/** Declared length of string parameters: one fixed size (4000/8000) keeps one cached plan per statement. */
function stringLength(p: QueryParameter): { length: number } | undefined {
  if (p.type !== 'nvarchar' && p.type !== 'varchar') return undefined;
  const limit = p.type === 'nvarchar' ? 4000 : 8000;
  const length = typeof p.value === 'string' ? p.value.length : 0;
  return length <= limit ? { length: limit } : undefined; // longer: tedious declares (max)
}

/** Values always travel as typed RPC parameters (sp_executesql); the SQL text never contains them. */
export function addParameters(request: Request, parameters: readonly QueryParameter[]): void {
  for (const p of parameters) request.addParameter(p.name, PARAMETER_TYPES[p.type], p.value, stringLength(p));
}

export function toQueryError(err: unknown, sql: string): SqlQueryError {
  const errors = sqlErrorsOf(err);
  const code = (err as { code?: string } | null)?.code;
  const first = errors[0];
  const text = first ? `SQL error ${first.number}: ${first.message}` : (err as Error)?.message ?? String(err);
  const head = sql.replace(/\s+/g, ' ').trim().slice(0, 80);
  return new SqlQueryError(`${text} (while running: ${head})`, errors, code, { cause: err });
}

export class TediousSession implements SqlSession {
  spid = 0;
  encrypted: boolean | null = null;
  /** 'server': encrypt_option was read; 'client': the login lacked VIEW SERVER STATE, the TLS handshake was the evidence. */
  encryptionEvidence: 'server' | 'client' | null = null;
  /**
   * Every database the session was moved to, in order (tedious's 'databaseChange' event, from the server's ENVCHANGE
   * token): the login's database first (connect() adds it), then each USE. A workload's `USE other_db` shows up here (issue 11).
   */
  readonly databaseHistory: string[] = [];
  /** When encrypted: 'verified' (trusted issuer, host name, dates), 'pinned' (the profile's fingerprint) or 'not-verified'. */
  certificate: 'verified' | 'pinned' | 'not-verified' | null = null;
  /**
   * Monitor only: the setup request's row (spid, database_id, database_name, delayed_durability_desc) as read right
   * after the login (connect.ts); null on a workload session. It describes the moment of the login, not now.
   */
  atLogin: Row | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly connection: Connection,
    readonly role: ConnectionRole,
  ) {
    connection.on('end', () => {
      this.closed = true;
    });
    connection.on('databaseChange', (name: string) => {
      this.databaseHistory.push(name);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `work` after every earlier request finished (success or not). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  query(sql: string, parameters: readonly QueryParameter[] = []): Promise<Row[]> {
    return this.exclusive(() => this.runCollecting(sql, parameters));
  }

  async execute(sql: string, parameters: readonly QueryParameter[] = []): Promise<void> {
    await this.query(sql, parameters);
  }

  private runCollecting(sql: string, parameters: readonly QueryParameter[]): Promise<Row[]> {
    return new Promise<Row[]>((resolve, reject) => {
      if (this.closed) {
        reject(new SqlQueryError('The connection is closed.', [], 'ECLOSE'));
        return;
      }
      const rows: Row[] = [];
      const request = new Request(sql, (err) => (err ? reject(toQueryError(err, sql)) : resolve(rows)));
      request.on('row', (columns: TediousColumn[]) => rows.push(rowFromColumns(columns)));
      if (parameters.length === 0) {
        this.connection.execSqlBatch(request);
        return;
      }
      addParameters(request, parameters);
      this.connection.execSql(request);
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.connection.once('end', () => resolve());
      this.connection.close();
    });
  }
}
