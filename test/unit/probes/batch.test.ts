// Composing probes into one request (src/probes/batch.ts): the batch text and its parameters, splitting the answer
// back per probe by its tag rows, serving the probes from it, and falling back to one request per probe.
import { strict as assert } from 'node:assert';
import type { QueryParameter, Row, SqlClient } from '../../../src/db/types';
import { isPermissionError, sqlErrorsOf } from '../../../src/db/errors';
import { composeBatch, prefetch, splitOutcomes, TAG_COLUMN } from '../../../src/probes/batch';

const tag = (i: number, error?: { number: number; message: string }) => ({
  [TAG_COLUMN]: i,
  dl_error_number: error?.number ?? null,
  dl_error_severity: error ? 14 : null,
  dl_error_state: error ? 1 : null,
  dl_error_message: error?.message ?? null,
});

class Recorder implements SqlClient {
  requests: Array<{ sql: string; parameters: readonly QueryParameter[] | undefined }> = [];
  constructor(private readonly answer: (sql: string) => Row[]) {}
  async query(sql: string, parameters?: readonly QueryParameter[]): Promise<Row[]> {
    this.requests.push({ sql, parameters });
    return this.answer(sql);
  }
  async execute(): Promise<void> {}
}

describe('probes: one request for many probes', () => {
  it('wraps each probe in sp_executesql inside its own TRY...CATCH, with its parameters renamed per probe', () => {
    const { sql, parameters } = composeBatch([
      { sql: "SELECT N'it''s' AS a;" },
      { sql: 'SELECT x FROM t WHERE id = @database_id AND n = @name;', parameters: [{ name: 'database_id', type: 'int', value: 5 }, { name: 'name', type: 'nvarchar', value: "o'brien" }] },
    ]);
    assert.equal((sql.match(/BEGIN TRY/g) ?? []).length, 2);
    assert.equal((sql.match(/BEGIN CATCH/g) ?? []).length, 2);
    assert.ok(sql.includes("EXEC sys.sp_executesql N'SELECT N''it''''s'' AS a;';"), sql);
    assert.ok(sql.includes("N'@database_id int, @name nvarchar(4000)', @database_id = @q1_database_id, @name = @q1_name;"), sql);
    assert.ok(!sql.includes("o'brien"), 'values travel as parameters, never in the text');
    assert.deepEqual(parameters, [{ name: 'q1_database_id', type: 'int', value: 5 }, { name: 'q1_name', type: 'nvarchar', value: "o'brien" }]);
    assert.throws(() => composeBatch([{ sql: 'SELECT 1', parameters: [{ name: 'x; DROP', type: 'int', value: 1 }] }]), /Unexpected parameter name/);
  });

  it('splits the rows back per probe by the tag rows, with the error of a refused probe', () => {
    const outcomes = splitOutcomes([{ a: 1 }, { a: 2 }, tag(0), tag(1, { number: 300, message: 'denied' }), tag(2)], 3);
    assert.deepEqual(outcomes, [
      { ok: true, rows: [{ a: 1 }, { a: 2 }] },
      { ok: false, error: { number: 300, class: 14, state: 1, message: 'denied', lineNumber: 0 } },
      { ok: true, rows: [] },
    ]);
    assert.throws(() => splitOutcomes([tag(1)], 2), /out of order/);
    assert.throws(() => splitOutcomes([tag(0)], 2), /answered 1 of 2/);
  });

  it('serves each planned query once from the one request, raises a refused one as the driver would, and sends the rest to the server', async () => {
    const monitor = new Recorder((sql) => (sql.includes('BEGIN TRY') ? [{ v: 1 }, tag(0), tag(1, { number: 297, message: 'The user does not have permission to perform this action.' })] : [{ direct: true }]));
    const waits = { sql: 'SELECT v FROM sys.dm_os_wait_stats;' };
    const counters = { sql: 'SELECT c FROM sys.dm_os_performance_counters WHERE i = @i;', parameters: [{ name: 'i', type: 'int' as const, value: 3 }] };
    const client = await prefetch(monitor, [waits, counters]);
    assert.equal(monitor.requests.length, 1);
    assert.deepEqual(await client.query(waits.sql), [{ v: 1 }]);
    const refused = await client.query(counters.sql, counters.parameters).then(() => null, (e: unknown) => e);
    assert.ok(isPermissionError(refused));
    assert.equal(sqlErrorsOf(refused)[0]!.message, 'The user does not have permission to perform this action.');
    assert.match((refused as Error).message, /^SQL error 297: The user does not have permission to perform this action\. \(while running: SELECT c FROM/);
    // A different parameter value, or a second ask of the same query, is not the planned answer: it goes to the server.
    assert.deepEqual(await client.query(counters.sql, [{ name: 'i', type: 'int', value: 4 }]), [{ direct: true }]);
    assert.deepEqual(await client.query(waits.sql), [{ direct: true }]);
    assert.equal(client.misses, 2);
    assert.equal(monitor.requests.length, 3);
  });

  it('when the composed request fails, every probe is asked on its own', async () => {
    let first = true;
    const monitor = new Recorder(() => {
      if (first) {
        first = false;
        throw new Error('The connection was reset.');
      }
      return [{ direct: true }];
    });
    const client = await prefetch(monitor, [{ sql: 'SELECT 1 AS a;' }]);
    assert.match(client.batchFailure!.message, /reset/);
    assert.deepEqual(await client.query('SELECT 1 AS a;'), [{ direct: true }]);
    assert.equal(monitor.requests.length, 2);
  });
});
