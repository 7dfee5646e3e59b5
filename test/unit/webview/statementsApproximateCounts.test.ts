// Issue 33 item 2 (found by the attack33 review): "the affected figures say 'approximate — why'". The panel's Statements tab prints a row's
// executions and WRITELOG waits with formatCount — no "≈", no why — while the Markdown marks them (countCell).
import assert from 'node:assert/strict';
import { ATTRIBUTION_LIMITS, type StatementAttribution, type StatementFigure } from '../../../src/profile/statementAttribution';
import { countCell } from '../../../src/report/statements';
import { statementsSection } from '../../../src/webview/statementsView';
import { h, type VNode } from '../../../src/webview/view';

const textOf = (n: VNode): string => (typeof n === 'string' ? n : n.children.map(textOf).join(' '));

describe('panel: approximate statement counts', () => {
  it('a row whose counts come from a possibly folded histogram shows its counts with ≈, as the Markdown does', () => {
    const why = 'approximate — 1 statement hash(es) of the sample have no slot in the executions histogram: the histogram may have folded statements into shared slots';
    const f: StatementFigure = { line: 7, text: 'INSERT t VALUES (1)', executions: 12345, durationMs: 100, writelogWaits: 6789, writelogMs: 50, rows: 555, batchIndex: 0, nestedStatements: 0, counts: 'exact', approx: true, approximate: why, queryHash: '99' };
    const a: StatementAttribution = { status: 'measured', reason: null, grant: null, waitEvent: 'wait_info', attributedWritelogWaits: 6789, attributedWritelogMs: 50, unattributedWritelogWaits: 0, unattributedWritelogMs: 0, sessionWritelogWaits: 6789, sessionWritelogMs: 50, eventsSeen: 10, eventsCounted: 20000, logBytesPerFlush: null, limits: ATTRIBUTION_LIMITS, notes: [] };
    const table = (headers: string[], rows: VNode[][]) => h('table', {}, ...headers, ...rows.flat());
    const el = statementsSection({ kind: 'profile', documentUri: null, model: { statements: { column: 'RUN', statements: [f], attribution: a } } } as never, { h, table });
    const text = textOf(el);
    // The Markdown writes "≈ 12,345"; the panel writes "12,345" as if exact.
    assert.ok(text.includes(countCell(f, 12345)), `panel should show ${countCell(f, 12345)}; shows: ${text}`);
  });
});
