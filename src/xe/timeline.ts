// The flush timeline: flush events binned by time, and the label that says how much of the run they cover. The
// timeline is drawn from the sample (ring buffer) or the full stream (event_file); its coverage is measured against
// the exact count from event_counter, so a partial sample is never mistaken for the run.

import type { LostEvents } from './reader';

/** 1 hour of 100 ms buckets: beyond that the timeline is cut and a note says so. */
export const MAX_TIMELINE_BUCKETS = 36_000;

export interface TimelineCoverage {
  source: 'ring_buffer' | 'event_file';
  /** Flush events the timeline draws. */
  flushesInSample: number;
  /** The exact flush count (event_counter); null when it could not be read. */
  flushesTotal: number | null;
  /** True when the timeline draws every flush of the run. */
  complete: boolean;
  /** Which part of the run the sample holds: a ring buffer evicts its oldest events, so it keeps the last ones. */
  part: 'all' | 'last' | 'part';
  firstUtc: string | null;
  lastUtc: string | null;
  /** One sentence for the UI: "sample: the last 725 of 10,000 flushes (7.3 %)…". */
  label: string;
}

/** Counts per bucket relative to the first timestamp seen; memory bounded by MAX_TIMELINE_BUCKETS keys. */
export class TimelineBins {
  private origin: number | null = null;
  private readonly bins = new Map<number, number>();
  first = Infinity;
  last = -Infinity;
  /** Events whose bucket would have been past the bound (counted, not drawn). */
  beyond = 0;

  /** `origin` fixes the bucket grid (the session start); without it the first event does. */
  constructor(
    readonly bucketMs: number,
    origin: number | null = null,
  ) {
    this.origin = origin;
  }

  /** The grid point at or before `t`, so re-basing never splits a bucket. */
  alignDown(t: number): number {
    if (this.origin === null) return t;
    return this.origin + Math.floor((t - this.origin) / this.bucketMs) * this.bucketMs;
  }

  add(t: number): void {
    if (this.origin === null) this.origin = t;
    const key = Math.floor((t - this.origin) / this.bucketMs);
    const n = this.bins.get(key);
    if (n === undefined && this.bins.size >= MAX_TIMELINE_BUCKETS) {
      this.beyond++;
      return;
    }
    this.bins.set(key, (n ?? 0) + 1);
    if (t < this.first) this.first = t;
    if (t > this.last) this.last = t;
  }

  get empty(): boolean {
    return this.first === Infinity;
  }

  /** Dense counts from `start` (ms since epoch), at most MAX_TIMELINE_BUCKETS long. */
  countsFrom(start: number): { counts: number[]; cut: number } {
    if (this.origin === null || this.empty) return { counts: [], cut: 0 };
    const size = Math.min(Math.floor((this.last - start) / this.bucketMs) + 1, MAX_TIMELINE_BUCKETS);
    const counts = new Array<number>(Math.max(0, size)).fill(0);
    let cut = this.beyond;
    for (const [key, n] of this.bins) {
      // Bin key k covers [origin + k·bucket, origin + (k+1)·bucket): place it by its start time.
      const i = Math.floor((this.origin + key * this.bucketMs - start) / this.bucketMs);
      if (i >= 0 && i < counts.length) counts[i]! += n;
      else cut += n;
    }
    return { counts, cut };
  }
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

export interface TimelineInput {
  bins: TimelineBins | null;
  bucketMs: number;
  target: 'ring_buffer' | 'event_file';
  sampleFlushes: number;
  totalFlushes: number | null;
  sampleLost: LostEvents;
  sessionStart: Date | null;
  notes: string[];
}

export function buildTimeline(input: TimelineInput): { bucketMs: number; startUtc: string | null; counts: number[]; coverage: TimelineCoverage } {
  const { bins, bucketMs, target, sampleFlushes, totalFlushes, sampleLost, sessionStart, notes } = input;
  const complete = totalFlushes !== null ? sampleFlushes >= totalFlushes : sampleLost.total === 0;
  const part: TimelineCoverage['part'] = complete ? 'all' : target === 'ring_buffer' && sampleLost.evicted > 0 && sampleLost.truncatedAway === 0 ? 'last' : 'part';
  const where = target === 'ring_buffer' ? 'ring buffer' : 'event file';
  let label: string;
  if (complete) label = `all ${fmt(sampleFlushes)} flushes of the run (${where})`;
  else if (totalFlushes !== null && totalFlushes > 0 && sampleFlushes === 0) {
    label = `no sample: none of the ${fmt(totalFlushes)} flushes is in the ${where}; they are counted but not drawn`;
  } else if (totalFlushes !== null && totalFlushes > 0) {
    const pct = ((100 * sampleFlushes) / totalFlushes).toFixed(1);
    label = `sample: ${part === 'last' ? 'the last ' : ''}${fmt(sampleFlushes)} of ${fmt(totalFlushes)} flushes (${pct} %, ${where}); the others are counted but not drawn`;
  } else label = `sample: ${fmt(sampleFlushes)} flushes (${where}); ${fmt(sampleLost.total)} events were lost, so the run's total is not known from the sample`;

  if (!bins || bins.empty) {
    return {
      bucketMs,
      startUtc: sessionStart?.toISOString() ?? null,
      counts: [],
      coverage: { source: target, flushesInSample: 0, flushesTotal: totalFlushes, complete, part, firstUtc: null, lastUtc: null, label },
    };
  }
  // A complete timeline starts at the session start (quiet stretches show as zeros); a partial one starts at its first
  // sampled flush, so it never shows a run-long gap where the sample simply has no events. The server's clock may
  // differ from ours: never start after the first event.
  const start = bins.alignDown(complete && sessionStart ? Math.min(sessionStart.getTime(), bins.first) : bins.first);
  const { counts, cut } = bins.countsFrom(start);
  if (cut > 0) notes.push(`Timeline cut at ${counts.length} buckets of ${bucketMs} ms; ${cut} later flushes are counted but not drawn.`);
  return {
    bucketMs,
    startUtc: new Date(start).toISOString(),
    counts,
    coverage: {
      source: target,
      flushesInSample: sampleFlushes,
      flushesTotal: totalFlushes,
      complete,
      part,
      firstUtc: new Date(bins.first).toISOString(),
      lastUtc: new Date(bins.last).toISOString(),
      label,
    },
  };
}
