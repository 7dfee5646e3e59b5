// Encryption policies the stand-in can play (stand-in only: a real server has one fixed policy).
import assert from 'node:assert/strict';
import { connect } from '../../src/db/connect';
import { ConnectionFailure } from '../../src/db/errors';
import type { TediousSession } from '../../src/db/session';
import { useStandins } from '../support/standin';
import { standinOnlySuite } from './support';

describe('integration: encryption policies (stand-in only)', function () {
  this.timeout(30000);
  standinOnlySuite('needs a server whose TLS policy the suite sets');
  const sessions: TediousSession[] = [];
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  // After the sessions are closed: each test's stand-in (speedFactor 1, the model's own pace, as before).
  const standins = useStandins();

  it('explains a server that requires encryption when the profile has it off', async () => {
    const target = await standins.start({ speedFactor: 1, tls: 'required' });
    await assert.rejects(connect(target.profile, target.secret, { role: 'monitor' }), (err: unknown) => {
      assert.ok(err instanceof ConnectionFailure);
      assert.equal(err.info.kind, 'encryption-refused');
      assert.match(err.info.action, /Set "Encrypt" to true/);
      return true;
    });
    const ok = await connect({ ...target.profile, encrypt: true, trustServerCertificate: true }, target.secret, { role: 'monitor' });
    sessions.push(ok);
    assert.equal(ok.encrypted, true);
  });

  it('uses the TLS handshake as evidence when the login may not read sys.dm_exec_connections', async () => {
    const target = await standins.start({ speedFactor: 1, logins: [{ name: 'lens_plain', password: 'Plain-1', databases: ['lab'] }] });
    const s = await connect(
      { ...target.profile, authentication: { type: 'sql', user: 'lens_plain' }, encrypt: true, trustServerCertificate: true },
      'Plain-1',
      { role: 'monitor' },
    );
    sessions.push(s);
    assert.equal(s.encrypted, true);
    assert.equal(s.encryptionEvidence, 'client');
  });
});
