// Small statistics for repeated runs: median and min–max per mode, and the ratio of two modes with its spread, an
// "inconclusive" flag when the ranges overlap (the difference could be noise), and whether it is conclusive (issue 28:
// two runs or more per mode and ranges apart) with the reason in words.

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
  /**
   * Conclusive (issue 28): at least MIN_RUNS_FOR_CONCLUSIVE runs on each side, medians that differ, and min–max ranges
   * that do not overlap. One run per mode has no spread to judge noise by: it is indicative at best. Absent in older data.
   */
  conclusive?: boolean;
  /** Why the difference is or is not conclusive, in words (exports carry it beside the figures). */
  conclusiveWhy?: string;
}

/** Runs per mode a conclusive difference needs: with one, a range is a point and says nothing about noise. */
export const MIN_RUNS_FOR_CONCLUSIVE = 2;

/** How to get more runs, said wherever a result is only indicative (the setting's title as VS Code shows it, and the CLI flag). */
export const MORE_RUNS_HINT = 'repeat for a range: the "Compare: Repetitions" setting, or --repeat N on the command line';

/** "3 runs each" or "DISABLED 3 runs, FORCED 2 runs": how many runs a range rests on. */
export function runsText(runs: ReadonlyArray<readonly [string, number]>): string {
  const counts = runs.map(([, n]) => n);
  const plural = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
  if (counts.length > 0 && counts.every((n) => n === counts[0])) return counts[0] === 1 ? 'one run per mode' : `${plural(counts[0]!)} each`;
  return runs.map(([c, n]) => `${c} ${plural(n)}`).join(', ');
}

/** Whether a difference between `baseline` and `other` is conclusive, and why (the words every export and the verdict use). */
export function conclusiveness(baseline: Summary, other: Summary, names: readonly [string, string] = ['the baseline', 'the other mode']): { conclusive: boolean; why: string } {
  const runs = runsText([[names[0], baseline.n], [names[1], other.n]]);
  const overlap = other.min <= baseline.max && baseline.min <= other.max;
  if (baseline.n < MIN_RUNS_FOR_CONCLUSIVE || other.n < MIN_RUNS_FOR_CONCLUSIVE) {
    return { conclusive: false, why: `indicative (${runs}): a single run has no spread to judge noise by; ${MORE_RUNS_HINT} (at least ${MIN_RUNS_FOR_CONCLUSIVE} runs per mode)` };
  }
  if (other.median === baseline.median) return { conclusive: false, why: `the medians are equal (${runs})` };
  if (overlap) return { conclusive: false, why: `the runs' min–max ranges overlap (${runs}), so the difference may be noise` };
  return { conclusive: true, why: `the runs' min–max ranges do not overlap (${runs})` };
}

const div = (a: number, b: number): number | null => (b === 0 ? null : a / b);

export function compareSummaries(baseline: Summary, other: Summary, better: Better, names?: readonly [string, string]): RatioCell {
  const change: Change = other.median > baseline.median ? 'increase' : other.median < baseline.median ? 'decrease' : 'same';
  let verdict: Verdict = 'neutral';
  if (better !== 'neutral' && change !== 'same') {
    const improved = better === 'lower' ? change === 'decrease' : change === 'increase';
    verdict = improved ? 'better' : 'worse';
  }
  const overlap = other.min <= baseline.max && baseline.min <= other.max;
  const c = conclusiveness(baseline, other, names);
  return {
    ratio: div(other.median, baseline.median),
    spread: { min: div(other.min, baseline.max), max: div(other.max, baseline.min) },
    change,
    verdict,
    arrow: change === 'increase' ? '↑' : change === 'decrease' ? '↓' : '→',
    inconclusive: change !== 'same' && overlap,
    conclusive: c.conclusive,
    conclusiveWhy: c.why,
  };
}
