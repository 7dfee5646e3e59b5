import assert from 'node:assert/strict';
import { aggregateLogFlushEvents, durationUnitFromDescription, histogramBucket, nearestRank } from '../../../src/xe/aggregate';
import type { XeEvent } from '../../../src/xe/reader';

const t0 = Date.parse('2026-11-22T10:00:00.000Z');
function ev(name: string, atMs: number, data: Record<string, number | bigint> = {}): XeEvent {
  const fields: XeEvent['data'] = {};
  for (const [k, v] of Object.entries(data)) fields[k] = { value: v };
  return { name, package: 'sqlserver', timestamp: new Date(t0 + atMs), data: fields, actions: {} };
}
const ctx = { sessionName: 'durability_lens_t', target: 'ring_buffer' as const };

describe('xe aggregates', () => {
  it('computes nearest-rank latency percentiles in ms from microsecond durations', () => {
    // durations 1000..100000 µs = 1..100 ms, shuffled
    const events = Array.from({ length: 100 }, (_, i) => ev('log_flush_complete', i, { duration: ((i * 37) % 100 + 1) * 1000, write_size: 4096 }));
    const s = aggregateLogFlushEvents(events, { ...ctx, durationUnit: 'microseconds' });
    assert.deepEqual(s.latencyMs, { p50: 50, p95: 95, p99: 99, max: 100 });
    assert.equal(s.durationUnit, 'microseconds');
    assert.equal(s.flushEvent, 'log_flush_complete');
    assert.equal(s.flushes, 100);
    assert.equal(s.bytes, 409600);
  });

  it('uses milliseconds as given and picks exact ranks on a small set', () => {
    const events = [5, 1, 3, 2, 4].map((d, i) => ev('log_flush_complete', i, { duration: d }));
    const s = aggregateLogFlushEvents(events, { ...ctx, durationUnit: 'milliseconds' });
    assert.deepEqual(s.latencyMs, { p50: 3, p95: 5, p99: 5, max: 5 });
    assert.equal(nearestRank([10, 20, 30, 40], 25), 10);
    assert.equal(nearestRank([10, 20, 30, 40], 26), 20);
  });

  it('says when the duration unit is assumed, and gives null latency without durations', () => {
    const withDur = aggregateLogFlushEvents([ev('log_flush_complete', 0, { duration: 2500 })], ctx);
    assert.deepEqual(withDur.latencyMs, { p50: 2.5, p95: 2.5, p99: 2.5, max: 2.5 });
    assert.equal(withDur.durationUnit, 'assumed-microseconds');
    assert.ok(withDur.notes.some((n) => /assume microseconds/.test(n)));
    const none = aggregateLogFlushEvents([ev('databases_log_flush', 0)], ctx);
    assert.equal(none.latencyMs, null);
    assert.equal(none.durationUnit, null);
    assert.equal(none.bytes, null);
    assert.equal(none.sizeHistogram, null);
  });

  it('reads the duration unit from the column description when the server names one', () => {
    assert.equal(durationUnitFromDescription('Duration of the flush in microseconds'), 'microseconds');
    assert.equal(durationUnitFromDescription('Time (ms) to complete'), 'milliseconds');
    assert.equal(durationUnitFromDescription('Duration'), 'assumed-microseconds');
    assert.equal(durationUnitFromDescription(null), 'assumed-microseconds');
  });

  it('counts flushes from databases_log_flush first and bytes from log_flush_complete write_size', () => {
    const events = [
      ev('databases_log_flush', 0),
      ev('databases_log_flush', 1),
      ev('databases_log_flush', 2),
      ev('log_flush_start', 0, { write_size: 9999 }),
      ev('log_flush_complete', 1, { write_size: 512, duration: 10 }),
      ev('log_flush_complete', 2, { write_size: 1024n, duration: 10 }),
    ];
    const s = aggregateLogFlushEvents(events, { ...ctx, commitCount: 2 });
    assert.equal(s.flushEvent, 'databases_log_flush');
    assert.equal(s.flushes, 3);
    assert.equal(s.sizeEvent, 'log_flush_complete');
    assert.equal(s.bytes, 1536);
    assert.equal(s.eventCount, 6);
    assert.deepEqual(s.eventsByName, { databases_log_flush: 3, log_flush_complete: 2, log_flush_start: 1 });
    assert.equal(s.flushesPerCommit, 1.5);
  });

  it('buckets write sizes from <512 B to ≥60 KB', () => {
    const sizes = [100, 512, 1000, 4096, 8191, 32768, 61439, 61440, 1_000_000];
    const s = aggregateLogFlushEvents(
      sizes.map((w, i) => ev('log_flush_start', i, { write_size: w })),
      ctx,
    );
    assert.deepEqual(s.sizeHistogram!.counts, [1, 2, 0, 0, 2, 0, 0, 2, 2]);
    assert.equal(s.sizeHistogram!.labels[8], '≥60 KB');
    assert.equal(histogramBucket(0), 0);
    assert.equal(histogramBucket(2048), 3);
  });

  it('draws a 100 ms timeline of flush events from the first event or the given start', () => {
    const events = [0, 50, 150, 399].map((t) => ev('databases_log_flush', t));
    const s = aggregateLogFlushEvents(events, ctx);
    assert.deepEqual(s.timeline, { bucketMs: 100, startUtc: '2026-11-22T10:00:00.000Z', counts: [2, 1, 0, 1] });
    const fromStart = aggregateLogFlushEvents(events, { ...ctx, timelineStart: new Date(t0 - 250) });
    // offsets 250, 300, 400, 649 ms from the start → buckets 2, 3, 4, 6
    assert.deepEqual(fromStart.timeline.counts, [0, 0, 1, 1, 1, 0, 1]);
  });

  it('reports a counter disagreement beyond the tolerance as a note, and agreement without one', () => {
    const events = Array.from({ length: 80 }, (_, i) => ev('databases_log_flush', i));
    const off = aggregateLogFlushEvents(events, { ...ctx, counterLogFlushes: 100, lost: { dropped: 5, evicted: 0, truncatedAway: 0, total: 5 } });
    assert.deepEqual(off.counterCrossCheck, { counterFlushes: 100, xeFlushes: 80, relativeDifference: 0.2, agrees: false });
    assert.equal(off.lostEvents, 5);
    const note = off.notes.find((n) => n.startsWith('Extended Events counted 80'));
    assert.ok(note);
    assert.match(note, /rose by 100 \(20\.0% apart, tolerance 10%\)\. 5 events were lost/);
    const ok = aggregateLogFlushEvents(events, { ...ctx, counterLogFlushes: 84 });
    assert.equal(ok.counterCrossCheck!.agrees, true);
    assert.ok(!ok.notes.some((n) => n.startsWith('Extended Events counted')));
  });

  it('carries missing events/fields and read notes, and says when nothing was captured', () => {
    const s = aggregateLogFlushEvents([], {
      ...ctx,
      missingEvents: ['log_flush_complete'],
      missingFields: ['log_flush_start.write_size'],
      readNotes: ['1 duplicate events (same event_sequence) skipped.'],
    });
    assert.equal(s.flushes, 0);
    assert.equal(s.flushEvent, null);
    assert.deepEqual(s.missingEvents, ['log_flush_complete']);
    assert.deepEqual(s.missingFields, ['log_flush_start.write_size']);
    assert.deepEqual(s.notes, [
      '1 duplicate events (same event_sequence) skipped.',
      'Not available on this server, so not traced: log_flush_complete.',
      'No log-flush events were captured.',
    ]);
    assert.doesNotThrow(() => JSON.stringify(s));
  });
});
