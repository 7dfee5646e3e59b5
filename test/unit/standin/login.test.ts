// Login through the model's Engine: accepted logins, 18456 for a bad password, 4060 for a database the login cannot open.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, rows } from './harness';

const base = { userName: 'sa', password: 'StandIn-1', database: 'lab', appName: 't', hostName: 'h', encrypted: false, clientPid: 1, packetSize: 4096, tdsVersion: 0x74000004 };

describe('stand-in model: login', () => {
  it('accepts sa / StandIn-1 into lab and reports a 16.x server by default', async () => {
    const s = createStandin({ speedFactor: 0 });
    const r = await s.login(base);
    assert.equal(r.ok, true);
    if (!r.ok) return;
    assert.equal(r.database, 'lab');
    assert.deepEqual(r.serverVersion, { major: 16, minor: 0, build: 4200 }, 'default 2022 CU20: build 4000 + 10 × 20');
    assert.ok(r.session.spid >= 51);
  });

  it('rejects a wrong password with 18456 class 14', async () => {
    const s = createStandin({ speedFactor: 0 });
    const r = await s.login({ ...base, password: 'nope' });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.error.number, 18456);
    assert.equal(r.error.class, 14);
    assert.equal(r.error.message, "Login failed for user 'sa'.");
  });

  it('rejects an unknown database and a database the login may not open with 4060', async () => {
    const s = createStandin({ speedFactor: 0, databases: [{ name: 'secret' }], logins: [{ name: 'probe', password: 'p', databases: ['lab'] }] });
    const missing = await s.login({ ...base, database: 'nosuchdb' });
    assert.equal(!missing.ok && missing.error.number, 4060);
    const denied = await s.login({ ...base, userName: 'probe', password: 'p', database: 'secret' });
    assert.equal(!denied.ok && denied.error.number, 4060);
    assert.equal(!denied.ok && denied.error.message, 'Cannot open database "secret" requested by the login. The login failed.');
    const ok = await s.login({ ...base, userName: 'probe', password: 'p', database: 'lab' });
    assert.equal(ok.ok, true);
  });

  it('simulates 2019 (15.x) when asked, and says it is the stand-in in @@VERSION', async () => {
    const s = createStandin({ speedFactor: 0, version: 2019, platform: 'Windows' });
    const h = await connect(s);
    const [row] = await rows(s, h, "SELECT @@VERSION AS v, SERVERPROPERTY('ProductMajorVersion') AS major, SERVERPROPERTY('ProductVersion') AS pv, CAST(SERVERPROPERTY('EngineEdition') AS int) AS ee");
    assert.match(String(row!.v), /Durability Lens stand-in/);
    assert.match(String(row!.v), /not a real SQL Server build/);
    assert.equal(row!.major, '15');
    assert.equal(row!.pv, '15.0.4320.1', 'default 2019 CU32');
    assert.equal(row!.ee, 3);
    const [host] = await rows(s, h, 'SELECT host_platform FROM sys.dm_os_host_info');
    assert.equal(host!.host_platform, 'Windows');
    const older = createStandin({ speedFactor: 0, version: 2019, cumulativeUpdate: 19 });
    const [pv] = await rows(older, await connect(older), "SELECT SERVERPROPERTY('ProductVersion') AS pv, SERVERPROPERTY('ProductBuild') AS b, SERVERPROPERTY('ProductUpdateLevel') AS cu");
    assert.deepEqual([pv!.pv, pv!.b, pv!.cu], ['15.0.4190.1', '4190', 'CU19'], 'the build follows the simulated CU');
  });

  it('lists the connection in dm_exec_sessions with its program name and encryption in dm_exec_connections', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s, { appName: 'durability-lens-monitor' });
    const [sess] = await rows(s, h, 'SELECT session_id, program_name, login_name, database_id FROM sys.dm_exec_sessions WHERE session_id = @@SPID');
    assert.deepEqual(sess, { session_id: h.spid, program_name: 'durability-lens-monitor', login_name: 'sa', database_id: 5 });
    const [conn] = await rows(s, h, 'SELECT encrypt_option, net_transport, auth_scheme FROM sys.dm_exec_connections WHERE session_id = @@SPID');
    assert.deepEqual(conn, { encrypt_option: 'TRUE', net_transport: 'TCP', auth_scheme: 'SQL' });
    s.logout(h);
    assert.equal(s.session(h.spid), undefined);
  });
});
