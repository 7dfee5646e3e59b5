// KILL <spid> and extended properties on the database, as the ownership tests use them: KILL ends another session
// (its application lock released, its connection closed even while idle), refuses its own session, unknown sessions
// and logins without ALTER ANY CONNECTION; database-level properties are added once, updated, dropped, listed in
// sys.extended_properties, and need ALTER on the database.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

describe('stand-in model: KILL and extended properties', () => {
  it('KILL ends another session: its app lock is free at once and its connection is closed although it is idle', async () => {
    const s = createStandin({ speedFactor: 0 });
    const victim = await connect(s, { appName: 'victim' });
    let closed = 0;
    s.onSessionKilled!(victim, () => closed++);
    await query(s, victim, "DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'durability_lens:lab', @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0; SELECT @r AS r;");
    const dba = await connect(s, { appName: 'dba' });
    const [before] = await rows(s, dba, "DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'durability_lens:lab', @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0; SELECT @r AS r;");
    assert.equal(before!.r, -1, 'held by the victim');
    const killed = await exec(s, dba, `KILL ${victim.spid};`);
    assert.deepEqual(killed.errors, []);
    assert.equal(closed, 1, 'the protocol layer was told to close the connection');
    assert.equal(s.session(victim.spid), undefined);
    const [after] = await rows(s, dba, "DECLARE @r int; EXEC @r = sys.sp_getapplock @Resource = N'durability_lens:lab', @LockMode = 'Exclusive', @LockOwner = 'Session', @LockTimeout = 0; SELECT @r AS r;");
    assert.equal(after!.r, 0, 'the lock died with the session');
    assert.equal((await exec(s, victim, 'SELECT 1')).dropped, true);
  });

  it('KILL refuses its own session (6104), an unknown one (6106), WITH STATUSONLY (6120) and a login without ALTER ANY CONNECTION (6102)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s);
    const other = await connect(s);
    assert.deepEqual((await exec(s, sa, `KILL ${sa.spid}`)).errors.map((e) => e.number), [6104]);
    assert.deepEqual((await exec(s, sa, 'KILL 4999')).errors.map((e) => e.number), [6106]);
    assert.deepEqual((await exec(s, sa, `KILL ${other.spid} WITH STATUSONLY`)).errors.map((e) => e.number), [6120]);
    await query(s, sa, "CREATE LOGIN lp WITH PASSWORD = N'Lp-1'; CREATE USER lp FOR LOGIN lp;");
    const lp = await connect(s, { user: 'lp', password: 'Lp-1' });
    const refused = await exec(s, lp, `KILL ${other.spid}`);
    assert.deepEqual(refused.errors.map((e) => [e.number, e.class]), [[6102, 14]]);
    await query(s, sa, 'GRANT ALTER ANY CONNECTION TO lp');
    assert.deepEqual((await exec(s, lp, `KILL ${other.spid}`)).errors, []);
    assert.equal(s.session(other.spid), undefined);
  });

  it('a database property is added once (15233 after), updated, listed as class 0 and dropped (15217 after)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s);
    const add = "EXEC sys.sp_addextendedproperty @name = N'durability_lens.owner', @value = N'{\"run\":\"a\"}';";
    assert.deepEqual((await exec(s, sa, add)).errors, []);
    assert.deepEqual((await exec(s, sa, add)).errors.map((e) => e.number), [15233]);
    await query(s, sa, "EXEC sys.sp_updateextendedproperty @name = N'durability_lens.owner', @value = N'{\"run\":\"b\"}';");
    const listed = await rows(s, sa, "SELECT class, class_desc, major_id, minor_id, name, CAST(value AS nvarchar(4000)) AS value FROM sys.extended_properties WHERE class = 0 AND name = N'durability_lens.owner'");
    assert.deepEqual(listed, [{ class: 0, class_desc: 'DATABASE', major_id: 0, minor_id: 0, name: 'durability_lens.owner', value: '{"run":"b"}' }]);
    const master = await connect(s, { database: 'master' });
    assert.deepEqual(await rows(s, master, 'SELECT COUNT(*) AS n FROM sys.extended_properties'), [{ n: 0 }], 'a property of lab, not of master');
    await query(s, sa, "EXEC sys.sp_dropextendedproperty @name = N'durability_lens.owner';");
    assert.deepEqual((await exec(s, sa, "EXEC sys.sp_dropextendedproperty @name = N'durability_lens.owner';")).errors.map((e) => e.number), [15217]);
    assert.deepEqual(await rows(s, sa, 'SELECT COUNT(*) AS n FROM sys.extended_properties'), [{ n: 0 }]);
  });

  it('a database property needs ALTER on the database (15247 without it), like ALTER DATABASE … SET DELAYED_DURABILITY', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s);
    await query(s, sa, "CREATE LOGIN lp WITH PASSWORD = N'Lp-1'; CREATE USER lp FOR LOGIN lp;");
    const lp = await connect(s, { user: 'lp', password: 'Lp-1' });
    const add = "EXEC sys.sp_addextendedproperty @name = N'durability_lens.owner', @value = N'x';";
    assert.deepEqual((await exec(s, lp, add)).errors.map((e) => e.number), [15247]);
    await query(s, sa, 'GRANT ALTER ON DATABASE::[lab] TO lp');
    assert.deepEqual((await exec(s, lp, add)).errors, []);
  });
});
