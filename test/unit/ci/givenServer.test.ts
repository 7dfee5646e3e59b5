// Issue 33 item 5: the integration suite runs on the server it is given. The stand-in is started as its own process
// (test/standin/main.ts, playing SQL Server 2022), the hosted-CI workflow's login script is run against it as sa, and
// the whole integration suite runs in a child mocha with DURABILITY_LENS_TEST_SERVER naming that login — as
// .github/workflows/real-server.yml does against SQL Server. From the child's JSON report and the server's own counters:
// the suite passed, the core suites ran on that server (not skipped) and at least 10,000 log writes reached it.
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../../src/db/connect';
import type { TediousSession } from '../../../src/db/session';
import type { ConnectionProfile } from '../../../src/db/types';
import { REAL_SERVER_ENV, onGivenServer } from '../../integration/support';
import { batches, renderWorkflow, ROOT, workflowLogin } from './permissionsSql';

/** A test file of each core suite; at least one of its tests must pass against the given server. */
const CORE_SUITES: Record<string, string> = {
  profile: 'test/integration/profile/profile.test.ts',
  compare: 'test/integration/compare/compare.test.ts',
  statements: 'test/integration/profile/statements.test.ts',
  concurrency: 'test/integration/compare/concurrency.test.ts',
  procedures: 'test/integration/profile/procedure.test.ts',
  record: 'test/integration/record/record.test.ts',
  tracing: 'test/integration/xe/lossless.test.ts',
};
const MIN_LOG_WRITES = 10_000;
const LOGIN_PASSWORD = 'Lens-Ci-standin-y7!';

interface MochaJson {
  stats: { tests: number; passes: number; failures: number; pending: number };
  passes: { fullTitle: string; file: string }[];
  failures: { fullTitle: string; file: string; err: { message?: string } }[];
  pending: { fullTitle: string; file: string }[];
}

/** Starts test/standin/main.ts on a free port as a separate process; resolves with the port it listens on. */
function startStandinProcess(): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/standin/main.ts', '--port', '0', '--version', '2022'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const m = /listening on 127\.0\.0\.1:(\d+)/.exec(output);
      if (m) resolve({ child, port: Number(m[1]), output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the stand-in exited (${code}) before listening: ${output}`)));
    child.once('error', reject);
  });
}

/** The log file's writes in lab, read through T-SQL as the server reports them (sys.dm_io_virtual_file_stats). */
async function logWrites(session: TediousSession): Promise<number> {
  const rows = await session.query(
    "SELECT f.num_of_writes FROM sys.dm_io_virtual_file_stats(DB_ID(N'lab'), NULL) AS f JOIN sys.database_files AS d ON d.file_id = f.file_id WHERE d.type_desc = N'LOG';",
  );
  assert.equal(rows.length, 1, 'one log file');
  return Number(rows[0]!.num_of_writes);
}

function runIntegrationSuite(connectionString: string, reportFile: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const mocha = join(ROOT, 'node_modules/mocha/bin/mocha.js');
    const env = { ...process.env, [REAL_SERVER_ENV]: connectionString };
    const child = spawn(process.execPath, [mocha, '--reporter', 'json', '--reporter-option', `output=${reportFile}`, 'test/integration/**/*.test.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('ci: the integration suite on a separately started server, as the real-server workflow runs it', function () {
  // The whole integration suite in a child process: about 2–3 minutes on 2 shared cores.
  this.timeout(10 * 60_000);
  let standin: Awaited<ReturnType<typeof startStandinProcess>> | undefined;
  let dir: string;

  before(function () {
    // Inside the child run this file is not part of the glob; when the variable is set here, a server is already given.
    if (onGivenServer()) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'lens-given-server-'));
  });
  after(() => {
    // Only the process this test started, by its id.
    if (standin?.child.exitCode === null) standin.child.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('passes, runs profile, compare, statements, concurrency, procedures and record there, and writes ≥ 10,000 log blocks to it', async () => {
    standin = await startStandinProcess();
    const sa: ConnectionProfile = { server: '127.0.0.1', port: standin.port, database: 'lab', authentication: { type: 'sql', user: 'sa' }, encrypt: false, trustServerCertificate: false, connectTimeoutMs: 5000 };
    const admin = await connect(sa, 'StandIn-1', { role: 'monitor' });
    let before: number;
    try {
      // The workflow's login script for SQL Server 2022 (what the stand-in plays), run as sa batch by batch.
      for (const batch of batches(renderWorkflow(workflowLogin(), '2022', LOGIN_PASSWORD))) await admin.execute(batch);
      before = await logWrites(admin);
    } finally {
      await admin.close();
    }

    const report = join(dir, 'integration.json');
    // The workflow's connection string, pointing at this stand-in.
    const connectionString = `Server=tcp:127.0.0.1,${standin.port};Database=lab;User Id=lens_monitor;Password=${LOGIN_PASSWORD};Encrypt=true;TrustServerCertificate=true`;
    const run = await runIntegrationSuite(connectionString, report);
    const json = JSON.parse(readFileSync(report, 'utf8')) as MochaJson;
    const failures = json.failures.map((f) => `${f.fullTitle}: ${f.err.message ?? ''}`).join('\n');
    assert.equal(json.stats.failures, 0, `integration suite failures on the given server:\n${failures}\n${run.output.slice(-3000)}`);
    assert.equal(run.code, 0, run.output.slice(-3000));

    // The core of the product ran against that server: at least one passing test in each core suite.
    for (const [name, file] of Object.entries(CORE_SUITES)) {
      const passed = json.passes.filter((p) => p.file.endsWith(file));
      assert.ok(passed.length > 0, `no ${name} test ran against the given server (${file}); skipped: ${json.pending.filter((p) => p.file.endsWith(file)).map((p) => p.fullTitle).join(' | ')}`);
    }
    // Skips are the exception and say why: every test this change made skip on a given server names its reason.
    for (const file of Object.values(CORE_SUITES)) {
      for (const p of json.pending.filter((x) => x.file.endsWith(file))) assert.match(p.fullTitle, / — (stand-in only|skipped): \S/, p.fullTitle);
    }
    assert.ok(json.passes.length >= 60, `${json.passes.length} tests passed against the given server`);

    const admin2 = await connect(sa, 'StandIn-1', { role: 'monitor' });
    try {
      const after = await logWrites(admin2);
      assert.ok(after - before >= MIN_LOG_WRITES, `log writes that reached the given server during the suite: ${after - before}`);
      // And the suite cleaned up after itself: no table or procedure of ours, no event session, the setting as found.
      const left = await admin2.query("SELECT name FROM sys.objects WHERE name LIKE N'lens[_]%' AND type IN ('U', 'P');");
      assert.deepEqual(left.map((r) => r.name), []);
      const sessions = await admin2.query("SELECT name FROM sys.server_event_sessions WHERE name LIKE N'durability[_]lens[_]%';");
      assert.deepEqual(sessions.map((r) => r.name), []);
      const [db] = await admin2.query("SELECT delayed_durability_desc FROM sys.databases WHERE name = N'lab';");
      assert.equal(db!.delayed_durability_desc, 'DISABLED');
    } finally {
      await admin2.close();
    }
  });
});
