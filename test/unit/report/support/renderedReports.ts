// Every report text the product writes from one fixed set of figures: the comparison's Markdown, CSV and JSON, its
// document, and the Heaviest Log Writers text and lens line. machineIndependence.test.ts renders them in this process
// and in processes set to other time zones and locales: a report must not change with the machine that wrote it.
// Run directly (`node --import tsx renderedReports.ts`), it prints them as JSON for the parent test to compare.
import { ok } from '../../../../src/probes/measurement';
import { buildComparisonModel } from '../../../../src/report/comparison';
import { comparisonDocument } from '../../../../src/report/document';
import { toCsv, toJson, toMarkdown } from '../../../../src/report/export';
import { buildTopLogDocument, routineProductions } from '../../../../src/report/topLog';
import { describeTopLog, productionLensText, spanText } from '../../../../src/report/topLogText';
import { history, queryRow } from '../../probes/topLogFixtures';
import { makeRun } from '../runFixture';
import { diffWaits, type WaitRow } from '../../../../src/probes/waitStats';

export function renderedReports(): Record<string, string> {
  // Figures past a thousand and with fractions, where a locale's separators would show.
  const runs = [
    // Waits tied on time, whose names a locale orders otherwise (Czech sorts "CH" after "H"): the tie's order, and which
    // of them make the top rows, must be the same everywhere.
    makeRun({ mode: 'DISABLED', elapsedMs: 12_345.678, commits: 100_000, flushesCounter: 98_765, log: { writes: 98_765, bytes: 1_234_567_890, stallMs: 4_321.5 }, waits: { WRITELOG: { count: 98_000, ms: 9_876.54 }, HADR_SYNC_COMMIT: { count: 5, ms: 50 }, CXPACKET: { count: 5, ms: 50 }, CHECKPOINT_QUEUE: { count: 5, ms: 50 }, LCK_M_X: { count: 5, ms: 50 } } }),
    makeRun({ mode: 'FORCED', elapsedMs: 2_345.5, commits: 100_000, flushesCounter: 1_234, log: { writes: 1_234, bytes: 987_654_321, stallMs: 123.25 }, waits: { WRITELOG: { count: 12, ms: 3.5 } } }),
  ];
  const model = buildComparisonModel(runs);
  const topLog = buildTopLogDocument(history({
    rows: ok([queryRow({ executions: 1_234_567, logBytes: 9_876_543_210 }), queryRow({ queryId: '8', text: 'UPDATE dbo.t SET v = 1', executions: 10, logBytes: 17_000, logWaitMs: 0, totalWaitMs: 4, commitsAloneScore: 0 })]),
    totals: ok({ executions: 1_234_577, logBytes: 9_876_560_210, queries: 9 }),
    // A span across midnight UTC and a daylight-saving change in several zones (2026-03-29, Europe; 2026-04-05, Chatham).
    coverage: ok({ intervals: 168, firstStart: '2026-03-29T00:00:00.000Z', lastEnd: '2026-04-05T00:00:00.000Z', serverNow: '2026-04-05T00:00:00.000Z' }),
  }), { standIn: false, readAt: '2026-04-05T00:00:00.000Z' });
  const waitRow = (waitType: string, ms: number): WaitRow => ({ waitType, waitingTasks: String(ms / 10), waitTimeMs: String(ms), maxWaitTimeMs: '10', signalWaitTimeMs: '0' });
  const tied = ['HADR_SYNC_COMMIT', 'CXPACKET', 'CHECKPOINT_QUEUE', 'LCKX', 'LCK_M_X'];
  return {
    serverWaits: JSON.stringify(diffWaits(tied.map((t) => waitRow(t, 0)), tied.map((t) => waitRow(t, 50)), { topN: 2, filterBenign: false })),
    markdown: toMarkdown(model),
    csv: toCsv(model),
    json: toJson(model),
    document: JSON.stringify(comparisonDocument({ runs, status: 'completed', createdAt: '2026-12-31T23:59:59.999Z' })),
    topLog: JSON.stringify(topLog),
    topLogText: describeTopLog(topLog),
    productionLens: routineProductions(topLog).map(productionLensText).join('\n'),
    span: spanText(topLog.window.spanHours, topLog.window.requestedHours),
  };
}

if (process.argv[1] && /renderedReports\.ts$/.test(process.argv[1])) process.stdout.write(JSON.stringify(renderedReports()));
