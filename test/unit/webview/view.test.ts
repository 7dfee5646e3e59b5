import * as assert from 'node:assert/strict';
import { panelDataFromComparison, panelDataFromRun, panelDataFromTrace } from '../../../src/extension/panelData';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { alterDurabilitySql, DATA_LOSS_CAVEAT } from '../../../src/profile/durabilityGuard';
import { runOrder } from '../../../src/profile/plan';
import type { ComparisonResult } from '../../../src/profile/compare';
import type { RunResult } from '../../../src/profile/types';
import { ok } from '../../../src/probes/measurement';
import { h, renderPanel, toHtml, type VElement, type VNode } from '../../../src/webview/view';
import { isFromWebview } from '../../../src/shared/webviewProtocol';
import { makeRun } from '../report/runFixture';

const HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">';

function hostileRun(mode: 'DISABLED' | 'FORCED', rep: number, elapsedMs: number, writelogMs: number): RunResult {
  const run = makeRun({ mode, elapsedMs, commits: 1000, waits: { WRITELOG: { count: 1000, ms: writelogMs }, [HOSTILE]: { count: 1, ms: 5 } }, log: { writes: 1000 - rep, bytes: 4096000, stallMs: 100 } });
  run.repetition = rep;
  run.server.identity.serverName = `srv${HOSTILE}`;
  run.database = { databaseId: 7, name: `lab${HOSTILE}`, state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: mode, cdcEnabled: false, published: false, logReuseWait: null, inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: ok([]) };
  run.diff.files = ok({
    files: [{ fileId: 2, kind: 'log', logicalName: `log${HOSTILE}`, physicalName: '/x', intervalMs: 1000, reads: 0, bytesRead: 0, readStallMs: 0, writes: 1000, bytesWritten: 4096000, writeStallMs: 100, ioStallMs: 100, avgBytesPerWrite: 4096, msPerWrite: 0.1, avgBytesPerRead: null, msPerRead: null }],
    totals: [{ kind: 'log', files: 1, reads: 0, bytesRead: 0, writes: 1000 - rep, bytesWritten: 4096000, writeStallMs: 100, readStallMs: 0, avgBytesPerWrite: 4096, msPerWrite: 0.1 }],
    unmatchedFileIds: [],
  });
  run.missing = [{ measurement: 'extendedEvents', reason: `no permission ${HOSTILE}`, grant: 'GRANT ALTER ANY EVENT SESSION TO [lens];' }];
  return run;
}

function comparison(): ComparisonResult {
  const modes = ['DISABLED', 'FORCED'] as const;
  const runs = [hostileRun('DISABLED', 0, 2000, 1500), hostileRun('FORCED', 0, 400, 0), hostileRun('FORCED', 1, 420, 0), hostileRun('DISABLED', 1, 2100, 1600)];
  runs.forEach((r) => (r.source = 'stand-in'));
  return {
    schemaVersion: 1,
    status: 'completed',
    plan: { server: 'sql1,1433', serverVersion: 'Durability Lens stand-in', source: 'stand-in', database: `lab${HOSTILE}`, databaseId: 7, currentSetting: 'DISABLED', modes: [...modes], repetitions: 2, warmup: false, order: runOrder([...modes], 2, false), statements: [alterDurabilitySql('lab', 'FORCED')], restoreStatement: alterDurabilitySql('lab', 'DISABLED'), dataLossCaveat: DATA_LOSS_CAVEAT, refusals: [], warnings: [], canProceed: true, grant: null },
    runs,
    setupBatchCount: 0,
    restore: { status: 'restored', server: 'sql1,1433', database: 'lab', originalSetting: 'DISABLED', verifiedSetting: 'DISABLED', journalCleared: true, restoreStatement: alterDurabilitySql('lab', 'DISABLED'), message: 'ok' },
    error: null,
  };
}

function texts(node: VNode): string[] {
  return typeof node === 'string' ? [node] : node.children.flatMap(texts);
}
function find(node: VNode, pred: (e: VElement) => boolean): VElement[] {
  if (typeof node === 'string') return [];
  return [...(pred(node) ? [node] : []), ...node.children.flatMap((c) => find(c, pred))];
}

describe('webview/view and extension/panelData', () => {
  const data = panelDataFromComparison(comparison(), new Date('2026-01-02T03:04:05.000Z'));
  const tree = renderPanel(data);
  const html = toHtml(tree);

  it('server-provided strings appear as text, never as markup', () => {
    assert.ok(!html.includes('<script>'));
    assert.ok(!html.includes('<img'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror="alert(2)"&gt;'));
    // In the element tree the hostile text is a plain string child (main.ts sets it with a text node).
    assert.ok(texts(tree).some((t) => t === `lab${HOSTILE}`));
    assert.ok(find(tree, (e) => e.tag === 'script' || e.tag === 'img').length === 0);
  });

  it('refuses event-handler and style attributes and script tags', () => {
    assert.throws(() => toHtml(h('div', { onclick: 'x' })));
    assert.throws(() => toHtml(h('div', { style: 'color:red' })));
    assert.throws(() => toHtml(h('script', {}, 'x')));
  });

  it('shows the header facts, the restore verdict and the stand-in banner', () => {
    assert.equal(data.header.server, 'sql1,1433');
    assert.equal(data.header.recoveryModel, 'FULL');
    assert.equal(data.header.restore?.ok, true);
    assert.equal(data.header.restore?.message, 'Original setting DISABLED restored ✓ (verified: DISABLED)');
    assert.ok(data.standInLabel);
    const banner = find(tree, (e) => e.attrs.class === 'dl-banner');
    assert.equal(banner.length, 1);
    assert.ok(texts(banner[0]!).join('').startsWith('STAND-IN '));
  });

  it('the metric table has one column per mode plus the ratio, with arrows', () => {
    const headerCells = find(tree, (e) => e.tag === 'vscode-table-header-cell').map((e) => texts(e).join(''));
    assert.deepEqual(headerCells.slice(0, 4), ['Metric', 'DISABLED (2 runs)', 'FORCED (2 runs)', 'FORCED vs DISABLED']);
    const elapsedRow = find(tree, (e) => e.tag === 'vscode-table-row').find((r) => texts(r)[0] === 'Workload elapsed')!;
    const cells = texts(elapsedRow);
    assert.equal(cells[1], '2,050 ms (2,000 – 2,100)');
    assert.equal(cells[2], '410 ms (400 – 420)');
    assert.equal(cells[3], '↓ ×0.2 [0.19–0.21]');
  });

  it('builds chart series per mode and repetition, warm-up excluded', () => {
    assert.deepEqual(data.charts.repetitions, ['rep 1', 'rep 2']);
    assert.deepEqual(data.charts.elapsedMs, [
      { label: 'DISABLED', values: [2000, 2100] },
      { label: 'FORCED', values: [400, 420] },
    ]);
    assert.deepEqual(data.charts.writelogMs[0], { label: 'DISABLED', values: [1500, 1600] });
    assert.deepEqual(data.charts.writesVsBytes[1]!.points, [{ x: 1000, y: 4096000 }, { x: 999, y: 4096000 }]);
    assert.equal(find(tree, (e) => e.tag === 'canvas').length, 4); // elapsed, WRITELOG, writes vs bytes, per-file IO: no XE histogram/timeline, no samples in these runs
  });

  it('lists files, waits and missing measurements with a de-duplicated GRANT script', () => {
    assert.equal(data.files.length, 2);
    assert.equal(data.files[0]!.file, `log${HOSTILE}`);
    assert.equal(data.waits[0]!.waitType, 'WRITELOG');
    assert.equal(data.missing.length, 1);
    // Rebuilt from the run's facts (login "lens", SQL Server 2022), not copied from the run's grant text.
    assert.equal(data.grantScript, 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [lens];');
    assert.equal(find(tree, (e) => e.attrs['data-action'] === 'copyGrants').length, 1);
    for (const a of ['copyMarkdown', 'export-markdown', 'export-csv', 'export-json']) assert.equal(find(tree, (e) => e.attrs['data-action'] === a).length, 1, a);
  });

  it('keeps the selected tab within range', () => {
    assert.equal(find(renderPanel(data, 4), (e) => e.tag === 'vscode-tabs')[0]!.attrs['selected-index'], '4');
    assert.equal(find(renderPanel(data, 99), (e) => e.tag === 'vscode-tabs')[0]!.attrs['selected-index'], '6');
  });

  it('a single run renders as a profile with its SQL error at the document line', () => {
    const run = hostileRun('DISABLED', 0, 100, 50);
    run.mode = null;
    run.repetition = null;
    run.status = 'workload-error';
    run.errors = [{ number: 208, message: `Invalid object name '${HOSTILE}'.`, documentLine: 4, batchIndex: 0 }];
    const single = panelDataFromRun(run, 'sql1,1433');
    assert.equal(single.kind, 'profile');
    assert.equal(single.header.error, `SQL error 208 at line 5: Invalid object name '${HOSTILE}'.`);
    assert.ok(!toHtml(renderPanel(single)).includes('<img'));
    assert.equal(single.header.restore, null);
  });

  it('panel data survives JSON (what workspaceState and setState store)', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(data)), data);
  });

  it('accepts only well-formed messages from the webview', () => {
    assert.equal(isFromWebview({ type: 'export', format: 'csv' }), true);
    assert.equal(isFromWebview({ type: 'export', format: 'exe' }), false);
    assert.equal(isFromWebview({ type: 'ready' }), true);
    assert.equal(isFromWebview({ type: 'runSql', sql: 'DROP' }), false);
    assert.equal(isFromWebview(null), false);
  });
});

describe('webview/view diagnosis', () => {
  it('shows each finding with its evidence, numbers formatted', () => {
    const data = panelDataFromComparison(comparison());
    data.model.diagnosis = [{ id: 'commit-per-row', severity: 'warning', title: `One commit per row ${HOSTILE}`, detail: 'd', suggestion: 'Batch the rows.', evidence: [{ metric: 'writelog.avgMs', column: 'DISABLED', value: 0.123456 }] }];
    const tree = renderPanel(data, 2);
    const finding = find(tree, (e) => e.attrs.class === 'dl-finding dl-warning');
    assert.equal(finding.length, 1);
    const text = texts(finding[0]!);
    assert.ok(text.includes(`One commit per row ${HOSTILE}`));
    assert.ok(text.includes('Batch the rows.'));
    assert.ok(text.includes('WRITELOG average wait (DISABLED): 0.123'), 'evidence shows the metric label');
    assert.ok(toHtml(finding[0]!).includes('<li title="writelog.avgMs">'), 'the metric id stays in the tooltip');
  });
});

describe('webview/view ad-hoc trace', () => {
  it('shows only the trace charts and its figures, with no empty per-run charts or environment', () => {
    const trace = {
      sessionName: `durability_lens_${HOSTILE}`, target: 'ring_buffer', eventCount: 4, eventsByName: {}, flushEvent: 'log_flush_complete', flushes: 4, bytes: 2048, sizeEvent: 'log_flush_complete',
      lostEvents: 0, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, latencyMs: null, durationUnit: null,
      sizeHistogram: { edgesBytes: [512], labels: ['≤512 B', '>512 B'], counts: [4, 0] }, flushesPerCommit: null, commitCount: null,
      timeline: { bucketMs: 100, startUtc: null, counts: [1, 3] }, missingEvents: [], missingFields: [], counterCrossCheck: null, notes: [],
    } as unknown as LogFlushTrace;
    const data = panelDataFromTrace(trace, { server: 's', database: 'lab', standIn: true, startedAt: new Date(0) }, new Date(1500));
    const tree = renderPanel(data, 1);
    assert.deepEqual(find(tree, (e) => e.tag === 'canvas').map((c) => c.attrs['data-chart']), ['flushSizes', 'flushTimeline']);
    assert.equal(find(tree, (e) => e.tag === 'section').length, 0, 'no environment block');
    const html = toHtml(tree);
    assert.ok(html.includes(`durability_lens_${HOSTILE.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')} (ring_buffer)`));
    assert.ok(html.includes('Flush latency</vscode-table-cell><vscode-table-cell>n/a (no duration field)'));
    assert.ok(html.includes('traced for 1.5 s'));
  });
});
