// Folds parsed log-flush events into the LogFlushTrace summary a RunResult carries (JSON key `logFlushTrace`):
// counts, bytes, latency percentiles, size histogram, timeline, losses, and a cross-check against Log Flushes/sec.

import type { LostEvents, XeEvent, XeField } from './reader';

/**
 * Unit of log_flush_complete.duration. NOT CONFIRMED by any doc (reference §9 item 3): we read the field's
 * description from sys.dm_xe_object_columns; when it names no unit we assume microseconds and say so in a note.
 */
export type DurationUnit = 'microseconds' | 'milliseconds' | 'assumed-microseconds';

/** JSON-safe summary for the report layer. Times are ISO strings; every count is a plain number. */
export interface LogFlushTrace {
  sessionName: string;
  target: 'ring_buffer' | 'event_file';
  /** Events kept after de-duplication, all kinds. */
  eventCount: number;
  eventsByName: Record<string, number>;
  /** Which event's count is `flushes` (databases_log_flush preferred, then log_flush_complete, then log_flush_start). */
  flushEvent: string | null;
  flushes: number;
  /** Sum of write_size of `sizeEvent`; null when no event carried write_size. */
  bytes: number | null;
  sizeEvent: string | null;
  lostEvents: number;
  lost: LostEvents;
  /** From log_flush_complete.duration; null when no event carried a duration. Nearest-rank percentiles. */
  latencyMs: { p50: number; p95: number; p99: number; max: number } | null;
  durationUnit: DurationUnit | null;
  sizeHistogram: { edgesBytes: number[]; labels: string[]; counts: number[] } | null;
  flushesPerCommit: number | null;
  commitCount: number | null;
  timeline: { bucketMs: number; startUtc: string | null; counts: number[] };
  missingEvents: string[];
  missingFields: string[];
  counterCrossCheck: { counterFlushes: number; xeFlushes: number; relativeDifference: number; agrees: boolean } | null;
  notes: string[];
}

export interface AggregateContext {
  sessionName: string;
  target: 'ring_buffer' | 'event_file';
  durationUnit?: DurationUnit | null;
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
  /** Timeline origin (e.g. session start); default the first flush event. */
  timelineStart?: Date | null;
  timelineBucketMs?: number;
}

/** Log writes are multiples of 512 bytes and at most 60 KB (inference from the sizes S1 reports); last bucket is open. */
export const SIZE_EDGES_BYTES = [0, 512, 1024, 2048, 4096, 8192, 16384, 32768, 61440];
export const SIZE_LABELS = ['<512 B', '512 B–1 KB', '1–2 KB', '2–4 KB', '4–8 KB', '8–16 KB', '16–32 KB', '32–60 KB', '≥60 KB'];
const FLUSH_EVENT_PREFERENCE = ['databases_log_flush', 'log_flush_complete', 'log_flush_start'];
const SIZE_EVENT_PREFERENCE = ['log_flush_complete', 'log_flush_start'];
/** 1 hour of 100 ms buckets: beyond that the timeline is cut and a note says so. */
const MAX_TIMELINE_BUCKETS = 36_000;

function numeric(field: XeField | undefined): number | null {
  if (!field) return null;
  const v = field.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/** Nearest-rank percentile of an ascending array: the value at rank ceil(p/100 · n). */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) throw new RangeError('no values');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function histogramBucket(bytes: number): number {
  let i = SIZE_EDGES_BYTES.length - 1;
  while (i > 0 && bytes < SIZE_EDGES_BYTES[i]!) i--;
  return i;
}

/** Streaming accumulator: feed events as the reader produces them, then `finish`. Keeps numbers, not events. */
export class LogFlushAggregator {
  private readonly byName = new Map<string, { count: number; times: number[]; sizes: number[] }>();
  private readonly durations: number[] = [];
  private total = 0;

  add(event: XeEvent): void {
    this.total++;
    let slot = this.byName.get(event.name);
    if (!slot) {
      slot = { count: 0, times: [], sizes: [] };
      this.byName.set(event.name, slot);
    }
    slot.count++;
    if (event.timestamp !== null) slot.times.push(event.timestamp.getTime());
    const size = numeric(event.data.write_size);
    if (size !== null) slot.sizes.push(size);
    if (event.name === 'log_flush_complete') {
      const d = numeric(event.data.duration);
      if (d !== null) this.durations.push(d);
    }
  }

  finish(ctx: AggregateContext): LogFlushTrace {
    const notes: string[] = [...(ctx.readNotes ?? [])];
    const eventsByName: Record<string, number> = {};
    for (const [name, slot] of [...this.byName].sort((a, b) => a[0].localeCompare(b[0]))) eventsByName[name] = slot.count;

    const flushEvent = FLUSH_EVENT_PREFERENCE.find((n) => this.byName.has(n)) ?? null;
    const flushes = flushEvent ? this.byName.get(flushEvent)!.count : 0;
    const sizeEvent = SIZE_EVENT_PREFERENCE.find((n) => (this.byName.get(n)?.sizes.length ?? 0) > 0) ?? null;
    const sizes = sizeEvent ? this.byName.get(sizeEvent)!.sizes : [];

    let bytes: number | null = null;
    let sizeHistogram: LogFlushTrace['sizeHistogram'] = null;
    if (sizeEvent) {
      bytes = 0;
      const counts = new Array<number>(SIZE_EDGES_BYTES.length).fill(0);
      for (const s of sizes) {
        bytes += s;
        counts[histogramBucket(s)]!++;
      }
      sizeHistogram = { edgesBytes: [...SIZE_EDGES_BYTES], labels: [...SIZE_LABELS], counts };
    }

    const unit = ctx.durationUnit ?? null;
    let latencyMs: LogFlushTrace['latencyMs'] = null;
    if (this.durations.length > 0) {
      const scale = unit === 'milliseconds' ? 1 : 1 / 1000;
      const sorted = Float64Array.from(this.durations, (d) => d * scale).sort();
      latencyMs = { p50: nearestRank(sorted, 50), p95: nearestRank(sorted, 95), p99: nearestRank(sorted, 99), max: sorted[sorted.length - 1]! };
      if (unit === null || unit === 'assumed-microseconds') {
        notes.push('log_flush_complete.duration has no documented unit and the server did not name one; latencies assume microseconds.');
      }
    }

    const timeline = this.timeline(flushEvent, ctx, notes);

    const lost = ctx.lost ?? { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 };
    const commitCount = ctx.commitCount ?? null;
    const flushesPerCommit = commitCount !== null && commitCount > 0 && flushEvent ? flushes / commitCount : null;

    let counterCrossCheck: LogFlushTrace['counterCrossCheck'] = null;
    if (ctx.counterLogFlushes !== undefined && ctx.counterLogFlushes !== null && flushEvent) {
      const counter = ctx.counterLogFlushes;
      const tolerance = ctx.counterTolerance ?? 0.1;
      const relativeDifference = Math.abs(flushes - counter) / Math.max(counter, 1);
      const agrees = relativeDifference <= tolerance;
      counterCrossCheck = { counterFlushes: counter, xeFlushes: flushes, relativeDifference, agrees };
      if (!agrees) {
        const why = lost.total > 0 ? ` ${lost.total} events were lost, which explains part of it.` : '';
        notes.push(
          `Extended Events counted ${flushes} ${flushEvent} events but the Log Flushes/sec counter rose by ${counter} ` +
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
      eventCount: this.total,
      eventsByName,
      flushEvent,
      flushes,
      bytes,
      sizeEvent,
      lostEvents: lost.total,
      lost,
      latencyMs,
      durationUnit: latencyMs ? unit ?? 'assumed-microseconds' : null,
      sizeHistogram,
      flushesPerCommit,
      commitCount,
      timeline,
      missingEvents,
      missingFields: [...(ctx.missingFields ?? [])],
      counterCrossCheck,
      notes,
    };
  }

  private timeline(flushEvent: string | null, ctx: AggregateContext, notes: string[]): LogFlushTrace['timeline'] {
    const bucketMs = ctx.timelineBucketMs ?? 100;
    const times = flushEvent ? this.byName.get(flushEvent)!.times : [];
    if (times.length === 0) return { bucketMs, startUtc: ctx.timelineStart?.toISOString() ?? null, counts: [] };
    let first = Infinity;
    let last = -Infinity;
    for (const t of times) {
      if (t < first) first = t;
      if (t > last) last = t;
    }
    const start = ctx.timelineStart ? Math.min(ctx.timelineStart.getTime(), first) : first;
    const needed = Math.floor((last - start) / bucketMs) + 1;
    const size = Math.min(needed, MAX_TIMELINE_BUCKETS);
    if (needed > size) notes.push(`Timeline cut at ${size} buckets of ${bucketMs} ms; later events are counted but not drawn.`);
    const counts = new Array<number>(size).fill(0);
    for (const t of times) {
      const i = Math.floor((t - start) / bucketMs);
      if (i < size) counts[i]!++;
    }
    return { bucketMs, startUtc: new Date(start).toISOString(), counts };
  }
}

/** Convenience over a list of events. */
export function aggregateLogFlushEvents(events: Iterable<XeEvent>, ctx: AggregateContext): LogFlushTrace {
  const agg = new LogFlushAggregator();
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
