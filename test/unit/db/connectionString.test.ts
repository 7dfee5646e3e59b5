import assert from 'node:assert/strict';
import { parseDataSource, profileFromConnectionString } from '../../../src/db/connectionString';

describe('db/connectionString: ADO.NET connection string → profile', () => {
  it('reads server, port, database, SQL login, encrypt and trust', () => {
    const { profile, secret } = profileFromConnectionString('Server=tcp:db.example,14330;Database=lab;User Id=lens;Password=pw1;Encrypt=true;TrustServerCertificate=true');
    assert.equal(secret, 'pw1');
    assert.equal(profile.server, 'db.example');
    assert.equal(profile.port, 14330);
    assert.equal(profile.database, 'lab');
    assert.deepEqual(profile.authentication, { type: 'sql', user: 'lens' });
    assert.equal(profile.encrypt, true);
    assert.equal(profile.trustServerCertificate, true);
  });

  it('keeps a quoted password with ; and = intact', () => {
    const { secret } = profileFromConnectionString("Server=h;User Id=u;Password='a;b=c'");
    assert.equal(secret, 'a;b=c');
  });

  it("accepts Encrypt=strict and named instances", () => {
    const { profile } = profileFromConnectionString('Data Source=box\\SQL2022;Initial Catalog=Sales;UID=u;PWD=x;Encrypt=strict');
    assert.equal(profile.encrypt, 'strict');
    assert.equal(profile.instanceName, 'SQL2022');
    assert.equal(profile.port, undefined);
  });

  it('refuses strings without a server or a user', () => {
    assert.throws(() => profileFromConnectionString('Database=x;User Id=u'), /no Server/);
    assert.throws(() => profileFromConnectionString('Server=h;Database=x'), /no User Id/);
  });

  it('parses data sources', () => {
    assert.deepEqual(parseDataSource('127.0.0.1,1433'), { server: '127.0.0.1', port: 1433 });
    assert.deepEqual(parseDataSource('host'), { server: 'host' });
    assert.throws(() => parseDataSource('host,abc'), /Not a port/);
  });
});
