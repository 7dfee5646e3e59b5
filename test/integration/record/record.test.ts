// `durability-lens record -- <program>` against the stand-in, the program being a real separate OS process that talks
// to the server through another driver (python-tds): its 500 autocommit inserts show as ≈500 log flushes and ≈500
// WRITELOG waits in the server waits; the program's exit code is reported and a failure is marked.
// Figures are the stand-in model's (one flush and one WRITELOG wait per fully durable commit), not SQL Server's.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import { connect } from '../../../src/db/connect';
import { serverState, startStandin, type StandinHarness } from '../profile/standin';
import { waitFor } from '../support';
import { createRecordedRows, INSERT_ROWS, pytdsAvailable } from './support/program';

/** Whether `pid` still runs: not gone, and not a zombie (Linux /proc state Z) waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** The keys listed in docs/run-result-schema.md between <!-- keys:NAME --> markers. */
function documentedKeys(name: string): string[] {
  const doc = readFileSync(join(__dirname, '../../../docs/run-result-schema.md'), 'utf8');
  const section = doc.split(`<!-- keys:${name} -->`)[1]!.split(`<!-- /keys:${name} -->`)[0]!;
  return [...section.matchAll(/^\| `([A-Za-z]+)` \|/gm)].map((m) => m[1]!);
}

describe('integration: record -- <program> (stand-in, python-tds program)', function () {
  this.timeout(120000);
  let h: StandinHarness;
  let dir: string;
  let out: string[];
  let err: string[];
  const io = () => ({ ...processIO(), env: { LENS_PW: h.secret }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) });
  const conn = () => ['--server', '127.0.0.1', '--port', String(h.server.port), '--database', 'lab', '--user', 'sa', '--password-env', 'LENS_PW', '--encrypt', 'false'];

  before(async function () {
    if (!pytdsAvailable) {
      console.log('    python-tds is not importable: install it with `python3 -m pip install python-tds` (.ci/run does)');
      this.skip();
    }
    h = await startStandin();
    dir = await mkdtemp(join(tmpdir(), 'lens-record-'));
    // The program's own configuration: it never gets our password from us.
    process.env.LENS_TEST_PASSWORD = h.secret;
    await createRecordedRows(h);
  });
  beforeEach(() => {
    out = [];
    err = [];
  });
  after(async () => {
    delete process.env.LENS_TEST_PASSWORD;
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('records 500 autocommit inserts of another process: ≈500 log flushes, ≈500 server-wide WRITELOG waits, exit code 0', async () => {
    const code = await runCli(['record', ...conn(), '--json', '--', 'python3', INSERT_ROWS, String(h.server.port), '500'], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const run = JSON.parse(out.join(''));
    // Every documented key, the profile's and the recording's, is in the real output.
    const keys = [...documentedKeys('run'), ...documentedKeys('recording')];
    assert.ok(keys.includes('exitCode') && keys.includes('logCounters'), keys.join(','));
    for (const k of keys) assert.ok(k in run, `documented key ${k} missing from record --json`);
    for (const k of ['kind', 'ended', 'signal', 'spawnError', 'failed', 'serverWide', 'databaseWide', 'transactions', 'writeTransactions']) assert.ok(k in run.recording, `recording.${k}`);
    assert.match(run.command, /^python3 \S*insert_rows\.py \d+ 500$/);
    assert.equal(run.exitCode, 0);
    assert.ok(run.durationMs > 0);
    assert.equal(run.recording.kind, 'command');
    assert.equal(run.recording.failed, false);
    assert.equal(run.status, 'completed');
    // The program's output went to stderr, the report to stdout.
    assert.match(err.join(''), /inserted 500 rows one commit each/);
    // One write transaction per row (the table was created before the window opened).
    assert.equal(run.recording.writeTransactions, 500);
    assert.ok(run.logCounters.logFlushes >= 500 && run.logCounters.logFlushes <= 510, `counter flushes ${run.logCounters.logFlushes}`);
    assert.ok(run.logFlushTrace.flushes >= 500 && run.logFlushTrace.flushes <= 510, `trace flushes ${run.logFlushTrace.flushes}`);
    const writelog = run.serverWaits.find((w: { waitType: string }) => w.waitType === 'WRITELOG');
    assert.ok(writelog, 'WRITELOG in the server waits');
    assert.ok(writelog.waitingTasks >= 500 && writelog.waitingTasks <= 510, `WRITELOG waits ${writelog.waitingTasks}`);
    // Server-wide figures are labelled; per-session waits are not ours to measure and say so.
    assert.deepEqual(run.recording.serverWide, ['serverWaits']);
    assert.ok(run.recording.databaseWide.includes('logCounters'));
    assert.deepEqual(run.sessionWaits, []);
    assert.match(run.missing.find((m: { measurement: string }) => m.measurement === 'sessionWaits').reason, /own sessions, not ours/);
    assert.equal(run.workloadSpid, 0);
    assert.match(err.join(''), /Log flushes: 50\d · write transactions: 500 · WRITELOG waits \(server-wide\): 50\d/);
    assert.deepEqual((await serverState(h)).eventSessions, [], 'the trace session was dropped');
  });

  it('the Markdown report labels the server-wide figures and says why the session rows are not measured', async () => {
    const code = await runCli(['record', ...conn(), '--', 'python3', INSERT_ROWS, String(h.server.port), '100'], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const md = out.join('');
    assert.match(md, /\| WRITELOG waits \(server-wide\) \| 10\d \|/);
    assert.match(md, /\| Write transactions \| 100 \|/);
    assert.match(md, /Where the time went: per-session waits do not apply \(a recorded program's sessions are not ours\); WRITELOG across the server: /);
    assert.match(md, /## Not measured\n\n- The recorded program connects with its own sessions, not ours/);
  });

  it('a program that fails is marked, not hidden: exit 4, its exit code in the RunResult, the figures still there', async () => {
    const code = await runCli(['record', ...conn(), '--json', '--', 'python3', INSERT_ROWS, String(h.server.port), '20', '--exit', '3'], io());
    assert.equal(code, EXIT.workloadError, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.exitCode, 3);
    assert.equal(run.recording.failed, true);
    assert.equal(run.recording.writeTransactions, 20);
    assert.match(err.join(''), /exited with code 3/);
  });

  it('a program that cannot start is reported as such (exit 4), nothing hidden', async () => {
    const code = await runCli(['record', ...conn(), '--json', '--', join(dir, 'no-such-program')], io());
    assert.equal(code, EXIT.workloadError, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.exitCode, null);
    assert.equal(run.recording.ended, 'spawn-failed');
    assert.match(err.join(''), /could not be started \(spawn .*ENOENT\)/);
  });

  it('--command runs a command line through the shell', async () => {
    const line = `python3 "${INSERT_ROWS}" ${h.server.port} 30 --batched`;
    const code = await runCli(['record', ...conn(), '--json', '--command', line], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.command, line);
    assert.equal(run.recording.writeTransactions, 1);
  });

  it('without a program, records a window until the signal (Ctrl+C) and ends it as completed', async () => {
    const stop = new AbortController();
    const withStop = { ...io(), signal: stop.signal };
    const running = runCli(['record', ...conn(), '--json', '--no-sampling'], withStop);
    // Stop once the window is open (the workload step started), not after a fixed time.
    const deadline = Date.now() + 20000;
    while (!err.join('').includes('… workload')) {
      if (Date.now() > deadline) throw new Error(`the window never opened: ${err.join('')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const s = await connect(h.profile, h.secret, { role: 'workload' });
    try {
      await s.execute('INSERT INTO dbo.RecordedRows (v) VALUES (1); INSERT INTO dbo.RecordedRows (v) VALUES (2);');
    } finally {
      await s.close();
    }
    stop.abort();
    assert.equal(await running, EXIT.ok, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.command, null);
    assert.equal(run.recording.kind, 'window');
    assert.equal(run.recording.ended, 'stopped');
    assert.equal(run.status, 'completed');
    assert.equal(run.recording.writeTransactions, 2);
  });

  it('a cancel stops the program and everything it started (its process group), still measures, drops the trace: exit 130', async () => {
    const stop = new AbortController();
    // The shell runs python as a child (the `; echo` keeps the shell alive): the cancel must reach the grandchild too.
    const line = `python3 -c "import os, time; print('started', os.getpid(), flush=True); time.sleep(120)"; echo after`;
    const withStop = { ...io(), signal: stop.signal };
    const running = runCli(['record', ...conn(), '--json', '--command', line], withStop);
    const deadline = Date.now() + 20000;
    let pid = 0;
    while (!pid) {
      const m = /started (\d+)/.exec(err.join(''));
      if (m) pid = Number(m[1]);
      else if (Date.now() > deadline) throw new Error(`the program never started: ${err.join('')}`);
      else await new Promise((r) => setTimeout(r, 10));
    }
    stop.abort();
    assert.equal(await running, EXIT.cancelled, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.status, 'cancelled');
    assert.equal(run.recording.ended, 'cancelled');
    assert.equal(run.recording.failed, true);
    assert.equal(run.exitCode, null);
    assert.equal(run.recording.signal, 'SIGTERM');
    assert.ok(!/^after$/m.test(err.join('')), `the shell did not go on after its child: ${err.join('')}`);
    // Gone, or a zombie waiting for its (re)parent to reap it: either way it no longer runs.
    await waitFor(() => !isRunning(pid), `python grandchild ${pid} to end`);
    assert.deepEqual((await serverState(h)).eventSessions, [], 'the trace session was dropped');
  });

  it('usage errors change nothing: --junit without --baseline, both -- and --command', async () => {
    assert.equal(await runCli(['record', ...conn(), '--junit', join(dir, 'j.xml'), '--', 'true'], io()), EXIT.usage);
    assert.match(err.join(''), /--junit writes the gates of --baseline/);
    assert.equal(await runCli(['record', ...conn(), '--command', 'true', '--', 'true'], io()), EXIT.usage);
  });
});
