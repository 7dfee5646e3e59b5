// The report's Consistency block (issue 33): each check summed over the runs (one disagreeing run makes it disagree,
// with that run's figures), the disagreement put beside the metric rows and verdict facts it concerns, the Markdown
// section, and the comparison document's `consistency`. Runs made before the checks existed show no block.
import { strict as assert } from 'node:assert';
import { reconcileRun } from '../../../src/profile/consistency';
import type { RunResult } from '../../../src/profile/types';
import { buildComparisonModel, buildVerdict, comparisonDocument, consistencyMarkdownLines, disagreementsOf, markdownText, summarizeConsistency, toMarkdown } from '../../../src/report';
import { makeRun, type RunFigures } from './runFixture';

/** A run with its checks made the way measureRun makes them. */
function checked(f: RunFigures, repetition = 0): RunResult {
  const run = { ...makeRun(f), repetition };
  return { ...run, consistency: reconcileRun({ diff: run.diff, logFlushTrace: run.logFlushTrace, statements: [], statementAttribution: null, missing: run.missing }).checks };
}
const whole = (mode: 'DISABLED' | 'FORCED', rep: number) => checked({ mode, commits: 100, flushesCounter: 100, flushesXe: 100, log: { writes: 100, bytes: 409600, stallMs: 20 } }, rep);
const halved = (mode: 'DISABLED' | 'FORCED', rep: number) => checked({ mode, commits: 100, flushesCounter: 50, flushesXe: 100, log: { writes: 100, bytes: 409600, stallMs: 20 } }, rep);

describe('report/consistency: the Consistency block', () => {
  it('one run: each check as the run made it', () => {
    const s = summarizeConsistency([halved('DISABLED', 0)]);
    const c = s.find((x) => x.check === 'log-flushes:xe-vs-counter')!;
    assert.equal(c.status, 'disagrees');
    assert.deepEqual(c.runs, { passed: 0, disagrees: 1, notPossible: 0 });
    assert.equal(c.differencePercent, 50);
    assert.match(c.detail, /^The Extended Events flush count 100 flushes, the Log Flushes\/sec counter 50 flushes: they disagree by 50\.0 %/);
  });

  it('several runs: a disagreement in any run decides, named with that run; passes give the largest difference; a warm-up does not count', () => {
    const warmup = { ...halved('DISABLED', 0), warmup: true };
    const runs = [warmup, whole('DISABLED', 0), halved('FORCED', 1), whole('FORCED', 0)];
    const s = summarizeConsistency(runs);
    const c = s.find((x) => x.check === 'log-flushes:xe-vs-counter')!;
    assert.equal(c.status, 'disagrees');
    assert.match(c.detail, /^Disagrees in 1 of 3 runs; FORCED run 2: The Extended Events flush count 100/);
    const passed = s.find((x) => x.check === 'log-flushes:xe-vs-file-writes')!;
    assert.equal(passed.detail, 'Passed in 3 of 3 runs (largest difference 0.0 %).');
    const never = s.find((x) => x.check === 'writelog-waits:statements-vs-session')!;
    assert.equal(never.status, 'not-possible');
    assert.match(never.detail, /^Not possible in any of the 3 runs\. Not possible: the statement trace did not run/);
  });

  it('runs from before the checks existed carry none: no block, no markers', () => {
    const old = makeRun({ flushesCounter: 50, flushesXe: 100 });
    assert.equal(old.consistency, undefined);
    const model = buildComparisonModel([old]);
    assert.deepEqual(model.consistency, []);
    assert.ok(!toMarkdown(model).includes('## Consistency'));
  });

  it('a disagreement sits beside the figures it concerns: metric rows, the verdict fact, the Markdown table', () => {
    const model = buildComparisonModel([halved('DISABLED', 0)]);
    const row = (id: string) => model.rows.find((r) => r.id === id)!;
    assert.deepEqual(row('flushes.counter').consistency!.map((d) => d.check), ['log-flushes:xe-vs-counter', 'log-flushes:counter-vs-file-writes']);
    assert.deepEqual(row('log.writes').consistency!.map((d) => d.check), ['log-flushes:counter-vs-file-writes']);
    assert.deepEqual(row('elapsed').consistency, []);
    assert.deepEqual(disagreementsOf(model.consistency!, 'flushes.xe').map((d) => d.check), ['log-flushes:xe-vs-counter']);
    const fact = buildVerdict(model).facts.find((f) => f.id === 'flushes')!;
    assert.equal(fact.tone, 'bad');
    assert.match(fact.text, /^DISABLED 0\.50 per commit \(50 flushes for 100 commits\) — the flush sources disagree \(Log flushes: Extended Events count vs the Log Flushes\/sec counter; Log flushes: the Log Flushes\/sec counter vs log-file writes \(sys\.dm_io_virtual_file_stats\); see Consistency\)$/, 'named by their labels, never their ids');
    const md = toMarkdown(model);
    assert.match(md, /\| Log flushes \(XE\) ⚠ sources disagree \(one check; see Consistency\) \| 100 \|/);
    assert.match(md, /\| Log flushes \(counter\) ⚠ sources disagree \(2 checks; see Consistency\) \| 50 \|/);
    // Disagreements first in the block.
    const block = md.slice(md.indexOf('## Consistency'));
    assert.ok(block.indexOf('**DISAGREES**') < block.indexOf('**passed**'));
    assert.ok(block.indexOf('**passed**') < block.indexOf('**not possible**'));
  });

  it('Markdown text of server strings stays text', () => {
    const [s] = summarizeConsistency([whole('DISABLED', 0)]);
    const lines = consistencyMarkdownLines([{ ...s!, detail: '<b>*x*</b> | y' }], markdownText);
    const line = lines.find((l) => l.startsWith('- **passed**'))!;
    assert.ok(line.endsWith(': \\<b\\>\\*x\\*\\</b\\> \\| y'), line);
  });

  it('the comparison document carries `consistency` per check, and each run its own', () => {
    const doc = comparisonDocument({ runs: [whole('DISABLED', 0), halved('FORCED', 0)], status: 'completed' });
    assert.deepEqual(doc.consistency.map((c) => [c.check, c.status]).slice(0, 3), [
      ['log-flushes:xe-vs-counter', 'disagrees'],
      ['log-flushes:counter-vs-file-writes', 'disagrees'],
      ['log-flushes:xe-vs-file-writes', 'passed'],
    ]);
    for (const m of doc.modes) for (const r of m.runs) assert.equal(r.consistency!.length, 7);
    const reloaded = JSON.parse(JSON.stringify(doc));
    assert.deepEqual(comparisonDocument({ runs: [...reloaded.modes[0].runs, ...reloaded.modes[1].runs], status: 'completed' }).consistency, doc.consistency);
  });
});
