// Issue 27: every command docs/ci.md shows — the install lines, `record`/`compare` with a test suite, the plain
// workflow's steps and the Action's `uses:` step — and docs/cli.md's CI gate example run here, as written, against
// the stand-in (a real SQL Server where the doc says one). A command the doc adds or changes without this test knowing
// it fails the first test. Only what cannot run here is replaced, each said where: the server (the stand-in, with
// the database `app_test` the workflows create by `docker exec`), the release's address (a local server handing out
// the tarball `npm pack` makes), `npm install -g`'s prefix (a scratch folder), `npm test` (a small suite whose
// autocommit INSERTs go through the CLI's own `profile`), `${{ secrets.* }}` (the stand-in's password).
// Figures are the stand-in model's, never SQL Server's.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { userSettingsPath } from '../../../src/cli/connectionOption';
import { scaledS1, startE2eStandin, STANDIN_PASSWORD, type RunningStandin } from '../../e2e/support/standin';
import { machineNode, packTarball, root, scratchDir } from '../scripts/support/pack';
import { actionlint, requireActionlint } from './support/actionlint';
import { codeBlocks, parseCommand, shLines, workflowSteps, type ShellCommand, type WorkflowStep } from './support/docShell';
import { runGateStep } from './support/runAction';

const CI_DOC = fs.readFileSync(path.join(root, 'docs/ci.md'), 'utf8');
const CLI_DOC = fs.readFileSync(path.join(root, 'docs/cli.md'), 'utf8');
const VERSION = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version as string;
const POSIX = process.platform !== 'win32';

interface Result { code: number; stdout: string; stderr: string }

/** npm's and npx's JavaScript entries beside the npm that runs the tests. */
function npmScript(name: 'npm' | 'npx'): string {
  const cli = process.env.npm_execpath;
  if (!cli || !/\.[cm]?js$/.test(cli)) throw new Error('npm_execpath is not set: run the tests through npm (npm test, npx mocha)');
  return name === 'npm' ? cli : path.join(path.dirname(cli), 'npx-cli.js');
}

describe('docs: every command docs/ci.md shows, and the CI gate of docs/cli.md, runs as written (issue 27)', function () {
  this.timeout(900_000);
  let standin: RunningStandin;
  let project: string;
  let prefix: string;
  let env: NodeJS.ProcessEnv;
  let release: http.Server;
  let releaseUrl: string;
  const served: string[] = [];

  function run(command: ShellCommand, options: { cwd?: string; extraEnv?: NodeJS.ProcessEnv } = {}): Promise<Result> {
    const [program, ...args] = command.argv;
    const childEnv = { ...env, ...command.assignments, ...options.extraEnv };
    // The documented `durability-lens` is the one `npm install -g` put into the scratch prefix (bin/ first on PATH).
    const [file, argv] = program === 'npm' || program === 'npx' ? [process.execPath, [npmScript(program), ...args]] : [program!, args];
    return new Promise((resolve, reject) => {
      const child = spawn(file, argv, { cwd: options.cwd ?? project, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => void (stdout += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => void (stderr += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  }

  before(async function () {
    if (!POSIX) {
      console.log('    the docs show POSIX shell commands (sh blocks, `-- npm test`); they run on Linux and macOS');
      this.skip();
    }
    const { tarball } = await packTarball();
    // A log device of 2 ms per write: fully durable commits wait for it, delayed ones do not (the stand-in's model).
    standin = await startE2eStandin({ logWriteLatencyMs: 2, databases: [{ name: 'app_test' }] });
    const home = scratchDir('lens-docs-home-');
    project = scratchDir('lens-docs-project-');
    prefix = scratchDir('lens-docs-prefix-');
    env = { ...process.env, HOME: home, USERPROFILE: home, APPDATA: path.join(home, 'AppData', 'Roaming'), npm_config_prefix: prefix, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}`, DURABILITY_LENS_PASSWORD: STANDIN_PASSWORD, DB_PASSWORD: STANDIN_PASSWORD, APP_TEST_DB_PASSWORD: STANDIN_PASSWORD, DURABILITY_LENS_REEXEC: undefined };
    // The profile `ci-db` of the docs, in the user's VS Code settings (where the CLI reads profiles).
    const settings = userSettingsPath(process.platform, env, home);
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, JSON.stringify({ 'durabilityLens.connections': [{ name: 'ci-db', server: '127.0.0.1', port: standin.server.port, database: 'app_test', user: 'sa', encrypt: false }] }, null, 2));
    // The user's project: a test suite whose INSERTs reach app_test through the CLI's own profile command, with the
    // suite's own password variable (record never hands its DURABILITY_LENS_PASSWORD to the program it measures: N4).
    fs.writeFileSync(path.join(project, 'suite.sql'), scaledS1(100));
    const launcher = path.join(root, 'bin', 'durability-lens');
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, scripts: { test: `node "${launcher}" profile --connection ci-db --file suite.sql --no-xe --yes --password-env APP_TEST_DB_PASSWORD` } }, null, 2));
    fs.writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify({ name: 'app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'app', version: '1.0.0' } } }, null, 2));
    fs.mkdirSync(path.join(project, 'db'));
    fs.writeFileSync(path.join(project, 'db', 'reset.sql'), scaledS1(200));
    fs.writeFileSync(path.join(project, 'reset.sql'), scaledS1(200));
    fs.mkdirSync(path.join(project, 'ci'));
    fs.copyFileSync(tarball, path.join(project, path.basename(tarball)));
    // The release's address, served from here: only the tarball path a release of this version has.
    release = http.createServer((req, res) => {
      const url = decodeURIComponent(req.url ?? '');
      served.push(url);
      const m = /^\/[^/]+\/durability-lens\/releases\/download\/v([\d.]+)\/durability-lens-([\d.]+)\.tgz$/.exec(url);
      if (!m || m[1] !== VERSION || m[2] !== VERSION) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(tarball));
    });
    await new Promise<void>((resolve) => release.listen(0, '127.0.0.1', resolve));
    releaseUrl = `http://127.0.0.1:${(release.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await standin?.close();
    await new Promise((resolve) => (release ? release.close(resolve) : resolve(undefined)));
  });

  const shCommands = () => codeBlocks(CI_DOC, 'sh').flatMap(shLines);
  const [recipeYaml, actionYaml] = codeBlocks(CI_DOC, 'yaml');
  const ours = (s: WorkflowStep) => s.run !== undefined || /durability-lens@/.test(s.uses ?? '');

  it('the doc shows exactly the commands this test runs, in this version', () => {
    assert.deepEqual(shCommands(), [
      `npm install -g ./durability-lens-${VERSION}.tgz      # the tarball downloaded from the release`,
      'durability-lens --version',
      `npx --yes --package ./durability-lens-${VERSION}.tgz durability-lens analyze db/   # once, without installing`,
      'durability-lens record --connection ci-db -- npm test            # the program, run as given (no shell)',
      'durability-lens record --connection ci-db --command "npm test"   # a command line, through the shell',
      'durability-lens record --connection ci-db --duration 5           # no program: a window (or until Ctrl+C)',
      'durability-lens compare --connection ci-db --modes DISABLED,FORCED --repeat 3 --yes --command "npm test"',
      'durability-lens compare --connection ci-db --yes -- npm test',
    ], `docs/ci.md's commands changed (or the version did: ${VERSION}); run the new ones here`);
    assert.deepEqual(workflowSteps(recipeYaml!).filter(ours).map((s) => s.name ?? s.run), ['npm ci', 'Install the Durability Lens CLI (the release\'s tarball)', 'Create the test database', 'T-SQL diagnostics for code scanning', 'Test suite under DISABLED and FORCED, gated on the baseline']);
    assert.deepEqual(workflowSteps(actionYaml!).filter(ours).map((s) => s.name ?? s.uses), ['Create the test database', '<owner>/durability-lens@v1']);
    assert.equal(workflowSteps(recipeYaml!).find((s) => s.env?.DURABILITY_LENS_VERSION)?.env?.DURABILITY_LENS_VERSION, VERSION);
  });

  it('installs the tarball with npm install -g, prints the version (with the machine\'s Node), analyzes with npx', async () => {
    const [install, version, npx] = shCommands().map((l) => parseCommand(l));
    const installed = await run(install!);
    assert.equal(installed.code, 0, installed.stderr);
    const machine = machineNode();
    const v = await run(version!, { extraEnv: machine ? { PATH: `${path.join(prefix, 'bin')}${path.delimiter}${machine.pathWithoutProject}` } : {} });
    assert.equal(v.stdout.trim(), `durability-lens ${VERSION}`, v.stderr);
    const analyzed = await run(npx!, { extraEnv: { npm_config_cache: path.join(prefix, 'npx-cache') } });
    assert.equal(analyzed.code, 0, analyzed.stderr);
    assert.match(analyzed.stdout, /reset\.sql: 3 batches, 1 loop, .* 1 diagnostic/);
  });

  it('records the test suite (as given, through the shell) and a window, and compares it across modes, twice', async () => {
    const commands = shCommands().slice(3).map((l) => parseCommand(l));
    for (const command of commands) {
      const r = await run(command);
      assert.equal(r.code, 0, `${command.text}\n${r.stderr.slice(-3000)}`);
      if (command.argv[1] === 'record' && command.argv.includes('npm')) {
        // The suite's 100 autocommit INSERTs (and its setup) flush the log of app_test at least once each.
        assert.match(r.stderr, /> app@1\.0\.0 test/, 'the program ran');
      }
      if (command.argv[1] === 'compare') assert.match(r.stderr, /DELAYED_DURABILITY of \[app_test\] is back to DISABLED \(verified\)\./);
    }
    assert.equal(standin.leftBehind('app_test').delayedDurability, 'DISABLED');
  });

  it('the plain workflow: npm ci, the CLI from the release address, analyze to SARIF, and the gated comparison', async () => {
    const steps = workflowSteps(recipeYaml!).filter(ours);
    const expand = (s: WorkflowStep) => parseCommand(s.run!.trim(), { ...s.env });
    const ci = await run(expand(steps[0]!));
    assert.equal(ci.code, 0, ci.stderr);
    // The release's address is github.com's; here it is the local server with the same path.
    const install = expand(steps[1]!);
    install.argv = install.argv.map((a) => a.replace(/^https:\/\/github\.com\//, releaseUrl));
    const installed = await run(install);
    assert.equal(installed.code, 0, installed.stderr);
    assert.deepEqual([...new Set(served)], [`/<owner>/durability-lens/releases/download/v${VERSION}/durability-lens-${VERSION}.tgz`]);
    // `docker exec … sqlcmd … CREATE DATABASE app_test` needs the container; the stand-in was started with app_test.
    assert.match(steps[2]!.run!, /-Q "CREATE DATABASE app_test"/);
    const analyzed = await run(expand(steps[3]!));
    assert.equal(analyzed.code, 0, analyzed.stderr);
    assert.equal(JSON.parse(fs.readFileSync(path.join(project, 'durability.sarif'), 'utf8')).version, '2.1.0');
    const gate = expand(steps[4]!);
    gate.argv = gate.argv.map((a) => a.replace('Server=localhost,1433;', `Server=127.0.0.1,${standin.server.port};`));
    // The checked-in baseline, "made once from a known-good commit with --save-baseline" (speed left ungated here).
    const making: ShellCommand = { ...gate, argv: gate.argv.flatMap((a, i, all) => (a === '--baseline' ? ['--save-baseline'] : a === '--junit' || all[i - 1] === '--junit' ? [] : [a])).concat('--tolerance', 'speedup=100%') };
    const made = await run(making);
    assert.equal(made.code, 0, made.stderr.slice(-3000));
    const gated = await run(gate);
    assert.equal(gated.code, 0, gated.stderr.slice(-3000));
    assert.match(fs.readFileSync(path.join(project, 'durability-gates.xml'), 'utf8'), /<testsuites name="durability-lens" tests="\d+" failures="0"/);
    assert.equal(JSON.parse(fs.readFileSync(path.join(project, 'durability.json'), 'utf8')).restoredSetting, 'DISABLED');
  });

  it('the Action example passes actionlint with its inputs checked, and its step runs: baseline, gate, summary', async function () {
    const steps = workflowSteps(actionYaml!);
    const step = steps.find((s) => s.uses === '<owner>/durability-lens@v1')!;
    const binary = requireActionlint(this);
    // As a local action (uses: ./) beside action.yml, actionlint checks every `with:` key against its inputs.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lens-docs-action-'));
    try {
      fs.mkdirSync(path.join(dir, '.github', 'workflows'), { recursive: true });
      fs.mkdirSync(path.join(dir, '.git'));
      fs.copyFileSync(path.join(root, 'action.yml'), path.join(dir, 'action.yml'));
      fs.writeFileSync(path.join(dir, '.github/workflows/doc.yml'), actionYaml!.replace('<owner>/durability-lens@v1', './'));
      const lint = actionlint(binary, ['.github/workflows/doc.yml'], dir);
      assert.ok(lint.ok, lint.output);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const inputs = Object.fromEntries(Object.entries(step.with!).map(([k, v]) => [k, String(v)
      .replace('${{ secrets.CI_SA_PASSWORD }}', STANDIN_PASSWORD)
      .replace('Server=localhost,1433;', `Server=127.0.0.1,${standin.server.port};`)]));
    const cli = `durability-lens-${VERSION}.tgz`;
    const baseline = await runGateStep({ ...inputs, cli, baseline: '', 'save-baseline': inputs.baseline!, tolerance: 'speedup=100%' }, project, env);
    assert.equal(baseline.code, 0, baseline.stderr.slice(-3000));
    const run2 = await runGateStep({ ...inputs, cli }, project, env);
    assert.equal(run2.code, 0, `${run2.stderr.slice(-3000)}\n${run2.summary}`);
    assert.match(run2.summary, /^## ✅ Durability Lens compare: done \(exit 0\)\n\n### Gates: all within the baseline/);
    assert.ok(fs.existsSync(run2.actionOutputs.sarif!), 'analyze: db/ wrote SARIF');
  });

  it('docs/cli.md\'s CI gate example confirms with --yes and passes --fail-if-speedup-below 1.5', async () => {
    const block = codeBlocks(CLI_DOC.slice(CLI_DOC.indexOf('## CI gate')), 'sh')[0]!;
    const [line, ...more] = shLines(block);
    assert.deepEqual(more, []);
    const command = parseCommand(line!, { DB_PASSWORD: STANDIN_PASSWORD });
    assert.ok(command.argv.includes('--yes'), 'without --yes the example only prints the plan and exits 5');
    assert.equal(command.assignments.DURABILITY_LENS_PASSWORD, STANDIN_PASSWORD);
    const r = await run(command);
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    const comparison = JSON.parse(fs.readFileSync(path.join(project, 'comparison.json'), 'utf8'));
    assert.ok(comparison.speedup.elapsed >= 1.5, `speedup ${comparison.speedup.elapsed}`);
  });
});
