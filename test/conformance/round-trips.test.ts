// The stand-in's network model for counting round trips: a per-connection request counter (server.connectionStats())
// and an optional simulated round trip (rttMs / --rtt-ms) added before every response.
import assert from 'node:assert/strict';
import type { Connection } from 'tedious';
import { startStandinServer, type StandinServer } from '../standin/server';
import { FakeEngine } from './support/fake-engine';
import { batch, close, connect } from './support/tedious-client';

describe('stand-in round trips: request counter and simulated RTT', () => {
  let server: StandinServer;
  let connection: Connection | undefined;

  afterEach(async () => {
    if (connection) await close(connection);
    connection = undefined;
    await server.close();
  });

  it('counts each request of a connection, with its app name and spid, and keeps closed connections', async () => {
    server = await startStandinServer({ engine: new FakeEngine() });
    connection = await connect({ port: server.port });
    const [stats] = server.connectionStats();
    assert.ok(stats && stats.open && stats.spid !== null && stats.appName !== null, JSON.stringify(stats));
    const afterLogin = stats.requests; // tedious may send its SET options as a first batch
    await batch(connection, 'SELECT 1');
    await batch(connection, 'SELECT 2');
    await batch(connection, 'SELECT 3');
    assert.equal(server.connectionStats()[0]!.requests, afterLogin + 3);
    await close(connection);
    connection = undefined;
    const deadline = Date.now() + 5000;
    while (server.connectionStats()[0]!.open) {
      if (Date.now() > deadline) assert.fail('the closed connection still counts as open');
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(server.connectionStats()[0]!.requests, afterLogin + 3, 'closed connections keep their count');
    server.resetConnectionStats();
    assert.deepEqual(server.connectionStats(), []);
  });

  it('delays every response by rttMs (PRELOGIN, login, each request); negative values are refused', async () => {
    server = await startStandinServer({ engine: new FakeEngine(), rttMs: 40 });
    const t0 = performance.now();
    connection = await connect({ port: server.port });
    // PRELOGIN and LOGIN7 are two round trips.
    assert.ok(performance.now() - t0 >= 2 * 40 - 2, `connect took ${performance.now() - t0} ms`);
    const t1 = performance.now();
    await batch(connection, 'SELECT 1');
    assert.ok(performance.now() - t1 >= 40 - 2, `a batch took ${performance.now() - t1} ms`);
    server.rttMs = 0;
    assert.equal(server.rttMs, 0);
    assert.throws(() => (server.rttMs = -1), RangeError);
  });
});
