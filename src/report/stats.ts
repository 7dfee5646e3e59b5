// Small statistics for repeated runs: median and min–max per mode, and the ratio of two modes with its spread and
// an "inconclusive" flag when the ranges overlap (the difference could be noise).

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** How many runs had a value. */
  n: number;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** null when no run had the value (unavailable measurement); nulls among values are ignored. */
export function summarize(values: readonly (number | null)[]): Summary | null {
  const present = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (present.length === 0) return null;
  return { median: median(present), min: Math.min(...present), max: Math.max(...present), n: present.length };
}

export type Better = 'lower' | 'higher' | 'neutral';
export type Change = 'increase' | 'decrease' | 'same';
export type Verdict = 'better' | 'worse' | 'neutral';

export interface RatioCell {
  /** median(other) / median(baseline); null when the baseline median is 0. */
  ratio: number | null;
  /** Widest ratio the ranges allow: min(other)/max(base) … max(other)/min(base); null ends when a divisor is 0. */
  spread: { min: number | null; max: number | null };
  change: Change;
  verdict: Verdict;
  /** SSMS client-statistics style: ↑ increase, ↓ decrease, → same. */
  arrow: '↑' | '↓' | '→';
  /** The min–max ranges overlap: the runs do not show a difference beyond their own variation. */
  inconclusive: boolean;
}

const div = (a: number, b: number): number | null => (b === 0 ? null : a / b);

export function compareSummaries(baseline: Summary, other: Summary, better: Better): RatioCell {
  const change: Change = other.median > baseline.median ? 'increase' : other.median < baseline.median ? 'decrease' : 'same';
  let verdict: Verdict = 'neutral';
  if (better !== 'neutral' && change !== 'same') {
    const improved = better === 'lower' ? change === 'decrease' : change === 'increase';
    verdict = improved ? 'better' : 'worse';
  }
  const overlap = other.min <= baseline.max && baseline.min <= other.max;
  return {
    ratio: div(other.median, baseline.median),
    spread: { min: div(other.min, baseline.max), max: div(other.max, baseline.min) },
    change,
    verdict,
    arrow: change === 'increase' ? '↑' : change === 'decrease' ? '↓' : '→',
    inconclusive: change !== 'same' && overlap,
  };
}
