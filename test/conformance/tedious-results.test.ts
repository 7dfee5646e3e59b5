// tedious reading the stand-in's result tokens: every column type with exact values, NULLs (NBCROW), PRINT as
// infoMessage, an error with its number and line, large nvarchar(max) split over packets, and a 100k-row stream.
import assert from 'node:assert/strict';
import type { Connection } from 'tedious';
import { startStandinServer, type StandinServer } from '../standin/server';
import { ALL_TYPES_ROW, BATCH, BIG_TEXT, FakeEngine, MANY_ROWS } from './support/fake-engine';
import { batch, close, connect } from './support/tedious-client';

for (const encrypt of [false, true]) {
  describe(`tedious results from the stand-in (encrypt: ${encrypt})`, () => {
    let engine: FakeEngine;
    let server: StandinServer;
    let connection: Connection;

    beforeEach(async () => {
      engine = new FakeEngine();
      server = await startStandinServer({ engine });
      connection = await connect({ port: server.port, encrypt, trustServerCertificate: true });
    });
    afterEach(async () => {
      await close(connection);
      await server.close();
    });

    it('delivers every column type with its exact value and tedious type', async () => {
      const result = await batch(connection, BATCH.allTypes);
      assert.equal(result.rowCount, 1);
      const row = result.rows[0]!;
      const byName = Object.fromEntries(row.map((cell) => [cell.metadata.colName, cell]));
      assert.equal(byName.i!.value, -2147483648);
      assert.equal(byName.bi!.value, '9007199254740993'); // tedious returns bigint as a string
      assert.equal(byName.si!.value, -32768);
      assert.equal(byName.ti!.value, 255);
      assert.equal(byName.b!.value, true);
      assert.equal(byName.f!.value, 3.5e-7);
      assert.equal(byName.d!.value, -12345.67);
      assert.equal(byName.nv!.value, 'Grüße 👋');
      assert.equal(byName.v!.value, 'plain');
      assert.equal(byName.nvmax!.value, 'x'.repeat(10_000));
      assert.equal((byName.dt2!.value as Date).toISOString(), '2024-02-29T23:59:58.123Z');
      assert.equal((byName.dto!.value as Date).toISOString(), '2025-01-02T03:04:05.678Z');
      assert.equal(byName.g!.value, ALL_TYPES_ROW[12]);
      assert.equal(byName.nothing!.value, null);
      assert.deepEqual(
        row.map((cell) => cell.metadata.type.name),
        ['Int', 'IntN', 'SmallInt', 'IntN', 'Bit', 'FloatN', 'DecimalN', 'NVarChar', 'VarChar', 'NVarChar', 'DateTime2', 'DateTimeOffset', 'UniqueIdentifier', 'IntN'],
      );
    });

    it('receives PRINT output as an infoMessage', async () => {
      const result = await batch(connection, BATCH.print);
      assert.deepEqual(
        result.infos.map((info) => [info.number, info.class, info.message]),
        [[0, 0, 'hello from the stand-in']],
      );
    });

    it('reports an error with its number, class and 1-based line number', async () => {
      const error = await batch(connection, BATCH.errorAtLine3).then(
        () => assert.fail('expected an error'),
        (e: Error & { number: number; lineNumber: number; class: number; collected: { rows: unknown[] } }) => e,
      );
      assert.equal(error.number, 208);
      assert.equal(error.class, 16);
      assert.equal(error.lineNumber, 3);
      assert.equal(error.message, "Invalid object name 'dbo.missing'.");
      assert.equal(error.collected.rows.length, 2, 'rows before the error still arrive');
      assert.equal((await batch(connection, BATCH.selectOne)).rows[0]![0]!.value, 1, 'the connection is usable after');
    });

    it('reassembles a 120 KB nvarchar(max) value split over many packets', async () => {
      const result = await batch(connection, BATCH.bigText);
      assert.equal(result.rows[0]![0]!.value, BIG_TEXT);
    });

    it(`streams ${MANY_ROWS} rows in order`, async () => {
      let expected = 1;
      let outOfOrder = 0;
      const done = new Promise<number | undefined>((resolve, reject) => {
        void import('tedious').then(({ Request }) => {
          const request = new Request(BATCH.manyRows, (error, rowCount) => (error ? reject(error) : resolve(rowCount)));
          request.on('row', (columns: Array<{ value: number }>) => {
            if (columns[0]!.value !== expected) outOfOrder++;
            expected++;
          });
          connection.execSqlBatch(request);
        });
      });
      assert.equal(await done, MANY_ROWS);
      assert.equal(expected - 1, MANY_ROWS);
      assert.equal(outOfOrder, 0);
    });
  });
}
