// The concurrency curve's metrics and how their cells read: no server, probe or driver imports, so the webview bundle
// (a browser build) draws and labels the charts from the same definitions as the Markdown.
import type { Summary } from './stats';
import { formatBytes, formatNumber } from './units';

export type ConcurrencyMetricId = 'commitsPerSec' | 'flushesPerCommit' | 'averageFlushBytes' | 'writelogMsPerCommit';

export interface ConcurrencyMetric {
  id: ConcurrencyMetricId;
  label: string;
  /** How a value reads: per second, per commit, bytes, or milliseconds. */
  unit: 'per-second' | 'per-commit' | 'bytes' | 'ms';
}

/** The curve's metrics in display order (the webview draws one chart each). */
export const CONCURRENCY_METRICS: readonly ConcurrencyMetric[] = [
  { id: 'commitsPerSec', label: 'Commits per second', unit: 'per-second' },
  { id: 'flushesPerCommit', label: 'Log flushes per commit', unit: 'per-commit' },
  { id: 'averageFlushBytes', label: 'Average flush size', unit: 'bytes' },
  { id: 'writelogMsPerCommit', label: 'WRITELOG ms per commit', unit: 'ms' },
];

/** A point's figure as table text: median (min – max) when the repetitions differ; "not measured" when absent. */
export function concurrencyCellText(s: Summary | null, unit: ConcurrencyMetric['unit']): string {
  if (!s) return 'not measured';
  const one = (v: number) => (unit === 'bytes' ? formatBytes(v) : unit === 'per-second' ? formatNumber(v, 0) : formatNumber(v, unit === 'ms' ? 3 : 2));
  return s.n === 1 || s.min === s.max ? one(s.median) : `${one(s.median)} (${one(s.min)} – ${one(s.max)})`;
}
