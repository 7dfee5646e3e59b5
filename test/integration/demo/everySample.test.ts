// Issue 28, "Done when": every shipped sample completes Profile and Compare in the demo in under 60 s each, at its
// default size, on the stand-in `npm run demo` starts (scripts/demoStandin.ts) at the demo's speed — the stand-in
// really waits its modelled log writes and WAITFORs, as in the demo. Each sample's header states its footprint; the
// log it writes on the stand-in's model stays under 500 MB per run and within a factor of two of what the header says.
// Wall-clock times are measured (performance.now around the CLI run), never slept; figures are the model's.
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { RunResult } from '../../../src/profile/types';
import { statedFootprint } from '../../../src/extension/consent/footprint';
import { applyDemoCauses, DEMO_AG_DATABASE, DEMO_SPEED_FACTOR, DEMO_STANDIN_OPTIONS } from '../../../scripts/demoStandin';
import { runCase, SAMPLES } from '../causes/harness';
import { standinOnlySuite } from '../support';

const LIMIT_MS = 60_000;
const MAX_LOG_BYTES = 500 * 1024 * 1024;
const MB = 1024 * 1024;

/** How each sample is run in the demo: c3 on the AG database (a comparison there needs the explicit allowance). */
function howToRun(file: string): { database?: string; compareArgs: string[] } {
  if (file.startsWith('c3-')) return { database: DEMO_AG_DATABASE, compareArgs: ['--allow-availability-group'] };
  return { compareArgs: [] };
}

/** "about 40 MB of log" → [20 MB, 80 MB]; "under 1 MB of log" → [0, 1 MB]: what the header allows the model to write. */
function statedLogRange(footprint: string): { min: number; max: number; text: string } {
  const about = /about ([\d.,]+) (KB|MB|GB) of log/.exec(footprint);
  const unit = (u: string) => (u === 'KB' ? 1024 : u === 'MB' ? MB : 1024 * MB);
  if (about) {
    const bytes = Number(about[1]!.replace(/,/g, '')) * unit(about[2]!);
    return { min: bytes / 2, max: bytes * 2, text: about[0] };
  }
  const under = /under ([\d.,]+) (KB|MB|GB) of log/.exec(footprint);
  assert.ok(under, `the footprint states the log volume ("about N MB of log" or "under N MB of log"): ${footprint}`);
  return { min: 0, max: Number(under[1]!.replace(/,/g, '')) * unit(under[2]!), text: under[0] };
}

async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await run();
  return { result, ms: performance.now() - started };
}

describe('integration: every sample, at its default size, profiles and compares in the demo in under a minute (issue 28)', function () {
  this.timeout(10 * 60_000);
  standinOnlySuite("runs the demo's own stand-in (scripts/demoStandin.ts) at the demo's speed");

  const files = readdirSync(SAMPLES).filter((f) => f.endsWith('.sql')).sort();
  const standin = { standin: { ...DEMO_STANDIN_OPTIONS, speedFactor: DEMO_SPEED_FACTOR }, setup: applyDemoCauses };

  it('finds the samples the README lists', () => {
    assert.ok(files.length >= 9, files.join(', '));
  });

  for (const file of files) {
    it(`${file}: Profile and Compare each finish in < 60 s, its log stays as its header says and under 500 MB`, async () => {
      const script = readFileSync(join(SAMPLES, file), 'utf8');
      const footprint = statedFootprint(script);
      assert.ok(footprint, `samples/${file} states its footprint in its header`);
      assert.match(footprint, /\b(\d[\d,]*|0) rows?\b/, `the footprint states the rows: ${footprint}`);
      assert.match(footprint, /on a real server/, `the footprint states the time on a real server: ${footprint}`);
      const stated = statedLogRange(footprint);
      const { database, compareArgs } = howToRun(file);

      const profile = await timed(() => runCase({ ...standin, database }, script, ['profile', 'FILE', '--json']));
      const run = JSON.parse(profile.result.stdout) as RunResult;
      assert.equal(run.status, 'completed', JSON.stringify(run.errors));
      assert.ok(profile.ms < LIMIT_MS, `Profile of ${file} took ${Math.round(profile.ms)} ms`);
      const logBytes = run.logCounters.logBytesFlushed;
      assert.equal(typeof logBytes, 'number', `the stand-in reads its log counters: ${JSON.stringify(run.logCounters)}`);
      assert.ok(logBytes! <= MAX_LOG_BYTES, `${file} wrote ${(logBytes! / MB).toFixed(1)} MB of log in one run`);
      assert.ok(logBytes! >= stated.min && logBytes! <= stated.max,
        `${file}: the header says "${stated.text}", the stand-in's model wrote ${(logBytes! / MB).toFixed(1)} MB in one run`);

      const compare = await timed(() => runCase({ ...standin, database }, script, ['compare', 'FILE', '--json', '--yes', ...compareArgs]));
      const doc = JSON.parse(compare.result.stdout) as { restoredSetting: string | null; originalSetting: string | null; modes: { mode: string; runs: RunResult[] }[] };
      assert.ok(compare.ms < LIMIT_MS, `Compare of ${file} took ${Math.round(compare.ms)} ms`);
      assert.equal(doc.restoredSetting, doc.originalSetting);
      assert.deepEqual(doc.modes.map((m) => m.mode), ['DISABLED', 'FORCED']);
      for (const m of doc.modes) {
        for (const r of m.runs) {
          assert.equal(r.status, 'completed', `${m.mode}: ${JSON.stringify(r.errors)}`);
          assert.ok((r.logCounters.logBytesFlushed ?? 0) <= MAX_LOG_BYTES, `${m.mode} run wrote ${r.logCounters.logBytesFlushed} bytes of log`);
        }
      }

      // A sample whose header says how to sweep it (`--sessions 1,8`): that comparison too, and its headline tells the
      // curve — the gain at the fewest and at the most sessions (issue 28), not the first level's speed-up alone.
      const sweep = /--sessions ([\d,]+)/.exec(script)?.[1];
      if (sweep === undefined) return;
      const levels = sweep.split(',').map(Number);
      const swept = await timed(() => runCase({ ...standin, database }, script, ['compare', 'FILE', '--json', '--yes', '--sessions', sweep, '--out', 'MD', ...compareArgs]));
      assert.ok(swept.ms < LIMIT_MS, `Compare --sessions ${sweep} of ${file} took ${Math.round(swept.ms)} ms`);
      // The verdict section: its bold lines are the cause lead (when there is one) and then the headline.
      const verdict = swept.result.markdown.split('## Verdict')[1]?.split('\n## ')[0] ?? '';
      const headline = verdict.split('\n').filter((l) => /^\*\*.*\*\*$/.test(l)).at(-1) ?? '';
      assert.match(headline, new RegExp(`^\\*\\*FORCED gains [\\d.]+× at ${levels[0]} sessions?, [\\d.]+× at ${levels[levels.length - 1]} sessions \\(commits per second vs DISABLED`), swept.result.markdown.slice(0, 800));
    });
  }
});
