// As a login holding only the README's recommended GRANTs (server state permission, ALTER ANY EVENT SESSION, and in
// the database VIEW DATABASE PERFORMANCE STATE + ALTER): `profile --json` of a 500-insert loop shows real per-file IO,
// session waits and log counters — or lists each in `missing` — and never a measured 0. On a real server
// (DURABILITY_LENS_TEST_SERVER, e.g. .github/workflows/real-server.yml's least-privileged login) the same holds.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/dispatch';
import { EXIT } from '../../src/cli/commands/shared';
import { processIO } from '../../src/cli/io';
import { connect } from '../../src/db/connect';
import type { RunResult } from '../../src/profile/types';
import { realServerConnectionString, useTestServer } from './support';

/** README "Permissions": what the tested least-privileged login holds (2022 names). */
const LENS_MONITOR = {
  name: 'lens_monitor',
  password: 'Monitor-1',
  databases: ['lab'],
  serverPermissions: ['VIEW SERVER PERFORMANCE STATE', 'ALTER ANY EVENT SESSION'],
  databasePermissions: { lab: ['VIEW DATABASE PERFORMANCE STATE', 'ALTER', 'CREATE TABLE'] },
};
const INSERTS = 500;

describe("integration: the README's least-privileged login", function () {
  this.timeout(120000);
  // speedFactor 1: the model's own pace, as this suite has always run.
  const target = useTestServer({ speedFactor: 1, logins: [LENS_MONITOR] });
  let dir: string;
  let out: string[];
  let err: string[];

  // The script's table, dropped as the admin before the server is let go (a given server keeps nothing of the suite).
  target.onCleanup(async () => {
    const admin = await connect(target.profile, target.secret, { role: 'workload' }).catch(() => null);
    await admin?.execute("IF OBJECT_ID(N'dbo.lens_lp') IS NOT NULL DROP TABLE dbo.lens_lp;").catch(() => undefined);
    await admin?.close();
  });

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'lens-lp-'));
    await writeFile(
      join(dir, 'loop.sql'),
      `-- durability-lens: setup
IF OBJECT_ID(N'dbo.lens_lp') IS NOT NULL DROP TABLE dbo.lens_lp;
CREATE TABLE dbo.lens_lp (id int IDENTITY(1,1) PRIMARY KEY, v int DEFAULT 1);
-- durability-lens: measure
DECLARE @i int = 0;
WHILE @i < ${INSERTS}
BEGIN
  INSERT INTO dbo.lens_lp DEFAULT VALUES;
  SET @i += 1;
END
`,
    );
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function cli(...args: string[]): Promise<number> {
    out = [];
    err = [];
    const io = { ...processIO(), env: { LENS_PW: LENS_MONITOR.password }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const connection =
      target.kind === 'given'
        ? ['--connection', realServerConnectionString()!]
        : ['--server', '127.0.0.1', '--port', String(target.profile.port), '--database', 'lab', '--user', LENS_MONITOR.name, '--password-env', 'LENS_PW', '--encrypt', 'false'];
    return runCli([...args, ...connection], io);
  }

  it(`profile --json of ${INSERTS} inserts: per-file IO, session waits and log counters are real figures or listed in missing — never a measured 0`, async () => {
    const code = await cli('profile', '--file', join(dir, 'loop.sql'), '--json', '--yes', '--journal', join(dir, 'journal.json'));
    assert.equal(code, EXIT.ok, err.join(''));
    const run = JSON.parse(out.join('')) as RunResult;
    const missing = new Set(run.missing.map((m) => m.measurement));
    for (const m of run.missing) assert.ok(m.reason.length > 0, `${m.measurement} says why`);

    const log = run.files.filter((f) => f.type === 'LOG');
    if (missing.has('fileStats')) assert.deepEqual(run.files, [], 'not measured: no figures at all');
    else {
      assert.ok(log.length > 0, 'the log file is listed');
      const writes = log.reduce((s, f) => s + f.writes, 0);
      // Each autocommit INSERT under DISABLED waits for its own log flush (the stand-in models exactly one).
      assert.ok(target.kind === 'standin' ? writes >= INSERTS : writes >= INSERTS * 0.9, `log writes ${writes}, not ≈${INSERTS}`);
    }

    const writelog = run.sessionWaits.find((w) => w.waitType === 'WRITELOG');
    if (missing.has('sessionWaits')) assert.deepEqual(run.sessionWaits, []);
    else assert.ok(writelog && writelog.waitingTasks > 0, `WRITELOG of the workload session: ${JSON.stringify(writelog)}`);

    if (missing.has('perfCounters')) assert.equal(run.logCounters.logFlushes, null);
    else assert.ok((run.logCounters.logFlushes ?? 0) > 0, `Log Flushes/sec delta ${run.logCounters.logFlushes}`);

    if (target.kind === 'standin') {
      // This login holds what the README asks for: nothing is missing.
      assert.deepEqual([...missing].filter((m) => m !== 'extendedEvents'), [], JSON.stringify(run.missing));
      assert.ok(writelog && writelog.waitingTasks >= INSERTS);
    }
  });

  it('doctor --json names what is missing and the GRANT for each probe that is not ok', async () => {
    const code = await cli('doctor', '--json');
    assert.equal(code, EXIT.ok, err.join(''));
    const report = JSON.parse(out.join('')) as { probes: { id: string; status: string; grant: string | null; reason: string | null; rows: number | null }[] };
    for (const p of report.probes) {
      if (p.status === 'ok' || p.status === 'not applicable') continue;
      assert.ok(p.reason, `${p.id} says why`);
      if (p.status === 'denied') assert.ok(p.grant, `${p.id} names the GRANT`);
    }
    for (const id of ['fileStats', 'sessionWaits', 'perfCounters']) {
      const p = report.probes.find((x) => x.id === id)!;
      if (target.kind === 'standin') assert.equal(p.status, 'ok', `${id}: ${p.reason}`);
      if (p.status === 'ok' && id !== 'sessionWaits') assert.ok((p.rows ?? 0) > 0, `${id} rows`);
    }
  });
});
