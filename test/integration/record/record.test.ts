// `durability-lens record -- <program>` on the suite's server (useTestServer), the program being a real separate OS
// process that talks to the server through another driver (python-tds): its 500 autocommit inserts show as ≈500 log
// flushes and ≈500 WRITELOG waits in the server waits; the program's exit code is reported and a failure is marked.
// The stand-in model gives exactly one flush and one WRITELOG wait per durable commit; a given server gets bounds.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import { useTestServer, waitFor } from '../support';
import { INSERT_ROWS, prepareProgram, pytdsAvailable } from './support/program';

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

/** Within `slack` of `exact` on a given server (other work of the server may add a little); exact on the stand-in. */
function near(actual: number, exact: number, standin: boolean, slack = 0.1): boolean {
  return standin ? actual === exact : actual >= exact && actual <= exact * (1 + slack) + 2;
}

describe('integration: record -- <program> (python-tds program)', function () {
  this.timeout(120000);
  const t = useTestServer();
  let dir: string;
  let out: string[];
  let err: string[];
  let table: string;
  let port: number;
  const io = () => ({ ...processIO(), env: t.cliEnv(), stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) });
  const conn = () => t.cliConnection();

  /** The tests whose program inserts through python-tds skip without it (.ci/run installs it). */
  function needsPytds(ctx: Mocha.Context): void {
    if (pytdsAvailable) return;
    ctx.test!.title += ' — skipped: python-tds is not importable (python3 -m pip install python-tds; .ci/run does)';
    ctx.skip();
  }

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'lens-record-'));
    // The program's own configuration (its environment): it never gets our password from us.
    ({ table, port } = await prepareProgram(t));
  });
  beforeEach(() => {
    out = [];
    err = [];
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('records 500 autocommit inserts of another process: ≈500 log flushes, ≈500 server-wide WRITELOG waits, exit code 0', async function () {
    needsPytds(this);
    const code = await runCli(['record', ...conn(), '--json', '--', 'python3', INSERT_ROWS, String(port), '500'], io());
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
    assert.ok(near(run.recording.writeTransactions, 500, !!t.standin, 0.02), `write transactions ${run.recording.writeTransactions}`);
    // One session, DISABLED: a flush per commit, counted alike by the counter and by the trace.
    const ceiling = t.standin ? 510 : 600;
    assert.ok(run.logCounters.logFlushes >= 500 && run.logCounters.logFlushes <= ceiling, `counter flushes ${run.logCounters.logFlushes}`);
    assert.ok(run.logFlushTrace.flushes >= 500 && run.logFlushTrace.flushes <= ceiling, `trace flushes ${run.logFlushTrace.flushes}`);
    assert.ok(Math.abs(run.logFlushTrace.flushes - run.logCounters.logFlushes) <= run.logCounters.logFlushes * 0.1, 'trace and counter agree');
    const writelog = run.serverWaits.find((w: { waitType: string }) => w.waitType === 'WRITELOG');
    assert.ok(writelog, 'WRITELOG in the server waits');
    assert.ok(writelog.waitingTasks >= (t.standin ? 500 : 450) && writelog.waitingTasks <= ceiling, `WRITELOG waits ${writelog.waitingTasks}`);
    const s = await t.connect();
    try {
      assert.equal(Number((await s.query(`SELECT COUNT(*) AS n FROM ${table};`))[0]!.n), 500, 'the program\'s rows');
    } finally {
      await s.close();
    }
    // Server-wide figures are labelled; per-session waits are not ours to measure and say so.
    assert.deepEqual(run.recording.serverWide, ['serverWaits']);
    assert.ok(run.recording.databaseWide.includes('logCounters'));
    assert.deepEqual(run.sessionWaits, []);
    assert.match(run.missing.find((m: { measurement: string }) => m.measurement === 'sessionWaits').reason, /own sessions, not ours/);
    assert.equal(run.workloadSpid, 0);
    assert.match(err.join(''), t.standin ? /Log flushes: 50\d · write transactions: 500 · WRITELOG waits \(server-wide\): 50\d/ : /Log flushes: [\d,]+ · write transactions: [\d,]+ · WRITELOG waits \(server-wide\): [\d,]+/);
    assert.deepEqual((await t.state()).eventSessions, [], 'the trace session was dropped');
    // causes (docs/run-result-schema.md "Causes"): every cause once, measured ones ranked by share, from the server's
    // waits (a recording's sessions are not ours), and the flush per commit found in the program's 500 commits.
    type Cause = { cause: string; share: number | null; ms: number | null; evidence: string[]; notMeasured: unknown; helpsDelayedDurability: unknown };
    const causes = run.causes as Cause[];
    assert.deepEqual(causes.map((c) => c.cause).sort(), ['ag-sync-commit', 'group-commit', 'hyperscale-log-service', 'log-disk', 'log-rate-governor', 'log-writer-limit', 'not-log', 'tempdb', 'tiny-flushes']);
    for (const c of causes) for (const k of ['label', 'summary', 'share', 'ms', 'evidence', 'helpsDelayedDurability', 'helpsWhy', 'fix', 'learn', 'notMeasured']) assert.ok(k in c, `causes[].${k} of ${c.cause}`);
    const shares = causes.map((c) => c.share);
    assert.ok(shares.every((v) => v === null || (v >= 0 && v <= 1)), shares.join(','));
    assert.deepEqual(shares.filter((v) => v !== null), [...shares.filter((v) => v !== null)].sort((a, b) => b! - a!), 'ranked by share');
    assert.ok(Math.abs(shares.reduce((a: number, v) => a + (v ?? 0), 0) - 1) < 0.01, `shares add up to the whole: ${shares.join(',')}`);
    assert.equal(run.causesBasis.scope, 'server-wide');
    assert.equal(run.causesBasis.dominant, causes[0]!.cause);
    assert.equal(run.causesBasis.cpuMs, null, 'no session CPU of a program that is not ours');
    const tiny = causes.find((c) => c.cause === 'tiny-flushes')!;
    assert.ok(tiny.share! > 0 && tiny.notMeasured === null, `a flush per commit: ${JSON.stringify(tiny)}`);
    assert.equal(tiny.helpsDelayedDurability, true);
    assert.match(tiny.evidence.join('\n'), /^WRITELOG \(server-wide\): .* — sys\.dm_os_wait_stats$/m, 'the server\'s waits, named as such');
    assert.match(tiny.evidence.join('\n'), t.standin ? /^1\.00 log flushes per commit \(50\d flushes, 500 write transactions\)/m : /log flushes per commit/);
  });

  it('the Markdown report labels the server-wide figures and says why the session rows are not measured', async function () {
    needsPytds(this);
    const code = await runCli(['record', ...conn(), '--', 'python3', INSERT_ROWS, String(port), '100'], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const md = out.join('');
    assert.match(md, t.standin ? /\| WRITELOG waits \(server-wide\) \| 10\d \|/ : /\| WRITELOG waits \(server-wide\) \| [\d,]+ \|/);
    assert.match(md, t.standin ? /\| Write transactions \| 100 \|/ : /\| Write transactions \| 1[01]\d \|/);
    assert.match(md, /Where the time went: per-session waits do not apply \(a recorded program's sessions are not ours\); WRITELOG across the server: /);
    assert.match(md, /## Not measured\n\n- The recorded program connects with its own sessions, not ours/);
  });

  it('a program that fails is marked, not hidden: exit 4, its exit code in the RunResult, the figures still there', async function () {
    needsPytds(this);
    const code = await runCli(['record', ...conn(), '--json', '--', 'python3', INSERT_ROWS, String(port), '20', '--exit', '3'], io());
    assert.equal(code, EXIT.workloadError, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.exitCode, 3);
    assert.equal(run.recording.failed, true);
    assert.ok(near(run.recording.writeTransactions, 20, !!t.standin), `write transactions ${run.recording.writeTransactions}`);
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

  it('--command runs a command line through the shell', async function () {
    needsPytds(this);
    const line = `python3 "${INSERT_ROWS}" ${port} 30 --batched`;
    const code = await runCli(['record', ...conn(), '--json', '--command', line], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const run = JSON.parse(out.join(''));
    assert.equal(run.command, line);
    assert.ok(near(run.recording.writeTransactions, 1, !!t.standin), `write transactions ${run.recording.writeTransactions}`);
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
    const s = await t.connect('workload');
    try {
      await s.execute(`INSERT INTO ${table} (v) VALUES (1); INSERT INTO ${table} (v) VALUES (2);`);
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
    assert.ok(near(run.recording.writeTransactions, 2, !!t.standin), `write transactions ${run.recording.writeTransactions}`);
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
    assert.deepEqual((await t.state()).eventSessions, [], 'the trace session was dropped');
  });

  it('usage errors change nothing: --junit without --baseline, both -- and --command', async () => {
    assert.equal(await runCli(['record', ...conn(), '--junit', join(dir, 'j.xml'), '--', 'true'], io()), EXIT.usage);
    assert.match(err.join(''), /--junit writes the gates of --baseline/);
    assert.equal(await runCli(['record', ...conn(), '--command', 'true', '--', 'true'], io()), EXIT.usage);
  });
});
