import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { nodeVersionProblem } from '../../../src/cli/nodeVersion';

describe('cli/nodeVersion: the README CLI examples on an older Node', () => {
  it('profile on Node 20 gets a clear message naming the launcher, not a driver failure', () => {
    const text = nodeVersionProblem(['profile', '--connection', 'lab', 'samples/s1-single-row-inserts.sql'], '20.20.2')!;
    assert.match(text, /^durability-lens profile: needs Node 22 or later .* this is Node 20\.20\.2\./);
    // The launcher is named with the command; the arguments are not repeated (nodeVersionEcho.test.ts: passwords, shell).
    assert.match(text, /bin\/durability-lens profile with the same arguments/);
    assert.doesNotMatch(text, /output channel/);
  });

  it('analyze and --help run on any Node; Node 22 runs everything', () => {
    assert.equal(nodeVersionProblem(['analyze', 'x.sql'], '20.1.0'), null);
    assert.equal(nodeVersionProblem(['compare', '--help'], '18.0.0'), null);
    assert.equal(nodeVersionProblem(['compare', 'x.sql'], '22.3.0'), null);
    assert.match(nodeVersionProblem(['compare', 'x.sql'], 'v20.0.0')!, /durability-lens compare: needs Node 22/);
  });

  it('the launcher re-runs the CLI with the project Node 22 when started by the machine Node', function () {
    // The machine's own node (first `node` on PATH outside node_modules) is what a user types; skip when it is 22 already.
    const machineNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => require('node:fs').existsSync(p));
    if (!machineNode) this.skip();
    const root = path.resolve(__dirname, '../../..');
    if (!require('node:fs').existsSync(path.join(root, 'dist', 'cli.js'))) this.skip();
    const r = spawnSync(machineNode!, [path.join(root, 'bin', 'durability-lens'), 'compare', '--bogus'], { encoding: 'utf8', env: { ...process.env, DURABILITY_LENS_REEXEC: '' } });
    assert.doesNotMatch(r.stderr, /withResolvers|needs Node 22/);
    assert.match(r.stderr, /unknown option '--bogus'/);
  });
});

describe('cli usage errors are short (issue 20)', () => {
  it('a usage error prints the problem, the synopsis and where the options are — not the whole help', async () => {
    const { runCli } = await import('../../../src/cli/dispatch');
    let err = '';
    const io = { stdout: () => undefined, stderr: (t: string) => void (err += t), readFile: () => '' };
    assert.equal(await runCli(['compare', 'x.sql', '--repeat', 'zero'], io), 2);
    assert.match(err, /^durability-lens compare: --repeat must be a whole number ≥ 1, not 'zero'\.\nUsage: durability-lens compare --connection NAME\|CONNECTION_STRING --file workload\.sql\n\s+\[--modes/);
    assert.match(err, /See `durability-lens compare --help` for every option\.\n$/);
    assert.doesNotMatch(err, /Exit codes|--benign-include/);
    assert.ok(err.split('\n').length <= 6, err);
  });
});
