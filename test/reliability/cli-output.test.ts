// What the CLI hands on, as real child processes against the stand-in: a program run by `record --` / `compare
// --command` never sees the password variable (N4); `--json` stays valid JSON whatever a server string holds — every
// C0 control, DEL, C1 and bidi characters (N8); a hostile baseline is refused with a clear error before anything
// connects, and a gate that cannot be written never hides the restore outcome (N11).
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBaseline } from '../../src/report';
import type { RunResult } from '../../src/profile';
import { REPO, startCompare, watch, type CliChild } from './cliProcess';
import { leftBehind, WORKLOAD } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';

const DB = 'rel_output';
const SECRET = 'Pa55-N4-secret-value';

/** Every C0 control (U+0000–U+001F), DEL, two C1 controls (U+009B is CSI on its own) and a right-to-left override. */
const HOSTILE_TEXT = `hostile:${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')}\u007f\u0085\u009b\u202e:end`;

describe('reliability: what the CLI hands on (child processes)', function () {
  this.timeout(180000);
  let h: ReliabilityStandin;
  let dir: string;
  let workloadPath: string;
  const children: CliChild[] = [];

  before(async () => {
    h = await startReliabilityStandin();
    h.engine.addDatabase({ name: DB });
    dir = await mkdtemp(join(tmpdir(), 'lens-output-'));
    workloadPath = join(dir, 'workload.sql');
    await writeFile(workloadPath, WORKLOAD);
  });
  afterEach(() => {
    h.engine.faults.reset();
    for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  });
  after(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function cli(args: readonly string[], env: Record<string, string>): CliChild {
    const c = watch(spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
    children.push(c);
    return c;
  }

  const connection = () => ['--server', '127.0.0.1', '--port', String(h.server.port), '--database', DB, '--user', 'sa', '--encrypt', 'false', '--journal', join(dir, `journal-${Date.now()}`)];
  /** The program: `env` where there is one (the Done-when of issue 25), else node printing its environment. */
  const printEnv = process.platform === 'win32' ? [process.execPath, '-e', 'for (const [k, v] of Object.entries(process.env)) console.log(`${k}=${v}`)'] : ['env'];

  it('record -- env: the program sees neither the default password variable nor the one --password-env named', async () => {
    for (const [passwordEnv, extra] of [['DURABILITY_LENS_PASSWORD', []], ['MY_DB_SECRET', ['--password-env', 'MY_DB_SECRET']]] as const) {
      // With --password-env, the default variable holds a decoy: neither may reach the program.
      const env: Record<string, string> = passwordEnv === 'DURABILITY_LENS_PASSWORD' ? { DURABILITY_LENS_PASSWORD: h.secret } : { MY_DB_SECRET: h.secret, DURABILITY_LENS_PASSWORD: SECRET };
      const run = cli(['record', ...connection(), ...extra, '--no-xe', '--no-sampling', '--', ...printEnv], { ...env, MY_MARKER_VAR: 'visible' });
      assert.equal(await run.exited, 0, run.stderr());
      const out = run.stderr(); // the program's output goes to stderr
      assert.match(out, /^MY_MARKER_VAR=visible$/m, 'the program did run and inherit the rest of the environment');
      assert.doesNotMatch(out, new RegExp(`^${passwordEnv}=`, 'm'), `${passwordEnv} reached the program`);
      assert.doesNotMatch(out, /^DURABILITY_LENS_PASSWORD=/m);
      assert.ok(!out.includes(h.secret) && !out.includes(SECRET), 'no password value reached the program');
    }
  });

  it('compare --command: the program sees no password variable in any run', async () => {
    const run = startCompare(h, { database: DB, journal: join(dir, 'journal-cmd'), workload: null, extra: ['--command', process.platform === 'win32' ? `"${process.execPath}" -e "console.log(process.env.DURABILITY_LENS_PASSWORD ?? 'ABSENT')"` : 'echo "pw=${DURABILITY_LENS_PASSWORD:-ABSENT}"'] });
    children.push(run);
    assert.equal(await run.exited, 0, run.stderr());
    const lines = run.stderr().split('\n').filter((l) => /ABSENT|pw=/.test(l) && !/^…/.test(l));
    assert.ok(lines.length >= 2, `each run printed its line:\n${run.stderr()}`);
    assert.ok(lines.every((l) => /ABSENT/.test(l)), lines.join('\n'));
    assert.ok(!run.stderr().includes(h.secret));
    await waitUntil(() => h.server.connections === 0, 'every connection closed', 10000);
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
  });

  it('--json stays valid JSON when a server string holds every C0 control, DEL, C1 and bidi characters', async () => {
    // The server's error message for the workload's INSERT carries them (a fault of the stand-in).
    h.engine.faults.statements.push({ pattern: /INSERT INTO dbo\.rel_t/, number: 50001, class: 16, message: HOSTILE_TEXT, times: 1 });
    const run = cli(['profile', ...connection(), '--no-xe', '--no-sampling', '--yes', '--json', workloadPath], { DURABILITY_LENS_PASSWORD: h.secret });
    await run.exited;
    const out = run.stdout();
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/.test(out), 'no raw control or bidi character in the output');
    let doc: unknown;
    assert.doesNotThrow(() => (doc = JSON.parse(out)), `not valid JSON:\n${out.slice(0, 400)}`);
    const strings: string[] = [];
    const walk = (v: unknown) => {
      if (typeof v === 'string') strings.push(v);
      else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
    };
    walk(doc);
    assert.ok(strings.includes(HOSTILE_TEXT), 'the message decodes to exactly what the server sent');
  });

  it('a hostile baseline is refused with a clear error before anything connects; a gate file that cannot be written does not hide the restore outcome', async () => {
    const figures = { logFlushesPerWriteTransaction: 1, logBytesPerWriteTransaction: 100, writelogWaitsPerWriteTransaction: 1, logFlushes: 1, writeTransactions: 1, writelogWaits: 1 };
    const hostile = join(dir, 'hostile-baseline.json');
    await writeFile(hostile, `{"kind":"durability-lens.baseline","schemaVersion":1,"modes":{"__proto__":{"runs":1,"figures":${JSON.stringify(figures)}}},"tolerances":{"logFlushes":{"relative":1e999,"absolute":0}}}`);
    const requestsBefore = h.log.length;
    const refused = startCompare(h, { database: DB, journal: join(dir, 'journal-hostile'), workload: workloadPath, extra: ['--baseline', hostile] });
    children.push(refused);
    assert.equal(await refused.exited, 2, refused.stderr());
    assert.match(refused.stderr(), /--baseline .*hostile-baseline\.json: baseline modes\."__proto__" is not a mode \(one of DISABLED, ALLOWED, FORCED, UNKNOWN\)/);
    assert.equal(h.log.length, requestsBefore, 'nothing reached the server');

    // A valid baseline, and a JUnit file in a folder that does not exist: the gates fail to write after the restore.
    const good = join(dir, 'good-baseline.json');
    await writeFile(good, JSON.stringify(buildBaseline([] as RunResult[], null)));
    const run = startCompare(h, { database: DB, journal: join(dir, 'journal-junit'), workload: workloadPath, extra: ['--baseline', good, '--junit', join(dir, 'no-such-folder', 'gates.xml')] });
    children.push(run);
    assert.equal(await run.exited, 1, run.stderr());
    const err = run.stderr();
    const restored = err.search(/DELAYED_DURABILITY of \[rel_output\] is back to DISABLED \(verified\)/);
    const gateFailure = err.search(/the gates could not be checked or written \(ENOENT/);
    assert.ok(restored >= 0 && gateFailure > restored, `the restore outcome comes first, then the gate failure:\n${err}`);
    await waitUntil(() => h.server.connections === 0, 'every connection closed', 10000);
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
  });
});
