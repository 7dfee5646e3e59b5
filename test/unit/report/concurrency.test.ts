// The concurrency curve from RunResults (report/concurrency.ts) and how it shows: per level and mode, medians and
// spread, "not measured" with why, the verdict, the Markdown section, the panel's table and one chart per metric.
import { strict as assert } from 'node:assert';
import { buildComparisonModel, buildConcurrencyModel, comparisonDocument, firstLevelRuns, toMarkdown } from '../../../src/report';
import { buildVerdict } from '../../../src/report/verdict';
import type { DurabilityMode, RunResult } from '../../../src/profile/types';
import { concurrencySection, concurrencySeries } from '../../../src/webview/concurrencyView';
import { renderPanel, toHtml } from '../../../src/webview/view';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { comparisonFixture } from '../webview/fixtureModel';
import { makeRun } from './runFixture';

/** A run on `sessions` connections: `commits` commits in `wallMs`, `flushes` flushes of 4 KB, `writelogMs` summed WRITELOG. */
function sweepRun(mode: DurabilityMode, sessions: number, f: { commits: number; flushes: number; wallMs: number; writelogMs: number | null; warmup?: boolean }): RunResult {
  const run = makeRun({ mode, commits: f.commits, flushesCounter: f.flushes, elapsedMs: f.wallMs, log: { writes: f.flushes, bytes: f.flushes * 4096, stallMs: 0 }, ...(f.warmup ? { warmup: true } : {}) });
  return {
    ...run,
    concurrency: {
      sessions,
      wallMs: f.wallMs,
      parameter: null,
      perSession: [],
      writelog: f.writelogMs === null ? null : { waits: f.commits, waitTimeMs: f.writelogMs },
      ...(f.writelogMs === null ? { writelogNotMeasured: 'no VIEW SERVER STATE' } : {}),
    },
  };
}

const RUNS: RunResult[] = [
  sweepRun('DISABLED', 1, { commits: 1000, flushes: 1000, wallMs: 2000, writelogMs: 1800, warmup: true }),
  sweepRun('DISABLED', 1, { commits: 1000, flushes: 1000, wallMs: 2000, writelogMs: 1800 }),
  sweepRun('DISABLED', 1, { commits: 1000, flushes: 1000, wallMs: 2500, writelogMs: 1900 }),
  sweepRun('FORCED', 1, { commits: 1000, flushes: 10, wallMs: 200, writelogMs: 0 }),
  sweepRun('FORCED', 1, { commits: 1000, flushes: 10, wallMs: 250, writelogMs: 0 }),
  sweepRun('DISABLED', 8, { commits: 8000, flushes: 2000, wallMs: 4000, writelogMs: 24000 }),
  sweepRun('DISABLED', 8, { commits: 8000, flushes: 2000, wallMs: 4000, writelogMs: 24000 }),
  sweepRun('FORCED', 8, { commits: 8000, flushes: 80, wallMs: 2000, writelogMs: 0 }),
  sweepRun('FORCED', 8, { commits: 8000, flushes: 80, wallMs: 2000, writelogMs: null }),
];

describe('report: concurrency curve', () => {
  it('one point per level and mode: medians over the measured runs, spread, flush size, WRITELOG per commit', () => {
    const m = buildConcurrencyModel(RUNS)!;
    assert.deepEqual(m.levels, [1, 8]);
    assert.deepEqual(m.modes, ['DISABLED', 'FORCED']);
    assert.deepEqual(m.points.map((p) => [p.sessions, p.mode, p.runs]), [[1, 'DISABLED', 2], [1, 'FORCED', 2], [8, 'DISABLED', 2], [8, 'FORCED', 2]]);
    const d1 = m.points[0]!;
    assert.equal(d1.commitsPerSec, (500 + 400) / 2);
    assert.deepEqual([d1.spread.commitsPerSec!.min, d1.spread.commitsPerSec!.max], [400, 500]);
    assert.equal(d1.flushesPerCommit, 1);
    assert.equal(d1.averageFlushBytes, 4096);
    assert.equal(d1.writelogMsPerCommit, 1.85);
    const d8 = m.points[2]!;
    assert.equal(d8.commitsPerSec, 2000);
    assert.equal(d8.flushesPerCommit, 0.25);
    assert.equal(d8.writelogMsPerCommit, 3);
    // One FORCED run at 8 sessions could not read the sessions' waits: its figure is missing, never 0, and says why.
    const f8 = m.points[3]!;
    assert.equal(f8.spread.writelogMsPerCommit!.n, 1);
    assert.deepEqual(f8.notMeasured.map((n) => n.metric).sort(), ['p95CommitLatencyMs', 'writelogMsPerCommit']);
    assert.equal(f8.notMeasured.find((n) => n.metric === 'writelogMsPerCommit')!.reason, 'no VIEW SERVER STATE');
    assert.equal(f8.p95CommitLatencyMs, null);
  });

  it('says how the gain changes with concurrency, largest level first, and why when it shrinks', () => {
    const m = buildConcurrencyModel(RUNS)!;
    // FORCED vs DISABLED commits/s (medians): 8 sessions 4000 / 2000 = 2.0×; 1 session 4500 / 450 = 10.0×.
    assert.equal(m.verdict, 'Commits per second, FORCED vs DISABLED: at 8 sessions FORCED gains 2.0×, at 1 session FORCED gains 10.0×. With 8 sessions DISABLED commits shared log flushes (0.25 flushes per commit), which leaves delayed durability less to save.');
    assert.equal(buildConcurrencyModel(RUNS.filter((r) => r.mode === 'DISABLED'))!.verdict, null, 'no verdict without a delayed mode');
    assert.equal(buildConcurrencyModel(RUNS.map(({ concurrency: _c, ...r }) => r)), null, 'no sweep, no curve');
  });

  it("a sweep's verdict headline summarises the curve (fewest and most sessions); the first level's speed-up is a fact (issue 28)", () => {
    const model = buildComparisonModel(RUNS);
    const v = buildVerdict(model);
    // Commits per second FORCED ÷ DISABLED: 1 session 4500 / 450 = 10.0×, 8 sessions 4000 / 2000 = 2.0×.
    // The spread at both ends (issue 28): 1 session 4000/500 = 8.0× to 5000/400 = 12.5×; 8 sessions 2.0× in every run.
    assert.equal(v.headline, 'FORCED gains 10.0× at 1 session, 2.0× at 8 sessions (commits per second vs DISABLED, 2 session counts; 8.0–12.5× and 2.0×, 2 runs each; conclusive)');
    assert.equal(v.headlineTone, 'good');
    const first = v.facts.find((f) => f.label === 'FORCED vs DISABLED at 1 session (elapsed)');
    assert.ok(first, v.facts.map((f) => f.label).join(', '));
    assert.match(first.text, /^FORCED ran [\d.]+× faster than DISABLED \([\d.]+–[\d.]+×, 2 runs each; conclusive\)$/);
    assert.equal(v.speedup!.mode, 'FORCED', 'the gate (--fail-if-speedup-below) still reads the first level');
    assert.match(toMarkdown(model), /\*\*FORCED gains 10\.0× at 1 session, 2\.0× at 8 sessions/);
    // One session count is no curve: the headline stays the speed-up.
    const one = buildComparisonModel(RUNS.filter((r) => r.concurrency!.sessions === 1));
    assert.match(buildVerdict(one).headline, /^FORCED ran [\d.]+× faster than DISABLED/);
  });

  it('keeps the comparison table to the first level and puts the curve in the document, Markdown and model', () => {
    const model = buildComparisonModel(RUNS);
    assert.deepEqual(model.runsPerColumn, { DISABLED: 2, FORCED: 2 }, 'the 1-session runs only');
    assert.deepEqual(firstLevelRuns(RUNS).map((r) => r.concurrency!.sessions), [1, 1, 1, 1, 1]);
    assert.equal(firstLevelRuns([...RUNS].reverse()).every((r) => r.concurrency!.sessions === 8), true, 'the level that ran first');
    assert.ok(model.notes.includes('Concurrency sweep: the table shows the runs on 1 session; the concurrency table covers 1, 8 sessions.'));
    const doc = comparisonDocument({ runs: RUNS, status: 'completed' });
    assert.deepEqual(doc.concurrency.map((p) => [p.sessions, p.mode, p.flushesPerCommit]), [[1, 'DISABLED', 1], [1, 'FORCED', 0.01], [8, 'DISABLED', 0.25], [8, 'FORCED', 0.01]]);
    assert.match(doc.concurrencyVerdict!, /^Commits per second, FORCED vs DISABLED: at 8 sessions/);
    assert.deepEqual(comparisonDocument({ runs: RUNS.map(({ concurrency: _c, ...r }) => r), status: 'completed' }).concurrency, []);
    const md = toMarkdown(model);
    assert.match(md, /## Concurrency\n\nCommits per second, FORCED vs DISABLED: at 8 sessions FORCED gains 2\.0×/);
    assert.ok(md.includes('| 8 | DISABLED | 2 | 2,000 | 0.25 | 4.00 KiB | 3 | not measured |'), md);
    assert.ok(md.includes('| 1 | DISABLED | 2 | 450 (400 – 500) | 1 | 4.00 KiB | 1.85 (1.8 – 1.9) | not measured |'), md);
  });

  it('the panel: the table and verdict on the Metrics tab, one chart per metric with x = sessions and a line per mode', () => {
    const model = buildComparisonModel(RUNS);
    const html = toHtml(concurrencySection(model.concurrency)!);
    assert.match(html, /<h2>Concurrency<\/h2><p class="dl-headline" data-fact="concurrency-verdict">Commits per second, FORCED vs DISABLED: at 8 sessions FORCED gains 2\.0×/);
    assert.match(html, /<th scope="row" class="dl-num">8<\/th><td>DISABLED<\/td><td class="dl-num">2<\/td><td class="dl-num">2,000<\/td><td class="dl-num">0\.25<\/td>/);
    assert.equal(concurrencySection(undefined), null);
    assert.deepEqual(concurrencySeries(model.concurrency!, 'flushesPerCommit'), { labels: ['1', '8'], series: [{ label: 'DISABLED', values: [1, 0.25] }, { label: 'FORCED', values: [0.01, 0.01] }] });
    const panel: PanelData = { ...comparisonFixture(), model };
    const charts = [...toHtml(renderPanel(panel, 1)).matchAll(/data-chart="(concurrency-[A-Za-z]+)"/g)].map((x) => x[1]);
    assert.deepEqual(charts, ['concurrency-commitsPerSec', 'concurrency-flushesPerCommit', 'concurrency-averageFlushBytes', 'concurrency-writelogMsPerCommit']);
  });
});
