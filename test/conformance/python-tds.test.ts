// python-tds (pytds, from PyPI: an independent pure-Python TDS client) against the stand-in and its real model:
// login, catalog views, DMVs, PRINT, and an error after result sets raised the way SQL Server's DONE_ERROR makes it
// raise (issue #11 finding 10: the old stand-in's DONE lacked the flag, so pytds returned normally).
// Skips with the reason when pytds is not importable here; CI's .ci/run installs python-tds.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createStandin, type Standin } from '../standin/model/index';
import { startStandinServer, type StandinServer } from '../standin/server';

const SCRIPT = join(__dirname, 'support', 'pytds_client.py');
const probe = spawnSync('python3', ['-c', 'import pytds'], { encoding: 'utf8' });
const pytdsAvailable = probe.status === 0;

interface PyMessage { number: number; severity: number; text: string }
interface PyError extends PyMessage { type: string; state: number; line: number }
interface PyBatch { resultSets: Array<{ columns: string[]; rows: unknown[][] }>; messages: PyMessage[]; error: PyError | null }
interface PyReport { login: { ok: true } | { ok: false; error: PyError }; batches: PyBatch[] }

/** Runs support/pytds_client.py with one JSON request on stdin and parses its JSON report. */
function runPytds(port: number, batches: string[], login: { user?: string; password?: string; database?: string } = {}): Promise<PyReport> {
  const child = spawn('python3', [SCRIPT], { timeout: 30_000 });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.end(JSON.stringify({ port, user: login.user ?? 'sa', password: login.password ?? 'StandIn-1', database: login.database ?? 'lab', batches }));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      if (status !== 0) return reject(new Error(`pytds_client.py exited ${status}: ${stderr.slice(0, 600)}`));
      resolve(JSON.parse(stdout) as PyReport);
    });
  });
}

describe('python-tds against the stand-in', function () {
  this.timeout(40_000);
  let standin: Standin;
  let server: StandinServer;

  before(async function () {
    if (!pytdsAvailable) {
      console.log(`    python-tds is not importable (${(probe.stderr || probe.error?.message || '').trim().split('\n').pop()}): ` +
        'install it with `python3 -m pip install python-tds` to run these checks (.ci/run does)');
      this.skip();
    }
    standin = createStandin({ speedFactor: 0 });
    server = await startStandinServer({ engine: standin });
  });
  after(async () => {
    await server?.close();
  });

  it('logs in as sa and as a SQL login, and reports login failure 18456 as pytds raises it', async () => {
    standin.addLogin({ name: 'py_reader', password: 'Py-Reader-1' });
    const ok = await runPytds(server.port, ['SELECT DB_NAME() AS db, SUSER_SNAME() AS login, @@SPID AS spid'], { user: 'py_reader', password: 'Py-Reader-1' });
    assert.deepEqual(ok.login, { ok: true });
    const [row] = ok.batches[0]!.resultSets[0]!.rows;
    assert.deepEqual(row!.slice(0, 2), ['lab', 'py_reader']);
    assert.ok(Number(row![2]) >= 51);
    const bad = await runPytds(server.port, [], { password: 'wrong' });
    assert.equal(bad.login.ok, false);
    assert.equal(!bad.login.ok && bad.login.error.number, 18456);
    assert.match(!bad.login.ok ? bad.login.error.text : '', /Login failed for user 'sa'\./);
  });

  it('reads catalog views: sys.databases delayed_durability_desc and sys.database_files of the current database', async () => {
    const r = await runPytds(server.port, [
      "SELECT name, delayed_durability_desc, recovery_model_desc FROM sys.databases WHERE name = N'lab'",
      'SELECT file_id, type_desc, name FROM sys.database_files ORDER BY file_id',
    ]);
    assert.deepEqual(r.batches[0]!.resultSets[0]!.rows, [['lab', 'DISABLED', 'FULL']]);
    assert.deepEqual(r.batches[1]!.resultSets[0]!.rows, [[1, 'ROWS', 'lab'], [2, 'LOG', 'lab_log']]);
  });

  it('receives nchar(128) perf-counter names padded, and LIKE on them behaves as on SQL Server', async () => {
    const r = await runPytds(server.port, [
      "SELECT TOP 1 object_name, RTRIM(counter_name) AS counter_name FROM sys.dm_os_performance_counters WHERE counter_name = N'Log Flushes/sec' AND instance_name = N'lab'",
      "SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE object_name LIKE N'%:Databases'",
      "SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE RTRIM(object_name) LIKE N'%:Databases'",
      'SELECT session_id, wait_type FROM sys.dm_exec_session_wait_stats WHERE session_id = @@SPID',
    ]);
    const [name, counter] = r.batches[0]!.resultSets[0]!.rows[0] as [string, string];
    assert.equal(name.length, 128);
    assert.equal(name.trimEnd(), 'SQLServer:Databases');
    assert.equal(counter, 'Log Flushes/sec');
    assert.deepEqual(r.batches[1]!.resultSets[0]!.rows, [[0]]);
    assert.ok(Number(r.batches[2]!.resultSets[0]!.rows[0]![0]) > 0);
    assert.equal(r.batches[3]!.error, null);
  });

  it('collects PRINT output as a severity-0 message without raising', async () => {
    const r = await runPytds(server.port, ["PRINT N'hello from the stand-in'; SELECT 7 AS seven"]);
    assert.equal(r.batches[0]!.error, null);
    assert.deepEqual(r.batches[0]!.messages, [{ number: 0, severity: 0, text: 'hello from the stand-in' }]);
    assert.deepEqual(r.batches[0]!.resultSets[0]!.rows, [[7]]);
  });

  // MS-TDS 2.2.7.6 DONE_ERROR (https://learn.microsoft.com/openspecs/windows_protocols/ms-tds/3c06f110-98bd-4d5b-b836-b1ba66452cb7):
  // pytds raises when a DONE carries it, so the error after two result sets must surface as an exception.
  it('raises on SELECT 1 SELECT 2 RAISERROR(N\'boom\',16,1) after delivering both result sets', async () => {
    const r = await runPytds(server.port, ["SELECT 1 AS a SELECT 2 AS b RAISERROR(N'boom',16,1)", 'SELECT 3 AS c']);
    const [b] = r.batches;
    assert.deepEqual(b!.resultSets.map((set) => set.rows), [[[1]], [[2]]]);
    assert.ok(b!.error, 'pytds raised');
    assert.deepEqual([b!.error.type, b!.error.number, b!.error.severity, b!.error.text], ['OperationalError', 50000, 16, 'boom']);
    assert.deepEqual(r.batches[1]!.resultSets[0]!.rows, [[3]], 'the connection stays usable');
  });

  it('raises 8134 hit after the first row was sent, with that row delivered', async () => {
    const r = await runPytds(server.port, ['SELECT 6 / (column_id - 2) AS q FROM sys.all_columns']);
    assert.equal(r.batches[0]!.error?.number, 8134);
    assert.equal(r.batches[0]!.error?.text, 'Divide by zero error encountered.');
  });

  it('sets up a least-privileged login through T-SQL as a DBA would, and that login then sees what SQL Server shows it', async () => {
    const setup = await runPytds(server.port, [
      "CREATE LOGIN [dl_py] WITH PASSWORD = N'Dl-Py-Pass-1', CHECK_POLICY = OFF",
      'USE lab; CREATE USER [dl_py] FOR LOGIN [dl_py]',
      'GRANT VIEW SERVER PERFORMANCE STATE TO [dl_py]; GRANT ALTER ANY EVENT SESSION TO [dl_py]',
      'USE lab; GRANT ALTER ON DATABASE::[lab] TO [dl_py]; GRANT VIEW DATABASE STATE TO [dl_py]',
    ], { database: 'master' });
    assert.deepEqual(setup.batches.map((b) => b.error), [null, null, null, null]);
    const r = await runPytds(server.port, [
      "SELECT HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE') AS vsps, HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW ANY DEFINITION') AS vad, HAS_PERMS_BY_NAME(N'lab', 'DATABASE', 'ALTER') AS alter_lab",
      'SELECT COUNT(*) AS n FROM sys.master_files',
      'SELECT COUNT(*) AS n FROM sys.database_files',
    ], { user: 'dl_py', password: 'Dl-Py-Pass-1' });
    assert.deepEqual(r.login, { ok: true });
    // sys.master_files: no rows without CREATE DATABASE / ALTER ANY DATABASE / VIEW ANY DEFINITION; sys.database_files: public.
    assert.deepEqual(r.batches.map((b) => b.resultSets[0]!.rows[0]), [[1, 0, 1], [0], [2]]);
  });

  it('raises 300/297 for a server DMV without the permission, and 2627 as an IntegrityError', async () => {
    standin.addLogin({ name: 'py_plain', password: 'Py-Plain-1' });
    const denied = await runPytds(server.port, ['SELECT COUNT(*) FROM sys.dm_os_wait_stats'], { user: 'py_plain', password: 'Py-Plain-1' });
    assert.deepEqual(denied.batches[0]!.messages.map((m) => m.number), [300, 297]);
    assert.ok(denied.batches[0]!.error);
    const dup = await runPytds(server.port, ['CREATE TABLE #d (id int PRIMARY KEY); INSERT INTO #d VALUES (1); INSERT INTO #d VALUES (1);']);
    assert.equal(dup.batches[0]!.error?.type, 'IntegrityError');
    assert.equal(dup.batches[0]!.error?.number, 2627);
  });
});
