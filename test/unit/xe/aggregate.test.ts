import assert from 'node:assert/strict';
import { aggregateLogFlushEvents, durationUnitFromDescription, histogramBucket, nearestRank, nearestRankOfBuckets } from '../../../src/xe/aggregate';
import { parseCounterTarget, parseHistogramTarget } from '../../../src/xe/targetData';
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

  it('leaves a negative or non-finite write_size or duration out of bytes and latencies, with a note (never summed)', () => {
    const events = [
      ev('log_flush_complete', 0, { duration: 1000, write_size: 4096 }),
      ev('log_flush_complete', 1, { duration: 1000, write_size: -409600 }),
      ev('log_flush_complete', 2, { duration: -5_000_000, write_size: 512 }),
      ev('log_flush_complete', 3, { duration: 2000, write_size: Infinity }),
    ];
    const s = aggregateLogFlushEvents(events, { ...ctx, durationUnit: 'microseconds' });
    assert.equal(s.flushes, 4, 'the events are still counted');
    assert.equal(s.bytes, 4096);
    assert.deepEqual(s.latencyMs, { p50: 1, p95: 1, p99: 1, max: 1 });
    assert.ok(s.notes.some((n) => n.startsWith('3 events carry a negative or non-finite write_size or duration')), JSON.stringify(s.notes));
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
    const { coverage, ...timeline } = s.timeline;
    assert.deepEqual(timeline, { bucketMs: 100, startUtc: '2026-11-22T10:00:00.000Z', counts: [2, 1, 0, 1] });
    assert.equal(coverage!.label, 'all 4 flushes of the run (ring buffer)');
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
    assert.match(note, /rose by 100 \(20\.0% apart, tolerance 10%\)\. 5 events are missing from the trace's counts/);
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

  describe('exact counts from event_counter and sizes from histogram', () => {
    const counterXml = (counts: Record<string, number>) =>
      `<CounterTarget truncated="0"><Packages><Package name="sqlserver">${Object.entries(counts).map(([n, c]) => `<Event name="${n}" count="${c}" />`).join('')}</Package></Packages></CounterTarget>`;
    const histogramXml = (buckets: [number, number][], root = 'HistogramTarget') =>
      `<${root} truncated="0" buckets="1024">${buckets.map(([v, c]) => `<Slot count="${c}"><value>${v}</value></Slot>`).join('')}</${root}>`;
    const exact = (counts: Record<string, number>, buckets: [number, number][]) => ({
      counter: parseCounterTarget(counterXml(counts)),
      histogram: { ...parseHistogramTarget(histogramXml(buckets)), event: 'log_flush_complete', field: 'write_size' },
    });

    it('counts flushes from the counter and bytes as value × count, whatever the sample kept', () => {
      // The ring kept 3 of 10,000 flushes; the server's targets saw them all.
      const sample = [0, 10, 20].map((t) => ev('databases_log_flush', t));
      const s = aggregateLogFlushEvents(sample, {
        ...ctx,
        exact: exact({ databases_log_flush: 10_000, log_flush_complete: 10_000, log_flush_start: 10_000 }, [[4096, 9000], [61440, 1000]]),
        lost: { dropped: 0, evicted: 29_997, truncatedAway: 0, total: 29_997 },
        commitCount: 10_000,
        counterLogFlushes: 10_000,
      });
      assert.equal(s.countSource, 'event_counter');
      assert.equal(s.flushes, 10_000);
      assert.equal(s.eventCount, 30_000);
      assert.equal(s.lostEvents, 0);
      assert.equal(s.bytes, 9000 * 4096 + 1000 * 61440);
      assert.equal(s.averageFlushBytes, (9000 * 4096 + 1000 * 61440) / 10_000);
      assert.deepEqual(s.sizeHistogram!.counts, [0, 0, 0, 0, 9000, 0, 0, 0, 1000]);
      assert.equal(s.sizeHistogram!.source, 'histogram');
      assert.equal(s.flushesPerCommit, 1);
      assert.equal(s.counterCrossCheck!.agrees, true);
      assert.equal(s.timeline.coverage!.complete, false);
      assert.equal(s.timeline.coverage!.part, 'last');
      assert.equal(s.timeline.coverage!.label, 'sample: the last 3 of 10,000 flushes (0.0 %, ring buffer); the others are counted but not drawn');
      // A partial sample starts at its own first flush, not at the session start (no run-long empty stretch).
      const late = aggregateLogFlushEvents(sample, { ...ctx, exact: exact({ databases_log_flush: 10 }, []), timelineStart: new Date(t0 - 3900) });
      assert.equal(late.timeline.startUtc, new Date(t0).toISOString());
    });

    it('says when the histogram ran out of slots: the missing flushes sit beside the bytes', () => {
      const s = aggregateLogFlushEvents([], { ...ctx, exact: exact({ databases_log_flush: 100, log_flush_complete: 100 }, [[512, 60], [1024, 30]]) });
      assert.equal(s.histogram!.bucketed, 90);
      assert.equal(s.histogram!.notBucketed, 10);
      assert.equal(s.lostEvents, 10);
      assert.equal(s.bytes, 60 * 512 + 30 * 1024);
      assert.ok(s.notes.some((n) => /bucketed 90 of 100 log_flush_complete events .* 10 flushes are missing from the bytes/.test(n)), s.notes.join('\n'));
    });

    it('reads the documented <Slots> root as well as <HistogramTarget>, and the counter document', () => {
      const a = parseHistogramTarget(histogramXml([[4096, 3]], 'Slots'));
      assert.equal(a.parseError, null);
      assert.deepEqual([...a.buckets], [[4096, 3]]);
      assert.equal(a.slots, 1024);
      assert.match(parseHistogramTarget('<Other/>').parseError!, /no <HistogramTarget> root/);
      assert.match(parseHistogramTarget('<HistogramTarget>').parseError!, /malformed/);
      const c = parseCounterTarget(counterXml({ databases_log_flush: 5, log_flush_start: 0 }));
      assert.deepEqual([...c.counts], [['databases_log_flush', 5], ['log_flush_start', 0]]);
      assert.match(parseCounterTarget(null).parseError!, /no data/);
    });

    it('falls back to the sample, and says so, when the counter cannot be read', () => {
      const s = aggregateLogFlushEvents([ev('databases_log_flush', 0)], { ...ctx, exact: { counter: parseCounterTarget('<x'), histogram: null } });
      assert.equal(s.countSource, 'sample');
      assert.equal(s.flushes, 1);
      assert.ok(s.notes.some((n) => /event_counter target_data is malformed.*counted from the sample/.test(n)));
    });

    it('on a database-scoped session, an empty trace of a run that committed is "not measured", not 0 flushes', () => {
      const s = aggregateLogFlushEvents([], { ...ctx, scope: 'database', commitCount: 40, exact: exact({ databases_log_flush: 0, log_flush_complete: 0 }, []) });
      assert.equal(s.flushes, null);
      assert.equal(s.flushesPerCommit, null);
      assert.match(s.notMeasured!, /Azure SQL Database may not deliver log-writer events to database-scoped sessions/);
      // When the Log Flushes/sec counter also rose by 0 (a delayed-durable run), 0 is a measurement.
      assert.equal(aggregateLogFlushEvents([], { ...ctx, scope: 'database', commitCount: 40, counterLogFlushes: 0, exact: exact({ databases_log_flush: 0 }, []) }).flushes, 0);
      // A server-scoped session with no flushes did see none: 0 is a measurement there.
      assert.equal(aggregateLogFlushEvents([], { ...ctx, commitCount: 40, exact: exact({ databases_log_flush: 0 }, []) }).flushes, 0);
    });

    it('takes nearest-rank percentiles over value buckets exactly as over the expanded values', () => {
      const buckets = new Map([[5, 3], [1, 1], [9, 6]]);
      const expanded = [1, 5, 5, 5, 9, 9, 9, 9, 9, 9];
      for (const p of [1, 10, 11, 40, 41, 50, 95, 100]) assert.equal(nearestRankOfBuckets(buckets, p), nearestRank(expanded, p), `p${p}`);
    });
  });
});
