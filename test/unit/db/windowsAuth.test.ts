// Which Windows authentication modes work, as docs/agents.md#windows-authentication states them, checked where this
// machine can check them:
// - SQL login: logs in to the stand-in (every integration suite does; here once more, side by side with NTLM).
// - NTLM with domain, user and password: maps to tedious's `ntlm` type, and tedious then sends an integrated-security
//   (SSPI) LOGIN7 — the stand-in sees fIntSecurity and refuses, since it plays SQL logins only (test/standin/README.md).
//   The NTLM handshake itself needs a Windows domain account and is not played here.
// - Integrated / Kerberos / SSPI single sign-on: tedious has no such authentication type (its constructor rejects it);
//   a connection string asking for it, and an mssql connection using it, are refused with the way out.
import * as assert from 'node:assert/strict';
import { Connection } from 'tedious';
import { connect } from '../../../src/db/connect';
import { INTEGRATED_SECURITY_UNSUPPORTED, profileFromConnectionString } from '../../../src/db/connectionString';
import { toTediousConfig } from '../../../src/db/profile';
import { importMssqlConnection } from '../../../src/db/storedProfiles';
import type { ConnectionProfile } from '../../../src/db/types';
import { useStandin } from '../../support/standin';

describe('Windows authentication: what works, against tedious and the stand-in', function () {
  this.timeout(30_000);
  const h = useStandin();

  it('tedious has no integrated, SSPI or Kerberos authentication type: its constructor rejects them; ntlm and default are accepted', () => {
    for (const type of ['integrated', 'sspi', 'kerberos', 'windows', 'negotiate']) {
      assert.throws(() => new Connection({ server: '127.0.0.1', authentication: { type, options: {} } as never }), /The "type" property must one of "default", "ntlm"/, type);
    }
    for (const authentication of [{ type: 'ntlm', options: { userName: 'alice', password: 'pw', domain: 'CORP' } }, { type: 'default', options: { userName: 'sa', password: 'pw' } }]) {
      const c = new Connection({ server: '127.0.0.1', authentication: authentication as never });
      c.close();
    }
  });

  it('SQL login: logs in', async () => {
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      const [row] = await s.query('SELECT DB_NAME() AS db;');
      assert.equal(row!.db, 'lab');
    } finally {
      await s.close();
    }
  });

  it('NTLM: domain, user and password go to tedious\'s ntlm type, which logs in with integrated security (SSPI) — the stand-in refuses such a login and the user reads its reason', async () => {
    const ntlm: ConnectionProfile = { ...h.profile, authentication: { type: 'ntlm', user: 'alice', domain: 'CORP' } };
    assert.deepEqual(toTediousConfig(ntlm, 'Winter-2026', 'workload').authentication, { type: 'ntlm', options: { userName: 'alice', password: 'Winter-2026', domain: 'CORP' } });
    await assert.rejects(connect(ntlm, 'Winter-2026', { role: 'monitor' }), (err: { info?: { kind: string; serverErrorNumber: number; driverMessage: string; message: string } }) => {
      assert.equal(err.info?.kind, 'login-failed');
      assert.equal(err.info.serverErrorNumber, 18456);
      // What the server answered to the LOGIN7 it received: integrated security was asked for.
      assert.equal(err.info.driverMessage, 'Login failed: the stand-in accepts SQL logins only (no integrated security).');
      assert.match(err.info.message, /Nothing was changed on the server/);
      return true;
    });
  });

  it('a connection string with Integrated Security or Trusted_Connection is refused with the way out; with a User Id it is a SQL login', () => {
    for (const cs of ['Server=h;Database=d;Integrated Security=SSPI', 'Server=h;Database=d;Integrated Security=true', 'Server=h;Database=d;Trusted_Connection=Yes']) {
      assert.throws(() => profileFromConnectionString(cs), (err: Error) => err.message === INTEGRATED_SECURITY_UNSUPPORTED, cs);
    }
    assert.match(INTEGRATED_SECURITY_UNSUPPORTED, /"authenticationType": "ntlm", "user" and "domain"/);
    assert.throws(() => profileFromConnectionString('Server=h;Database=d'), /has no User Id/);
    assert.deepEqual(profileFromConnectionString('Server=h;Database=d;Integrated Security=false;User Id=me;Password=pw').profile.authentication, { type: 'sql', user: 'me' });
  });

  it('an mssql saved connection using Integrated authentication is not imported, and says which types are', () => {
    const r = importMssqlConnection({ server: 'h', database: 'd', authenticationType: 'Integrated', profileName: 'work' }, 0);
    assert.equal(r.ok, false);
    assert.match((r as { reason: string }).reason, /its authentication \(Integrated\) is not supported by Durability Lens; add it with SQL login, NTLM or a Microsoft Entra type/);
  });
});
