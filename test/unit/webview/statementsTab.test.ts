// The panel's Statements tab (issue 16): sorted by WRITELOG time, line numbers as openLine buttons only when the
// document is known, statement text as text (never markup), not measured with its GRANT, and the openLine message
// contract (a line number only; the host picks the document).
import * as assert from 'node:assert/strict';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { notMeasuredAttribution, type StatementAttribution, type StatementFigure } from '../../../src/profile/statementAttribution';
import { isFromWebview } from '../../../src/shared/webviewProtocol';
import { renderPanel, TAB_TITLES, toHtml, type VElement, type VNode } from '../../../src/webview/view';
import { makeRun } from '../report/runFixture';

const HOSTILE = "INSERT INTO t VALUES ('<img src=x onerror=alert(1)>')";
const figure = (line: number, waits: number, text: string): StatementFigure => ({ line, text, executions: waits || 1, durationMs: waits * 3, writelogWaits: waits, writelogMs: waits * 2, rows: waits, batchIndex: 0, nestedStatements: 0 });
const attribution: StatementAttribution = {
  ...notMeasuredAttribution('', null), status: 'measured', reason: null, waitEvent: 'wait_completed', attributedWritelogWaits: 401, attributedWritelogMs: 802,
  sessionWritelogWaits: 401, sessionWritelogMs: 802, eventsSeen: 1203, eventsCounted: 1203, logBytesPerFlush: 4096,
};

function find(node: VNode, pred: (e: VElement) => boolean): VElement[] {
  if (typeof node === 'string') return [];
  return [...(pred(node) ? [node] : []), ...node.children.flatMap((c) => find(c, pred))];
}
const statementsPanel = (tree: VElement) => find(tree, (e) => e.attrs['data-tabpanel'] === String(TAB_TITLES.indexOf('Statements')))[0]!;

describe('webview: Statements tab', () => {
  it('lists statements by WRITELOG time with go-to-line buttons, text escaped, and the session total beside them', () => {
    const run = { ...makeRun(), statements: [figure(7, 400, HOSTILE), figure(10, 1, 'UPDATE t SET v = 1')], statementAttribution: attribution };
    const data = { ...panelDataFromRun(run, 'srv'), documentUri: 'file:///w/loop.sql' };
    const panel = statementsPanel(renderPanel(data, TAB_TITLES.indexOf('Statements')));
    assert.equal(panel.attrs.hidden, undefined, 'the tab is shown when selected');
    const buttons = find(panel, (e) => e.attrs['data-action'] === 'openLine').map((e) => e.attrs['data-line']);
    assert.deepEqual(buttons, ['7', '10']);
    const html = toHtml(panel);
    assert.ok(!html.includes('<img'));
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.match(html, /WRITELOG attributed to statements: 401 waits .*the session's total: 401/);
    assert.match(html, /nested dynamic SQL/);
  });

  it('without a document there are no buttons; not measured shows why and the GRANT, never zeros', () => {
    const run = { ...makeRun(), statements: [figure(3, 2, 'INSERT INTO t DEFAULT VALUES')], statementAttribution: attribution };
    const plain = statementsPanel(renderPanel(panelDataFromRun(run, 'srv'), 0));
    assert.equal(find(plain, (e) => e.attrs['data-action'] === 'openLine').length, 0);
    const denied = { ...makeRun(), statements: [], statementAttribution: notMeasuredAttribution('No per-statement attribution: permission denied.', 'GRANT ALTER ANY EVENT SESSION TO [lens];') };
    const html = toHtml(statementsPanel(renderPanel(panelDataFromRun(denied, 'srv'), 0)));
    assert.match(html, /Statements not measured: No per-statement attribution: permission denied\./);
    assert.match(html, /<code>GRANT ALTER ANY EVENT SESSION TO \[lens\];<\/code>/);
    assert.doesNotMatch(html, /<table/);
  });

  it('accepts openLine with a positive whole line only', () => {
    assert.equal(isFromWebview({ type: 'openLine', line: 7 }), true);
    for (const line of [0, -1, 1.5, '7', null, 1e9]) assert.equal(isFromWebview({ type: 'openLine', line }), false, String(line));
  });
});
