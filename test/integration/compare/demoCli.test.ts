// `npm run demo:cli` as a user runs it (README "Try it without a SQL Server"): it must bundle, run the comparison
// against its in-process stand-in, exit 0 and print the verdict block first.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { standinOnlySuite, useTestServer } from '../support';
import { s1Script } from '../samples';

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
  standinOnlySuite('the demo starts its own in-process stand-in by design: nothing of it reaches the given server');

  it('exits 0 and prints the verdict (speed-up, flushes per commit, data-loss exposure, restore) before the table', async () => {
    const r = await runDemo();
    assert.equal(r.code, 0, `demo:cli exited ${r.code}\n${r.stderr.slice(-2000)}`);
    assert.doesNotMatch(r.stderr, /Cannot find module/);
    const verdictAt = r.stdout.indexOf('## Verdict');
    const tableAt = r.stdout.indexOf('| Metric |');
    assert.ok(verdictAt > 0 && tableAt > verdictAt, `the verdict must come before the metric table:\n${r.stdout.slice(0, 1500)}`);
    const verdict = r.stdout.slice(verdictAt, tableAt);
    assert.match(verdict, /FORCED ran [\d.]+× faster than DISABLED \([\d.]+–[\d.]+×, 3 runs each; conclusive\)/);
    assert.match(verdict, /Log flushes per commit: DISABLED 1\.00 per commit \(500 flushes for 500 commits\), FORCED 0\.0\d+ per commit \(\d flush(es)? for 500 commits\)/);
    assert.match(verdict, /WRITELOG/);
    assert.match(verdict, /about [\d,]+ of this workload's commits/);
    assert.match(verdict, /Original setting DISABLED restored ✓ \(verified\)/);
    assert.match(r.stdout, /STAND-IN FIGURES/);
  });
});

describe('compare --markdown opens with the verdict block', function () {
  this.timeout(120_000);
  const h = useTestServer();

  it('the report\'s first section is "## Verdict": headline, compared, flushes per commit, top wait, exposure, restore', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lens-verdict-'));
    try {
      await writeFile(path.join(dir, 's1.sql'), s1Script(200, h.table('verdict_s1')));
      const original = (await h.state()).setting;
      const out: string[] = [];
      const err: string[] = [];
      const io = { ...processIO(), env: h.cliEnv(), stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
      const code = await runCli(['compare', path.join(dir, 's1.sql'), ...h.cliConnection(), '--journal', path.join(dir, 'journal.json'), '--repeat', '2', '--yes', '--markdown'], io);
      assert.equal(code, 0, err.join(''));
      const sections = out.join('').split('\n').filter((l) => l.startsWith('## '));
      assert.equal(sections[0], '## Verdict', sections.join(' | '));
      const verdict = out.join('').split('## Verdict\n\n')[1]!.split('\n\n').slice(0, 3).join('\n');
      // First the dominant cause of commit time and whether delayed durability is the lever (issue 29), then the speed-up.
      assert.match(verdict, /^\*\*[^\n]+: FORCED (saves \d+ %|saves no time beyond the noise|is \d+ % slower) — delayed durability [^\n]+\*\*\n\*\*FORCED (ran [\d.,]+× (faster|slower) than DISABLED \([\d.,]+(–[\d.,]+)?×, 2 runs each; conclusive\)|vs DISABLED: no conclusive difference .*)\*\*\n/);
      for (const label of ['Compared', 'Log flushes per commit', 'Where the time went (DISABLED)', 'Data-loss exposure (FORCED)', 'Database']) assert.match(verdict, new RegExp(`^- ${label.replace(/[()]/g, '\\$&')}: `, 'm'), label);
      assert.match(verdict, new RegExp(`^- Database: Original setting ${original} restored ✓ \\(verified\\)$`, 'm'));
      // Progress went to stderr in words, never the raw step ids.
      assert.match(err.join(''), /… Run \d of \d+: (DISABLED|FORCED)( \(warm-up\))? — Running the workload/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
