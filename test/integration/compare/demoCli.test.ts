// `npm run demo:cli` as a user runs it (README "Try it without a SQL Server"): it must bundle, run the comparison
// against its in-process stand-in, exit 0 and print the verdict block first.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

function runDemo(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'demo:cli'], { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run demo:cli', function () {
  this.timeout(180_000);

  it('exits 0 and prints the verdict (speed-up, flushes per commit, data-loss exposure, restore) before the table', async () => {
    const r = await runDemo();
    assert.equal(r.code, 0, `demo:cli exited ${r.code}\n${r.stderr.slice(-2000)}`);
    assert.doesNotMatch(r.stderr, /Cannot find module/);
    const verdictAt = r.stdout.indexOf('## Verdict');
    const tableAt = r.stdout.indexOf('| Metric |');
    assert.ok(verdictAt > 0 && tableAt > verdictAt, `the verdict must come before the metric table:\n${r.stdout.slice(0, 1500)}`);
    const verdict = r.stdout.slice(verdictAt, tableAt);
    assert.match(verdict, /FORCED ran [\d.]+× faster than DISABLED \(range [\d.]+×–[\d.]+×, conclusive\)/);
    assert.match(verdict, /Log flushes per commit: DISABLED 1\.00 \(500 for 500\), FORCED 0\.0\d+ \(\d for 500\)/);
    assert.match(verdict, /WRITELOG/);
    assert.match(verdict, /about [\d,]+ of this workload's commits/);
    assert.match(verdict, /Original setting DISABLED restored ✓ \(verified\)/);
    assert.match(r.stdout, /STAND-IN FIGURES/);
  });
});
