// tedious against the stand-in's TDS layer: PRELOGIN encryption negotiation (clear, TLS inside PRELOGIN,
// TDS 8.0 strict), certificate verification with the stand-in's CA, and LOGIN7 outcomes.
import assert from 'node:assert/strict';
import { ConnectionError } from 'tedious';
import { createStandin } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';
import { BATCH, FakeEngine, LOGIN } from './support/fake-engine';
import { batch, close, connect } from './support/tedious-client';

describe('tedious login and encryption against the stand-in', () => {
  let engine: FakeEngine;
  let server: StandinServer;

  beforeEach(async () => {
    engine = new FakeEngine();
    server = await startStandinServer({ engine });
  });
  afterEach(async () => {
    await server.close();
  });

  async function selectOneOver(options: Parameters<typeof connect>[0]): Promise<number> {
    const connection = await connect(options);
    try {
      const result = await batch(connection, BATCH.selectOne);
      return result.rows[0]![0]!.value as number;
    } finally {
      await close(connection);
    }
  }

  it('connects in clear text with encrypt: false and passes LOGIN7 fields to the engine', async () => {
    assert.equal(await selectOneOver({ port: server.port, encrypt: false }), 1);
    const login = engine.logins[0]!;
    assert.equal(login.userName, LOGIN.user);
    assert.equal(login.password, LOGIN.password);
    assert.equal(login.database, LOGIN.database);
    assert.equal(login.encrypted, false);
    assert.equal(login.tdsVersion, 0x74000004);
    assert.equal(login.packetSize, 4096);
    assert.equal(login.appName, 'Tedious');
  });

  it('negotiates TLS inside PRELOGIN with encrypt: true and trustServerCertificate', async () => {
    assert.equal(await selectOneOver({ port: server.port, encrypt: true, trustServerCertificate: true }), 1);
    assert.equal(engine.logins[0]!.encrypted, true);
  });

  it('verifies the server certificate against the stand-in CA without trustServerCertificate', async () => {
    assert.equal(await selectOneOver({ port: server.port, encrypt: true, ca: server.caPem }), 1);
    assert.equal(engine.logins[0]!.encrypted, true);
  });

  it('rejects the certificate when the client trusts neither it nor its CA', async () => {
    await assert.rejects(connect({ port: server.port, encrypt: true }), (error: Error) => {
      assert.ok(error instanceof ConnectionError);
      assert.match(error.message, /certificate/i);
      return true;
    });
    assert.equal(engine.logins.length, 0);
  });

  it('speaks TDS 8.0 (encrypt: strict): TLS before PRELOGIN', async () => {
    assert.equal(await selectOneOver({ port: server.port, encrypt: 'strict', ca: server.caPem }), 1);
    assert.equal(engine.logins[0]!.encrypted, true);
  });

  // TDS 8.0 page: "SQL Server 2022, Azure SQL Database, and Azure SQL Managed Instance support TDS 8.0"; a strict
  // client against an older server fails to connect (SqlConnectionEncryptOption.Strict). Issue #11 finding 7.
  it('refuses encrypt: strict as a 2019 server (no TDS 8.0) while 2022, MI and Azure SQL Database accept it', async () => {
    const outcome: Record<string, string> = {};
    for (const [label, options] of [['2019', { version: 2019 }], ['2022', { version: 2022 }], ['mi', { product: 'mi' }], ['azure-sqldb', { product: 'azure-sqldb' }]] as const) {
      const standinServer = await startStandinServer({ engine: createStandin({ speedFactor: 0, ...options }) });
      try {
        outcome[label] = await selectOneOver({ port: standinServer.port, encrypt: 'strict', ca: standinServer.caPem }).then(
          (v) => `ok ${v}`,
          (error: Error) => (error instanceof ConnectionError ? 'ConnectionError' : String(error)),
        );
      } finally {
        await standinServer.close();
      }
    }
    assert.deepEqual(outcome, { '2019': 'ConnectionError', '2022': 'ok 1', mi: 'ok 1', 'azure-sqldb': 'ok 1' });
  });

  it('reports a wrong password as 18456 in a ConnectionError and closes the connection', async () => {
    await assert.rejects(connect({ port: server.port, password: 'wrong' }), (error: Error) => {
      assert.ok(error instanceof ConnectionError);
      assert.equal((error as ConnectionError).code, 'ELOGIN');
      assert.equal(error.message, "Login failed for user 'sa'.");
      assert.deepEqual((error as unknown as { serverErrors: unknown[] }).serverErrors, [{ number: 18456, message: "Login failed for user 'sa'.", class: 14 }]);
      return true;
    });
  });

  it('reports an unknown database as the engine says (4060)', async () => {
    await assert.rejects(connect({ port: server.port, database: 'nosuch' }), (error: Error) => {
      assert.ok(error instanceof ConnectionError);
      assert.match(error.message, /Cannot open database "nosuch"/);
      assert.equal((error as unknown as { serverErrors: Array<{ number: number }> }).serverErrors[0]!.number, 4060);
      return true;
    });
  });

  it('refuses clients that will not encrypt when the server requires TLS', async () => {
    const strictServer = await startStandinServer({ engine, tls: { encryption: 'required' } });
    try {
      await assert.rejects(connect({ port: strictServer.port, encrypt: false }), /Server requires encryption/);
      assert.equal(await selectOneOver({ port: strictServer.port, encrypt: true, trustServerCertificate: true }), 1);
    } finally {
      await strictServer.close();
    }
  });

  it('grants the negotiated packet size from LOGIN7', async () => {
    const connection = await connect({ port: server.port, packetSize: 8192 });
    try {
      assert.equal(engine.logins[0]!.packetSize, 8192);
      assert.equal((await batch(connection, BATCH.selectOne)).rows[0]![0]!.value, 1);
    } finally {
      await close(connection);
    }
  });
});
