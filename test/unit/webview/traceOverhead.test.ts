// The panel shows the per-statement trace's cost (issue 28 item 5) next to the figures it slowed — under the metrics
// and on the Statements tab —, "not measured" with why and how to measure it, stand-in figures as the stand-in's, and
// a comparison's metrics as measured without the trace. Server text stays text.
import * as assert from 'node:assert/strict';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { notMeasuredAttribution, type StatementAttribution } from '../../../src/profile/statementAttribution';
import { STATEMENTS_OFF_IN_COMPARISON } from '../../../src/profile/statementRun';
import { summarizeTraceOverhead, traceOverheadNotMeasured, TRACE_OVERHEAD_SWITCH_ON } from '../../../src/profile/traceOverhead';
import { buildComparisonModel } from '../../../src/report';
import { renderPanel, TAB_TITLES, toHtml, type VElement, type VNode } from '../../../src/webview/view';
import { makeRun } from '../report/runFixture';

function find(node: VNode, pred: (e: VElement) => boolean): VElement[] {
  if (typeof node === 'string') return [];
  return [...(pred(node) ? [node] : []), ...node.children.flatMap((c) => find(c, pred))];
}
const tabPanel = (tree: VElement, title: (typeof TAB_TITLES)[number]) => find(tree, (e) => e.attrs['data-tabpanel'] === String(TAB_TITLES.indexOf(title)))[0]!;
const attribution: StatementAttribution = { ...notMeasuredAttribution('', null), status: 'measured', reason: null, waitEvent: 'wait_completed', eventsSeen: 10, eventsCounted: 10 };

describe('webview: per-statement trace cost', () => {
  const measured = summarizeTraceOverhead([
    { order: 1, trace: 'with', elapsedMs: 1700, status: 'completed' },
    { order: 2, trace: 'without', elapsedMs: 1050, status: 'completed' },
    { order: 3, trace: 'with', elapsedMs: 1900, status: 'completed' },
    { order: 4, trace: 'without', elapsedMs: 950, status: 'completed' },
  ], 2, 4000, 'stand-in');

  it('renders the measured cost on the Statements tab and under the metrics, marked as stand-in figures', () => {
    const run = { ...makeRun({ mode: null, source: 'stand-in' }), statements: [], statementAttribution: attribution, traceOverhead: measured };
    const tree = renderPanel(panelDataFromRun(run, 'srv'), TAB_TITLES.indexOf('Statements'));
    for (const title of ['Statements', 'Metrics'] as const) {
      const notes = find(tabPanel(tree, title), (e) => e.attrs['data-trace-overhead'] !== undefined);
      assert.equal(notes.length, 1, title);
      assert.equal(notes[0]!.attrs['data-trace-overhead'], 'measured');
      const html = toHtml(notes[0]!);
      assert.match(html, /The per-statement trace slowed this run by 80 % \(stand-in figures, not SQL Server's\): 1\.80 s vs 1\.00 s \(medians, 2 runs each, alternating/);
      assert.match(html, /About 0\.2 ms per statement/);
      assert.match(html, /Switch it off with the setting durabilityLens\.xe\.statements: false/);
      assert.match(html, /class="dl-tone-bad"/, 'a clear slowdown is marked');
    }
  });

  it('renders "not measured" with why and what measures it, never a 0 %', () => {
    const run = { ...makeRun({ mode: null }), statementAttribution: attribution, traceOverhead: traceOverheadNotMeasured('Not measured: the per-statement trace did not run (<b>denied</b>).', TRACE_OVERHEAD_SWITCH_ON, 'sql-server') };
    const tree = renderPanel(panelDataFromRun(run, 'srv'));
    const note = find(tabPanel(tree, 'Statements'), (e) => e.attrs['data-trace-overhead'] !== undefined)[0]!;
    assert.equal(note.attrs['data-trace-overhead'], 'not-measured');
    const html = toHtml(note);
    assert.match(html, /Per-statement trace cost: Not measured: the per-statement trace did not run \(&lt;b&gt;denied&lt;\/b&gt;\)\./);
    assert.match(html, /To measure it: the setting durabilityLens\.xe\.traceOverheadRuns: 2 \(CLI: profile --trace-overhead 2\)\./);
    assert.ok(!/\b0 %/.test(html));
  });

  it('a comparison\'s metrics say they were measured without the per-statement trace; no trace-cost note', () => {
    const off = notMeasuredAttribution(STATEMENTS_OFF_IN_COMPARISON, null);
    const runs = [makeRun({ mode: 'DISABLED' }), makeRun({ mode: 'FORCED' })].map((r) => ({ ...r, statementAttribution: off }));
    const data = { ...panelDataFromRun(runs[0]!, 'srv'), model: buildComparisonModel(runs) };
    const metrics = tabPanel(renderPanel(data), 'Metrics');
    const untraced = find(metrics, (e) => e.attrs['data-untraced'] === 'true');
    assert.equal(untraced.length, 1);
    assert.match(toHtml(untraced[0]!), /Measured without the per-statement trace/);
    assert.equal(find(metrics, (e) => e.attrs['data-trace-overhead'] !== undefined).length, 0);
  });
});
