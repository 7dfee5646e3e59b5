// The statements view (issue 16): the model keeps the baseline run's statements, the Markdown shows a top-10 table
// with server/file text escaped, the hint and hover wording, and "not measured" with its GRANT instead of zeros.
import { strict as assert } from 'node:assert';
import { notMeasuredAttribution, type StatementAttribution, type StatementFigure } from '../../../src/profile/statementAttribution';
import { buildComparisonModel } from '../../../src/report/comparison';
import { toMarkdown } from '../../../src/report/export';
import { statementHintText, statementHoverLines } from '../../../src/report/statements';
import { makeRun } from './runFixture';

const figure = (line: number, writelogWaits: number, text = `INSERT INTO t VALUES (${line})`): StatementFigure => ({
  line, text, executions: writelogWaits * 10 || 1, durationMs: writelogWaits * 2.5, writelogWaits, writelogMs: writelogWaits * 2, rows: writelogWaits, batchIndex: 0, nestedStatements: 0,
});
const measured = (over: Partial<StatementAttribution> = {}): StatementAttribution => ({
  ...notMeasuredAttribution('', null), status: 'measured', reason: null, waitEvent: 'wait_completed', attributedWritelogWaits: 10000, attributedWritelogMs: 42000,
  sessionWritelogWaits: 10001, sessionWritelogMs: 42010, eventsSeen: 30003, eventsCounted: 30003, logBytesPerFlush: 4096, ...over,
});

describe('report: statements', () => {
  it('hint: executions and WRITELOG time, short enough for the editor (43 characters with the stand-in label); hover: every figure and the session share', () => {
    const f = { ...figure(7, 10000), executions: 10000, writelogMs: 42000 };
    assert.equal(statementHintText(f, measured()), '10,000 × · 42.00 s WRITELOG');
    assert.ok(`${statementHintText({ ...f, approx: true, counts: 'exact' }, measured())} (stand-in)`.length <= 43);
    const hover = statementHoverLines(f, measured()).join('\n');
    assert.match(hover, /WRITELOG waits: 10,000 \(42\.00 s\)/);
    assert.match(hover, /Share of the session's WRITELOG waits: 100 % of 10,001/);
    assert.match(hover, /average over the whole run, not this statement/);
    assert.match(statementHoverLines(f, measured({ eventsSeen: 1700, eventsCounted: 30003 })).join('\n'), /End of the run only: the sample holds 6 % of the events \(1,700 of 30,003\)/);
  });

  it('exact counts: ≈ on the scaled figures, shared lines said, a not-located hash shows "not located" and "not measured"', () => {
    const f: StatementFigure = { ...figure(7, 10000), executions: 10000, writelogMs: 42000, counts: 'exact', approx: true, sharedLines: [7, 12] };
    assert.equal(statementHintText(f, measured({ eventsCounted: null, eventsSeen: 900 })), '10,000 × · ≈ 42.00 s WRITELOG');
    const hover = statementHoverLines(f, measured()).join('\n');
    assert.match(hover, /WRITELOG waits: 10,000 \(≈ 42\.00 s\)/);
    assert.match(hover, /counted on the server \(exact\)/);
    assert.match(hover, /Lines 7, 12 have the same query hash/);
    const lost: StatementFigure = { ...figure(0, 5, 'not located (query_hash 123)'), durationMs: null, rows: null, counts: 'exact', approx: true, located: false, notMeasured: ['durationMs', 'rows'] };
    assert.match(statementHoverLines(lost, measured()).join('\n'), /Duration \(sum\): not measured[\s\S]*Rows: not measured/);
    const run = { ...makeRun(), statements: [f, lost], statementAttribution: measured() };
    const section = toMarkdown(buildComparisonModel([run])).split('## Statements')[1]!;
    assert.match(section, /\| 7, 12 \| INSERT INTO t VALUES \(7\) \| 10,000 \| ≈ /);
    assert.match(section, /\| not located \| not located \(query_hash 123\) \| 50 \| not measured \| 5 \| ≈ [^|]+ \| not measured \|/);
  });

  it('approximate counts say "approximate — why" in the hover and ≈ on the counts; a plan-less row says it is matched by its text', () => {
    const why = 'approximate — 1 statement hash(es) of the sample have no slot in the executions histogram: the histogram may have folded statements into shared slots';
    const f: StatementFigure = { ...figure(7, 300), executions: 300, counts: 'exact', approx: true, approximate: why, queryHash: '6411564731136071541' };
    assert.match(statementHintText(f, measured()), /^≈ 300 × · ≈ \S+ m?s WRITELOG$/);
    const hover = statementHoverLines(f, measured()).join('\n');
    assert.match(hover, /Executions: ≈ 300/);
    assert.match(hover, /Counts approximate — 1 statement hash\(es\) of the sample have no slot/);
    const planless: StatementFigure = { ...figure(4, 1, 'COMMIT'), counts: 'sample', queryHash: '0' };
    assert.match(statementHoverLines(planless, measured()).join('\n'), /No plan \(query_hash 0\): counted by its text, offsets and line, never merged/);
    const run = { ...makeRun(), statements: [f, planless], statementAttribution: measured() };
    const section = toMarkdown(buildComparisonModel([run])).split('## Statements')[1]!;
    assert.match(section, /\| 7 \| INSERT INTO t VALUES \(7\) \| ≈ 300 \|/);
    assert.match(section, /\| 4 \| COMMIT \| 10 \|/);
  });

  it('the Markdown has a top-10 table by WRITELOG time, escaped, with the reconciliation and the limits', () => {
    const statements = Array.from({ length: 12 }, (_, i) => figure(i + 1, 12 - i));
    statements[0] = figure(1, 12, "INSERT INTO t VALUES ('a|b') -- <script>x</script>");
    const run = { ...makeRun(), statements, statementAttribution: measured() };
    const text = toMarkdown(buildComparisonModel([run]));
    const section = text.split('## Statements')[1]!;
    const rows = section.split('\n').filter((l) => /^\| \d/.test(l));
    assert.equal(rows.length, 10);
    assert.match(rows[0]!, /^\| 1 \| INSERT INTO t VALUES \('a\\\|b'\) -- \\<script\\>x\\<\/script\\> \| 120 \|/);
    assert.doesNotMatch(section, /<script>/);
    assert.match(section, /WRITELOG attributed to statements: 10,000 waits .*the session's total: 10,001/);
    assert.match(section, /nested dynamic SQL/);
  });

  it('not measured says why and the GRANT, never a table of zeros', () => {
    const run = { ...makeRun(), statements: [], statementAttribution: notMeasuredAttribution('No per-statement attribution: permission denied.', 'GRANT ALTER ANY EVENT SESSION TO [lens];') };
    const section = toMarkdown(buildComparisonModel([run])).split('## Statements')[1]!;
    assert.match(section, /Statements not measured: No per-statement attribution: permission denied\. To enable: `GRANT ALTER ANY EVENT SESSION TO \[lens\];`/);
    assert.doesNotMatch(section, /\| Line \|/);
  });
});
