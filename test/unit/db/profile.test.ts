import assert from 'node:assert/strict';
import { applicationName, toTediousConfig } from '../../../src/db/profile';
import type { ConnectionProfile } from '../../../src/db/types';

const base: ConnectionProfile = {
  server: 'db.example',
  database: 'Sales',
  authentication: { type: 'sql', user: 'lens' },
  encrypt: true,
  trustServerCertificate: false,
};

describe('db/profile: profile → tedious configuration', () => {
  it('names the two sessions so a DBA can tell them apart', () => {
    assert.equal(applicationName(base, 'workload'), 'Durability Lens (workload)');
    assert.equal(applicationName({ appName: 'CI run' }, 'monitor'), 'CI run (monitor)');
  });

  it('maps a SQL login to tedious default authentication with the secret as password', () => {
    const config = toTediousConfig(base, 's3cret', 'monitor');
    assert.deepEqual(config.authentication, { type: 'default', options: { userName: 'lens', password: 's3cret' } });
    assert.equal(config.options?.port, 1433);
    assert.equal(config.options?.database, 'Sales');
    assert.equal(config.options?.encrypt, true);
    assert.equal(config.options?.trustServerCertificate, false);
    assert.equal(config.options?.appName, 'Durability Lens (monitor)');
    assert.equal(config.options?.requestTimeout, 60000);
  });

  it('gives the workload connection no request timeout (cancellation is explicit)', () => {
    assert.equal(toTediousConfig(base, 'x', 'workload').options?.requestTimeout, 0);
  });

  it('maps NTLM with its domain and Entra types to the azure-active-directory-* types', () => {
    assert.deepEqual(toTediousConfig({ ...base, authentication: { type: 'ntlm', user: 'u', domain: 'CORP' } }, 'pw', 'workload').authentication, {
      type: 'ntlm',
      options: { userName: 'u', password: 'pw', domain: 'CORP' },
    });
    assert.deepEqual(toTediousConfig({ ...base, authentication: { type: 'entra-access-token' } }, 'tok', 'workload').authentication, {
      type: 'azure-active-directory-access-token',
      options: { token: 'tok' },
    });
    assert.equal(toTediousConfig({ ...base, authentication: { type: 'entra-default' } }, undefined, 'workload').authentication?.type, 'azure-active-directory-default');
    const pw = toTediousConfig({ ...base, authentication: { type: 'entra-password', user: 'a@b', clientId: 'cid', tenantId: 'tid' } }, 'p', 'workload');
    assert.deepEqual(pw.authentication, { type: 'azure-active-directory-password', options: { userName: 'a@b', password: 'p', clientId: 'cid', tenantId: 'tid' } });
  });

  it('uses the instance name instead of a port, and refuses both', () => {
    const named = toTediousConfig({ ...base, instanceName: 'SQL2022' }, 'x', 'monitor');
    assert.equal(named.options?.instanceName, 'SQL2022');
    assert.equal(named.options?.port, undefined);
    assert.throws(() => toTediousConfig({ ...base, port: 1444, instanceName: 'X' }, 'x', 'monitor'), /either a port or an instance name/);
  });

  it("passes encrypt 'strict' through for TDS 8.0", () => {
    assert.equal(toTediousConfig({ ...base, encrypt: 'strict' }, 'x', 'monitor').options?.encrypt, 'strict');
  });
});
