// The Heaviest Log Writers document and its text (issue 30): per-execution and per-day figures, shares, routines added
// up for the lens, the lab next to production, and "not measured" (null + why) wherever the server gave nothing.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ok } from '../../../src/probes/measurement';
import type { RunResult } from '../../../src/profile/types';
import { buildTopLogDocument, routineProductions } from '../../../src/report/topLog';
import { compactCount, describeTopLog, labVersusProduction, productionLensText, spanText } from '../../../src/report/topLogText';
import { history, options, queryRow } from '../probes/topLogFixtures';

const READ_AT = '2026-01-02T00:00:00.000Z';

describe('Heaviest Log Writers document', () => {
  it('derives per-execution, per-day and share figures from Query Store totals', () => {
    const h = history({ rows: ok([queryRow(), queryRow({ queryId: '8', text: 'UPDATE dbo.t SET v = 1', executions: 10, logBytes: 17000, logWaitMs: 0, totalWaitMs: 4, commitsAloneScore: 0 })]), totals: ok({ executions: 1100, logBytes: 400000, queries: 9 }) });
    const doc = buildTopLogDocument(h, { standIn: false, readAt: READ_AT });
    assert.equal(doc.schemaVersion, 1);
    assert.equal(doc.kind, 'top-log');
    assert.equal(doc.window.spanHours, 24);
    const [a, b] = doc.rows;
    assert.equal(a!.rank, 1);
    assert.equal(a!.objectLabel, 'dbo.load_rows');
    assert.equal(a!.logBytesPerExecution, 323);
    assert.equal(a!.executionsPerDay, 1000);
    assert.equal(a!.logBytesPerDay, 323000);
    assert.equal(a!.logShare, 323000 / 400000);
    assert.equal(a!.logWaitShare, 200 / 250);
    assert.equal(a!.logWaitMsPerExecution, 0.2);
    assert.equal(a!.durationMsPerExecution, 0.205);
    assert.equal(b!.logWaitShare, 0);
    assert.equal(doc.logBytesNotMeasured, null);
    assert.equal(doc.waitsNotMeasured, null);
  });

  it('does not turn minutes of history into a daily rate', () => {
    const h = history({ coverage: ok({ intervals: 1, firstStart: '2026-01-01T23:40:00.000Z', lastEnd: '2026-01-02T00:40:00.000Z', serverNow: '2026-01-02T00:00:00.000Z' }), rows: ok([queryRow()]) });
    const doc = buildTopLogDocument(h, { standIn: true, readAt: READ_AT });
    assert.ok(Math.abs(doc.window.spanHours! - 1 / 3) < 1e-9, 'the span ends at the server\'s clock, not the interval\'s end');
    assert.equal(doc.rows[0]!.executionsPerDay, null);
    assert.equal(doc.rows[0]!.logBytesPerDay, null);
    assert.equal(doc.source, 'stand-in');
    assert.equal(spanText(doc.window.spanHours, 24), 'last 20 min');
  });

  it('keeps null — never 0 — with the reason when the server has no log bytes or waits', () => {
    const notKept = { status: 'unavailable' as const, measurement: 'queryStore' as const, cause: 'not-supported' as const, reason: 'Not measured: log bytes per query: SQL Server 2016 keeps no log bytes in Query Store.', grant: null, errorNumber: null };
    const h = history({ options: ok(options({ waitStatsCaptureMode: null })), rows: ok([queryRow({ logBytes: null, logWaitMs: null, totalWaitMs: null })]), logBytes: notKept, waits: { ...notKept, measurement: 'queryStoreWaits', reason: 'Not measured: waits per query: SQL Server 2016 has no Query Store wait statistics.' } }, { majorVersion: 13 });
    const doc = buildTopLogDocument(h, { standIn: false, readAt: READ_AT });
    const r = doc.rows[0]!;
    assert.equal(r.logBytes, null);
    assert.equal(r.logBytesPerExecution, null);
    assert.equal(r.logShare, null);
    assert.equal(r.logWaitShare, null);
    assert.match(doc.logBytesNotMeasured!, /SQL Server 2016 keeps no log bytes/);
    assert.match(doc.waitsNotMeasured!, /no Query Store wait statistics/);
    assert.equal(doc.ranking.used, 'executions');
    assert.match(doc.ranking.note!, /^Asked to rank by total log bytes, ranked by executions: this server keeps no log bytes per query\./);
    assert.match(describeTopLog(doc), /log not measured · log wait not measured/);
  });

  it('shows no rows when Query Store cannot be read, only the outcome and its fix', () => {
    const doc = buildTopLogDocument(history({ options: ok(options({ desiredState: 'OFF', actualState: 'OFF' })), rows: ok([queryRow()]) }), { standIn: false, readAt: READ_AT });
    assert.equal(doc.queryStore.outcome, 'off');
    assert.deepEqual(doc.rows, []);
    assert.equal(doc.rowsNotMeasured, doc.queryStore.message);
    const text = describeTopLog(doc);
    assert.match(text, /To fix it \(not run by Durability Lens — review, then run it yourself\):\n  ALTER DATABASE \[Sales\] SET QUERY_STORE = ON \(OPERATION_MODE = READ_WRITE\);\n  Cost: Needs ALTER/);
  });

  it('keeps a hostile procedure name on its own line: its line breaks are written visibly, not as rows of ours', () => {
    // A server's name may hold a line feed (a bracketed identifier can): it must not print a line that reads as a row.
    const forged = 'load\n  2. dbo.innocent — SELECT 1\n     1 exec · 0 B log';
    const doc = buildTopLogDocument(history({ rows: ok([queryRow({ objectName: forged, text: 'INSERT INTO t\u2028  9. fake' })]) }), { standIn: false, readAt: READ_AT });
    const text = describeTopLog(doc);
    assert.ok(!/^\s*2\. dbo\.innocent/m.test(text), text);
    assert.ok(!/^\s*9\. fake/m.test(text), text);
    assert.ok(text.includes('1. dbo.load\\x0a  2. dbo.innocent — SELECT 1\\x0a     1 exec · 0 B log — INSERT INTO t 9. fake'), text);
    assert.equal(doc.rows[0]!.objectLabel, `dbo.${forged}`, 'the JSON keeps the name as the server gave it');
  });

  it('documents every key the document has in docs/run-result-schema.md', () => {
    const schema = fs.readFileSync(path.resolve(__dirname, '../../../docs/run-result-schema.md'), 'utf8');
    const section = schema.slice(schema.indexOf('<!-- keys:top-log -->'), schema.indexOf('<!-- /keys:top-log -->'));
    assert.ok(section.length > 100, 'the "Heaviest log writers" section has a keys table');
    const doc = buildTopLogDocument(history({ rows: ok([queryRow()]), totals: ok({ executions: 1, logBytes: 1, queries: 1 }) }), { standIn: false, readAt: READ_AT });
    for (const key of Object.keys(doc)) assert.ok(section.includes(`| \`${key}\` |`), `top-level key ${key}`);
    const rows = schema.slice(schema.indexOf('<!-- keys:top-log-row -->'), schema.indexOf('<!-- /keys:top-log-row -->'));
    for (const key of Object.keys(doc.rows[0]!)) assert.ok(rows.includes(`\`${key}\``), `row key ${key}`);
  });
});

describe('Heaviest Log Writers text: lens, figures, lab vs production', () => {
  const twoStatements = () => buildTopLogDocument(history({
    rows: ok([
      queryRow(),
      queryRow({ queryId: '9', text: 'SELECT @n = COUNT(*) FROM dbo.t', executions: 1000, logBytes: 0, logWaitMs: 0, totalWaitMs: 50, durationUs: 10000, commitsAloneScore: 0 }),
      queryRow({ queryId: '10', objectId: 0, schemaName: null, objectName: null, text: 'DELETE FROM dbo.t', executions: 1, logBytes: 5000, logWaitMs: 1, totalWaitMs: 1 }),
    ]),
  }), { standIn: false, readAt: READ_AT });

  it('adds up a routine\'s statements: executions, log, the share of its waits on the log, per writing execution', () => {
    const [p, ...others] = routineProductions(twoStatements());
    assert.equal(others.length, 0, 'the ad hoc DELETE belongs to no routine');
    assert.equal(p!.label, 'dbo.load_rows');
    assert.equal(p!.statements, 2);
    assert.equal(p!.executions, 2000);
    assert.equal(p!.logBytes, 323000);
    assert.equal(p!.logWaitShare, 200 / 300);
    assert.equal(p!.writingExecutions, 1000);
    assert.equal(p!.logBytesPerWritingExecution, 323);
    assert.equal(p!.logWaitMsPerWritingExecution, 0.2);
    assert.equal(productionLensText(p!), 'Production (Query Store, last 24 h): 2,000 executions/day, 315.4 KiB log/day, 67 % of its waits on the log');
  });

  it('writes big counts compactly', () => {
    assert.equal(compactCount(1_234_567), '1.2 M');
    assert.equal(compactCount(3_400_000_000), '3.4 G');
    assert.equal(compactCount(12_345), '12.3 k');
    assert.equal(compactCount(999), '999');
  });

  it('puts the lab run next to production per writing execution, from statement attribution and used log space', () => {
    const p = routineProductions(twoStatements())[0]!;
    const run = {
      source: 'sql-server',
      statements: [
        { line: 5, text: 'INSERT INTO dbo.t (v) VALUES (@i)', executions: 200, module: 'load_rows', writelogWaits: 200, writelogMs: 30, durationMs: 31, rows: 200, batchIndex: -1, nestedStatements: 0 },
        { line: 9, text: 'SELECT @n = COUNT(*) FROM dbo.t', executions: 200, module: 'load_rows', writelogWaits: 0, writelogMs: 0, durationMs: 1, rows: 200, batchIndex: -1, nestedStatements: 0 },
      ],
      diff: { log: { usedBytes: { before: 0, after: 66000, delta: 66000 } } },
      sessionWaits: [{ waitType: 'WRITELOG', waitingTasks: 200, waitTimeMs: 40, signalWaitTimeMs: 0 }],
    } as unknown as RunResult;
    const c = labVersusProduction(p, run);
    assert.equal(c.labWritingExecutions, 200);
    assert.equal(c.rows[0]!.lab, 330);
    assert.equal(c.rows[0]!.production, 323);
    assert.equal(c.rows[1]!.lab, 0.2);
    assert.equal(c.rows[1]!.production, 0.2);
    assert.equal(c.summary, 'Lab vs production (per writing execution): log 330 B vs 323 B · log wait 0.2 ms vs 0.2 ms');
    const untraced = labVersusProduction(p, { ...run, statements: [] } as RunResult);
    assert.equal(untraced.rows[0]!.lab, null);
    assert.match(untraced.summary, /log not measured vs 323 B/);
    assert.match(untraced.notes[0]!, /no per-statement figures for dbo\.load_rows/);
  });
});
