// Per-iteration timings from PRINT output: every "LABEL: number" pair in an info message becomes one point of the
// series named LABEL (S4 prints "INS: <ms> - CHKPT: <ms>" per loop iteration). Generic on purpose: no label list.
import type { WorkloadMessage } from '../db/types';

export interface PrintSeries {
  label: string;
  /** The numbers in message order. */
  values: number[];
  /** ms since the measured workload started, one per value. */
  atMs: number[];
}

/** More points than this per series are counted but not kept (a GO 100000 loop must not grow memory). */
export const MAX_POINTS_PER_SERIES = 100_000;
/** At most this many distinct labels; free text with colons should not create hundreds of series. */
export const MAX_SERIES = 20;

// A label starts with a letter, may hold letters, digits, spaces, _ . / # ( ) and ends before ':' or '='.
const PAIR = /([A-Za-z][\w .#/()-]{0,40}?)\s*[:=]\s*(-?\d+(?:\.\d+)?)(?![\d.:])/g;

/** The "label: number" pairs of one PRINT line, in order; a label is trimmed and a trailing separator dropped. */
export function parsePrintPairs(text: string): { label: string; value: number }[] {
  const out: { label: string; value: number }[] = [];
  for (const m of text.matchAll(PAIR)) {
    const label = m[1]!.replace(/^[\s-]+|[\s-]+$/g, '');
    if (label === '') continue;
    out.push({ label, value: Number(m[2]) });
  }
  return out;
}

export class PrintSeriesCollector {
  private readonly series = new Map<string, PrintSeries>();
  private dropped = 0;
  constructor(private startedAt: number) {}

  /** Times are relative to this moment (the workload's start). */
  reset(startedAt: number): void {
    this.startedAt = startedAt;
  }

  add(message: WorkloadMessage): void {
    if (message.kind !== 'info') return;
    for (const { label, value } of parsePrintPairs(message.message)) {
      let s = this.series.get(label);
      if (!s) {
        if (this.series.size >= MAX_SERIES) {
          this.dropped++;
          continue;
        }
        s = { label, values: [], atMs: [] };
        this.series.set(label, s);
      }
      if (s.values.length >= MAX_POINTS_PER_SERIES) {
        this.dropped++;
        continue;
      }
      s.values.push(value);
      s.atMs.push(message.at - this.startedAt);
    }
  }

  result(): { series: PrintSeries[]; droppedPoints: number } {
    return { series: [...this.series.values()], droppedPoints: this.dropped };
  }
}
