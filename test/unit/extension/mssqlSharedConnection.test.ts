// What an mssql connection string or saved profile becomes (src/extension/mssql/sharedConnection.ts, vscode-free):
// the keyword spellings of Microsoft.Data.SqlClient as mssql's tools service writes them, integrated security kept
// apart (offered as NTLM), Entra kinds the driver cannot do refused with the way out, the password mssql may keep.
import * as assert from 'node:assert/strict';
import { fromMssqlConnectionString, fromMssqlProfile, ntlmProfileOf } from '../../../src/extension/mssql/sharedConnection';
import { versionAtLeast } from '../../../src/extension/mssql/versions';

describe('mssql shared connection → Durability Lens profile', () => {
  it('a SQL login with its password: server, port, database, user, encryption and the secret apart from the profile', () => {
    const r = fromMssqlConnectionString('lab (mssql)', 'Data Source=tcp:sql01,14330;Initial Catalog=lab;User ID=me;Password=p;w=d;Encrypt=Mandatory;Trust Server Certificate=False;Application Name=vscode-mssql');
    assert.ok(r.ok);
    assert.equal(r.profile.server, 'sql01');
    assert.equal(r.profile.port, 14330);
    assert.equal(r.profile.database, 'lab');
    assert.equal(r.profile.user, 'me');
    assert.equal(r.profile.authenticationType, 'sql');
    assert.equal(r.profile.encrypt, true);
    assert.equal(r.profile.trustServerCertificate, false);
    assert.equal(r.askSecret, false);
    assert.equal(r.secret, 'p');
    assert.ok(!JSON.stringify(r.profile).includes('"p"'));
  });

  it('no password in the string (mssql keeps saved passwords in its credential store): the user is asked', () => {
    const r = fromMssqlConnectionString('x', 'Data Source=sql01;Initial Catalog=lab;User ID=me;Encrypt=True');
    assert.ok(r.ok);
    assert.equal(r.secret, undefined);
    assert.equal(r.askSecret, true);
  });

  it('Encrypt=False or Optional becomes encrypted with a note; Strict stays strict; Trust Server Certificate=True is kept with a note', () => {
    const off = fromMssqlConnectionString('x', 'Data Source=s;User ID=u;Encrypt=False');
    assert.ok(off.ok);
    assert.equal(off.profile.encrypt, true);
    assert.ok(off.notes.some((n) => /clear text/.test(n)));
    const strict = fromMssqlConnectionString('x', 'Data Source=s;User ID=u;Encrypt=Strict');
    assert.ok(strict.ok);
    assert.equal(strict.profile.encrypt, 'strict');
    const trusted = fromMssqlConnectionString('x', 'Data Source=s;User ID=u;Trust Server Certificate=True');
    assert.ok(trusted.ok);
    assert.equal(trusted.profile.trustServerCertificate, true);
    assert.ok(trusted.notes.some((n) => /not verified/.test(n)));
  });

  it('Integrated Security (True or SSPI) and Trusted_Connection are kept apart: server, instance and database for the NTLM offer', () => {
    for (const keyword of ['Integrated Security=True', 'Integrated Security=SSPI', 'Trusted_Connection=yes']) {
      const r = fromMssqlConnectionString('x', `Data Source=sql02\\INST;Initial Catalog=app;${keyword}`);
      assert.ok(!r.ok && r.reason === 'integrated', keyword);
      assert.deepEqual(r.server, { server: 'sql02', instanceName: 'INST', database: 'app', encrypt: true, trustServerCertificate: false });
      assert.match(r.message, /no Kerberos or SSPI/);
    }
    const saved = fromMssqlProfile({ server: 'sql03', port: 1500, database: 'db', authenticationType: 'Integrated', encrypt: 'Strict' }, 0);
    assert.ok(!saved.ok && saved.reason === 'integrated');
    assert.deepEqual(saved.server, { server: 'sql03', port: 1500, database: 'db', encrypt: 'strict', trustServerCertificate: false });
  });

  it('Entra kinds: interactive MFA becomes the default credential chain with a note; integrated, password and device code are refused with the way out', () => {
    const mfa = fromMssqlConnectionString('x', 'Data Source=srv.database.windows.net;Initial Catalog=db;User ID=me@contoso.com;Authentication=ActiveDirectoryInteractive');
    assert.ok(mfa.ok);
    assert.equal(mfa.profile.authenticationType, 'entra-default');
    assert.equal(mfa.askSecret, false);
    assert.ok(mfa.notes.some((n) => /default credential chain/.test(n)));
    for (const [keyword, pattern] of [['Active Directory Integrated', /integrated authentication/], ['ActiveDirectoryPassword', /application \(client\) id/], ['ActiveDirectoryDeviceCodeFlow', /device-code/]] as const) {
      const r = fromMssqlConnectionString('x', `Data Source=s;User ID=u;Authentication=${keyword}`);
      assert.ok(!r.ok && r.reason === 'unsupported', keyword);
      assert.match(r.message, pattern);
    }
  });

  it('a string that cannot be read, or names no server, is refused in words', () => {
    const r = fromMssqlConnectionString('x', 'Initial Catalog=lab;User ID=u');
    assert.ok(!r.ok && r.reason === 'unsupported');
    assert.match(r.message, /no Server/);
  });

  it('NTLM account: DOMAIN\\user or user@domain, anything else explained', () => {
    const server = { server: 's', database: 'd', encrypt: true as const, trustServerCertificate: false };
    const a = ntlmProfileOf('n', server, ' CORP\\dev ');
    assert.ok(typeof a !== 'string');
    assert.deepEqual([a.domain, a.user, a.authenticationType], ['CORP', 'dev', 'ntlm']);
    const b = ntlmProfileOf('n', server, 'dev@corp.example');
    assert.ok(typeof b !== 'string');
    assert.deepEqual([b.domain, b.user], ['corp.example', 'dev']);
    for (const bad of ['dev', 'CORP\\', '\\dev', 'a\\b\\c', 'CORP\\de v']) assert.match(ntlmProfileOf('n', server, bad) as string, /DOMAIN\\user/, bad);
  });

  it('mssql versions compare numerically', () => {
    assert.equal(versionAtLeast('1.34.0', '1.34.0'), true);
    assert.equal(versionAtLeast('1.100.0', '1.37.0'), true);
    assert.equal(versionAtLeast('1.36.9', '1.37.0'), false);
    assert.equal(versionAtLeast('2.0.0-insiders', '1.37.0'), true);
  });
});
