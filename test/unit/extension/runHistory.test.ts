// Run history (bounded, newest first, survives JSON like workspaceState) and what Export Run writes.
import * as assert from 'node:assert/strict';
import { comparisonContextOf, exportText, panelDataFromComparison, panelDataFromDocument, panelDataFromRun, panelDataFromTrace } from '../../../src/extension/panel/panelData';
import type { ComparisonResult } from '../../../src/profile/compare';
import { loadComparison } from '../../../src/report/document';
import { describeEntry, HISTORY_KEY, RunHistory, type KeyValueStore } from '../../../src/extension/history/runHistory';
import type { LogFlushTrace } from '../../../src/xe/aggregate';
import { makeRun } from '../report/runFixture';

class MemoryMemento implements KeyValueStore {
  values = new Map<string, string>();
  get<T>(key: string): T | undefined {
    const v = this.values.get(key);
    return v === undefined ? undefined : (JSON.parse(v) as T);
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.stringify(value));
  }
}

function runAt(i: number, database = `db${i}`) {
  const run = makeRun({ mode: null, elapsedMs: 100 + i });
  run.server.identity.currentDatabase = database;
  return { run, data: panelDataFromRun(run, 'sql1,1433', new Date(Date.UTC(2026, 0, 1, 0, 0, i))) };
}

describe('extension/runHistory', () => {
  it('keeps the last N, newest first, and reopens an entry with its data and runs', async () => {
    const store = new MemoryMemento();
    let limit = 3;
    const history = new RunHistory(store, () => limit);
    for (let i = 0; i < 5; i++) {
      const { run, data } = runAt(i);
      await history.add(data, [run]);
    }
    const list = history.list();
    assert.deepEqual(list.map((e) => e.database), ['db4', 'db3', 'db2']);
    const entry = history.get(list[1]!.id)!;
    assert.equal(entry.panel.title, 'Durability profile: db3');
    assert.equal(entry.runs[0]!.workloadElapsedMs, 103);
    assert.equal(entry.status, 'completed');
    limit = 1;
    await history.trim();
    assert.deepEqual(history.list().map((e) => e.database), ['db4']);
    assert.equal((store.get<unknown[]>(HISTORY_KEY) ?? []).length, 1);
  });

  it('skips stored entries of a wrong shape instead of failing', async () => {
    const store = new MemoryMemento();
    await store.update(HISTORY_KEY, [{ nonsense: true }, 42]);
    const history = new RunHistory(store, () => 10);
    assert.deepEqual(history.list(), []);
    const { run, data } = runAt(1);
    await history.add(data, [run]);
    assert.equal(history.list().length, 1);
  });

  it('describes an entry with kind, database, time, status and the stand-in mark', () => {
    const run = makeRun({ mode: null, source: 'stand-in' });
    const data = panelDataFromRun(run, 'sql1,1433', new Date('2026-03-04T05:06:07.890Z'));
    const d = describeEntry({ id: 'x', kind: data.kind, title: data.title, createdAt: data.createdAt, database: data.header.database, server: data.header.server, status: data.header.status, panel: data, runs: [run] });
    // Without a workload file (older entries) the database names it; the mode and the headline tell entries apart.
    assert.equal(d.label, `Profile: lab · ${data.model.columns[0]}`);
    assert.match(d.description, /^The workload ran in [\d.]+ (ms|s) · 2026-03-04 05:06:07Z$/);
    assert.equal(d.detail, 'sql1,1433 — database lab — completed (stand-in figures)');
    const named = describeEntry({ id: 'y', kind: data.kind, title: data.title, createdAt: data.createdAt, database: 'lab', server: 'sql1,1433', status: 'completed', panel: { ...data, header: { ...data.header, workload: 's1-single-row-inserts.sql: batch 3 (lines 17–24)' } }, runs: [run] });
    assert.equal(named.label, `Profile: s1-single-row-inserts.sql · ${data.model.columns[0]}`);
  });
});

describe('extension/panelData exports of a run', () => {
  it('a profile exports as the CLI prints it (the RunResult with its diagnosis); Markdown adds the environment and log tables', () => {
    const run = makeRun({ mode: null, elapsedMs: 4321 });
    run.server.traceFlags = { status: 'ok', value: [{ flag: 3979, status: true, global: true, session: false }] };
    run.diff.log = { vlfCount: { before: 12, after: 14 }, logSizeMb: { before: 64, after: 72 }, usedBytes: null, usedPercent: null };
    const data = panelDataFromRun(run, 'sql1,1433');
    assert.deepEqual(data.environment, { traceFlag3979: 'on (global)', traceFlag3982: 'off', vlfCount: 14, logSizeMb: 72, recoveryModel: null, delayedDurability: null, notMeasured: { traceFlags: null, vlfCount: null, logSize: null } });
    const json = JSON.parse(exportText(data, 'json', [run]));
    assert.equal(json.schemaVersion, 1);
    assert.equal(json.workloadElapsedMs, 4321);
    assert.deepEqual(json.diagnosis, data.model.diagnosis);
    const md = exportText(data, 'markdown');
    assert.equal(md.match(/^## Environment$/gm)?.length, 1, 'one environment section (the report layer writes it)');
    assert.ok(md.includes('3979 on'), md);
    assert.ok(md.includes('| VLF count | 12 | 14 |'), md);
    assert.equal(JSON.parse(exportText(data, 'json')).kind, 'profile', 'without runs: the panel figures');
  });

  it('a comparison exports as the comparison document, which loadComparison reads back into the same panel', () => {
    const runs = [makeRun({ mode: 'DISABLED', elapsedMs: 2000 }), makeRun({ mode: 'FORCED', elapsedMs: 500 }), makeRun({ mode: 'FORCED', elapsedMs: 520 }), makeRun({ mode: 'DISABLED', elapsedMs: 2100 })];
    runs.forEach((r, i) => (r.repetition = i < 2 ? 0 : 1));
    const plan = { server: 'sql1,1433', serverVersion: 'Microsoft SQL Server 2022', source: 'sql-server', database: 'lab', databaseId: 7, currentSetting: 'DISABLED', modes: ['DISABLED', 'FORCED'], repetitions: 2, warmup: false, order: [], statements: [], restoreStatement: '', dataLossCaveat: '', refusals: [], warnings: [], canProceed: true, grant: null };
    const restore = { status: 'restored', server: 'sql1,1433', database: 'lab', originalSetting: 'DISABLED', verifiedSetting: 'DISABLED', journalCleared: true, restoreStatement: '', message: 'ok' };
    const result = { schemaVersion: 1, status: 'completed', plan, runs, setupBatchCount: 0, restore, error: null } as unknown as ComparisonResult;
    const data = panelDataFromComparison(result, new Date('2026-02-03T04:05:06Z'));
    const text = exportText(data, 'json', runs, comparisonContextOf(result));
    const doc = JSON.parse(text);
    assert.equal(doc.originalSetting, 'DISABLED');
    assert.equal(doc.restoredSetting, 'DISABLED');
    assert.deepEqual(doc.modes.map((m: { mode: string; runs: unknown[]; median: { elapsedMs: number } }) => [m.mode, m.runs.length, m.median.elapsedMs]), [['DISABLED', 2, 2050], ['FORCED', 2, 510]]);
    assert.ok(doc.ratios.elapsed.FORCED.ratio < 0.3);
    const reopened = panelDataFromDocument(loadComparison(text));
    assert.equal(reopened.title, data.title);
    assert.equal(reopened.createdAt, data.createdAt);
    assert.deepEqual(reopened.model.rows.find((r) => r.id === 'elapsed')!.cells, data.model.rows.find((r) => r.id === 'elapsed')!.cells);
    assert.equal(reopened.header.restore?.ok, true);
  });

  it('a trace exports its figures as CSV rows and Markdown table rows', () => {
    const trace = {
      sessionName: 'durability_lens_ab12', target: 'ring_buffer', eventCount: 30, eventsByName: {}, flushEvent: 'log_flush_complete', flushes: 10, bytes: 40960, sizeEvent: 'log_flush_complete',
      lostEvents: 0, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, latencyMs: { p50: 0.5, p95: 1.25, p99: 2, max: 3 }, durationUnit: 'microseconds',
      sizeHistogram: null, flushesPerCommit: null, commitCount: null, timeline: { bucketMs: 100, startUtc: null, counts: [3, 7] }, missingEvents: [], missingFields: [], counterCrossCheck: null, notes: [],
    } as unknown as LogFlushTrace;
    const data = panelDataFromTrace(trace, { server: 's,1433', database: 'lab', standIn: false, startedAt: new Date('2026-01-01T00:00:00Z') }, new Date('2026-01-01T00:00:05Z'));
    assert.equal(data.header.status, 'traced for 5.0 s');
    assert.deepEqual(data.charts.flushTimeline, { bucketMs: 100, series: [{ label: 'trace', values: [3, 7] }], coverage: ['coverage not recorded'] });
    const csv = exportText(data, 'csv').split('\r\n');
    assert.equal(csv[0], 'figure,value');
    assert.ok(csv.includes('Bytes flushed,40.00 KiB'), csv.join('\n'));
    assert.ok(csv.includes('Average flush size,4.00 KiB'));
    const md = exportText(data, 'markdown');
    assert.ok(md.includes('| Flush latency p50 / p95 / p99 / max | 0.5 ms / 1.25 ms / 2 ms / 3 ms |'), md);
    assert.ok(!md.includes('## Environment'));
  });
});
