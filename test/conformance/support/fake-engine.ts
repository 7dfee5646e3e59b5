// A small scripted Engine for the protocol conformance tests: a handful of fixed batches with known answers,
// and a log of every request it was given, so tests can check what the protocol layer decoded.
import type { Column, Engine, ExecContext, ExecRequest, LoginRequest, LoginResult, Output, SessionHandle, SqlValue } from '../../standin/engine';

export const LOGIN = { user: 'sa', password: 'StandIn-1', database: 'lab' } as const;

/** One row with every column type the protocol layer writes, and the values tests expect back. */
export const ALL_TYPES_COLUMNS: Column[] = [
  { name: 'i', type: { kind: 'int' }, nullable: false },
  { name: 'bi', type: { kind: 'bigint' }, nullable: true },
  { name: 'si', type: { kind: 'smallint' }, nullable: false },
  { name: 'ti', type: { kind: 'tinyint' }, nullable: true },
  { name: 'b', type: { kind: 'bit' }, nullable: false },
  { name: 'f', type: { kind: 'float' }, nullable: true },
  { name: 'd', type: { kind: 'decimal', precision: 18, scale: 2 }, nullable: true },
  { name: 'nv', type: { kind: 'nvarchar', length: 50 }, nullable: true },
  { name: 'v', type: { kind: 'varchar', length: 20 }, nullable: false },
  { name: 'nvmax', type: { kind: 'nvarchar', length: 'max' }, nullable: true },
  { name: 'dt2', type: { kind: 'datetime2', scale: 7 }, nullable: true },
  { name: 'dto', type: { kind: 'datetimeoffset', scale: 3 }, nullable: true },
  { name: 'g', type: { kind: 'uniqueidentifier' }, nullable: true },
  { name: 'nothing', type: { kind: 'int' }, nullable: true },
];
export const ALL_TYPES_ROW: SqlValue[] = [
  -2147483648,
  9007199254740993n, // beyond Number's exact range: must arrive as the string "9007199254740993"
  -32768,
  255,
  true,
  3.5e-7,
  '-12345.67',
  'Grüße 👋',
  'plain',
  'x'.repeat(10_000),
  new Date(Date.UTC(2024, 1, 29, 23, 59, 58, 123)),
  { date: new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678)), offsetMinutes: 330 },
  '6F9619FF-8B86-D011-B42D-00C04FC964FF',
  null,
];

export const BATCH = {
  selectOne: 'SELECT 1 AS n',
  print: "PRINT 'hello from the stand-in'",
  errorAtLine3: 'SELECT 1;\nSELECT 2;\nSELECT * FROM dbo.missing;',
  waitfor: "WAITFOR DELAY '01:00:00'",
  manyRows: 'SELECT n FROM dbo.numbers -- 100k rows',
  allTypes: 'SELECT * FROM dbo.all_types',
  bigText: 'SELECT big FROM dbo.big_text',
  drop: 'SELECT fault FROM dbo.drop_connection',
  slowRows: 'SELECT n FROM dbo.endless',
  fastRows: 'SELECT n FROM dbo.endless_fast',
} as const;

export const MANY_ROWS = 100_000;
export const BIG_TEXT = Array.from({ length: 60_000 }, (_, i) => String.fromCharCode(0x41 + (i % 26))).join('') + 'ÆØÅ-end';

function* numbers(count: number): Iterable<SqlValue[]> {
  for (let i = 1; i <= count; i++) yield [i];
}

/** Rows produced a few at a time across event-loop turns, like a scan that never ends. */
async function* trickle(): AsyncIterable<SqlValue[]> {
  for (let i = 1; ; i++) {
    if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    yield [i];
  }
}

/** Resolves when the request is cancelled: the model's "waiting" state. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}

export class FakeEngine implements Engine {
  readonly requests: Array<{ request: ExecRequest; resetConnection: boolean; spid: number }> = [];
  readonly logins: LoginRequest[] = [];
  loggedOut = 0;
  /** Rows taken so far from the endless fast generator: shows whether the protocol layer honours backpressure. */
  rowsPulled = 0;
  private nextSpid = 51;
  private nextTransaction = 1n;
  private readonly active = new Set<AbortSignal>();

  /** Requests running right now (to wait for "the engine is inside WAITFOR"). */
  get running(): number {
    return this.active.size;
  }

  async login(request: LoginRequest): Promise<LoginResult> {
    this.logins.push(request);
    if (request.userName !== LOGIN.user || request.password !== LOGIN.password) {
      return { ok: false, error: { number: 18456, state: 1, class: 14, message: `Login failed for user '${request.userName}'.`, lineNumber: 1 } };
    }
    const database = request.database || 'master';
    if (database !== LOGIN.database && database !== 'master') {
      const message = `Cannot open database "${database}" requested by the login. The login failed.`;
      return { ok: false, error: { number: 4060, state: 1, class: 11, message, lineNumber: 1 } };
    }
    return { ok: true, session: { spid: this.nextSpid++ }, database, serverName: 'FAKE', serverVersion: { major: 16, minor: 0, build: 4135 } };
  }

  logout(): void {
    this.loggedOut++;
  }

  async *execute(session: SessionHandle, request: ExecRequest, context: ExecContext): AsyncIterable<Output> {
    this.requests.push({ request, resetConnection: context.resetConnection, spid: session.spid });
    this.active.add(context.signal);
    try {
      yield* this.answer(request, context.signal);
    } finally {
      this.active.delete(context.signal);
    }
  }

  private async *answer(request: ExecRequest, signal: AbortSignal): AsyncIterable<Output> {
    if (request.kind === 'transactionManager') {
      const descriptor = request.operation === 'begin' ? this.nextTransaction++ : this.nextTransaction - 1n;
      const type = request.operation === 'begin' ? 'beginTransaction' : request.operation === 'commit' ? 'commitTransaction' : 'rollbackTransaction';
      yield { kind: 'envChange', change: { type, descriptor } };
      yield { kind: 'done' };
      return;
    }
    if (request.kind === 'rpc') {
      yield { kind: 'resultSet', columns: [{ name: 'parameters', type: { kind: 'int' }, nullable: false }], rows: [[request.parameters.length]] };
      yield { kind: 'done', rowCount: 1, inProc: true };
      return;
    }
    switch (request.sql.trim()) { // tsql sends the lines it read, newline included
      case BATCH.selectOne:
        yield { kind: 'resultSet', columns: [{ name: 'n', type: { kind: 'int' }, nullable: false }], rows: [[1]] };
        yield { kind: 'done', rowCount: 1 };
        return;
      case BATCH.print:
        yield { kind: 'info', message: { number: 0, state: 1, class: 0, message: 'hello from the stand-in', lineNumber: 1 } };
        yield { kind: 'done' };
        return;
      case BATCH.errorAtLine3:
        yield { kind: 'resultSet', columns: [{ name: 'a', type: { kind: 'int' }, nullable: true }], rows: [[1]] };
        yield { kind: 'done', rowCount: 1 };
        yield { kind: 'resultSet', columns: [{ name: 'b', type: { kind: 'int' }, nullable: true }], rows: [[2]] };
        yield { kind: 'done', rowCount: 1 };
        yield { kind: 'error', message: { number: 208, state: 1, class: 16, message: "Invalid object name 'dbo.missing'.", lineNumber: 3 } };
        yield { kind: 'done', error: true };
        return;
      case BATCH.waitfor:
        await aborted(signal);
        return;
      case BATCH.manyRows:
        yield { kind: 'resultSet', columns: [{ name: 'n', type: { kind: 'int' }, nullable: false }], rows: numbers(MANY_ROWS) };
        yield { kind: 'done', rowCount: MANY_ROWS };
        return;
      case BATCH.slowRows:
        yield { kind: 'resultSet', columns: [{ name: 'n', type: { kind: 'int' }, nullable: false }], rows: trickle() };
        yield { kind: 'done' };
        return;
      case BATCH.fastRows: {
        const counted = function* (this: FakeEngine): Iterable<SqlValue[]> {
          for (;;) yield [++this.rowsPulled];
        };
        yield { kind: 'resultSet', columns: [{ name: 'n', type: { kind: 'int' }, nullable: false }], rows: counted.call(this) };
        yield { kind: 'done' };
        return;
      }
      case BATCH.allTypes:
        yield { kind: 'resultSet', columns: ALL_TYPES_COLUMNS, rows: [ALL_TYPES_ROW] };
        yield { kind: 'done', rowCount: 1 };
        return;
      case BATCH.bigText:
        yield { kind: 'resultSet', columns: [{ name: 'big', type: { kind: 'nvarchar', length: 'max' }, nullable: false }], rows: [[BIG_TEXT]] };
        yield { kind: 'done', rowCount: 1 };
        return;
      case BATCH.drop:
        yield { kind: 'dropConnection' };
        return;
      default:
        yield { kind: 'done' };
    }
  }
}
