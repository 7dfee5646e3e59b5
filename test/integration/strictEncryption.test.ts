// Encrypt = strict (TDS 8.0) against a server that does not speak it (SQL Server 2016–2019): the connection fails in
// the TLS handshake and the message must say so — not "check the server name and port". A listener that drops the
// socket when the TLS ClientHello arrives stands in for such a server (it expects a TDS PRELOGIN packet first).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { connect } from '../../src/db/connect';
import { ConnectionFailure } from '../../src/db/errors';
import type { ConnectionProfile } from '../../src/db/types';
import { closedPort } from './support';

describe('integration: Encrypt = strict against a server without TDS 8.0', function () {
  this.timeout(20000);
  let server: Server;
  let port: number;
  before(async () => {
    server = createServer((socket) => socket.once('data', () => socket.destroy()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const profile = (p: number, encrypt: ConnectionProfile['encrypt']): ConnectionProfile => ({
    server: '127.0.0.1', port: p, database: 'lab', authentication: { type: 'sql', user: 'sa' }, encrypt, trustServerCertificate: true, connectTimeoutMs: 5000,
  });

  async function failureOf(p: ConnectionProfile): Promise<ConnectionFailure> {
    try {
      await connect(p, 'x', { role: 'monitor' });
    } catch (err) {
      assert.ok(err instanceof ConnectionFailure, String(err));
      return err;
    }
    assert.fail('connected unexpectedly');
  }

  it('says strict needs SQL Server 2022+ and suggests Encrypt = true, not "check the server name and port"', async () => {
    const f = await failureOf(profile(port, 'strict'));
    assert.equal(f.info.kind, 'encryption-refused');
    assert.match(f.info.message, /Encrypt = strict \(TDS 8\.0\).*TLS handshake.*SQL Server 2022 or later/);
    assert.match(f.info.action, /Set "Encrypt" to true/);
    assert.doesNotMatch(`${f.info.message} ${f.info.action}`, /server name and port/);
    assert.equal(f.info.nothingChanged, true);
  });

  it('a port nobody listens on is still "could not reach", strict or not', async () => {
    const f = await failureOf(profile(await closedPort(), 'strict'));
    assert.equal(f.info.kind, 'unreachable');
  });
});
