// Issue 27: "a release anyone can install". `npm pack` gives the CLI's tarball; `npm install -g` of it into an empty
// prefix with the machine's own Node (v20 here: Node >= 18 starts the launcher) needs nothing else, and the installed
// `durability-lens` answers --version, analyzes a sample and prints doctor's help; a command that connects says that
// it needs Node 22 instead of failing inside the driver.
import * as assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { machineNode, packTarball, root, scratchDir, type Packed } from './support/pack';
import { runNpm } from './support/npm';

const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe('release: the npm tarball of the CLI (issue 27)', function () {
  this.timeout(600_000);
  let packed: Packed;

  before(async function () {
    packed = await packTarball();
  });

  it('package.json is publishable: not private, a bin, a files list, a prepack that builds the CLI bundle', () => {
    assert.equal(pkg.private, undefined);
    assert.deepEqual(pkg.bin, { 'durability-lens': './bin/durability-lens' });
    assert.ok(Array.isArray(pkg.files) && pkg.files.includes('dist/cli.js') && pkg.files.includes('dist/cli.commands.js') && pkg.files.includes('bin/durability-lens'));
    assert.match(pkg.scripts.prepack, /webpack --mode production --config-name cli/);
    assert.equal(pkg.engines.node, '>=18', 'the launcher starts on Node 18; the connected commands say they need 22');
    // Everything the CLI runs is inside dist/cli.js and dist/cli.commands.js: installing the tarball installs nothing else.
    assert.deepEqual(Object.keys(pkg.dependencies ?? {}), []);
    assert.deepEqual(Object.keys(pkg.optionalDependencies ?? {}), []);
    assert.equal(pkg.repository, undefined, 'no made-up repository address (the release workflow sets the real one)');
  });

  it('holds the launcher, the CLI bundle, the samples and the docs — no sources, tests, source maps or extension bundles', () => {
    const samples = fs.readdirSync(path.join(root, 'samples')).filter((f) => f.endsWith('.sql')).map((f) => `samples/${f}`);
    const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
    const expected = ['CHANGELOG.md', 'LICENSE', 'README.md', 'bin/durability-lens', 'dist/cli.commands.js', 'dist/cli.commands.js.LICENSE.txt', 'dist/cli.js', 'package.json', ...samples, ...docs].sort();
    assert.deepEqual(packed.files, expected);
    assert.ok(fs.statSync(packed.tarball).size < 2_000_000, `${fs.statSync(packed.tarball).size} bytes`);
  });

  describe('installed with `npm install -g` and the machine\'s own Node', () => {
    let node: NonNullable<ReturnType<typeof machineNode>>;
    let prefix: string;
    let installedRoot: string;
    let env: NodeJS.ProcessEnv;

    /** The installed command, started as a shell would start it (the npm shim on PATH; .cmd on Windows). */
    function durabilityLens(args: readonly string[], cwd = root): SpawnSyncReturns<string> {
      const bin = process.platform === 'win32' ? path.join(prefix, 'durability-lens.cmd') : path.join(prefix, 'bin', 'durability-lens');
      return spawnSync(bin, [...args], { cwd, env, encoding: 'utf8', shell: process.platform === 'win32', timeout: 60_000 });
    }

    before(function () {
      const found = machineNode();
      if (!found) {
        console.log('    no Node on PATH outside the project: nothing to install the tarball with');
        this.skip();
      }
      node = found;
      prefix = scratchDir('lens-global-');
      // The machine's PATH without the project's node_modules/.bin (where npm put the pinned Node 22).
      env = { ...process.env, PATH: node.pathWithoutProject, DURABILITY_LENS_REEXEC: undefined, npm_config_global: undefined };
      const r = runNpm(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', packed.tarball], { cwd: prefix, env, node: node.node });
      assert.equal(r.status, 0, `npm install -g failed:\n${r.stdout}\n${r.stderr}`);
      installedRoot = process.platform === 'win32' ? path.join(prefix, 'node_modules', 'durability-lens') : path.join(prefix, 'lib', 'node_modules', 'durability-lens');
    });

    it('installs the package alone (no dependency folder)', () => {
      assert.ok(fs.existsSync(path.join(installedRoot, 'dist', 'cli.js')));
      assert.equal(fs.existsSync(path.join(installedRoot, 'node_modules')), false);
    });

    it('durability-lens --version prints the package version', () => {
      const r = durabilityLens(['--version']);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), `durability-lens ${pkg.version}`);
    });

    it('durability-lens analyze finds the autocommit loop in the S1 sample', () => {
      const r = durabilityLens(['analyze', path.join('samples', 's1-single-row-inserts.sql')]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /s1-single-row-inserts\.sql: 3 batches, 1 loop, 0 COMMITs, 1 DML statement repeated, 1 diagnostic/);
      assert.match(r.stdout, /autocommit-dml-in-loop/);
    });

    it('durability-lens doctor --help prints doctor\'s usage', () => {
      const r = durabilityLens(['doctor', '--help']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^Usage: durability-lens doctor --connection NAME\|CONNECTION_STRING/);
    });

    it('a command that connects says it needs Node 22 when the machine\'s Node is older, and runs nothing', function () {
      if (Number(node.version.split('.')[0]) >= 22) this.skip(); // the machine's Node runs everything
      const r = durabilityLens(['doctor', '--connection', 'Server=127.0.0.1,1;Database=x;User Id=u']);
      assert.equal(r.status, 1);
      assert.match(r.stderr, new RegExp(`^durability-lens doctor: needs Node 22 or later .*; this is Node ${node.version.replace(/\./g, '\\.')}\\.`));
      assert.match(r.stderr, /Install Node 22 \(https:\/\/nodejs\.org\)/);
      assert.match(r.stderr, /Nothing was run\.\n$/);
    });

    it('a Node older than 18 gets the launcher\'s message, not a syntax error', () => {
      const fake = path.join(prefix, 'node16.cjs');
      fs.writeFileSync(fake, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '16.20.2' } });\n");
      const r = spawnSync(node.node, ['--require', fake, path.join(installedRoot, 'bin', 'durability-lens'), '--version'], { env, encoding: 'utf8' });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /^durability-lens needs Node 18 or later to start, and Node 22 for the commands that connect to SQL Server; this is Node 16\.20\.2\./);
    });
  });
});
