// tedious requests the stand-in must decode: execSql (RPC sp_executesql) with typed parameters, transaction
// manager begin/commit/rollback, RESETCONNECTION, cancel (ATTENTION) mid-wait and mid-stream, dropped connections.
import assert from 'node:assert/strict';
import { TYPES, type Connection } from 'tedious';
import { startStandinServer, type StandinServer } from '../standin/server';
import { BATCH, FakeEngine } from './support/fake-engine';
import { batch, close, connect, execSql } from './support/tedious-client';

/** Poll until `check` holds, failing after a deadline instead of sleeping a fixed time. */
async function until(check: () => boolean, what: string, deadlineMs = 5000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('tedious requests decoded by the stand-in', () => {
  let engine: FakeEngine;
  let server: StandinServer;
  let connection: Connection;

  let baseline: number;

  beforeEach(async () => {
    engine = new FakeEngine();
    server = await startStandinServer({ engine });
    connection = await connect({ port: server.port });
    baseline = engine.requests.length; // tedious sends its SET options as a first batch after login
  });
  afterEach(async () => {
    await close(connection);
    await server.close();
  });

  it('decodes execSql parameters of every supported type', async () => {
    const longText = 'ü'.repeat(5000); // > 4000 characters: tedious sends nvarchar(max) as PLP
    const result = await execSql(connection, 'SELECT @i, @bi, @b, @f, @d, @s, @long, @dt2, @g, @v, @nothing', (request) => {
      request.addParameter('i', TYPES.Int, -42);
      request.addParameter('bi', TYPES.BigInt, '-9007199254740993');
      request.addParameter('b', TYPES.Bit, true);
      request.addParameter('f', TYPES.Float, 2.25);
      request.addParameter('d', TYPES.Decimal, 1234.5678, { precision: 12, scale: 4 });
      request.addParameter('s', TYPES.NVarChar, 'Grüße');
      request.addParameter('long', TYPES.NVarChar, longText);
      request.addParameter('dt2', TYPES.DateTime2, new Date(Date.UTC(2024, 5, 1, 12, 30, 15, 250)), { scale: 7 });
      request.addParameter('g', TYPES.UniqueIdentifier, '6F9619FF-8B86-D011-B42D-00C04FC964FF');
      request.addParameter('v', TYPES.VarChar, 'latin');
      request.addParameter('nothing', TYPES.Int, null);
    });
    assert.equal(result.rows[0]![0]!.value, 11, 'the engine saw 11 parameters besides @stmt and @params');
    const { request } = engine.requests.at(-1)!;
    assert.equal(request.kind, 'rpc');
    if (request.kind !== 'rpc') return;
    assert.equal(request.procedure, 'sp_executesql');
    assert.equal(request.statement, 'SELECT @i, @bi, @b, @f, @d, @s, @long, @dt2, @g, @v, @nothing');
    const byName = Object.fromEntries(request.parameters.map((p) => [p.name, p]));
    assert.deepEqual(
      request.parameters.map((p) => p.name),
      ['@i', '@bi', '@b', '@f', '@d', '@s', '@long', '@dt2', '@g', '@v', '@nothing'],
    );
    assert.equal(byName['@i']!.value, -42);
    assert.equal(byName['@bi']!.value, -9007199254740993n);
    assert.equal(byName['@b']!.value, true);
    assert.equal(byName['@f']!.value, 2.25);
    assert.equal(byName['@d']!.value, '1234.5678');
    assert.equal(byName['@s']!.value, 'Grüße');
    assert.equal(byName['@long']!.value, longText);
    assert.equal((byName['@dt2']!.value as Date).toISOString(), '2024-06-01T12:30:15.250Z');
    assert.equal(byName['@g']!.value, '6F9619FF-8B86-D011-B42D-00C04FC964FF');
    assert.equal(byName['@v']!.value, 'latin');
    assert.equal(byName['@nothing']!.value, null);
    assert.ok(request.parameters.every((p) => p.output === false));
    // Types as tedious declares them in @params (what T-SQL sees), not the wider RPC TYPE_INFO.
    assert.deepEqual(
      request.parameters.map((p) => p.typeName),
      ['int', 'bigint', 'bit', 'float', 'decimal(12, 4)', 'nvarchar(5)', 'nvarchar(max)', 'datetime2(7)', 'uniqueidentifier', 'varchar(5)', 'int'],
    );
  });

  it('passes a procedure called by name with its parameters (callProcedure)', async () => {
    const { Request } = await import('tedious');
    await new Promise<void>((resolve, reject) => {
      const request = new Request('dbo.record_run', (error) => (error ? reject(error) : resolve()));
      request.addParameter('label', TYPES.NVarChar, 'baseline');
      request.addParameter('repeats', TYPES.Int, 3);
      connection.callProcedure(request);
    });
    const { request } = engine.requests.at(-1)!;
    assert.deepEqual(request, {
      kind: 'rpc',
      procedure: 'dbo.record_run',
      statement: null,
      parameters: [
        { name: '@label', value: 'baseline', typeName: 'nvarchar(8)', output: false }, // TYPE_INFO as tedious sizes it,
        { name: '@repeats', value: 3, typeName: 'int', output: false },
      ],
    });
  });

  it('maps beginTransaction / commitTransaction to transaction manager requests', async () => {
    await new Promise<void>((resolve, reject) => connection.beginTransaction((error) => (error ? reject(error) : resolve()), 'tx1'));
    await new Promise<void>((resolve, reject) => connection.commitTransaction((error) => (error ? reject(error) : resolve())));
    await new Promise<void>((resolve, reject) => connection.beginTransaction((error) => (error ? reject(error) : resolve())));
    await new Promise<void>((resolve, reject) => connection.rollbackTransaction((error) => (error ? reject(error) : resolve())));
    const operations = engine.requests.slice(baseline).map(({ request }) => (request.kind === 'transactionManager' ? `${request.operation}:${request.name}` : request.kind));
    assert.deepEqual(operations, ['begin:tx1', 'commit:', 'begin:', 'rollback:']);
  });

  it('passes the RESETCONNECTION status bit of connection.reset() to the engine', async () => {
    await new Promise<void>((resolve, reject) => connection.reset((error) => (error ? reject(error) : resolve())));
    await batch(connection, BATCH.selectOne);
    assert.deepEqual(
      engine.requests.slice(baseline).map((r) => r.resetConnection),
      [true, false],
    );
  });

  it('cancels a request while the engine waits, and the connection stays usable', async () => {
    const pending = batch(connection, BATCH.waitfor);
    await until(() => engine.running === 1, 'the engine to enter WAITFOR');
    connection.cancel();
    await assert.rejects(pending, (error: Error & { code?: string }) => {
      assert.equal(error.code, 'ECANCEL');
      return true;
    });
    assert.equal(engine.running, 0, 'the engine saw the abort');
    assert.equal((await batch(connection, BATCH.selectOne)).rows[0]![0]!.value, 1);
  });

  it('cancels while an endless result set streams', async () => {
    const { Request } = await import('tedious');
    let rows = 0;
    const outcome = new Promise<string | undefined>((resolve) => {
      const request = new Request(BATCH.slowRows, (error) => resolve((error as (Error & { code?: string }) | undefined)?.code));
      request.on('row', () => {
        rows++;
        if (rows === 5000) connection.cancel();
      });
      connection.execSqlBatch(request);
    });
    assert.equal(await outcome, 'ECANCEL');
    assert.ok(rows >= 5000);
    await until(() => engine.running === 0, 'the engine to stop streaming');
    assert.equal((await batch(connection, BATCH.selectOne)).rows[0]![0]!.value, 1);
  });

  it('destroys the socket when the engine drops the connection', async () => {
    const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
    const lost = new Promise<Error>((resolve) => connection.once('error', resolve));
    await assert.rejects(batch(connection, BATCH.drop));
    await ended;
    assert.match((await lost).message, /Connection lost/);
    await until(() => server.connections === 0, 'the server to forget the socket');
    assert.equal(engine.loggedOut, 1);
  });
});
