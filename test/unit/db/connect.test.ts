import assert from 'node:assert/strict';
import { connect } from '../../../src/db/connect';
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
