// `durability-lens compare --command` on the suite's server (useTestServer) with a real separate program (python-tds):
// the same plan, confirmation, lock, journal and restore as a T-SQL comparison; per-run exit codes; and the CI gates —
// a baseline saved from the batched program makes the per-row program fail with exit 10 and a JUnit file naming the
// metric. The stand-in's exact figures are asserted only there; a given server gets physical bounds and ratios.
import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser } from '@xmldom/xmldom';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import { EXIT_GATE_REGRESSION } from '../../../src/cli/commands/gateOptions';
import { FileRestoreJournal } from '../../../src/profile';
import type { DurabilityMode } from '../../../src/profile';
import { useTestServer } from '../support';
import { INSERT_ROWS, prepareProgram, pytdsAvailable } from './support/program';

interface DocRun { mode: string; command: string; exitCode: number | null; recording: { failed: boolean; writeTransactions: number }; logCounters: { logFlushes: number }; logFlushTrace: { flushes: number }; serverWaits: { waitType: string; waitingTasks: number }[] }

describe('integration: compare --command and CI gates (python-tds program)', function () {
  this.timeout(240000);
  const t = useTestServer();
  let dir: string;
  let out: string[];
  let err: string[];
  let port: number;
  let original: DurabilityMode;
  const io = () => ({ ...processIO(), env: t.cliEnv(), stdout: (text: string) => void out.push(text), stderr: (text: string) => void err.push(text) });
  const common = () => ['compare', ...t.cliConnection(), '--journal', join(dir, 'journal.json'), '--modes', 'DISABLED,FORCED', '--no-warmup'];
  const program = (...extra: string[]) => `python3 "${INSERT_ROWS}" ${port} 500${extra.length ? ` ${extra.join(' ')}` : ''}`;
  const database = () => `[${t.database.replace(/]/g, ']]')}]`;

  before(async function () {
    if (!pytdsAvailable) {
      console.log('    python-tds is not importable: install it with `python3 -m pip install python-tds` (.ci/run does)');
      this.skip();
    }
    dir = await mkdtemp(join(tmpdir(), 'lens-compare-command-'));
    ({ port } = await prepareProgram(t));
    original = (await t.state()).setting;
  });
  beforeEach(() => {
    out = [];
    err = [];
  });
  after(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('runs the program once per mode: FORCED has far fewer log flushes, per-run exit codes, the setting restored', async () => {
    const code = await runCli([...common(), '--repeat', '1', '--yes', '--json', '--command', program()], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const doc = JSON.parse(out.join(''));
    assert.equal(doc.restoredSetting, original);
    const [disabled, forced] = doc.modes.map((m: { runs: DocRun[] }) => m.runs[0]!) as DocRun[];
    assert.equal(disabled!.mode, 'DISABLED');
    assert.equal(forced!.mode, 'FORCED');
    for (const r of [disabled!, forced!]) {
      assert.equal(r.exitCode, 0);
      assert.equal(r.command, program());
      assert.ok(r.recording.writeTransactions >= 500 && r.recording.writeTransactions <= (t.standin ? 500 : 510), `write transactions ${r.recording.writeTransactions}`);
    }
    assert.ok(disabled!.logFlushTrace.flushes >= 500, `DISABLED flushes ${disabled!.logFlushTrace.flushes}`);
    // FORCED: commits do not wait; the log goes out in 60 KB blocks.
    assert.ok(forced!.logFlushTrace.flushes < (t.standin ? 20 : disabled!.logFlushTrace.flushes / 4), `FORCED flushes ${forced!.logFlushTrace.flushes}`);
    const forcedWaits = forced!.serverWaits.find((w) => w.waitType === 'WRITELOG')?.waitingTasks ?? 0;
    if (t.standin) assert.equal(forcedWaits, 0);
    else assert.ok(forcedWaits * 4 < (disabled!.serverWaits.find((w) => w.waitType === 'WRITELOG')?.waitingTasks ?? 0), `FORCED WRITELOG waits ${forcedWaits}`);
    assert.match(err.join(''), /Program runs:\n {2}run 1, (DISABLED|FORCED): exit code 0 in .*\n {2}run 2, (DISABLED|FORCED): exit code 0/);
    assert.ok(err.join('').includes(`ALTER DATABASE ${database()} SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;`), err.join(''));
    assert.equal((await t.state()).setting, original);
    assert.deepEqual(await new FileRestoreJournal(join(dir, 'journal.json')).list(), []);
  });

  it('without --yes prints the plan and runs nothing (the program never starts)', async () => {
    const marker = join(dir, 'never-created');
    const code = await runCli([...common(), '--command', `touch "${marker}"`], io());
    assert.equal(code, EXIT.refused);
    await assert.rejects(readFile(marker), /ENOENT/);
  });

  it('a failing program run is marked FAILED, the command exits 4, the setting is still restored', async () => {
    const code = await runCli([...common(), '--repeat', '1', '--yes', '--json', '--', 'python3', INSERT_ROWS, String(port), '10', '--exit', '2'], io());
    assert.equal(code, EXIT.workloadError, err.join(''));
    const doc = JSON.parse(out.join(''));
    const runs = doc.modes.flatMap((m: { runs: DocRun[] }) => m.runs) as DocRun[];
    assert.equal(runs.length, 2, 'a failing run does not stop the comparison');
    for (const r of runs) {
      assert.equal(r.exitCode, 2);
      assert.equal(r.recording.failed, true);
    }
    assert.match(err.join(''), /run 1, \w+: exit code 2 in .* — FAILED: The program python3 \S+ \d+ 10 --exit 2 exited with code 2/);
    assert.equal((await t.state()).setting, original);
  });

  it('a baseline from the batched program makes the per-row program fail: exit 10, the metric named, JUnit with the failure', async () => {
    const baselineFile = join(dir, 'baseline.json');
    const junitFile = join(dir, 'gates.xml');
    const saved = await runCli([...common(), '--repeat', '1', '--yes', '--command', program('--batched'), '--save-baseline', baselineFile], io());
    assert.equal(saved, EXIT.ok, err.join(''));
    const baseline = JSON.parse(await readFile(baselineFile, 'utf8'));
    assert.equal(baseline.kind, 'durability-lens.baseline');
    if (t.standin) assert.equal(baseline.source, 'stand-in');
    assert.ok(baseline.modes.DISABLED.figures.writeTransactions >= 1 && baseline.modes.DISABLED.figures.writeTransactions <= (t.standin ? 1 : 3), `batched write transactions ${baseline.modes.DISABLED.figures.writeTransactions}`);
    assert.ok(baseline.modes.DISABLED.figures.logFlushes < (t.standin ? 10 : 50), `batched flushes ${baseline.modes.DISABLED.figures.logFlushes}`);

    err = [];
    const code = await runCli([...common(), '--repeat', '1', '--yes', '--command', program(), '--baseline', baselineFile, '--junit', junitFile], io());
    assert.equal(code, EXIT_GATE_REGRESSION, err.join(''));
    assert.equal(EXIT_GATE_REGRESSION, 10);
    const text = err.join('');
    assert.match(text, t.standin ? /Gate FAILED: logFlushes \(DISABLED\): baseline \d, now 50\d — REGRESSION, above the limit/ : /Gate FAILED: logFlushes \(DISABLED\): baseline [\d,]+, now [\d,]+ — REGRESSION, above the limit/);
    assert.match(text, t.standin ? /Gate FAILED: writeTransactions \(DISABLED\): baseline 1, now 500/ : /Gate FAILED: writeTransactions \(DISABLED\): baseline \d, now 50\d/);
    // Per write transaction, one flush per one-row commit is no worse than the batched commit: those gates pass.
    assert.match(text, /Gate passed: logFlushesPerWriteTransaction \(DISABLED\)/);
    assert.equal((await t.state()).setting, original);

    const xml = new DOMParser().parseFromString(await readFile(junitFile, 'utf8'), 'text/xml');
    const suites = xml.documentElement!;
    assert.equal(suites.nodeName, 'testsuites');
    const suite = suites.getElementsByTagName('testsuite')[0]!;
    const cases = Array.from(suite.getElementsByTagName('testcase'));
    assert.equal(Number(suite.getAttribute('tests')), cases.length);
    const failed = cases.filter((c) => c.getElementsByTagName('failure').length > 0);
    assert.equal(Number(suite.getAttribute('failures')), failed.length);
    const flushes = cases.find((c) => c.getAttribute('name') === 'logFlushes (DISABLED)')!;
    const failure = flushes.getElementsByTagName('failure')[0]!;
    assert.match(failure.getAttribute('message')!, t.standin ? /logFlushes \(DISABLED\): baseline \d, now 50\d/ : /logFlushes \(DISABLED\): baseline [\d,]+, now [\d,]+/);
    assert.equal(failure.getAttribute('type'), 'regression');
  });
});
