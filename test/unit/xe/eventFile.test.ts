import assert from 'node:assert/strict';
import type { Row } from '../../../src/db/types';
import { completeRows, streamEventFile } from '../../../src/xe/eventFile';
import { LogFlushSession } from '../../../src/xe/logFlushTrace';
import { FakeServer } from './fakeServer';

const ev = (seq: number) =>
  `<event name="databases_log_flush" package="sqlserver" timestamp="2026-11-22T10:00:00.${String(seq % 1000).padStart(3, '0')}Z">` +
  `<data name="database_id"><type name="uint32" package="package0"/><value>7</value></data></event>`;

/** Rows as the server returns them: several events share one buffer, hence one file_offset (targets page example). */
function rows(perBuffer: number[], file = 'C:\\xe\\dl_durability_lens_t_0_1.xel'): Row[] {
  const out: Row[] = [];
  let seq = 0;
  perBuffer.forEach((n, b) => {
    for (let i = 0; i < n; i++) out.push({ object_name: 'databases_log_flush', event_data: ev(seq++), file_name: file, file_offset: String((b + 1) * 4096) });
  });
  return out;
}

describe('xe event_file paging', () => {
  it('leaves a page’s trailing buffer for the next page, since resuming at an offset skips the rest of its buffer', () => {
    const r = rows([3, 3, 2]);
    assert.equal(completeRows(r.slice(0, 4)), 3);
    assert.equal(completeRows(r.slice(0, 3)), 0);
    assert.equal(completeRows(r.slice(0, 6)), 3);
  });

  it('streams every event exactly once across pages cut inside buffers, one round trip per page', async () => {
    const all = rows([3, 3, 3, 1, 5, 2]);
    const server = new FakeServer({ eventFileRows: all });
    const seen: string[] = [];
    const s = await streamEventFile(server.client(), 'C:\\xe\\dl_durability_lens_t*.xel', null, (e) => seen.push(e.timestamp!.toISOString()), {
      event: 'databases_log_flush',
      pageSize: 4,
    });
    assert.equal(s.events, all.length);
    assert.equal(new Set(seen).size, all.length);
    assert.equal(s.rows, all.length);
    assert.deepEqual(s.files, ['C:\\xe\\dl_durability_lens_t_0_1.xel']);
    // The 5-event buffer does not fit a 4-row page: that page is re-read at 8 rows, then paging goes on at 4.
    assert.ok(s.pages >= 6 && s.pages <= 9, `pages ${s.pages}`);
    assert.equal(server.calls.filter((c) => c.sql.includes('fn_xe_file_target_read_file')).length, s.pages);
    assert.deepEqual(s.cursor, { fileName: 'C:\\xe\\dl_durability_lens_t_0_1.xel', offset: String(6 * 4096) });
  });

  it('a second read from the cursor returns only new events', async () => {
    const first = rows([2, 2]);
    const server = new FakeServer({ eventFileRows: first });
    const a = await streamEventFile(server.client(), 'p', null, () => undefined, { event: 'databases_log_flush' });
    assert.equal(a.events, 4);
    server.opts.eventFileRows = rows([2, 2, 3]);
    const b = await streamEventFile(server.client(), 'p', a.cursor, () => undefined, { event: 'databases_log_flush' });
    assert.equal(b.events, 3);
  });

  it('writes the session name into the event_file path and reads only that session’s files', async () => {
    const server = new FakeServer({ eventFileRows: [] });
    const s = await LogFlushSession.prepare(server.client(), { databaseId: 7, sessionName: 'durability_lens_0a', target: { kind: 'event_file', path: '/var/opt/mssql/log/dl.xel' } });
    assert.match(s.plan.createSql, /filename = N'\/var\/opt\/mssql\/log\/dl_durability_lens_0a-\.xel'/);
    assert.equal(s.plan.eventFilePattern, '/var/opt/mssql/log/dl_durability_lens_0a-*.xel');
    assert.match(s.plan.createSql, /ADD TARGET package0\.event_counter,\nADD TARGET package0\.histogram \(SET filtering_event_name = N'sqlserver\.log_flush_complete', source = N'write_size'/);
  });
});

describe('xe target reads cost one round trip however long the run', () => {
  it('reads counter, histogram and ring buffer of a 100,000-flush run in the single query before STOP', async () => {
    const counterXml = '<CounterTarget truncated="0"><Packages><Package name="sqlserver"><Event name="databases_log_flush" count="100000" /><Event name="log_flush_complete" count="100000" /></Package></Packages></CounterTarget>';
    const histogramXml = '<HistogramTarget truncated="0" buckets="1024"><Slot count="99000"><value>4096</value></Slot><Slot count="1000"><value>61440</value></Slot></HistogramTarget>';
    const latencyXml = '<HistogramTarget truncated="0" buckets="16384"><Slot count="60000"><value>500</value></Slot><Slot count="39000"><value>2000</value></Slot><Slot count="1000"><value>9000</value></Slot></HistogramTarget>';
    const server = new FakeServer({ ringBufferXml: '<RingBufferTarget truncated="0" totalEventsProcessed="200000" eventCount="0" droppedCount="0" memoryUsed="0"></RingBufferTarget>', counterXml, histogramXml, latencyXml });
    const s = await LogFlushSession.prepare(server.client(), { databaseId: 7, sessionName: 'durability_lens_0b' });
    await s.start();
    const before = server.calls.length;
    const requestsBefore = server.requests;
    await s.stop();
    const t = await s.collect({ counterLogFlushes: 100_000 });
    const after = server.calls.slice(before).map((c) => c.sql.split('\n')[0]);
    const status = 'SELECT CASE WHEN EXISTS (SELECT 1 FROM sys.server_event_sessions WHERE name = @name) THEN 1 ELSE 0 END AS is_defined,';
    assert.deepEqual(after, [
      'SELECT s.name AS session_name, t.target_name, t.target_data',
      'ALTER EVENT SESSION [durability_lens_0b] ON SERVER STATE = STOP;',
      'ALTER EVENT SESSION [durability_lens_0b_latency] ON SERVER STATE = STOP;',
      status, // both sessions' status after the STOPs, for the drop (no request of its own)
      status,
    ]);
    assert.equal(server.requests - requestsBefore, 1, 'stop and collect: one round trip');
    assert.equal(t.flushes, 100_000);
    assert.equal(t.bytes, 99000 * 4096 + 1000 * 61440);
    assert.equal(t.lostEvents, 0);
    assert.equal(t.counterCrossCheck!.agrees, true);
    assert.match(t.timeline.coverage!.label, /^no sample: none of the 100,000 flushes is in the ring buffer/);
    // Latencies from the companion session's histogram of exact durations (µs per the field description): every flush.
    assert.equal(t.latencySource, 'histogram');
    assert.equal(t.latencyFlushes, 100_000);
    assert.equal(t.latencyNotBucketed, 0);
    assert.deepEqual(t.latencyMs, { p50: 0.5, p95: 2, p99: 2, max: 9 });
    await s.dispose();
  });
});

describe('xe latency histogram (companion session)', () => {
  it('says how many flushes the latency percentiles cover when its slots ran out', async () => {
    const counterXml = '<CounterTarget truncated="0"><Packages><Package name="sqlserver"><Event name="log_flush_complete" count="50" /></Package></Packages></CounterTarget>';
    const latencyXml = '<HistogramTarget truncated="0" buckets="2"><Slot count="30"><value>100</value></Slot><Slot count="10"><value>300</value></Slot></HistogramTarget>';
    const server = new FakeServer({ ringBufferXml: null, counterXml, latencyXml });
    const s = await LogFlushSession.prepare(server.client(), { databaseId: 7, sessionName: 'durability_lens_0c' });
    await s.start();
    await s.stop();
    const t = await s.collect();
    assert.equal(t.latencyFlushes, 40);
    assert.equal(t.latencyNotBucketed, 10);
    assert.ok(t.notes.some((n) => /latency histogram bucketed 40 of 50 flushes \(2 slots full\)/.test(n)), t.notes.join('\n'));
    await s.dispose();
    assert.equal(server.sessions.size, 0);
  });

  it('a companion that cannot start leaves the run traced, with a note, and is dropped', async () => {
    const server = new FakeServer({ ringBufferXml: null });
    server.failOn(/_latency\] ON SERVER STATE = START;$/, Object.assign(new Error('no memory'), { number: 25653 }));
    const s = await LogFlushSession.prepare(server.client(), { databaseId: 7, sessionName: 'durability_lens_0d' });
    await s.start();
    assert.equal(s.state, 'started');
    await s.stop();
    const t = await s.collect();
    assert.ok(t.notes.some((n) => /latency histogram session durability_lens_0d_latency could not be started/.test(n)));
    await s.dispose();
    assert.equal(server.sessions.size, 0);
  });
});
