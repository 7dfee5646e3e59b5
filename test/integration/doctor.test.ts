// `durability-lens doctor` end to end against the stand-in (or a real server with DURABILITY_LENS_TEST_SERVER):
// per-probe status, rows and GRANT for an admin and for least-privileged logins, and nothing changed on the server.
import { strict as assert } from 'node:assert';
import { runCli } from '../../src/cli/dispatch';
import { processIO } from '../../src/cli/io';
import { EXIT } from '../../src/cli/commands/shared';
import { connect } from '../../src/db/connect';
import type { ReadinessReport } from '../../src/profile/readiness';
import { useStandins } from '../support/standin';
import { realServerConnectionString, useTestServer } from './support';

const READER = { name: 'lens_reader', password: 'Reader-1' };
const MONITOR = { name: 'lens_monitor', password: 'Monitor-1' };

describe('integration: doctor (readiness check)', function () {
  this.timeout(60000);
  // speedFactor 1: the model's own pace, as this suite has always run.
  const target = useTestServer({
    speedFactor: 1,
    logins: [
      { name: READER.name, password: READER.password, databases: ['lab'] },
      { name: MONITOR.name, password: MONITOR.password, databases: ['lab'], serverPermissions: ['VIEW SERVER PERFORMANCE STATE'] },
    ],
  });
  /** Stand-ins playing other products for single tests (closed after the test). */
  const others = useStandins();
  let out: string[];
  let err: string[];
  const io = (password: string) => ({ ...processIO(), env: { LENS_PW: password }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) });

  /** Doctor as `user` (stand-in) or with the real server's connection string. */
  async function doctor(user: { name: string; password: string } | null, ...extra: string[]): Promise<number> {
    out = [];
    err = [];
    if (target.kind === 'given') return runCli(['doctor', '--connection', realServerConnectionString()!, ...extra], io(''));
    const u = user ?? { name: 'sa', password: target.secret! };
    return runCli(['doctor', '--server', '127.0.0.1', '--port', String(target.profile.port), '--database', 'lab', '--user', u.name, '--password-env', 'LENS_PW', '--encrypt', 'false', ...extra], io(u.password));
  }
  const report = (): ReadinessReport => JSON.parse(out.join('')) as ReadinessReport;
  const probe = (r: ReadinessReport, id: string) => r.probes.find((p) => p.id === id)!;


  it('doctor --json reports every probe with status, rows and GRANT, and the platform, version and features', async () => {
    const code = await doctor(null, '--json');
    assert.equal(code, EXIT.ok, err.join(''));
    const r = report();
    assert.equal(r.schemaVersion, 1);
    assert.ok(['sql-server', 'azure-sql-database', 'azure-sql-managed-instance'].includes(r.server.platform));
    assert.match(r.server.version, /^\d+\.\d+\.\d+\.\d+$/);
    for (const id of ['fileStats', 'waitStats', 'sessionWaits', 'perfCounters', 'logStats', 'logSpace', 'vlfs', 'extendedEvents', 'durabilityToggle']) {
      const p = probe(r, id);
      assert.ok(p, id);
      assert.ok(['ok', 'denied', 'not supported', 'empty', 'not applicable', 'error'].includes(p.status), `${id}: ${p.status}`);
      assert.ok('grant' in p && 'rows' in p && 'reads' in p, id);
    }
    if (target.kind === 'standin') {
      // sa holds everything: each probe ok, rows seen, nothing to grant.
      for (const p of r.probes.filter((x) => x.status !== 'not applicable')) assert.equal(p.status, 'ok', `${p.id}: ${p.reason}`);
      assert.ok((probe(r, 'fileStats').rows ?? 0) >= 2, 'data and log file');
      assert.ok((probe(r, 'perfCounters').rows ?? 0) > 0);
      assert.equal(r.grantScript, '');
      assert.deepEqual([r.features.profile.works, r.features.compare.works, r.features.trace.works], [true, true, true]);
      assert.equal(r.server.standIn, true);
    }
  });

  it('a login without server state: doctor names each missing probe and the GRANT, and says what will not work (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // needs a login the suite controls
    const code = await doctor(READER, '--json');
    assert.equal(code, EXIT.ok, err.join(''));
    const r = report();
    const permission = r.server.majorVersion >= 16 ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE';
    const grant = `USE [master];\nGRANT ${permission} TO [lens_reader];`;
    for (const id of ['fileStats', 'waitStats', 'perfCounters']) {
      assert.equal(probe(r, id).status, 'denied', id);
      assert.equal(probe(r, id).grant, grant, id);
    }
    // The workload's waits are filtered silently, not refused: "empty", with the same GRANT.
    assert.equal(probe(r, 'sessionWaits').status, 'empty');
    assert.equal(probe(r, 'sessionWaits').grant, grant);
    assert.equal(probe(r, 'extendedEvents').status, 'denied');
    assert.match(probe(r, 'extendedEvents').grant!, /GRANT ALTER ANY EVENT SESSION TO \[lens_reader\]/);
    assert.equal(probe(r, 'durabilityToggle').grant, 'USE [lab];\nGRANT ALTER ON DATABASE::[lab] TO [lens_reader];');
    assert.equal(r.features.compare.works, false);
    assert.equal(r.features.trace.works, false);
    assert.match(r.features.profile.notes.join(' '), /not measured/);
    assert.ok(r.grantScript.includes(grant));
  });

  it("the README's monitoring login (VIEW SERVER PERFORMANCE STATE only) reads files, waits and counters; the text output lists the rest (stand-in only)", async function () {
    if (target.kind === 'given') this.skip(); // needs a login the suite controls
    const code = await doctor(MONITOR);
    assert.equal(code, EXIT.ok, err.join(''));
    const text = out.join('');
    // Each probe by what it reads, not by its internal id (issue 28).
    assert.match(text, /ok\s+sys\.dm_io_virtual_file_stats joined to sys\.database_files — \d+ rows/);
    assert.match(text, /ok\s+sys\.dm_exec_session_wait_stats \(another session's waits\)/);
    assert.match(text, /ok\s+sys\.dm_os_performance_counters[^\n]* — \d+ rows/);
    assert.match(text, /denied\s+CREATE EVENT SESSION … ON SERVER/);
    assert.doesNotMatch(text, /\b(fileStats|sessionWaits|perfCounters|extendedEvents)\b/);
    assert.match(text, /> GRANT ALTER ANY EVENT SESSION TO \[lens_monitor\];/);
    assert.match(text, /compare\s+will not work/);
    assert.match(text, /Nothing was created or changed on the server\./);
  });

  it('changes nothing on the server: same DELAYED_DURABILITY, no event session, no new table (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // a shared real server has other users' sessions
    const state = async () => {
      const s = await connect(target.profile, target.secret, { role: 'monitor' });
      try {
        const [db] = await s.query("SELECT delayed_durability_desc AS dd FROM sys.databases WHERE name = N'lab';");
        const sessions = await s.query('SELECT name FROM sys.server_event_sessions;');
        const tables = await s.query("SELECT name FROM sys.all_objects WHERE type = 'U';");
        return JSON.stringify({ dd: db?.dd, sessions: sessions.map((x) => x.name), tables: tables.map((x) => x.name) });
      } finally {
        await s.close();
      }
    };
    const before = await state();
    assert.equal(await doctor(null, '--json'), EXIT.ok, err.join(''));
    assert.equal(await state(), before);
  });

  it('on Managed Instance doctor names the platform and the event_file rule (https blob URL, 40538) (stand-in only)', async function () {
    if (target.kind === 'given') this.skip(); // the stand-in plays MI
    const mi = await others.start({ speedFactor: 1, product: 'mi' });
    out = [];
    err = [];
    const code = await runCli(['doctor', '--server', '127.0.0.1', '--port', String(mi.profile.port), '--database', 'lab', '--user', 'sa', '--password-env', 'LENS_PW', '--encrypt', 'false', '--json'], io(mi.secret!));
    assert.equal(code, EXIT.ok, err.join(''));
    const r = report();
    assert.equal(r.server.platform, 'azure-sql-managed-instance');
    assert.equal(r.server.engineEdition, 8);
    assert.equal(probe(r, 'perfCounters').status, 'ok', probe(r, 'perfCounters').reason ?? '');
    assert.match(r.features.trace.notes.join(' '), /https Azure Blob Storage URL.*40538/);
  });
});
