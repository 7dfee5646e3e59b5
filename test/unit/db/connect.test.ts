import assert from 'node:assert/strict';
import { connect, verifyEncryption } from '../../../src/db/connect';
import { ConnectionFailure } from '../../../src/db/errors';

describe('db/connect: before any socket is opened', () => {
  const profile = { server: '127.0.0.1', port: 1, database: 'lab', authentication: { type: 'sql' as const, user: 'u' }, encrypt: false, trustServerCertificate: false };

  it('reports an already-aborted signal as cancelled, with nothing changed', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(connect(profile, 'p', { role: 'workload', signal: controller.signal }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'cancelled');
      assert.equal(err.info.nothingChanged, true);
      return true;
    });
  });

  it('reports an invalid profile (port and instance name) as a classified failure', async () => {
    await assert.rejects(connect({ ...profile, instanceName: 'X' }, 'p', { role: 'workload' }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'other');
      assert.match(err.info.driverMessage, /either a port or an instance name/);
      return true;
    });
  });
});

describe('db/connect: encryption verification', () => {
  const client = (answer: () => Record<string, unknown>[]) => ({
    query: async () => answer(),
    execute: async () => undefined,
  });
  const denied = () => {
    throw Object.assign(new Error('VIEW SERVER STATE permission was denied'), { number: 300 });
  };

  it('accepts encrypt_option TRUE as server evidence', async () => {
    assert.deepEqual(await verifyEncryption(client(() => [{ encrypt_option: 'TRUE' }]), true, true), { encrypted: true, evidence: 'server' });
  });

  it('refuses when the server says FALSE, even if the client saw TLS (login-only encryption)', async () => {
    await assert.rejects(verifyEncryption(client(() => [{ encrypt_option: 'FALSE' }]), true, true), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'encryption-not-verified');
      assert.match(err.info.message, /nothing was changed/);
      return true;
    });
  });

  it('falls back to the TLS handshake when the login may not read sys.dm_exec_connections', async () => {
    assert.deepEqual(await verifyEncryption(client(denied), true, true), { encrypted: true, evidence: 'client' });
    assert.deepEqual(await verifyEncryption(client(denied), 'strict', false), { encrypted: true, evidence: 'client' });
    await assert.rejects(verifyEncryption(client(denied), true, false), /no TLS session was seen/);
  });
});
