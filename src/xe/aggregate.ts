// Folds a log-flush session's results into the LogFlushTrace summary a RunResult carries (JSON key `logFlushTrace`).
// Counts and the size distribution come from the server's event_counter and histogram targets (exact, however long
// the run); the sampled events (ring buffer) or the full stream (event_file) give the timeline and latencies, each
// labelled with what it covers. Memory stays bounded: value → count maps and timeline buckets, never event lists.

import type { CounterData, HistogramData } from './targetData';
import { bucketedCount } from './targetData';
import { flushDuration, numeric, possibleFlushValue } from './flushValues';
import type { LostEvents, XeEvent } from './reader';
import { buildTimeline, TimelineBins, type TimelineCoverage } from './timeline';
import { byCodeUnits } from '../shared/textOrder';

export type { TimelineCoverage } from './timeline';

/**
 * Unit of log_flush_complete.duration. NOT CONFIRMED by any doc (reference §9 item 3): we read the field's
 * description from sys.dm_xe_object_columns; when it names no unit we assume microseconds and say so in a note.
 */
export type DurationUnit = 'microseconds' | 'milliseconds' | 'assumed-microseconds';

type SampleTarget = 'ring_buffer' | 'event_file';

/** JSON-safe summary for the report layer. Times are ISO strings; every count is a plain number. */
export interface LogFlushTrace {
  sessionName: string;
  /** The sample (ring_buffer) or full-stream (event_file) target; counts come from event_counter either way. */
  target: SampleTarget;
  /** Where `flushes`/`eventsByName` come from: the exact event_counter, or (when it could not be read) the sample. */
  countSource?: 'event_counter' | 'sample';
  /** Events of all kinds the session accepted (event_counter), or kept in the sample. */
  eventCount: number;
  eventsByName: Record<string, number>;
  /** Which event's count is `flushes` (databases_log_flush preferred, then log_flush_complete, then log_flush_start). */
  flushEvent: string | null;
  /** null when not measured (then `notMeasured` says why; never a silent 0). */
  flushes: number | null;
  /** Sum of value × count over the size histogram's buckets (exact unless `histogram.notBucketed` > 0). */
  bytes: number | null;
  averageFlushBytes?: number | null;
  sizeEvent: string | null;
  sizeSource?: 'histogram' | 'sample' | null;
  /** Events missing from the figures above (flushes, bytes, size histogram): 0 when counter and histogram were complete. */
  lostEvents: number;
  /** Losses of the sample (ring buffer eviction, session drops, 4 MB cut): they affect only the timeline and latencies. */
  lost: LostEvents;
  /** The server-side size histogram: how many flushes it bucketed and how many found no free slot. */
  histogram?: { event: string; field: string; slots: number | null; bucketed: number; notBucketed: number; distinctValues: number } | null;
  /** Nearest-rank percentiles from the sampled durations (`latencySource`, `latencyFlushes` say which flushes). */
  latencyMs: { p50: number; p95: number; p99: number; max: number } | null;
  latencySource?: 'histogram' | SampleTarget | null;
  latencyFlushes?: number;
  /** Flushes the latency histogram could not bucket (slots full); the percentiles are over the others. */
  latencyNotBucketed?: number;
  durationUnit: DurationUnit | null;
  sizeHistogram: { edgesBytes: number[]; labels: string[]; counts: number[]; source?: 'histogram' | 'sample'; notBucketed?: number } | null;
  flushesPerCommit: number | null;
  commitCount: number | null;
  timeline: { bucketMs: number; startUtc: string | null; counts: number[]; coverage?: TimelineCoverage };
  missingEvents: string[];
  missingFields: string[];
  counterCrossCheck: { counterFlushes: number; xeFlushes: number; relativeDifference: number; agrees: boolean } | null;
  /** Why the flush figures are not measured (e.g. Azure database-scoped sessions that received no log-writer events). */
  notMeasured?: string | null;
  /** event_file runs: the session's own files, which stay on the server after DROP EVENT SESSION. */
  eventFiles?: { pattern: string; files: string[] } | null;
  notes: string[];
}

/** What the server's aggregating targets returned (null = target absent or unreadable). */
export interface ExactTargets {
  counter: CounterData | null;
  histogram: (HistogramData & { event: string; field: string }) | null;
  /** log_flush_complete durations by exact value, from the latency companion session (absent: latencies from the sample). */
  latency?: (HistogramData & { event: string; field: string }) | null;
}

export interface AggregateContext {
  sessionName: string;
  target: SampleTarget;
  durationUnit?: DurationUnit | null;
  /** Losses of the sample. */
  lost?: LostEvents;
  missingEvents?: readonly string[];
  missingFields?: readonly string[];
  /** Notes from reading (parse errors, duplicates, losses) carried into the summary. */
  readNotes?: readonly string[];
  /** Commits of the measured workload, counted elsewhere (profile layer). */
  commitCount?: number | null;
  /** Delta of `Log Flushes/sec` cntr_value for the database over the same window. */
  counterLogFlushes?: number | null;
  /** Relative tolerance of the counter cross-check; default 0.10. */
  counterTolerance?: number;
  /** Timeline origin (session start); the timeline starts there when the sample covers the whole run. */
  timelineStart?: Date | null;
  timelineBucketMs?: number;
  /** The event_counter / histogram results; without them counts fall back to the sample (and say so). */
  exact?: ExactTargets | undefined;
  /** Database-scoped (Azure SQL Database) session: an empty trace of a run that committed is not "0 flushes". */
  scope?: 'server' | 'database';
  eventFiles?: { pattern: string; files: string[] } | null;
}

/** Log writes are multiples of 512 bytes and at most 60 KB (inference from the sizes S1 reports); last bucket is open. */
export const SIZE_EDGES_BYTES = [0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 61440];
export const SIZE_LABELS = ['<512 B', '512 B–1 KB', '1–2 KB', '2–4 KB', '4–8 KB', '8–16 KB', '16–32 KB', '32–60 KB', '≥60 KB'];
const FLUSH_EVENT_PREFERENCE = ['databases_log_flush', 'log_flush_complete', 'log_flush_start'];
const SIZE_EVENT_PREFERENCE = ['log_flush_complete', 'log_flush_start'];
const NO_LOSS: LostEvents = { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 };

/** Nearest-rank percentile of an ascending array: the value at rank ceil(p/100 · n). */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new RangeError('no values');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Nearest-rank percentiles over exact value → count buckets (same result as over the expanded values); one sort. */
export function nearestRanksOfBuckets(buckets: ReadonlyMap<number, number>, ps: readonly number[]): number[] {
  const sorted = [...buckets].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  let total = 0;
  for (const [, n] of sorted) total += n;
  if (total === 0) throw new RangeError('no values');
  return ps.map((p) => {
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    for (const [v, n] of sorted) {
      seen += n;
      if (seen >= rank) return v;
    }
    return sorted[sorted.length - 1]![0];
  });
}

export function nearestRankOfBuckets(buckets: ReadonlyMap<number, number>, p: number): number {
  return nearestRanksOfBuckets(buckets, [p])[0]!;
}

export function histogramBucket(bytes: number): number {
  let i = SIZE_EDGES_BYTES.length - 1;
  while (i > 0 && bytes < SIZE_EDGES_BYTES[i]!) i--;
  return i;
}

/** The size chart's ranges from exact value buckets (the server groups by value; ranges are drawn client-side). */
export function sizeRangesOf(buckets: ReadonlyMap<number, number>): { counts: number[]; bytes: number; flushes: number } {
  const counts = new Array<number>(SIZE_EDGES_BYTES.length).fill(0);
  let bytes = 0;
  let flushes = 0;
  for (const [size, n] of buckets) {
    counts[histogramBucket(size)]! += n;
    bytes += size * n;
    flushes += n;
  }
  return { counts, bytes, flushes };
}

function add(map: Map<number, number>, key: number): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Streaming accumulator over sampled or streamed events: per-kind counts, value buckets and timeline bins only. */
export class LogFlushAggregator {
  private readonly byName = new Map<string, { count: number; sizes: Map<number, number>; bins: TimelineBins }>();
  private readonly durations = new Map<number, number>();
  private total = 0;
  /** Events whose write_size or duration was impossible (possibleFlushValue): counted, their values left out. */
  private impossible = 0;

  /** `origin` (ms since epoch, usually the session start) fixes the timeline's bucket grid. */
  constructor(
    private readonly bucketMs = 100,
    private readonly origin: number | null = null,
  ) {}

  add(event: XeEvent): void {
    this.total++;
    let slot = this.byName.get(event.name);
    if (!slot) {
      slot = { count: 0, sizes: new Map(), bins: new TimelineBins(this.bucketMs, this.origin) };
      this.byName.set(event.name, slot);
    }
    slot.count++;
    if (event.timestamp !== null) slot.bins.add(event.timestamp.getTime());
    // Each field read once (this runs per event); an impossible value leaves both out (possibleFlushValue).
    const size = numeric(event.data.write_size);
    const d = flushDuration(event);
    if (!possibleFlushValue(size) || !possibleFlushValue(d)) {
      this.impossible++;
      return;
    }
    if (size !== null) add(slot.sizes, size);
    if (d !== null) add(this.durations, d);
  }

  finish(ctx: AggregateContext): LogFlushTrace {
    const notes: string[] = [...(ctx.readNotes ?? [])];
    if (this.impossible > 0) {
      notes.push(`${this.impossible} events carry a negative or non-finite write_size or duration, which no server sends: their sizes and durations are left out of the bytes, the size chart and the latencies (the events are still counted).`);
    }
    const sampleLost = ctx.lost ?? NO_LOSS;
    const counter = ctx.exact?.counter && ctx.exact.counter.parseError === null ? ctx.exact.counter : null;
    if (ctx.exact?.counter?.parseError) notes.push(`${ctx.exact.counter.parseError}: flushes are counted from the sample instead.`);

    // Counts: the event_counter when it was read, else the sample (with its losses).
    const countsByName = new Map<string, number>();
    if (counter) for (const [n, c] of counter.counts) countsByName.set(n, c);
    else for (const [n, s] of this.byName) countsByName.set(n, s.count);
    const eventsByName: Record<string, number> = {};
    for (const [name, n] of [...countsByName].sort((a, b) => byCodeUnits(a[0], b[0]))) eventsByName[name] = n;
    const eventCount = [...countsByName.values()].reduce((s, n) => s + n, 0);
    const flushEvent = FLUSH_EVENT_PREFERENCE.find((n) => (countsByName.get(n) ?? 0) > 0) ?? FLUSH_EVENT_PREFERENCE.find((n) => countsByName.has(n)) ?? null;
    let flushes: number | null = flushEvent ? countsByName.get(flushEvent)! : 0;
    let lostEvents = counter ? 0 : sampleLost.total;

    const { sizeHistogram, bytes, sizeEvent, sizeSource, histogram, histogramLost } = this.sizes(ctx, countsByName, notes);
    lostEvents += histogramLost;

    const unit = ctx.durationUnit ?? null;
    const latency = this.latency(ctx, counter, notes);
    const latencyMs = latency.ms;
    if (latencyMs && (unit === null || unit === 'assumed-microseconds')) {
      notes.push('log_flush_complete.duration has no documented unit and the server did not name one; latencies assume microseconds.');
    }

    const sampleFlushes = flushEvent ? (this.byName.get(flushEvent)?.count ?? 0) : 0;
    const timeline = buildTimeline({
      bins: flushEvent ? (this.byName.get(flushEvent)?.bins ?? null) : null,
      bucketMs: this.bucketMs,
      target: ctx.target,
      sampleFlushes,
      totalFlushes: counter ? flushes : null,
      sampleLost,
      sessionStart: ctx.timelineStart ?? null,
      notes,
    });

    const commitCount = ctx.commitCount ?? null;
    let notMeasured: string | null = null;
    // A counter that also saw no flush makes 0 a measurement (a delayed-durable run may not flush at all).
    if (ctx.scope === 'database' && flushes === 0 && commitCount !== null && commitCount > 0 && ctx.counterLogFlushes !== 0) {
      // Extended Events in Azure SQL: "an event must occur in the context of a user database to be included" in a
      // database-scoped session (https://learn.microsoft.com/azure/azure-sql/database/xevent-db-diff-from-svr); log-writer
      // events may not qualify (reference §9 item 5, NOT CONFIRMED). An empty trace is then no evidence of zero flushes.
      notMeasured =
        `The database-scoped event session captured no log flushes although the run committed ${commitCount} write transactions: ` +
        'Azure SQL Database may not deliver log-writer events to database-scoped sessions (Extended Events in Azure SQL). ' +
        'Flushes are not measured by the trace; the Log Flushes/sec counter, where readable, still counts them.';
      notes.push(notMeasured);
      flushes = null;
    }
    const flushesPerCommit = commitCount !== null && commitCount > 0 && flushEvent && flushes !== null ? flushes / commitCount : null;

    let counterCrossCheck: LogFlushTrace['counterCrossCheck'] = null;
    if (ctx.counterLogFlushes !== undefined && ctx.counterLogFlushes !== null && flushEvent && flushes !== null) {
      const counterFlushes = ctx.counterLogFlushes;
      const tolerance = ctx.counterTolerance ?? 0.1;
      const relativeDifference = Math.abs(flushes - counterFlushes) / Math.max(counterFlushes, 1);
      const agrees = relativeDifference <= tolerance;
      counterCrossCheck = { counterFlushes, xeFlushes: flushes, relativeDifference, agrees };
      if (!agrees) {
        const why = lostEvents > 0 ? ` ${lostEvents} events are missing from the trace's counts, which explains part of it.` : '';
        notes.push(
          `Extended Events counted ${flushes} ${flushEvent} events but the Log Flushes/sec counter rose by ${counterFlushes} ` +
            `(${(relativeDifference * 100).toFixed(1)}% apart, tolerance ${(tolerance * 100).toFixed(0)}%).${why} ` +
            'The two may not count the same thing; trust neither blindly.',
        );
      }
    }

    const missingEvents = [...(ctx.missingEvents ?? [])];
    if (missingEvents.length > 0) notes.push(`Not available on this server, so not traced: ${missingEvents.join(', ')}.`);
    if (!flushEvent) notes.push('No log-flush events were captured.');

    return {
      sessionName: ctx.sessionName,
      target: ctx.target,
      countSource: counter ? 'event_counter' : 'sample',
      eventCount,
      eventsByName,
      flushEvent,
      flushes,
      bytes,
      averageFlushBytes: bytes !== null && sizeHistogram !== null && sizeHistogram.counts.some((n) => n > 0) ? bytes / sizeHistogram.counts.reduce((s, n) => s + n, 0) : null,
      sizeEvent,
      sizeSource,
      lostEvents,
      lost: sampleLost,
      histogram,
      latencyMs,
      latencySource: latency.source,
      latencyFlushes: latency.flushes,
      latencyNotBucketed: latency.notBucketed,
      durationUnit: latencyMs ? (unit ?? 'assumed-microseconds') : null,
      sizeHistogram,
      flushesPerCommit,
      commitCount,
      timeline,
      missingEvents,
      missingFields: [...(ctx.missingFields ?? [])],
      counterCrossCheck,
      notMeasured,
      eventFiles: ctx.eventFiles ?? null,
      notes,
    };
  }

  /**
   * Latency percentiles: from the companion session's histogram of exact durations when it was read (every flush,
   * unless its slots ran out), else from the sampled events — each labelled with how many flushes it covers.
   */
  private latency(ctx: AggregateContext, counter: CounterData | null, notes: string[]) {
    const scale = ctx.durationUnit === 'milliseconds' ? 1 : 1 / 1000;
    const percentiles = (b: ReadonlyMap<number, number>) => {
      const [p50, p95, p99, max] = nearestRanksOfBuckets(b, [50, 95, 99, 100]).map((v) => v * scale);
      return { p50: p50!, p95: p95!, p99: p99!, max: max! };
    };
    const exactCompletes = counter?.counts.get('log_flush_complete');
    const h = ctx.exact?.latency ?? null;
    if (h && h.parseError === null && bucketedCount(h.buckets) > 0) {
      const bucketed = bucketedCount(h.buckets);
      // The companion starts before and is read together with the main session, so it saw at least its flushes.
      const notBucketed = exactCompletes !== undefined ? Math.max(0, exactCompletes - bucketed) : 0;
      if (notBucketed > 0) {
        notes.push(`The latency histogram bucketed ${bucketed} of ${exactCompletes} flushes (${h.slots ?? '?'} slots full): the percentiles are over those ${bucketed}.`);
      }
      return { ms: percentiles(h.buckets), source: 'histogram' as const, flushes: bucketed, notBucketed };
    }
    if (h?.parseError) notes.push(`${h.parseError}: latencies come from the sampled events instead.`);
    let flushes = 0;
    for (const n of this.durations.values()) flushes += n;
    if (flushes === 0) return { ms: null, source: null, flushes: 0, notBucketed: 0 };
    if (exactCompletes !== undefined && flushes < exactCompletes) {
      notes.push(`Flush latencies come from ${flushes} of ${exactCompletes} log_flush_complete events (the ${ctx.target === 'ring_buffer' ? 'ring buffer sample' : 'event file'}).`);
    }
    return { ms: percentiles(this.durations), source: ctx.target, flushes, notBucketed: 0 };
  }

  /** Bytes and the size distribution: from the server histogram when it was read, else from the sample. */
  private sizes(ctx: AggregateContext, counts: ReadonlyMap<string, number>, notes: string[]) {
    const h = ctx.exact?.histogram ?? null;
    if (h && h.parseError === null) {
      const { counts: ranges, bytes, flushes: bucketed } = sizeRangesOf(h.buckets);
      const expected = counts.get(h.event);
      // The histogram ignores values once its slots are full (Histogram Target page); only the exact count shows it.
      const notBucketed = expected !== undefined ? Math.max(0, expected - bucketed - h.unreadable) + h.unreadable : h.unreadable;
      if (notBucketed > 0) {
        notes.push(
          `The size histogram bucketed ${bucketed} of ${expected ?? '?'} ${h.event} events (${h.slots ?? '?'} slots, ${h.buckets.size} distinct sizes): ` +
            `${notBucketed} flushes are missing from the bytes and the size chart, which are therefore lower bounds.`,
        );
      }
      return {
        sizeHistogram: { edgesBytes: [...SIZE_EDGES_BYTES], labels: [...SIZE_LABELS], counts: ranges, source: 'histogram' as const, notBucketed },
        bytes,
        sizeEvent: h.event,
        sizeSource: 'histogram' as const,
        histogram: { event: h.event, field: h.field, slots: h.slots, bucketed, notBucketed, distinctValues: h.buckets.size },
        histogramLost: notBucketed,
      };
    }
    if (h?.parseError) notes.push(`${h.parseError}: flush sizes come from the sample instead.`);
    const sizeEvent = SIZE_EVENT_PREFERENCE.find((n) => (this.byName.get(n)?.sizes.size ?? 0) > 0) ?? null;
    if (!sizeEvent) return { sizeHistogram: null, bytes: null, sizeEvent: null, sizeSource: null, histogram: null, histogramLost: 0 };
    const { counts: ranges, bytes } = sizeRangesOf(this.byName.get(sizeEvent)!.sizes);
    return {
      sizeHistogram: { edgesBytes: [...SIZE_EDGES_BYTES], labels: [...SIZE_LABELS], counts: ranges, source: 'sample' as const, notBucketed: 0 },
      bytes,
      sizeEvent,
      sizeSource: 'sample' as const,
      histogram: null,
      histogramLost: 0,
    };
  }
}

/** Convenience over a list of events. */
export function aggregateLogFlushEvents(events: Iterable<XeEvent>, ctx: AggregateContext): LogFlushTrace {
  const agg = new LogFlushAggregator(ctx.timelineBucketMs, ctx.timelineStart?.getTime() ?? null);
  for (const e of events) agg.add(e);
  return agg.finish(ctx);
}

/** Reads the unit of `duration` from its sys.dm_xe_object_columns description, if the server names one. */
export function durationUnitFromDescription(description: string | null | undefined): DurationUnit {
  const d = (description ?? '').toLowerCase();
  if (/micro ?second|\bus\b|µs/.test(d)) return 'microseconds';
  if (/milli ?second|\bms\b/.test(d)) return 'milliseconds';
  return 'assumed-microseconds';
}

export { bucketedCount };
