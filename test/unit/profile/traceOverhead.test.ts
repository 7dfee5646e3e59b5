// The per-statement trace's cost (issue 28 item 5): medians and ranges of alternating runs with and without the trace,
// the percent and ratio from the medians, a cost per statement only when the trace counted every execution, and
// "not measured" with every figure null — never 0.
import * as assert from 'node:assert/strict';
import { notMeasuredAttribution, type StatementAttribution } from '../../../src/profile/statementAttribution';
import type { StatementFigure } from '../../../src/profile/statementFigure';
import { alternation, summarizeElapsed, summarizeTraceOverhead, tracedExecutions, traceOverheadNotMeasured, type TraceOverheadRun } from '../../../src/profile/traceOverhead';
import { traceOverheadPlanText, traceOverheadRunsProblem } from '../../../src/profile/traceOverheadRun';

const runs = (pairs: Array<[number, number]>): TraceOverheadRun[] =>
  pairs.flatMap(([withMs, withoutMs], i) => [
    { order: i * 2 + 1, trace: 'with' as const, elapsedMs: withMs, status: 'completed' as const },
    { order: i * 2 + 2, trace: 'without' as const, elapsedMs: withoutMs, status: 'completed' as const },
  ]);

const measured: StatementAttribution = { ...notMeasuredAttribution('', null), status: 'measured', reason: null, eventsSeen: 900, eventsCounted: 900 };
const figure = (executions: number, extra: Partial<StatementFigure> = {}): StatementFigure => ({ line: 1, text: 'INSERT', executions, durationMs: 1, writelogWaits: 0, writelogMs: 0, rows: 1, batchIndex: 0, nestedStatements: 0, ...extra });

describe('traceOverhead: the per-statement trace\'s cost', () => {
  it('alternates with, without, with, without …, starting with the run the report shows', () => {
    assert.deepEqual(alternation(2), ['with', 'without', 'with', 'without']);
    assert.deepEqual(alternation(3), ['with', 'without', 'with', 'without', 'with', 'without']);
  });

  it('medians and ranges per side; percent and ratio from the medians (1,800 vs 1,000 ms is 80 %)', () => {
    const t = summarizeTraceOverhead(runs([[1700, 1050], [1900, 950]]), 2, 4000, 'sql-server');
    assert.equal(t.status, 'measured');
    assert.deepEqual(t.withTrace, { runs: 2, medianMs: 1800, minMs: 1700, maxMs: 1900 });
    assert.deepEqual(t.withoutTrace, { runs: 2, medianMs: 1000, minMs: 950, maxMs: 1050 });
    assert.equal(t.ratio, 1.8);
    assert.equal(t.percent, 80);
    assert.equal(t.extraMs, 800);
    assert.equal(t.rangesOverlap, false);
    assert.equal(t.perStatementMs, 0.2, '800 ms over 4,000 statements');
    assert.equal(t.statementExecutions, 4000);
    assert.equal(t.perStatementReason, null);
    assert.deepEqual(t.runs.map((r) => `${r.order}:${r.trace}`), ['1:with', '2:without', '3:with', '4:without']);
    assert.match(t.switchOff, /durabilityLens\.xe\.statements: false.*--no-statements/);
  });

  it('odd counts take the middle value; overlapping ranges and a faster traced side are reported as they are', () => {
    const t = summarizeTraceOverhead(runs([[100, 104], [130, 90], [98, 101]]), 3, 'no statement completed while traced', 'stand-in');
    assert.equal(t.withTrace!.medianMs, 100);
    assert.equal(t.withoutTrace!.medianMs, 101);
    assert.equal(t.percent, -1, 'a negative percent: no slowdown seen, never clamped to 0');
    assert.equal(t.rangesOverlap, true);
    assert.equal(t.perStatementMs, null);
    assert.equal(t.statementExecutions, null);
    assert.match(t.perStatementReason!, /no statement completed/);
    assert.equal(t.source, 'stand-in');
  });

  it('a faster traced side gives no cost per statement (a negative one would read as a gain from tracing)', () => {
    const t = summarizeTraceOverhead(runs([[90, 100], [92, 101]]), 2, 101, 'sql-server');
    assert.equal(t.status, 'measured');
    assert.ok(t.extraMs! < 0);
    assert.equal(t.perStatementMs, null);
    assert.equal(t.statementExecutions, null);
    assert.match(t.perStatementReason!, /^No cost per statement: the runs with the trace were not slower/);
  });

  it('is not measured (every figure null) when the runs without the trace took 0 ms or a side is empty', () => {
    const zero = summarizeTraceOverhead(runs([[3, 0], [2, 0]]), 2, 10, 'sql-server');
    assert.equal(zero.status, 'not-measured');
    assert.match(zero.reason!, /0 ms: too short/);
    for (const k of ['withTrace', 'withoutTrace', 'ratio', 'percent', 'extraMs', 'rangesOverlap', 'perStatementMs', 'statementExecutions'] as const) assert.equal(zero[k], null, k);
    assert.equal(zero.runs.length, 4, 'the runs made are still listed');
    const oneSided = summarizeTraceOverhead(runs([[3, 2]]).slice(0, 1), 2, 10, 'sql-server');
    assert.equal(oneSided.status, 'not-measured');
    assert.equal(oneSided.percent, null);
  });

  it('not measured carries why and what measures it, and no figure', () => {
    const t = traceOverheadNotMeasured('Not measured: not asked for.', 'profile --trace-overhead 2', 'sql-server');
    assert.equal(t.status, 'not-measured');
    assert.equal(t.fix, 'profile --trace-overhead 2');
    assert.equal(t.runsEach, null);
    assert.deepEqual(t.runs, []);
    assert.ok(Object.entries(t).filter(([k]) => !['status', 'reason', 'fix', 'source', 'runs', 'switchOff'].includes(k)).every(([, v]) => v === null));
  });

  it('counts statement executions only when the trace counted every one', () => {
    assert.equal(tracedExecutions(measured, [figure(600), figure(300)]), 900);
    assert.equal(tracedExecutions({ ...measured, unlisted: { statements: 2, executions: 7, writelogWaits: 0, writelogMs: 0 } }, [figure(10)]), 17, 'statements beyond the listed ones count');
    // A ring buffer that kept part of the run: the sample's executions are not the run's.
    assert.match(String(tracedExecutions({ ...measured, eventsSeen: 500, eventsCounted: 900 }, [figure(250)])), /only part/);
    // …unless the server counted them exactly (query_hash histograms).
    assert.equal(tracedExecutions({ ...measured, eventsSeen: 500, eventsCounted: null }, [figure(900, { counts: 'exact' })]), 900);
    assert.match(String(tracedExecutions(measured, [figure(900, { counts: 'exact', approximate: 'approximate — folded slots' })])), /approximate/);
    assert.match(String(tracedExecutions(notMeasuredAttribution('denied', null), [])), /no statement figures/);
  });

  it('median of an even count is the mean of the middle two', () => {
    assert.deepEqual(summarizeElapsed([4, 1, 3, 2]), { runs: 4, medianMs: 2.5, minMs: 1, maxMs: 4 });
    assert.equal(summarizeElapsed([]), null);
  });

  it('asks for 2–10 runs each way and says what the plan runs', () => {
    assert.equal(traceOverheadRunsProblem(2), null);
    assert.equal(traceOverheadRunsProblem(10), null);
    for (const bad of [0, 1, 11, 2.5, Number.NaN]) assert.match(traceOverheadRunsProblem(bad)!, /2–10 runs each way/, String(bad));
    assert.equal(traceOverheadPlanText(2), 'runs the workload 4 times: 2 with the per-statement trace, 2 without (alternating, to measure what the trace costs)');
  });
});
