// The repository's GitHub Action (action.yml → scripts/action/gate.js), issue 27: its metadata is well formed, its
// inputs become the CLI's arguments (never a shell line), and — run the way the Actions runner runs the step,
// against the stand-in — it records a baseline, gates a second run on it, writes the verdict and the gates to the
// job summary, leaves JSON, JUnit and SARIF for the artifact upload, and exits with the CLI's code.
// Figures here are the stand-in model's (one log flush per autocommit INSERT under DISABLED), not SQL Server's.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { EXIT_GATE_REGRESSION } from '../../../src/cli/commands/gateOptions';
import { EXIT } from '../../../src/cli/commands/shared';
import { scaledS1, startE2eStandin, STANDIN_PASSWORD, type RunningStandin } from '../../e2e/support/standin';
import { packTarball, scratchDir } from '../scripts/support/pack';
import { compositeActionProblems } from './support/actionMetadata';
import { loadAction, root, runGateStep } from './support/runAction';

// Plain CommonJS (the action runs it with Node, nothing built): required, typed here.
type Inputs = Record<string, unknown>;
const inputs = require(path.join(root, 'scripts/action/inputs.js')) as {
  InputError: new (message: string) => Error;
  readInputs(env: Record<string, string>): Inputs;
  planRun(inputs: Inputs, reportDir: string): { argv: string[]; analyzeArgv: string[] | null; files: Record<string, string | null> };
};
const summary = require(path.join(root, 'scripts/action/summary.js')) as {
  EXIT_MEANINGS: Record<number, string>;
  exitMeaning(code: number): string;
  summaryMarkdown(o: { command: string; exitCode: number; report: string; stderr: string; files: Record<string, string> }): string;
};

describe('the GitHub Action: action.yml (issue 27)', () => {
  const action = loadAction();

  it('is a well-formed composite action (GitHub\'s metadata syntax), and the check catches a broken one', () => {
    assert.deepEqual(compositeActionProblems(action), []);
    const broken = load(fs.readFileSync(path.join(root, 'action.yml'), 'utf8')) as { runs: { steps: Record<string, unknown>[] }; outputs: Record<string, Record<string, unknown>>; inputs: Record<string, unknown> };
    delete broken.runs.steps[1]!.shell;
    broken.runs.steps[1]!.run = 'durability-lens ${{ inputs.connection }}';
    delete broken.outputs['exit-code']!.value;
    (broken.inputs as Record<string, unknown>)['bad id!'] = { description: 'x' };
    const problems = compositeActionProblems(broken).join('\n');
    assert.match(problems, /step 2 \(gate\): shell is required with run/);
    assert.match(problems, /an input is spliced into the run script/);
    assert.match(problems, /output 'exit-code': description and value are required/);
    assert.match(problems, /input id 'bad id!'/);
  });

  it('hands every input to the script through env (the password as DURABILITY_LENS_PASSWORD), and the script reads each', () => {
    const step = action.runs.steps.find((s) => s.id === 'gate')!;
    const source = fs.readFileSync(path.join(root, 'scripts/action/inputs.js'), 'utf8');
    // Used by the steps themselves, not the script.
    const byAction = new Set(['node-version', 'working-directory']);
    for (const name of Object.keys(action.inputs)) {
      if (byAction.has(name)) continue;
      const envName = name === 'password' ? 'DURABILITY_LENS_PASSWORD' : `INPUT_${name.toUpperCase().replace(/-/g, '_')}`;
      assert.equal(step.env?.[envName], `\${{ inputs.${name} }}`, `${name} → ${envName}`);
      if (envName.startsWith('INPUT_')) assert.ok(source.includes(`'${envName.slice('INPUT_'.length)}'`) || source.includes(envName), `inputs.js reads ${envName}`);
    }
    assert.equal(step['working-directory'], '${{ inputs.working-directory }}');
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))!;
    assert.equal(upload.with?.path, '${{ steps.gate.outputs.report-dir }}');
    assert.match(upload.if ?? '', /^always\(\)/, 'the reports are uploaded when the gate fails too');
  });

  it('turns inputs into one argv element each, and refuses inputs that do not fit the command', () => {
    const base = inputs.readInputs({ INPUT_CONNECTION: 'Server=db;Database=app;User Id=ci', INPUT_WORKLOAD: 'db/reset.sql', INPUT_MODES: 'DISABLED,FORCED', INPUT_REPEAT: '3', INPUT_YES: 'true', INPUT_BASELINE: 'ci/base.json', INPUT_TOLERANCE: 'logFlushes=10%+3\n\nspeedup=0.5\n', INPUT_ARGS: '--sessions 1,4\n--no-xe', INPUT_ANALYZE: 'db/\n"quoted; rm -rf /".sql' });
    const plan = inputs.planRun(base, '/r');
    assert.deepEqual(plan.argv, ['compare', '--connection', 'Server=db;Database=app;User Id=ci', '--file', 'db/reset.sql', '--modes', 'DISABLED,FORCED', '--repeat', '3', '--yes', '--markdown', '--out', path.join('/r', 'durability.json'), '--baseline', 'ci/base.json', '--junit', path.join('/r', 'durability-gates.xml'), '--tolerance', 'logFlushes=10%+3', '--tolerance', 'speedup=0.5', '--sessions', '1,4', '--no-xe']);
    assert.deepEqual(plan.analyzeArgv, ['analyze', 'db/', '"quoted; rm -rf /".sql', '--sarif', path.join('/r', 'durability.sarif')]);
    const record = inputs.planRun(inputs.readInputs({ INPUT_COMMAND: 'record', INPUT_CONNECTION: 'c', INPUT_PROGRAM: 'npm test', INPUT_MODES: 'DISABLED,FORCED', INPUT_REPEAT: '3' }), '/r');
    assert.deepEqual(record.argv.slice(0, 5), ['record', '--connection', 'c', '--command', 'npm test']);
    assert.ok(!record.argv.includes('--modes'), 'record has no modes');
    const refuse = (env: Record<string, string>) => assert.throws(() => inputs.planRun(inputs.readInputs({ INPUT_CONNECTION: 'c', ...env }), '/r'), inputs.InputError);
    refuse({ INPUT_COMMAND: 'profile', INPUT_WORKLOAD: 'x.sql' });
    refuse({ INPUT_CONNECTION: '', INPUT_WORKLOAD: 'x.sql' });
    refuse({}); // compare without a workload or program
    refuse({ INPUT_WORKLOAD: 'x.sql', INPUT_PROGRAM: 'npm test' });
    refuse({ INPUT_COMMAND: 'record', INPUT_WORKLOAD: 'x.sql' });
    refuse({ INPUT_WORKLOAD: 'x.sql', INPUT_YES: 'yes please' });
    refuse({ INPUT_WORKLOAD: 'x.sql', INPUT_ARGS: 'sessions 4' });
  });

  it('names the CLI\'s exit codes as the CLI does, and escapes what it quotes in the summary', () => {
    for (const [name, code] of Object.entries(EXIT)) assert.ok(summary.EXIT_MEANINGS[code], `${name} (${code}) has a meaning`);
    assert.match(summary.exitMeaning(EXIT_GATE_REGRESSION), /gate .* regressed/);
    assert.match(summary.exitMeaning(EXIT.refused), /yes: true/);
    const md = summary.summaryMarkdown({
      command: 'compare',
      exitCode: 3,
      report: '',
      stderr: 'Gate FAILED: logFlushes (<img src=x onerror=alert(1)>|x): baseline 2, now 500\nLogin failed for ```` <b>sa</b>\n',
      files: { json: '/r/durability.json', junit: '' },
    });
    assert.match(md, /^## ❌ Durability Lens compare: could not connect \(exit 3\)/);
    assert.match(md, /\| ❌ FAILED \| logFlushes \(&lt;img src=x onerror=alert\(1\)&gt;\\\|x\): baseline 2, now 500 \|/);
    assert.match(md, /`````text\nLogin failed for ```` <b>sa<\/b>\n`````/, 'the log sits in a fence longer than its longest backtick run');
    assert.match(md, /Reports: json: `\/r\/durability\.json`\n$/);
  });
});

describe('the GitHub Action against the stand-in: baseline, gate, regression (issue 27)', function () {
  this.timeout(600_000);
  let standin: RunningStandin;
  let work: string;
  let connection: string;

  before(async function () {
    if (!fs.existsSync(path.join(root, 'dist', 'cli.js'))) {
      if (process.env.CI === 'true') assert.fail('dist/cli.js is not built (npm test builds it before mocha)');
      console.log('    dist/cli.js is not built: run `npm run build` to run the action against the stand-in');
      this.skip();
    }
    standin = await startE2eStandin();
    connection = `Server=127.0.0.1,${standin.server.port};Database=lab;User Id=sa;Encrypt=false`;
    work = scratchDir('lens-action-');
    fs.writeFileSync(path.join(work, 'workload.sql'), scaledS1(300));
    fs.mkdirSync(path.join(work, 'db'));
    fs.copyFileSync(path.join(root, 'samples', 's1-single-row-inserts.sql'), path.join(work, 'db', 'reset.sql'));
  });
  after(async () => standin?.close());

  const common = () => ({ connection, password: STANDIN_PASSWORD, workload: 'workload.sql', repeat: '1', yes: 'true', tolerance: 'speedup=100%' });

  it('saves a baseline, installing the CLI from a tarball named by a glob', async () => {
    const { tarball } = await packTarball();
    fs.copyFileSync(tarball, path.join(work, path.basename(tarball)));
    const run = await runGateStep({ ...common(), cli: 'durability-lens-*.tgz', 'save-baseline': 'baseline.json' }, work);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}\n${run.summary}`);
    assert.match(run.stdout, /npm install --no-audit --no-fund --no-save --omit=dev .*durability-lens-[\d.]+\.tgz/);
    assert.ok(fs.existsSync(path.join(work, 'baseline.json')));
    assert.match(run.summary, /^## ✅ Durability Lens compare: done \(exit 0\)/);
    assert.match(run.summary, /FORCED ran [\d.]+× faster than DISABLED/);
    assert.match(run.summary, /Stand-in figures/);
    const json = JSON.parse(fs.readFileSync(run.actionOutputs.json!, 'utf8'));
    assert.equal(json.kind, 'durability-lens.comparison');
    assert.equal(json.restoredSetting, 'DISABLED');
    assert.equal(run.actionOutputs['exit-code'], '0');
    assert.equal(run.actionOutputs.junit, '', 'no baseline, no JUnit');
    assert.ok(!run.stdout.includes('Server=127.0.0.1'), 'the connection string stays out of the log');
    assert.match(run.stdout, new RegExp(`^::add-mask::${STANDIN_PASSWORD}$`, 'm'));
  });

  it('passes the gate on an unchanged workload: every gate in the summary, JUnit without failures', async () => {
    const run = await runGateStep({ ...common(), baseline: 'baseline.json' }, work);
    assert.equal(run.code, 0, `${run.stderr}\n${run.summary}`);
    assert.match(run.summary, /### Gates: all within the baseline/);
    assert.match(run.summary, /\| ✅ passed \| logFlushes \(DISABLED\): baseline 300, now 300 — within the limit/);
    const junit = fs.readFileSync(run.actionOutputs.junit!, 'utf8');
    assert.match(junit, /<testsuites name="durability-lens" tests="13" failures="0"/);
  });

  it('a workload that commits per row three times as often fails the gate: exit 10, the regressed gates first in the summary, SARIF beside', async () => {
    fs.writeFileSync(path.join(work, 'workload.sql'), scaledS1(900));
    const run = await runGateStep({ ...common(), baseline: 'baseline.json', analyze: 'db' }, work);
    assert.equal(run.code, EXIT_GATE_REGRESSION, `${run.stderr}\n${run.summary}`);
    assert.match(run.summary, /^## ❌ Durability Lens compare: a gate of the baseline regressed \(exit 10\)/);
    // logFlushes, writeTransactions and writelogWaits under DISABLED; writeTransactions under FORCED.
    assert.match(run.summary, /### Gates: 4 regressed\n\n\| verdict \| gate \|\n\|---\|---\|\n\| ❌ FAILED \| logFlushes \(DISABLED\): baseline 300, now 900 — REGRESSION, above the limit 380/);
    assert.match(run.summary, /\| ❌ FAILED \| writeTransactions \(FORCED\): baseline 300, now 900/);
    assert.match(run.stdout, /^::error title=durability-lens compare::exit 10: a gate of the baseline regressed$/m);
    assert.match(fs.readFileSync(run.actionOutputs.junit!, 'utf8'), /<testsuites name="durability-lens" tests="13" failures="4"/);
    const sarif = JSON.parse(fs.readFileSync(run.actionOutputs.sarif!, 'utf8'));
    assert.equal(sarif.version, '2.1.0');
    assert.ok(sarif.runs[0].results.some((r: { ruleId: string }) => r.ruleId === 'autocommit-dml-in-loop'));
    // What the upload step (path: report-dir) takes along.
    assert.deepEqual(fs.readdirSync(run.actionOutputs['report-dir']!).sort(), ['durability-gates.xml', 'durability.json', 'durability.md', 'durability.sarif']);
    assert.equal(standin.leftBehind().delayedDurability, 'DISABLED');
  });

  it('without yes, compare changes nothing and the action exits 5 saying what to set', async () => {
    const run = await runGateStep({ ...common(), yes: 'false' }, work);
    assert.equal(run.code, EXIT.refused);
    assert.match(run.summary, /^## ❌ Durability Lens compare: refused: the plan was not confirmed \(set `yes: true`\)/);
    assert.match(run.summary, /<summary>Log \(the last lines\)<\/summary>[\s\S]*ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT/);
  });

  it('record of a time window measures without changing anything', async () => {
    const run = await runGateStep({ command: 'record', connection, password: STANDIN_PASSWORD, duration: '1' }, work);
    assert.equal(run.code, 0, `${run.stderr}\n${run.summary}`);
    assert.match(run.summary, /^## ✅ Durability Lens record: done \(exit 0\)/);
    assert.equal(JSON.parse(fs.readFileSync(run.actionOutputs.json!, 'utf8')).status, 'completed');
  });

  it('wrong inputs fail the step with exit 2 and say which input', async () => {
    const run = await runGateStep({ connection, workload: 'workload.sql', program: 'npm test' }, work);
    assert.equal(run.code, 2);
    assert.match(run.stdout, /^::error title=durability-lens action::workload and program: give one of them, not both$/m);
    assert.match(run.summary, /the action's inputs are wrong/);
  });
});

describe('the GitHub Action finds its CLI (issue 27)', function () {
  this.timeout(600_000);
  const cli = require(path.join(root, 'scripts/action/cli.js')) as {
    CliError: new (m: string) => Error;
    actionRepository(env: Record<string, string>): string | null;
    matchTarball(pattern: string, cwd: string): string | null;
    resolveCli(o: { cli: string; cwd: string; env: Record<string, string>; log: (l: string) => void }): Promise<string>;
  };

  it('knows the action\'s repository from the runner, also where a composite step leaves GITHUB_ACTION_REPOSITORY empty', () => {
    assert.equal(cli.actionRepository({ GITHUB_ACTION_REPOSITORY: 'acme/durability-lens' }), 'acme/durability-lens');
    assert.equal(cli.actionRepository({ GITHUB_ACTION_PATH: '/home/runner/work/_actions/acme/durability-lens/v1' }), 'acme/durability-lens');
    assert.equal(cli.actionRepository({ GITHUB_ACTION_PATH: 'D:\\a\\_actions\\acme\\durability-lens\\v1' }), 'acme/durability-lens');
    assert.equal(cli.actionRepository({ GITHUB_ACTION_PATH: '/work/durability-lens' }), null);
  });

  it('a glob names exactly one tarball', () => {
    const dir = scratchDir('lens-glob-');
    assert.throws(() => cli.matchTarball('durability-lens-*.tgz', dir), /no file matches/);
    fs.writeFileSync(path.join(dir, 'durability-lens-0.1.0.tgz'), '');
    assert.equal(cli.matchTarball('durability-lens-*.tgz', dir), path.join(dir, 'durability-lens-0.1.0.tgz'));
    fs.writeFileSync(path.join(dir, 'durability-lens-0.2.0.tgz'), '');
    assert.throws(() => cli.matchTarball('durability-lens-*.tgz', dir), /matches 2 files/);
  });

  it('without the cli input, an action checkout without dist/ installs the release tarball of its own version', async () => {
    const { tarball } = await packTarball();
    const version = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version as string;
    const requests: string[] = [];
    const http = await import('node:http');
    const server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url === `/acme/durability-lens/releases/download/v${version}/durability-lens-${version}.tgz`) res.writeHead(200).end(fs.readFileSync(tarball));
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      // What the runner checks out for `uses: acme/durability-lens@v1`: the sources, no dist/.
      const checkout = path.join(scratchDir('lens-action-checkout-'), '_actions', 'acme', 'durability-lens', 'v1');
      fs.mkdirSync(checkout, { recursive: true });
      fs.copyFileSync(path.join(root, 'package.json'), path.join(checkout, 'package.json'));
      const port = (server.address() as { port: number }).port;
      const lines: string[] = [];
      const launcher = await cli.resolveCli({ cli: '', cwd: checkout, env: { GITHUB_ACTION_PATH: checkout, GITHUB_SERVER_URL: `http://127.0.0.1:${port}`, RUNNER_TEMP: scratchDir('lens-runner-temp-') }, log: (l) => lines.push(l) });
      assert.deepEqual(requests, [`/acme/durability-lens/releases/download/v${version}/durability-lens-${version}.tgz`]);
      assert.match(launcher, /node_modules[\\/]durability-lens[\\/]bin[\\/]durability-lens$/);
      assert.ok(fs.existsSync(path.join(path.dirname(launcher), '..', 'dist', 'cli.js')));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
