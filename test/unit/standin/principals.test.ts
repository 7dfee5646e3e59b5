// Principals through T-SQL: as sa, CREATE LOGIN / USER, GRANT / DENY / REVOKE and ALTER SERVER ROLE set up a
// least-privileged login the way a DBA would, and the documented visibility rules then hold for it:
// sys.master_files rows, sys.database_files, sys.dm_exec_session_wait_stats of other sessions.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

describe('stand-in model: principals and permissions through T-SQL', () => {
  it('creates a login that logs in, opens a database only once it has a user there, and reports its grants', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s, { database: 'master' });
    await query(s, sa, "CREATE LOGIN [dl_monitor] WITH PASSWORD = N'Monitor-Pass-1', CHECK_POLICY = OFF");
    const refused = await s.login({ userName: 'dl_monitor', password: 'Monitor-Pass-1', database: 'lab', appName: 't', hostName: 'h', encrypted: true, clientPid: 1, packetSize: 4096, tdsVersion: 0x74000004 });
    assert.equal(!refused.ok && refused.error.number, 4060, 'no user in lab yet');
    await query(s, sa, "USE lab; CREATE USER [dl_monitor] FOR LOGIN [dl_monitor];");
    await query(s, sa, 'GRANT VIEW SERVER PERFORMANCE STATE TO [dl_monitor]; GRANT VIEW SERVER STATE, ALTER ANY EVENT SESSION TO [dl_monitor];');
    await query(s, sa, 'USE lab; GRANT ALTER ON DATABASE::[lab] TO [dl_monitor]; GRANT VIEW DATABASE STATE TO [dl_monitor];');
    const m = await connect(s, { user: 'dl_monitor', password: 'Monitor-Pass-1' });
    const [perms] = await rows(s, m, `SELECT HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE') AS vsps,
  HAS_PERMS_BY_NAME(NULL, NULL, 'ALTER ANY EVENT SESSION') AS aaes, HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW ANY DEFINITION') AS vad,
  HAS_PERMS_BY_NAME(N'lab', 'DATABASE', 'ALTER') AS alter_lab, HAS_PERMS_BY_NAME(N'lab', 'DATABASE', 'VIEW DATABASE STATE') AS vds`);
    assert.deepEqual(perms, { vsps: 1, aaes: 1, vad: 0, alter_lab: 1, vds: 1 });
    const mine = await rows(s, m, "SELECT permission_name FROM sys.fn_my_permissions(NULL, 'SERVER') ORDER BY permission_name");
    assert.ok(mine.some((r) => r.permission_name === 'VIEW SERVER STATE'));
    const r = await exec(s, m, "ALTER DATABASE [lab] SET DELAYED_DURABILITY = ALLOWED WITH NO_WAIT; ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;");
    assert.deepEqual(r.errors, []);
  });

  it('DENY overrides a GRANT (also one implied by VIEW SERVER STATE), REVOKE removes both, and non-admins cannot grant', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s);
    await query(s, sa, "CREATE LOGIN lp WITH PASSWORD = N'Lp-1'; CREATE USER lp FOR LOGIN lp; GRANT VIEW SERVER STATE TO lp; DENY VIEW SERVER PERFORMANCE STATE TO lp;");
    const lp = await connect(s, { user: 'lp', password: 'Lp-1' });
    const denied = await exec(s, lp, 'SELECT COUNT(*) FROM sys.dm_os_wait_stats');
    assert.deepEqual(denied.errors.map((e) => e.number), [300, 297]);
    await query(s, sa, 'REVOKE VIEW SERVER PERFORMANCE STATE FROM lp');
    assert.deepEqual((await exec(s, lp, 'SELECT COUNT(*) AS n FROM sys.dm_os_wait_stats')).errors, []);
    const grant = await exec(s, lp, 'GRANT VIEW ANY DEFINITION TO lp');
    assert.deepEqual(grant.errors.map((e) => e.number), [4613]);
    const create = await exec(s, lp, "CREATE LOGIN x WITH PASSWORD = N'x'");
    assert.deepEqual(create.errors.map((e) => e.number), [15247]);
    const dup = await exec(s, sa, "CREATE LOGIN lp WITH PASSWORD = N'again'");
    assert.deepEqual(dup.errors.map((e) => e.number), [15025]);
    const unknown = await exec(s, sa, 'GRANT VIEW SERVER STATE TO nobody');
    assert.deepEqual(unknown.errors.map((e) => e.number), [15151]);
  });

  it('ALTER SERVER ROLE ##MS_ServerStateReader## ADD MEMBER gives server-state DMV access; sysadmin membership gives everything', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s);
    await query(s, sa, "CREATE LOGIN reader WITH PASSWORD = N'R-1'; CREATE USER reader FOR LOGIN reader;");
    const rd = await connect(s, { user: 'reader', password: 'R-1' });
    assert.deepEqual((await exec(s, rd, 'SELECT COUNT(*) FROM sys.dm_os_performance_counters')).errors.map((e) => e.number), [300, 297]);
    await query(s, sa, 'ALTER SERVER ROLE [##MS_ServerStateReader##] ADD MEMBER [reader]');
    assert.deepEqual((await exec(s, rd, 'SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters')).errors, []);
    await query(s, sa, 'ALTER SERVER ROLE [##MS_ServerStateReader##] DROP MEMBER [reader]; ALTER SERVER ROLE sysadmin ADD MEMBER reader;');
    const [all] = await rows(s, rd, "SELECT control_server = HAS_PERMS_BY_NAME(NULL, NULL, 'CONTROL SERVER')");
    assert.equal(all!.control_server, 1);
  });

  // sys.master_files Permissions: "The minimum permissions that are required to see the corresponding row are CREATE
  // DATABASE, ALTER ANY DATABASE, or VIEW ANY DEFINITION." sys.database_files: "Requires membership in the public role."
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-master-files-transact-sql
  // https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-files-transact-sql
  it('shows sys.master_files rows only with CREATE DATABASE / ALTER ANY DATABASE / VIEW ANY DEFINITION; sys.database_files to any user', async () => {
    const s = createStandin({ speedFactor: 0 });
    const sa = await connect(s);
    await query(s, sa, "CREATE LOGIN mon WITH PASSWORD = N'M-1'; CREATE USER mon FOR LOGIN mon; GRANT VIEW SERVER PERFORMANCE STATE TO mon;");
    const mon = await connect(s, { user: 'mon', password: 'M-1' });
    const count = async (): Promise<unknown> => (await rows(s, mon, 'SELECT COUNT(*) AS n FROM sys.master_files'))[0]!.n;
    assert.equal(await count(), 0, 'no error, just no rows');
    const own = await rows(s, mon, 'SELECT file_id, type_desc FROM sys.database_files ORDER BY file_id');
    assert.deepEqual(own.map((r) => [r.file_id, r.type_desc]), [[1, 'ROWS'], [2, 'LOG']]);
    await query(s, sa, 'GRANT VIEW ANY DEFINITION TO mon');
    assert.equal(await count(), 10);
    await query(s, sa, 'REVOKE VIEW ANY DEFINITION FROM mon; USE master; CREATE USER mon FOR LOGIN mon; GRANT CREATE DATABASE TO mon;');
    assert.equal(await count(), 10, 'CREATE DATABASE in master');
    await query(s, sa, 'USE master; REVOKE CREATE DATABASE FROM mon; GRANT ALTER ANY DATABASE TO mon;');
    assert.equal(await count(), 10);
    await query(s, sa, 'REVOKE ALTER ANY DATABASE FROM mon');
    assert.equal(await count(), 0);
  });

  // sys.dm_exec_session_wait_stats Permissions: with VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE) "the
  // user will see all executing sessions on the instance …; otherwise, the user will see only the current session."
  // https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-session-wait-stats-transact-sql
  for (const version of [2019, 2022] as const) {
    it(`hides other sessions' rows of sys.dm_exec_session_wait_stats without the permission (${version})`, async () => {
      const s = createStandin({ speedFactor: 0, version });
      const sa = await connect(s);
      await query(s, sa, "CREATE LOGIN w WITH PASSWORD = N'W-1'; CREATE USER w FOR LOGIN w; CREATE TABLE dbo.t (i int);");
      const worker = await connect(s);
      await query(s, worker, 'INSERT INTO dbo.t VALUES (1); INSERT INTO dbo.t VALUES (2);');
      const w = await connect(s, { user: 'w', password: 'W-1' });
      const sql = `SELECT session_id, waiting_tasks_count FROM sys.dm_exec_session_wait_stats WHERE session_id = ${worker.spid} AND wait_type = N'WRITELOG'`;
      const r = await exec(s, w, sql);
      assert.deepEqual(r.errors, [], 'no error: the rows are simply absent');
      assert.deepEqual(r.resultSets[0]!.rows, []);
      await query(s, sa, `GRANT ${version === 2022 ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE'} TO w`);
      const seen = await rows(s, w, sql);
      assert.deepEqual(seen.map((x) => [x.session_id, x.waiting_tasks_count]), [[worker.spid, 2n]]);
    });
  }
});
