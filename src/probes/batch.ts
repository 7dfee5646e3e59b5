// One round trip for many probes: the queries a snapshot (or a sampler reading) will ask are composed into ONE batch
// that returns their result sets in order, each probe run by sp_executesql inside its own TRY...CATCH and followed by a
// tag row (its index, and the error when it failed), so a refused probe does not fail the others. The answers are
// then served to the probes' own capture functions through PrefetchedClient: each probe keeps its SQL text and mapper,
// and a query nobody planned (a follow-up such as the DBCC LOGINFO fallback) simply goes to the server.
//
// Why these T-SQL rules hold (Learn, "TRY...CATCH (Transact-SQL)",
// https://learn.microsoft.com/sql/t-sql/language-elements/try-catch-transact-sql): a TRY block catches every error of
// severity > 10 that does not close the connection, and errors a TRY block cannot catch at its own level (compile
// errors, deferred name resolution such as "Invalid object name" for a DMV this version lacks) ARE caught when they
// happen at a lower level — which sp_executesql is. A caught error is not sent to the client; ERROR_NUMBER() /
// ERROR_MESSAGE() etc. describe it inside the CATCH block. Errors that close the connection fail the whole request;
// then every probe is asked on its own (the old path), so the outcome is never worse than one request per probe.
import type { QueryParameter, Row, SqlClient, SqlErrorInfo } from '../db/types';
import { SqlQueryError } from '../db/errors';

export interface PlannedQuery {
  sql: string;
  parameters?: readonly QueryParameter[];
}

export type QueryOutcome = { ok: true; rows: Row[] } | { ok: false; error: SqlErrorInfo };

/** Column that marks a tag row; no probe selects a column of this name. */
export const TAG_COLUMN = 'dl_probe';

const DECLARED_TYPES: Record<QueryParameter['type'], (p: QueryParameter) => string> = {
  int: () => 'int',
  bigint: () => 'bigint',
  smallint: () => 'smallint',
  bit: () => 'bit',
  // The same sizes the driver declares (src/db/session.ts): 4000 / 8000, or max when the value is longer.
  nvarchar: (p) => (typeof p.value === 'string' && p.value.length > 4000 ? 'nvarchar(max)' : 'nvarchar(4000)'),
  varchar: (p) => (typeof p.value === 'string' && p.value.length > 8000 ? 'varchar(max)' : 'varchar(8000)'),
  float: () => 'float',
  datetime2: () => 'datetime2(7)',
};

/** An N'…' literal: the statement text is ours (probe constants), quotes doubled all the same. */
function unicodeLiteral(text: string): string {
  return `N'${text.replace(/'/g, "''")}'`;
}

function checkName(name: string): string {
  // Parameter names are the probes' own identifiers; anything else would be a programming error, not user input.
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`Unexpected parameter name "${name}" in a composed probe query.`);
  return name;
}

/**
 * The composed batch and its parameters. Query i's parameter @x travels as the outer parameter @q<i>_x (values stay
 * parameterised end to end) and is passed on to the inner sp_executesql by name.
 */
export function composeBatch(queries: readonly PlannedQuery[]): { sql: string; parameters: QueryParameter[] } {
  const parameters: QueryParameter[] = [];
  const parts = queries.map((q, i) => {
    const params = q.parameters ?? [];
    let exec = `EXEC sys.sp_executesql ${unicodeLiteral(q.sql)}`;
    if (params.length > 0) {
      const declared = params.map((p) => `@${checkName(p.name)} ${DECLARED_TYPES[p.type](p)}`).join(', ');
      const passed = params.map((p) => `@${p.name} = @q${i}_${p.name}`).join(', ');
      exec += `, N'${declared}', ${passed}`;
      for (const p of params) parameters.push({ name: `q${i}_${p.name}`, type: p.type, value: p.value });
    }
    return `BEGIN TRY
  ${exec};
  SELECT ${i} AS ${TAG_COLUMN}, CAST(NULL AS int) AS dl_error_number, CAST(NULL AS int) AS dl_error_severity, CAST(NULL AS int) AS dl_error_state, CAST(NULL AS nvarchar(4000)) AS dl_error_message;
END TRY
BEGIN CATCH
  SELECT ${i} AS ${TAG_COLUMN}, ERROR_NUMBER() AS dl_error_number, ERROR_SEVERITY() AS dl_error_severity, ERROR_STATE() AS dl_error_state, ERROR_MESSAGE() AS dl_error_message;
END CATCH;`;
  });
  return { sql: parts.join('\n'), parameters };
}

function int(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * Splits the composed batch's rows (every result set, in order) back into one outcome per query: the rows before a
 * tag belong to the query the tag names. Throws when the tags are not exactly 0..n-1 in order (then nothing is trusted).
 */
export function splitOutcomes(rows: readonly Row[], count: number): QueryOutcome[] {
  const outcomes: QueryOutcome[] = [];
  let pending: Row[] = [];
  for (const row of rows) {
    if (!Object.prototype.hasOwnProperty.call(row, TAG_COLUMN)) {
      pending.push(row);
      continue;
    }
    const index = int(row[TAG_COLUMN]);
    if (index !== outcomes.length) throw new Error(`The composed probe batch answered out of order (tag ${String(row[TAG_COLUMN])}, expected ${outcomes.length}).`);
    const number = int(row.dl_error_number);
    if (number === null) outcomes.push({ ok: true, rows: pending });
    else {
      const message = typeof row.dl_error_message === 'string' ? row.dl_error_message : '';
      outcomes.push({ ok: false, error: { number, class: int(row.dl_error_severity) ?? 0, state: int(row.dl_error_state) ?? 0, message, lineNumber: 0 } });
    }
    pending = [];
  }
  if (outcomes.length !== count) throw new Error(`The composed probe batch answered ${outcomes.length} of ${count} probes.`);
  return outcomes;
}

function keyOf(sql: string, parameters: readonly QueryParameter[] = []): string {
  const values = parameters.map((p) => [p.name, p.type, typeof p.value === 'bigint' ? `${p.value}n` : p.value instanceof Date ? p.value.toISOString() : p.value]);
  return `${sql}\u0000${JSON.stringify(values)}`;
}

/** The error a probe sees for a refused query: shaped like the driver's (src/db/session.ts toQueryError). */
function queryErrorOf(error: SqlErrorInfo, sql: string): SqlQueryError {
  const head = sql.replace(/\s+/g, ' ').trim().slice(0, 80);
  return new SqlQueryError(`SQL error ${error.number}: ${error.message} (while running: ${head})`, [error], undefined);
}

/**
 * A SqlClient that answers planned queries from the composed batch (each answer used once) and sends anything else to
 * the real connection. `misses` counts the queries that needed their own round trip.
 */
export class PrefetchedClient implements SqlClient {
  private readonly answers = new Map<string, QueryOutcome[]>();
  misses = 0;

  constructor(
    private readonly monitor: SqlClient,
    answered: ReadonlyArray<readonly [PlannedQuery, QueryOutcome]>,
    /** Why the composed batch could not be used (every query then goes to the server on its own), or null. */
    readonly batchFailure: Error | null = null,
  ) {
    for (const [q, outcome] of answered) {
      const key = keyOf(q.sql, q.parameters);
      const list = this.answers.get(key);
      if (list) list.push(outcome);
      else this.answers.set(key, [outcome]);
    }
  }

  async query(sql: string, parameters?: readonly QueryParameter[]): Promise<Row[]> {
    const outcome = this.answers.get(keyOf(sql, parameters))?.shift();
    if (!outcome) {
      this.misses++;
      return this.monitor.query(sql, parameters);
    }
    if (outcome.ok) return outcome.rows;
    throw queryErrorOf(outcome.error, sql);
  }

  execute(sql: string, parameters?: readonly QueryParameter[]): Promise<void> {
    return this.monitor.execute(sql, parameters);
  }
}

/**
 * Asks every planned query in one request and returns a client that serves their answers. When the request itself
 * fails (a lost connection, a server that refuses the composition), the client sends each probe on its own instead.
 */
export async function prefetch(monitor: SqlClient, queries: readonly PlannedQuery[]): Promise<PrefetchedClient> {
  if (queries.length === 0) return new PrefetchedClient(monitor, []);
  const { sql, parameters } = composeBatch(queries);
  let outcomes: QueryOutcome[];
  try {
    outcomes = splitOutcomes(await monitor.query(sql, parameters), queries.length);
  } catch (err) {
    return new PrefetchedClient(monitor, [], err instanceof Error ? err : new Error(String(err)));
  }
  return new PrefetchedClient(monitor, queries.map((q, i) => [q, outcomes[i]!] as const));
}
