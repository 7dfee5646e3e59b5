// Run history (bounded, newest first, survives JSON like workspaceState) and what Export Run writes.
import * as assert from 'node:assert/strict';
import { exportText, panelDataFromRun, panelDataFromTrace } from '../../../src/extension/panelData';
import { describeEntry, HISTORY_KEY, RunHistory, type KeyValueStore } from '../../../src/extension/runHistory';
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
    assert.equal(d.label, 'Profile: lab');
    assert.equal(d.description, '2026-03-04 05:06:07Z · completed');
    assert.ok(d.detail.startsWith('sql1,1433 — Durability profile: lab'));
    assert.ok(d.detail.endsWith('(stand-in figures)'));
  });
});

describe('extension/panelData exports of a run', () => {
  it('JSON carries the RunResults (schemaVersion 1) and the environment; Markdown the environment block', () => {
    const run = makeRun({ mode: null, elapsedMs: 4321 });
    run.server.traceFlags = { status: 'ok', value: [{ flag: 3979, status: true, global: true, session: false }] };
    run.diff.log = { vlfCount: { before: 12, after: 14 }, logSizeMb: { before: 64, after: 72 }, usedBytes: null, usedPercent: null };
    const data = panelDataFromRun(run, 'sql1,1433');
    const json = JSON.parse(exportText(data, 'json', [run]));
    assert.equal(json.runs.length, 1);
    assert.equal(json.runs[0].schemaVersion, 1);
    assert.equal(json.runs[0].workloadElapsedMs, 4321);
    assert.deepEqual(json.environment, { traceFlag3979: 'on (global)', traceFlag3982: 'off', vlfCount: 14, logSizeMb: 72, recoveryModel: null, delayedDurability: null });
    const md = exportText(data, 'markdown');
    assert.ok(md.includes('## Environment'), md);
    assert.ok(md.includes('- VLF count: 14'));
    assert.ok(md.includes('- Trace flag 3979: on (global)'));
    assert.ok(md.includes('| VLF count | 12 | 14 |'), md);
    assert.ok(!('runs' in JSON.parse(exportText(data, 'json'))), 'no runs key when none are given');
  });

  it('a trace exports its figures as CSV rows and Markdown table rows', () => {
    const trace = {
      sessionName: 'durability_lens_ab12', target: 'ring_buffer', eventCount: 30, eventsByName: {}, flushEvent: 'log_flush_complete', flushes: 10, bytes: 40960, sizeEvent: 'log_flush_complete',
      lostEvents: 0, lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 }, latencyMs: { p50: 0.5, p95: 1.25, p99: 2, max: 3 }, durationUnit: 'microseconds',
      sizeHistogram: null, flushesPerCommit: null, commitCount: null, timeline: { bucketMs: 100, startUtc: null, counts: [3, 7] }, missingEvents: [], missingFields: [], counterCrossCheck: null, notes: [],
    } as unknown as LogFlushTrace;
    const data = panelDataFromTrace(trace, { server: 's,1433', database: 'lab', standIn: false, startedAt: new Date('2026-01-01T00:00:00Z') }, new Date('2026-01-01T00:00:05Z'));
    assert.equal(data.header.status, 'traced for 5.0 s');
    assert.deepEqual(data.charts.flushTimeline, { bucketMs: 100, series: [{ label: 'trace', values: [3, 7] }] });
    const csv = exportText(data, 'csv').split('\r\n');
    assert.equal(csv[0], 'figure,value');
    assert.ok(csv.includes('Bytes flushed,40 KB'), csv.join('\n'));
    assert.ok(csv.includes('Average flush size,4 KB'));
    const md = exportText(data, 'markdown');
    assert.ok(md.includes('| Flush latency p50 / p95 / p99 / max | 0.5 ms / 1.25 ms / 2 ms / 3 ms |'), md);
    assert.ok(!md.includes('## Environment'));
  });
});
