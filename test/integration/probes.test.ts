// Snapshots against the stand-in (or a real server): before/after an insert loop, preflight, and the
// degraded snapshot of a login without VIEW SERVER (PERFORMANCE) STATE.
import assert from 'node:assert/strict';
import { connect } from '../../src/db/connect';
import type { TediousSession } from '../../src/db/session';
import { runWorkload } from '../../src/db/workload';
import { preflightPermissions } from '../../src/probes/permissions';
import { captureServerIdentity } from '../../src/probes/serverInfo';
import { captureSnapshot, diffSnapshots } from '../../src/probes/snapshot';
import { useStandins, type StandinSetup } from '../support/standin';
import { standinOnlySuite, useTestServer } from './support';

const READER = { name: 'lens]reader', password: 'Reader-1' };
/** The README's least-privileged monitoring login: VIEW SERVER PERFORMANCE STATE (2022+), nothing server-wide besides. */
const MONITOR = { name: 'lens_monitor', password: 'Monitor-1' };

describe('integration: snapshots and permissions', function () {
  this.timeout(60000);
  // speedFactor 1: the model's own pace, as this suite has always run.
  const target = useTestServer({
    speedFactor: 1,
    logins: [
      { name: READER.name, password: READER.password, databases: ['lab'] },
      { name: MONITOR.name, password: MONITOR.password, databases: ['lab'], serverPermissions: ['VIEW SERVER PERFORMANCE STATE'] },
    ],
  });
  const sessions: TediousSession[] = [];
  const track = (s: TediousSession) => (sessions.push(s), s);

  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  /** Stand-ins of other versions and products for single tests (closed after the test, once its sessions are). */
  const others = useStandins();

  async function targetIds(monitor: TediousSession) {
    const [row] = await monitor.query('SELECT DB_ID() AS id, DB_NAME() AS name;');
    return { databaseId: Number(row!.id), databaseName: String(row!.name) };
  }

  it('shows log writes and WRITELOG for the workload session after an insert loop', async () => {
    const workload = track(await connect(target.profile, target.secret, { role: 'workload' }));
    const monitor = track(await connect(target.profile, target.secret, { role: 'monitor' }));
    const ids = await targetIds(monitor);
    await workload.execute("IF OBJECT_ID(N'dbo.lens_s1') IS NOT NULL DROP TABLE dbo.lens_s1; CREATE TABLE dbo.lens_s1 (id int IDENTITY(1,1) PRIMARY KEY, col1 int DEFAULT 100, col2 varchar(100) DEFAULT 'abcd');");
    try {
      const snapshotTarget = { ...ids, workloadSpid: workload.spid };
      const before = await captureSnapshot(monitor, snapshotTarget);
      const inserts = 200;
      const report = await runWorkload(workload, {
        text: `DECLARE @i int = 0;\nWHILE @i < ${inserts}\nBEGIN\n  INSERT INTO dbo.lens_s1 DEFAULT VALUES;\n  SET @i += 1;\nEND`,
        repeat: 1,
        firstLine: 0,
      }).done;
      assert.equal(report.error, null);
      const after = await captureSnapshot(monitor, snapshotTarget, { countersOnly: true });
      const diff = diffSnapshots(before, after);
      assert.equal(diff.valid, true, diff.notes.join(' '));
      assert.equal(diff.restartDetected, false);

      assert.equal(diff.files.status, 'ok');
      const log = diff.files.status === 'ok' ? diff.files.value.totals.find((t) => t.kind === 'log') : undefined;
      assert.ok(log, 'a log file is labelled');
      // Each autocommit INSERT commits on its own: with DISABLED durability each commit waits for a log flush.
      if (target.kind === 'standin') assert.ok(log.writes >= inserts, `log writes ${log.writes}`);
      else assert.ok(log.writes > 0);
      assert.ok((log.avgBytesPerWrite ?? 0) > 0);

      assert.equal(diff.sessionWaits.status, 'ok');
      const writelog = diff.sessionWaits.status === 'ok' ? diff.sessionWaits.value.top.find((w) => w.waitType === 'WRITELOG') : undefined;
      assert.ok(writelog, 'the workload session waited on WRITELOG');
      if (target.kind === 'standin') assert.ok(writelog.waitingTasks >= inserts, `WRITELOG waits ${writelog.waitingTasks}`);

      assert.equal(diff.logCounters.status, 'ok');
      const flushes = diff.logCounters.status === 'ok' ? diff.logCounters.value.find((c) => c.counterName === 'Log Flushes/sec') : undefined;
      assert.ok(flushes && flushes.kind === 'cumulative' && flushes.delta > 0, 'Log Flushes/sec moved');
      assert.ok(JSON.parse(JSON.stringify(diff)), 'the diff is JSON-serialisable');
    } finally {
      await workload.execute('DROP TABLE dbo.lens_s1;');
    }
  });

  it('preflight of an admin login reports nothing missing (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // the connection string's login need not be an admin
    const monitor = track(await connect(target.profile, target.secret, { role: 'monitor' }));
    const identity = await captureServerIdentity(monitor);
    const result = await preflightPermissions(monitor, { majorVersion: identity.majorVersion, engineEdition: identity.engineEdition, databaseName: identity.currentDatabase });
    assert.deepEqual(result.missing, []);
    assert.equal(result.grantScript, '');
  });

  it('a login lacking VIEW SERVER STATE degrades with the right GRANT text (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // needs a login the suite controls
    const profile = { ...target.profile, authentication: { type: 'sql' as const, user: READER.name } };
    const workload = track(await connect(profile, READER.password, { role: 'workload' }));
    const monitor = track(await connect(profile, READER.password, { role: 'monitor' }));
    const identity = await captureServerIdentity(monitor);
    const permission = identity.majorVersion >= 16 ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE';
    const expectedGrant = `USE [master];\nGRANT ${permission} TO [lens]]reader];`;

    const preflight = await preflightPermissions(monitor, { majorVersion: identity.majorVersion, engineEdition: identity.engineEdition, databaseName: 'lab' });
    const missing = new Set(preflight.missing.map((m) => m.measurement));
    assert.ok(missing.has('fileStats') && missing.has('waitStats') && missing.has('perfCounters'));
    assert.ok(preflight.grantScript.includes(expectedGrant), preflight.grantScript);

    const ids = await targetIds(monitor);
    const snapshot = await captureSnapshot(monitor, { ...ids, workloadSpid: workload.spid });
    for (const m of [snapshot.fileStats, snapshot.serverWaits, snapshot.logCounters]) {
      assert.equal(m.status, 'unavailable');
      if (m.status === 'unavailable') {
        assert.equal(m.cause, 'permission');
        assert.equal(m.grant, expectedGrant);
      }
    }
    assert.equal(snapshot.server.identity.loginName, READER.name, 'the snapshot itself still completed');
  });

  it('refuses to diff across an engine restart and says why (stand-in only)', async function () {
    if (!target.standin) this.skip(); // a real server is not restarted by a test
    const first = track(await connect(target.profile, target.secret, { role: 'monitor' }));
    const ids = await targetIds(first);
    const before = await captureSnapshot(first, { ...ids, workloadSpid: null });
    target.standin.restart();
    const second = track(await connect(target.profile, target.secret, { role: 'monitor' }));
    const after = await captureSnapshot(second, { ...ids, workloadSpid: null }, { countersOnly: true });
    const diff = diffSnapshots(before, after);
    assert.equal(diff.restartDetected, true);
    assert.equal(diff.valid, false);
    assert.match(diff.notes[0]!, /restarted between the snapshots/);
    assert.equal(diff.files.status, 'unavailable');
  });

  it('on SQL Server 2019 the GRANT names VIEW SERVER STATE (stand-in only)', async function () {
    if (!target.standin) this.skip(); // needs a login the suite controls on a 2019 server
    const old = await others.start({ speedFactor: 1, version: 2019, logins: [{ name: READER.name, password: READER.password, databases: ['lab'] }] });
    const monitor = track(await connect({ ...old.profile, authentication: { type: 'sql', user: READER.name } }, READER.password, { role: 'monitor' }));
    const ids = await targetIds(monitor);
    const snapshot = await captureSnapshot(monitor, { ...ids, workloadSpid: null });
    assert.equal(snapshot.server.identity.majorVersion, 15);
    assert.equal(snapshot.fileStats.status === 'unavailable' && snapshot.fileStats.grant, 'USE [master];\nGRANT VIEW SERVER STATE TO [lens]]reader];');
    await monitor.close();
  });

  it('Azure SQL Database: host and volume probes are not applicable, the rest works (stand-in only)', async function () {
    if (!target.standin) this.skip(); // the stand-in plays Azure SQL Database (EngineEdition 5)
    const azure = await others.start({ speedFactor: 1, azure: true });
    const monitor = track(await connect(azure.profile, azure.secret, { role: 'monitor' }));
    const ids = await targetIds(monitor);
    const snapshot = await captureSnapshot(monitor, { ...ids, workloadSpid: monitor.spid });
    assert.equal(snapshot.server.identity.isAzureSqlDatabase, true);
    assert.equal(snapshot.volumes.status === 'unavailable' && snapshot.volumes.cause, 'not-applicable');
    assert.equal(snapshot.server.host.status === 'unavailable' && snapshot.server.host.cause, 'not-applicable');
    assert.equal(snapshot.fileStats.status, 'ok');
    const preflight = await preflightPermissions(monitor, { majorVersion: 16, engineEdition: 5, databaseName: ids.databaseName });
    assert.ok(preflight.checks.filter((c) => c.scope !== 'server-role').every((c) => c.scope === 'database'));
    // The stand-in does not report a service objective it is known to be above S1 with, so the role is not assumed held.
    const role = preflight.checks.find((c) => c.permission === '##MS_ServerStateReader##');
    assert.ok(role && role.held === null && role.neededFor.includes('perfCounters'), 'Basic/S0/S1/pool role listed, not "all held"');
    await monitor.close();
  });

  it('one probe refused with 297 degrades alone, with its GRANT (stand-in only)', async function () {
    if (!target.standin) this.skip(); // fault injection
    const monitor = track(await connect(target.profile, target.secret, { role: 'monitor' }));
    const ids = await targetIds(monitor);
    target.standin.faults.statements.push({ pattern: /sys\.dm_os_performance_counters/, number: 297, class: 16, message: 'The user does not have permission to perform this action.' });
    try {
      const snapshot = await captureSnapshot(monitor, { ...ids, workloadSpid: null });
      assert.equal(snapshot.logCounters.status, 'unavailable');
      if (snapshot.logCounters.status === 'unavailable') {
        assert.equal(snapshot.logCounters.errorNumber, 297);
        assert.equal(snapshot.logCounters.grant, 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [sa];');
      }
      assert.equal(snapshot.fileStats.status, 'ok');
      assert.equal(snapshot.serverWaits.status, 'ok');
    } finally {
      target.standin.faults.reset();
    }
  });

  it('a login without VIEW ANY DEFINITION measures real per-file IO through sys.database_files, never "Log writes 0" (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // needs a login the suite controls
    const profile = { ...target.profile, authentication: { type: 'sql' as const, user: MONITOR.name } };
    const admin = track(await connect(target.profile, target.secret, { role: 'workload' }));
    await admin.execute("IF OBJECT_ID(N'dbo.lens_s1m') IS NOT NULL DROP TABLE dbo.lens_s1m; CREATE TABLE dbo.lens_s1m (id int IDENTITY(1,1) PRIMARY KEY, col1 int DEFAULT 100);");
    try {
      const workload = track(await connect(target.profile, target.secret, { role: 'workload' }));
      const monitor = track(await connect(profile, MONITOR.password, { role: 'monitor' }));
      // The premise: sys.master_files hides every row from this login (Learn: sys-master-files-transact-sql).
      const [visible] = await monitor.query('SELECT COUNT(*) AS n FROM sys.master_files;');
      assert.equal(Number(visible!.n), 0, 'sys.master_files shows nothing to a login without VIEW ANY DEFINITION');
      const ids = await targetIds(monitor);
      const snapshotTarget = { ...ids, workloadSpid: workload.spid };
      const before = await captureSnapshot(monitor, snapshotTarget);
      const inserts = 120;
      const report = await runWorkload(workload, { text: `DECLARE @i int = 0;\nWHILE @i < ${inserts}\nBEGIN\n  INSERT INTO dbo.lens_s1m DEFAULT VALUES;\n  SET @i += 1;\nEND`, repeat: 1, firstLine: 0 }).done;
      assert.equal(report.error, null);
      const after = await captureSnapshot(monitor, snapshotTarget, { countersOnly: true });
      const diff = diffSnapshots(before, after);
      assert.equal(diff.files.status, 'ok', diff.files.status === 'unavailable' ? diff.files.reason : '');
      const log = diff.files.status === 'ok' ? diff.files.value.totals.find((t) => t.kind === 'log') : undefined;
      assert.ok(log && log.writes >= inserts, `log writes ${log?.writes}`);
      // The holder of VIEW SERVER PERFORMANCE STATE sees the workload session's waits and the log counters too.
      assert.equal(diff.sessionWaits.status, 'ok');
      assert.ok(diff.sessionWaits.status === 'ok' && (diff.sessionWaits.value.top.find((w) => w.waitType === 'WRITELOG')?.waitingTasks ?? 0) >= inserts);
      assert.equal(diff.logCounters.status, 'ok');
    } finally {
      await admin.execute('DROP TABLE dbo.lens_s1m;');
    }
  });

  it("without VIEW SERVER STATE the workload session's waits are not measured, with the GRANT — never 0 waits (stand-in only)", async function () {
    if (target.kind === 'given') this.skip(); // needs a login the suite controls
    const profile = { ...target.profile, authentication: { type: 'sql' as const, user: READER.name } };
    const workload = track(await connect(target.profile, target.secret, { role: 'workload' }));
    const monitor = track(await connect(profile, READER.password, { role: 'monitor' }));
    await workload.execute("IF OBJECT_ID(N'dbo.lens_s1r') IS NOT NULL DROP TABLE dbo.lens_s1r; CREATE TABLE dbo.lens_s1r (id int); INSERT INTO dbo.lens_s1r VALUES (1); DROP TABLE dbo.lens_s1r;");
    const identity = await captureServerIdentity(monitor);
    const permission = identity.majorVersion >= 16 ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE';
    const ids = await targetIds(monitor);
    const snapshot = await captureSnapshot(monitor, { ...ids, workloadSpid: workload.spid });
    assert.equal(snapshot.sessionWaits.status, 'unavailable');
    if (snapshot.sessionWaits.status === 'unavailable') {
      assert.equal(snapshot.sessionWaits.cause, 'empty');
      assert.equal(snapshot.sessionWaits.grant, `USE [master];\nGRANT ${permission} TO [lens]]reader];`);
    }
  });
});

describe('integration: counters, platforms and Azure tiers as SQL Server documents them (stand-in only)', function () {
  this.timeout(60000);
  const sessions: TediousSession[] = [];
  standinOnlySuite("platform modes are the stand-in's");
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  const standins = useStandins();
  async function monitorOf(setup: StandinSetup, user?: { name: string; password: string }) {
    const t = await standins.start({ speedFactor: 1, ...setup });
    const profile = user ? { ...t.profile, authentication: { type: 'sql' as const, user: user.name } } : t.profile;
    const s = await connect(profile, user ? user.password : t.secret, { role: 'monitor' });
    sessions.push(s);
    return s;
  }

  it("an untrimmed nchar LIKE N'%:Databases' finds no counter (Unicode LIKE keeps trailing blanks) and the product still reads them", async () => {
    const monitor = await monitorOf({});
    const [raw] = await monitor.query("SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE object_name LIKE N'%:Databases';");
    assert.equal(Number(raw!.n), 0, 'SQL Server semantics: the padded nchar(128) never ends in ":Databases"');
    const [row] = await monitor.query('SELECT DB_ID() AS id, DB_NAME() AS name;');
    const snapshot = await captureSnapshot(monitor, { databaseId: Number(row!.id), databaseName: String(row!.name), workloadSpid: null });
    assert.equal(snapshot.logCounters.status, 'ok', snapshot.logCounters.status === 'unavailable' ? snapshot.logCounters.reason : '');
    assert.ok(snapshot.logCounters.status === 'ok' && snapshot.logCounters.value.some((c) => c.counterName === 'Log Flushes/sec'));
  });

  it('Managed Instance (EngineEdition 8): counters named by physical_database_name (a GUID) are matched to the database', async () => {
    const monitor = await monitorOf({ product: 'mi' });
    const [row] = await monitor.query('SELECT DB_ID() AS id, DB_NAME() AS name, physical_database_name AS guid FROM sys.databases WHERE database_id = DB_ID();');
    assert.notEqual(String(row!.guid), String(row!.name), 'the stand-in plays MI: the counter instance is a GUID');
    const snapshot = await captureSnapshot(monitor, { databaseId: Number(row!.id), databaseName: String(row!.name), workloadSpid: null });
    assert.equal(snapshot.server.identity.platform, 'azure-sql-managed-instance');
    assert.equal(snapshot.logCounters.status, 'ok', snapshot.logCounters.status === 'unavailable' ? snapshot.logCounters.reason : '');
    assert.ok(snapshot.logCounters.status === 'ok' && snapshot.logCounters.value.every((c) => c.instanceName === String(row!.guid)));
  });

  it('Managed Instance: a profile run reads the log counters by GUID in the snapshots and in every sample', async () => {
    const t = await standins.start({ product: 'mi' });
    const { profileConnectionSource, profileRun } = await import('../../src/profile');
    const { analyze } = await import('../../src/tsql');
    const script = "IF OBJECT_ID(N'dbo.mi_t') IS NULL CREATE TABLE dbo.mi_t (id int);\nGO\nDECLARE @i int = 0;\nWHILE @i < 50\nBEGIN\n  INSERT INTO dbo.mi_t VALUES (@i);\n  SET @i += 1;\nEND";
    const run = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: analyze(script).batches, xe: { enabled: false }, sampling: { intervalMs: 10 } });
    assert.equal(run.server.identity.platform, 'azure-sql-managed-instance');
    assert.ok((run.logCounters.logFlushes ?? 0) >= 50, `Log Flushes/sec delta ${run.logCounters.logFlushes}`);
    assert.ok(!run.notes.some((n) => /Sampling stopped/.test(n)), run.notes.join('\n'));
    assert.ok(run.samples.every((s) => s.logFlushes !== null), 'every sample has the counters');
  });

  it('Azure SQL Database S0: the preflight lists ##MS_ServerStateReader## instead of "all held"', async () => {
    const monitor = await monitorOf({ product: 'azure-sqldb', serviceObjective: 'S0' });
    const identity = await captureServerIdentity(monitor);
    assert.equal(identity.platform, 'azure-sql-database');
    const preflight = await preflightPermissions(monitor, { majorVersion: identity.majorVersion, engineEdition: identity.engineEdition, databaseName: identity.currentDatabase });
    const role = preflight.checks.find((c) => c.permission === '##MS_ServerStateReader##');
    assert.ok(role, JSON.stringify(preflight.checks.map((c) => c.permission)));
    assert.ok(preflight.missing.some((m) => m.measurement === 'perfCounters'));
    assert.match(preflight.grantScript, /ALTER SERVER ROLE \[##MS_ServerStateReader##\] ADD MEMBER/);
  });
});
