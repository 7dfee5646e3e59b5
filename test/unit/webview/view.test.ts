import * as assert from 'node:assert/strict';
import { panelDataFromComparison, panelDataFromRun, panelDataFromTrace } from '../../../src/extension/panel/panelData';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { alterDurabilitySql, DATA_LOSS_CAVEAT } from '../../../src/profile/durabilityGuard';
import { runOrder } from '../../../src/profile/plan';
import type { ComparisonResult } from '../../../src/profile/compare';
import type { RunResult } from '../../../src/profile/types';
import { ok } from '../../../src/probes/measurement';
import { h, renderPanel, renderRunning, TAB_TITLES, toHtml, type VElement, type VNode } from '../../../src/webview/view';
import { isFromWebview } from '../../../src/shared/webviewProtocol';
import { makeRun } from '../report/runFixture';

const HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">';

function hostileRun(mode: 'DISABLED' | 'FORCED', rep: number, elapsedMs: number, writelogMs: number): RunResult {
  const run = makeRun({ mode, elapsedMs, commits: 1000, flushesCounter: mode === 'DISABLED' ? 1000 : 17, waits: { WRITELOG: { count: 1000, ms: writelogMs }, [HOSTILE]: { count: 1, ms: 5 } }, log: { writes: 1000 - rep, bytes: 4096000, stallMs: 100 } });
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
    const metrics = find(tree, (e) => e.tag === 'table' && e.attrs['aria-label'] === 'Metrics per durability mode')[0]!;
    const headerCells = find(metrics, (e) => e.tag === 'th' && e.attrs.scope === 'col').map((e) => texts(e).join(''));
    assert.deepEqual(headerCells.slice(0, 4), ['Metric', 'DISABLED (2 runs)', 'FORCED (2 runs)', 'FORCED vs DISABLED']);
    const elapsedRow = find(metrics, (e) => e.tag === 'tr').find((r) => texts(r)[0] === 'Workload elapsed')!;
    const cells = find(elapsedRow, (e) => e.tag === 'td' || e.tag === 'th').map((e) => texts(e).join(''));
    assert.equal(cells[1], '2.05 s (2.00 – 2.10)');
    assert.equal(cells[2], '410 ms (400 – 420)');
    // The speed-up in words, not an inverted ratio (issue 20: "FORCED 9.8× faster" was shown as ↓ ×0.1).
    assert.equal(cells[3], '5.0× faster [4.8×–5.3×]');
  });

  it('builds chart series per mode and repetition, warm-up excluded', () => {
    assert.deepEqual(data.charts.repetitions, ['rep 1', 'rep 2']);
    assert.deepEqual(data.charts.elapsedMs, [
      { label: 'DISABLED', values: [2000, 2100] },
      { label: 'FORCED', values: [400, 420] },
    ]);
    assert.deepEqual(data.charts.writelogMs[0], { label: 'DISABLED', values: [1500, 1600] });
    assert.deepEqual(data.charts.writesVsBytes[1]!.points, [{ x: 1000, y: 4096000 }, { x: 999, y: 4096000 }]);
    // elapsed, WRITELOG, writes vs bytes, per-file bytes, per-file throughput: no XE histogram/timeline, no samples here
    assert.deepEqual(find(tree, (e) => e.tag === 'canvas').map((c) => c.attrs['data-chart']), ['elapsed', 'writelog', 'writesVsBytes', 'fileIo', 'fileThroughput']);
  });

  it('opens with the verdict block before the toolbar, the server details and the tabs', () => {
    const panel = tree.children.filter((c): c is VElement => typeof c !== 'string');
    const order = panel.map((e) => e.attrs.class ?? e.tag);
    assert.deepEqual(order, ['dl-banner', 'h1', 'dl-verdict', 'dl-toolbar', 'dl-header', 'dl-tabs']);
    const verdict = panel[2]!;
    const headline = find(verdict, (e) => e.attrs.class?.startsWith('dl-headline') ?? false)[0]!;
    // DISABLED 2000/2100 ms vs FORCED 400/420 ms: 2050/410 = 5.0×, range 2000/420–2100/400.
    assert.equal(texts(headline).join(''), 'FORCED ran 5.0× faster than DISABLED (4.8–5.3×, 2 runs each; conclusive)');
    assert.equal(headline.attrs.class, 'dl-headline dl-tone-good');
    const fact = (id: string) => texts(find(verdict, (e) => e.attrs['data-fact'] === id)[0]!).join('');
    assert.equal(fact('flushes'), 'DISABLED 1.00 per commit (1,000 flushes for 1,000 commits), FORCED 0.017 per commit (17 flushes for 1,000 commits)');
    assert.match(fact('time'), /^WRITELOG, 1\.55 s — 100 % of the session's waits, 76 % of the elapsed time$/);
    assert.match(fact('exposure'), /^up to about 15 of this workload's commits — one unflushed 60 KB log block at 4\.00 KiB of log per commit \(measured under FORCED\): on a crash, shutdown or restart, the data of committed transactions whose log is not yet on disk is lost/);
    assert.equal(fact('restore'), 'Original setting DISABLED restored ✓ (verified)');
  });

  it('an inconclusive speed-up is neutral in the verdict and in the metric table', () => {
    const c = comparison();
    c.runs = [hostileRun('DISABLED', 0, 1000, 500), hostileRun('FORCED', 0, 900, 0), hostileRun('FORCED', 1, 1100, 0), hostileRun('DISABLED', 1, 1050, 500)];
    const d = panelDataFromComparison(c);
    const t = renderPanel(d);
    const headline = find(t, (e) => e.attrs.class?.startsWith('dl-headline') ?? false)[0]!;
    assert.equal(headline.attrs.class, 'dl-headline dl-tone-neutral');
    assert.match(texts(headline).join(''), /^FORCED vs DISABLED: no conclusive difference/);
    const ratio = find(t, (e) => (e.attrs.class ?? '').startsWith('dl-ratio')).find((e) => texts(e).join('').includes('faster'))!;
    assert.equal(ratio.attrs.class, 'dl-ratio dl-inconclusive');
  });

  it('a running view replaces the old result with the step, the elapsed time and the live sampler figures', () => {
    const html = toHtml(renderRunning({ title: 'Durability comparison: lab', step: 'run 3 of 7: FORCED — workload batch 3, GO iteration 120 of 500', elapsedMs: 12_500, logFlushes: 1234, logBytes: 5 * 1024 * 1024 }));
    assert.match(html, /Running… run 3 of 7: FORCED — workload batch 3, GO iteration 120 of 500/);
    assert.match(html, /<dd>12\.50 s<\/dd>/);
    assert.match(html, /<dd>1,234<\/dd>/);
    assert.match(html, /<dd>5\.00 MiB<\/dd>/);
    assert.doesNotMatch(html, /Workload elapsed/);
  });

  it('lists files, waits and missing measurements with a de-duplicated GRANT script', () => {
    assert.equal(data.files.length, 2);
    assert.equal(data.files[0]!.file, `log${HOSTILE}`);
    // Reads beside writes (S5), with throughput over the run's snapshot interval (1,050 ms in the fixture).
    assert.equal(data.files[0]!.bytesRead, 0);
    assert.equal(data.files[0]!.readBytesPerSec, 0);
    assert.equal(Math.round(data.files[0]!.writeBytesPerSec!), Math.round((4096000 * 1000) / 1050));
    const io = find(renderPanel(data, 3), (e) => e.tag === 'table' && e.attrs['aria-label'] === 'Per-file IO')[0]!;
    const headers = find(io, (e) => e.tag === 'th' && e.attrs.scope === 'col').map((e) => texts(e).join(''));
    assert.deepEqual(headers, ['File', 'Mode', 'Kind', 'Writes', 'Bytes written', 'ms/write', 'Bytes/write', 'Write throughput', 'Reads', 'Bytes read', 'ms/read', 'Read throughput']);
    const first = find(io, (e) => e.tag === 'tr').find((r) => texts(r)[0] === `log${HOSTILE}`)!;
    assert.equal(find(first, (e) => e.tag === 'td').map((e) => texts(e).join(''))[6], '3.72 MiB/s');
    assert.equal(data.waits[0]!.waitType, 'WRITELOG');
    assert.equal(data.missing.length, 1);
    // Rebuilt from the run's facts (login "lens", SQL Server 2022), not copied from the run's grant text.
    assert.equal(data.grantScript, 'USE [master];\nGRANT ALTER ANY EVENT SESSION TO [lens];');
    assert.equal(find(tree, (e) => e.attrs['data-action'] === 'copyGrants').length, 1);
    for (const a of ['copyMarkdown', 'export-markdown', 'export-csv', 'export-json']) assert.equal(find(tree, (e) => e.attrs['data-action'] === a).length, 1, a);
  });

  it('keeps the selected tab within range', () => {
    const shown = (tabIndex: number) => find(renderPanel(data, tabIndex), (e) => e.attrs.role === 'tabpanel' && e.attrs.hidden === undefined).map((e) => e.attrs['data-tabpanel']);
    const selected = (tabIndex: number) => find(renderPanel(data, tabIndex), (e) => e.attrs.role === 'tab' && e.attrs['aria-selected'] === 'true').map((e) => e.attrs['data-tab']);
    assert.deepEqual(shown(4), ['4']);
    assert.deepEqual(selected(4), ['4']);
    assert.deepEqual(shown(99), [String(TAB_TITLES.length - 1)]);
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
    assert.ok(text.includes('WRITELOG average wait (DISABLED): 0.123 ms/wait'), 'evidence shows the metric label');
    assert.ok(toHtml(finding[0]!).includes('<li title="sys.dm_exec_session_wait_stats">'), 'the tooltip says where the figure comes from, never the metric id');
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
    assert.equal(find(tree, (e) => e.attrs.class === 'dl-environment').length, 0, 'no environment block');
    assert.equal(find(tree, (e) => e.attrs.class === 'dl-verdict').length, 0, 'a trace has no verdict');
    const html = toHtml(tree);
    assert.ok(html.includes(`durability_lens_${HOSTILE.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')} (ring_buffer)`));
    assert.ok(html.includes('Flush latency</th><td class="dl-num">n/a (no duration field)'));
    assert.ok(html.includes('traced for 1.5 s'));
  });
});
