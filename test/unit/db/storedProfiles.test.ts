import * as assert from 'node:assert/strict';
import { profileFromConnectionString } from '../../../src/db/connectionString';
import {
  fromConnectionProfile,
  importMssqlConnection,
  needsSecret,
  profileFromAdoNet,
  readStoredProfiles,
  removeProfile,
  secretKey,
  toConnectionProfile,
  upsertProfile,
  validateStoredProfile,
} from '../../../src/db/storedProfiles';

describe('db/storedProfiles', () => {
  it('fills defaults for a minimal SQL-login profile', () => {
    const v = validateStoredProfile({ name: 'lab', server: 'sql1', user: 'lens' });
    assert.equal(v.ok, true);
    if (!v.ok) return;
    assert.deepEqual(v.profile, { name: 'lab', server: 'sql1', database: 'master', authenticationType: 'sql', user: 'lens', encrypt: true, trustServerCertificate: false, development: false });
  });

  it('names every problem of an invalid entry', () => {
    const v = validateStoredProfile({ name: 'x', server: 'h', port: 1433, instanceName: 'SQLEXPRESS', authenticationType: 'ntlm', encrypt: 'yes', password: 'p' });
    assert.equal(v.ok, false);
    if (v.ok) return;
    const all = v.errors.join('\n');
    assert.match(all, /not read from settings/);
    assert.match(all, /either "port" or "instanceName"/);
    assert.match(all, /"user" is required for ntlm/);
    assert.match(all, /"domain" is required/);
    assert.match(all, /"encrypt" must be true, false or "strict"/);
    assert.equal(validateStoredProfile({ name: 'x', server: 'h', port: 70000, user: 'u' }).ok, false);
    assert.equal(validateStoredProfile('sql1').ok, false);
  });

  it('reads the setting, skipping invalid and duplicate names (case-insensitive) with a reason each', () => {
    const { profiles, problems } = readStoredProfiles([
      { name: 'A', server: 'h1', user: 'u' },
      { name: 'a', server: 'h2', user: 'u' },
      { server: 'h3' },
      { name: 'B', server: 'h4', authenticationType: 'entra-default' },
    ]);
    assert.deepEqual(profiles.map((p) => p.name), ['A', 'B']);
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /Entry 2: another connection is already named "a"/);
    assert.match(problems[1]!, /Entry 3: "name" is required/);
    assert.deepEqual(readStoredProfiles({}).problems, ['durabilityLens.connections must be an array.']);
  });

  it('maps every authentication type onto src/db ConnectionProfile', () => {
    const base = { name: 'n', server: 'h', port: 1500, database: 'lab', encrypt: 'strict' as const, trustServerCertificate: false, development: false };
    assert.deepEqual(toConnectionProfile({ ...base, authenticationType: 'ntlm', user: 'u', domain: 'CORP', applicationName: 'CI' }), {
      server: 'h', port: 1500, database: 'lab', authentication: { type: 'ntlm', user: 'u', domain: 'CORP' }, encrypt: 'strict', trustServerCertificate: false, appName: 'CI',
    });
    assert.deepEqual(toConnectionProfile({ ...base, authenticationType: 'entra-service-principal', clientId: 'c', tenantId: 't' }).authentication, { type: 'entra-service-principal', clientId: 'c', tenantId: 't' });
    assert.deepEqual(toConnectionProfile({ ...base, authenticationType: 'entra-password', user: 'u@x', clientId: 'c' }).authentication, { type: 'entra-password', user: 'u@x', clientId: 'c' });
    assert.deepEqual(toConnectionProfile({ ...base, authenticationType: 'entra-access-token' }).authentication, { type: 'entra-access-token' });
    assert.equal(toConnectionProfile({ ...base, authenticationType: 'entra-msi-vm' }, 'other').database, 'other');
    assert.deepEqual(['sql', 'ntlm', 'entra-password', 'entra-access-token', 'entra-service-principal', 'entra-default', 'entra-msi-vm'].map((t) => needsSecret(t as never)), [true, true, true, true, true, false, false]);
  });

  it('round-trips a profile through ConnectionProfile', () => {
    const stored = { name: 'lab', server: 'h', instanceName: 'SQL2022', database: 'db', authenticationType: 'sql' as const, user: 'u', encrypt: false, trustServerCertificate: true, development: true };
    assert.deepEqual(fromConnectionProfile('lab', toConnectionProfile(stored), true), stored);
  });

  it('takes the password out of an ADO.NET connection string and never into the profile', () => {
    const { profile, secret } = profileFromAdoNet('ci', 'Server=tcp:db.example,1533;Database=lab;User Id=lens;Password=s3cret!;Encrypt=strict');
    assert.equal(secret, 's3cret!');
    assert.equal(profile.server, 'db.example');
    assert.equal(profile.port, 1533);
    assert.equal(profile.encrypt, 'strict');
    assert.ok(!JSON.stringify(profile).includes('s3cret'), 'no password in the stored profile');
    assert.equal(validateStoredProfile(profile).ok, true);
  });

  it('an imported connection string keeps the strongest equivalent of its Encrypt: Optional and False become true, with a note', () => {
    for (const value of ['Optional', 'False', 'no']) {
      const { profile, notes } = profileFromAdoNet('ci', `Server=db;User Id=u;Encrypt=${value}`);
      assert.equal(profile.encrypt, true, value);
      assert.equal(notes.length, 1, value);
      assert.match(notes[0]!, /became "encrypt": true/);
    }
    assert.deepEqual(profileFromAdoNet('ci', 'Server=db;User Id=u;Encrypt=Mandatory').notes, []);
    assert.equal(profileFromAdoNet('ci', 'Server=db;User Id=u;Encrypt=Mandatory').profile.encrypt, true);
    // Typed on the CLI, an explicit Encrypt=false is the user's own choice (the CLI warns before sending the password).
    assert.equal(profileFromConnectionString('Server=db;User Id=u;Encrypt=false').profile.encrypt, false);
    assert.equal(profileFromConnectionString('Server=db;User Id=u;Encrypt=Optional').profile.encrypt, true);
  });

  it('imports mssql connections: SQL login with its saved password, instance names, unsupported integrated auth', () => {
    const sql = importMssqlConnection({ server: 'box\\SQLEXPRESS', database: 'app', user: 'sa', authenticationType: 'SqlLogin', encrypt: 'Optional', profileName: 'Local' }, 0);
    assert.equal(sql.ok, true);
    if (!sql.ok) return;
    // encrypt "Optional" keeps the stronger equivalent: true, with a note that says so.
    assert.deepEqual(sql.profile, { name: 'Local', server: 'box', instanceName: 'SQLEXPRESS', database: 'app', authenticationType: 'sql', user: 'sa', encrypt: true, trustServerCertificate: false, development: false });
    assert.match(sql.notes[0]!, /"Optional" became "encrypt": true/);
    const off = importMssqlConnection({ server: 'h', user: 'u', encrypt: false }, 3);
    assert.ok(off.ok && off.profile.encrypt === true && /password in clear text|clear text/.test(off.notes[0]!));
    const mandatory = importMssqlConnection({ server: 'h', user: 'u', encrypt: 'Mandatory' }, 4);
    assert.ok(mandatory.ok && mandatory.profile.encrypt === true && mandatory.notes.length === 0);
    assert.equal(sql.askForSecret, true);
    const withPort = importMssqlConnection({ server: 'h,1444', user: 'u', password: 'pw', encrypt: 'Strict' }, 1);
    assert.ok(withPort.ok && withPort.profile.port === 1444 && withPort.profile.encrypt === 'strict' && withPort.secret === 'pw' && !withPort.askForSecret);
    const integrated = importMssqlConnection({ server: 'h', authenticationType: 'Integrated', profileName: 'Win' }, 2);
    assert.equal(integrated.ok, false);
    if (!integrated.ok) assert.match(integrated.reason, /Integrated\) is not supported/);
  });

  it('upserts and removes by name without touching other entries, and keys secrets per profile', () => {
    const other = { name: 'keep', server: 'x', somethingElse: 1 };
    const a = { name: 'A', server: 'h', database: 'd', authenticationType: 'entra-default' as const, encrypt: true, trustServerCertificate: false, development: false };
    const once = upsertProfile([other], a);
    const twice = upsertProfile(once, { ...a, name: 'a', server: 'h2' });
    assert.equal(twice.length, 2);
    assert.equal((twice[1] as { server: string }).server, 'h2');
    assert.deepEqual(removeProfile(twice, 'A'), [other]);
    const lab = { name: 'Lab', server: 'db1', user: 'me', authenticationType: 'sql' as const };
    assert.equal(secretKey({ ...lab, name: ' lab ', server: 'DB1' }), secretKey(lab));
    assert.equal(secretKey({ ...lab, port: 1433 }), secretKey(lab));
    assert.notEqual(secretKey({ ...lab, name: 'lab2' }), secretKey(lab));
    // Same name, re-pointed at another server, port, instance or login: another key, so no secret is handed over.
    assert.notEqual(secretKey({ ...lab, server: 'evil' }), secretKey(lab));
    assert.notEqual(secretKey({ ...lab, port: 1444 }), secretKey(lab));
    assert.notEqual(secretKey({ ...lab, instanceName: 'X' }), secretKey(lab));
    assert.notEqual(secretKey({ ...lab, user: 'sa' }), secretKey(lab));
    assert.notEqual(secretKey({ ...lab, authenticationType: 'entra-password' }), secretKey(lab));
    // No separator trick joins two fields into the same key.
    assert.notEqual(secretKey({ ...lab, name: 'a', server: 'b,c' }), secretKey({ ...lab, name: 'a,b', server: 'c' }));
  });
});
