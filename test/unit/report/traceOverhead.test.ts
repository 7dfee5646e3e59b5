// The per-statement trace's cost in the report (issue 28 item 5): the Markdown section and CSV rows of a profile that
// measured it, "not measured" with why (never a 0) when it did not, stand-in figures labelled as such, and a
// comparison's figures said to be measured without the trace.
import * as assert from 'node:assert/strict';
import { notMeasuredAttribution } from '../../../src/profile/statementAttribution';
import { STATEMENTS_OFF_IN_COMPARISON } from '../../../src/profile/statementRun';
import { summarizeTraceOverhead, traceOverheadNotMeasured, TRACE_OVERHEAD_SWITCH_ON, type TraceOverheadRun } from '../../../src/profile/traceOverhead';
import { buildComparisonModel, toCsv, toMarkdown } from '../../../src/report';
import { traceOverheadHeadline, traceOverheadLines } from '../../../src/report/traceOverheadText';
import { makeRun } from './runFixture';

const alternating: TraceOverheadRun[] = [
  { order: 1, trace: 'with', elapsedMs: 1750, status: 'completed' },
  { order: 2, trace: 'without', elapsedMs: 1020, status: 'completed' },
  { order: 3, trace: 'with', elapsedMs: 1850, status: 'completed' },
  { order: 4, trace: 'without', elapsedMs: 980, status: 'completed' },
];

const csvRows = (csv: string) => csv.trim().split('\r\n').map((l) => l.split(','));

describe('report: per-statement trace cost', () => {
  it('says by how much the trace slowed the run, with medians, ranges, run counts, cost per statement and how to switch it off', () => {
    const t = summarizeTraceOverhead(alternating, 2, 8000, 'sql-server');
    const lines = traceOverheadLines(t);
    assert.equal(lines[0], 'The per-statement trace slowed this run by 80 %: 1.80 s vs 1.00 s (medians, 2 runs each, alternating; ranges 1.75 s – 1.85 s with vs 980 ms – 1.02 s without).');
    assert.equal(lines[1], 'About 0.1 ms per statement (800 ms more over 8,000 traced statement executions).');
    assert.match(lines[2]!, /come from run 1, with the trace\. Switch it off with the setting durabilityLens\.xe\.statements: false \(CLI: --no-statements\)\.$/);

    const run = { ...makeRun({ mode: null }), traceOverhead: t };
    const model = buildComparisonModel([run]);
    const md = toMarkdown(model, 'Profile of w.sql');
    assert.match(md, /## Per-statement trace cost\n\n- The per-statement trace slowed this run by 80 %/);
    assert.ok(!/Measured without the per-statement trace/.test(md), 'a profile is not an untraced comparison');

    const rows = csvRows(toCsv(model));
    const header = rows[0]!;
    const col = (row: string[], name: string) => row[header.indexOf(name)];
    const byId = (id: string) => rows.find((r) => col(r, 'metric_id') === id)!;
    assert.equal(col(byId('traceOverhead.withTraceMs'), 'median'), '1800');
    assert.equal(col(byId('traceOverhead.withTraceMs'), 'min'), '1750');
    assert.equal(col(byId('traceOverhead.withoutTraceMs'), 'max'), '1020');
    assert.equal(col(byId('traceOverhead.percent'), 'median'), '80');
    assert.equal(col(byId('traceOverhead.percent'), 'inconclusive'), 'false');
    assert.equal(col(byId('traceOverhead.perStatementMs'), 'median'), '0.1');
    assert.equal(col(byId('traceOverhead.percent'), 'source'), 'sql-server');
  });

  it('not measured: the reason and how to measure it, empty CSV figures with the reason — never 0', () => {
    const t = traceOverheadNotMeasured('Not measured: the per-statement trace adds work to every statement of this run; its cost is measured only when asked.', TRACE_OVERHEAD_SWITCH_ON, 'sql-server');
    const model = buildComparisonModel([{ ...makeRun({ mode: null }), traceOverhead: t }]);
    const md = toMarkdown(model);
    assert.match(md, /- Per-statement trace cost: Not measured: the per-statement trace adds work to every statement/);
    assert.match(md, /- To measure it: the setting durabilityLens\.xe\.traceOverheadRuns: 2 \(CLI: profile --trace-overhead 2\)\./);
    const rows = csvRows(toCsv(model));
    const header = rows[0]!;
    const overhead = rows.filter((r) => r[header.indexOf('metric_id')]!.startsWith('traceOverhead.'));
    assert.equal(overhead.length, 1);
    const row = overhead[0]!;
    assert.equal(row[header.indexOf('median')], '', 'empty, not 0');
    assert.equal(row[header.indexOf('runs')], '0');
    assert.match(toCsv(model), /Not measured: the per-statement trace adds work.*To measure it: the setting durabilityLens\.xe\.traceOverheadRuns/);
  });

  it('says when the first (cold) run was the slowest and two runs each let it weigh on the median', () => {
    const cold = summarizeTraceOverhead([
      { order: 1, trace: 'with', elapsedMs: 4500, status: 'completed' },
      { order: 2, trace: 'without', elapsedMs: 2300, status: 'completed' },
      { order: 3, trace: 'with', elapsedMs: 1600, status: 'completed' },
      { order: 4, trace: 'without', elapsedMs: 700, status: 'completed' },
    ], 2, 10, 'stand-in');
    assert.ok(traceOverheadLines(cold).some((l) => /^Run 1 — the first, with the trace — was the slowest of all/.test(l)));
    assert.ok(!traceOverheadLines(summarizeTraceOverhead(alternating, 2, 10, 'stand-in')).some((l) => /^Run 1/.test(l)), 'run 1 was not the slowest');
  });

  it('labels stand-in figures as the stand-in\'s, and a run without a slowdown as such (with the noise warning)', () => {
    const t = summarizeTraceOverhead([
      { order: 1, trace: 'with', elapsedMs: 100, status: 'completed' },
      { order: 2, trace: 'without', elapsedMs: 104, status: 'completed' },
      { order: 3, trace: 'with', elapsedMs: 102, status: 'completed' },
      { order: 4, trace: 'without', elapsedMs: 99, status: 'completed' },
    ], 2, 'the trace kept only part of the first run\'s statements (ring buffer), so their number is not known', 'stand-in');
    const headline = traceOverheadHeadline(t);
    assert.match(headline, /^The per-statement trace did not measurably slow this run \(stand-in figures, not SQL Server's\): -0\.5 %/);
    assert.match(headline, /The ranges overlap, so the difference may be noise\.$/);
    assert.match(traceOverheadLines(t)[1]!, /^No cost per statement: the trace kept only part/);
    const model = buildComparisonModel([{ ...makeRun({ mode: null, source: 'stand-in' }), traceOverhead: t }]);
    assert.match(toCsv(model), /stand-in \(simulated\),traceOverhead\.percent/);
  });

  it('a comparison says its figures were measured without the per-statement trace', () => {
    const off = notMeasuredAttribution(STATEMENTS_OFF_IN_COMPARISON, null);
    const runs = [makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })].map((r) => ({ ...r, statementAttribution: off }));
    const model = buildComparisonModel(runs);
    assert.equal(model.untracedComparison, true);
    assert.equal(model.traceOverhead, null);
    assert.match(toMarkdown(model), /Ratios: median vs baseline[^\n]*\n\nMeasured without the per-statement trace: a comparison leaves it out/);
    // Results made before statement attribution existed say nothing they cannot know.
    assert.equal(buildComparisonModel([makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })]).untracedComparison, false);
  });
});
