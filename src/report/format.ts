// How a metric value and a ratio read as text — one place for the panel, the exports and the CLI. Imports only
// types and units.ts: the webview bundle (a browser build) uses it, so nothing here may reach the probes or the driver.
import type { MetricRow } from './comparison';
import type { MetricUnit } from './metrics';
import type { RatioCell } from './stats';
import { formatByteRate, formatBytes, formatDuration, formatFactor, formatNumber } from './units';

export { formatNumber } from './units';

/** Every table cell, export and CLI line writes a metric through here (units.ts: KiB/MiB/GiB, ms → s → min). */
export function formatValue(value: number, unit: MetricUnit): string {
  switch (unit) {
    case 'bytes':
      return formatBytes(value);
    case 'bytes/write':
      return `${formatBytes(value)}/write`;
    case 'bytes/s':
      return formatByteRate(value);
    case 'ms':
      return formatDuration(value);
    case 'ms/write':
    case 'ms/wait':
    case 'ms/read':
      return `${formatNumber(value, 3)} ${unit}`;
    default:
      return formatNumber(value, 0);
  }
}

/** A row whose source was not measured says so (the why and the GRANT are in "## Not measured"); never "0". */
export const NOT_MEASURED_TEXT = 'not measured';

/** Ratios near zero keep two significant digits (×0.0067, not ×0): "a hundred times fewer" must stay visible. */
export function formatRatio(value: number): string {
  if (value !== 0 && Math.abs(value) < 0.1) return String(Number(value.toPrecision(2)));
  return formatNumber(value);
}

/**
 * A ratio in words a reader does not have to invert: elapsed as "19.4× faster", other figures as "↓ 250× fewer" /
 * "↑ 15.0× higher", each with the spread the runs' ranges allow in the same terms. (A bare "↓ ×0.052" hid a 19×
 * speed-up.) `same` when the medians are equal.
 */
export function ratioWords(row: Pick<MetricRow, 'id' | 'unit'>, r: RatioCell): { text: string; spread: string | null } {
  if (r.ratio === null) return { text: 'n/a', spread: null };
  if (r.change === 'same') return { text: '→ same', spread: null };
  const { min, max } = r.spread;
  const range = (lo: number | null, hi: number | null) => (lo !== null && hi !== null && Number.isFinite(lo) && Number.isFinite(hi) && formatFactor(lo) !== formatFactor(hi) ? `${formatFactor(lo)}–${formatFactor(hi)}` : null);
  const inv = (v: number | null) => (v === null || v === 0 ? null : 1 / v);
  const fewer = row.unit === 'count';
  if (r.ratio === 0) return { text: '↓ to 0', spread: null };
  if (r.ratio < 1) {
    const words = row.id === 'elapsed' ? 'faster' : fewer ? 'fewer' : 'lower';
    return { text: `${row.id === 'elapsed' ? '' : '↓ '}${formatFactor(1 / r.ratio)} ${words}`, spread: range(inv(max), inv(min)) };
  }
  const words = row.id === 'elapsed' ? 'slower' : fewer ? 'more' : 'higher';
  return { text: `${row.id === 'elapsed' ? '' : '↑ '}${formatFactor(r.ratio)} ${words}`, spread: range(min, max) };
}


/**
 * A finding's evidence as people read it (issue 28): the metric's label, the mode, and the value with its unit —
 * "WRITELOG average wait (DISABLED): 1.234 ms/wait", never "writelog.avgMs DISABLED = 1.234". A profile's single column
 * ("RUN") is left out.
 */
export function evidenceText(rows: ReadonlyArray<Pick<MetricRow, 'id' | 'label' | 'unit'>>, e: { metric: string; column: string; value: number }): string {
  const row = rows.find((r) => r.id === e.metric);
  const where = e.column === 'RUN' ? '' : ` (${e.column})`;
  if (row) return `${row.label}${where}: ${formatValue(e.value, row.unit)}${row.unit === 'count' ? ` ${countNoun(row.id, e.value)}` : ''}`;
  // A wait type without a row of its own (only the top waits get one): its time in ms.
  if (e.metric.startsWith('wait.')) return `${e.metric.slice('wait.'.length)} wait time${where}: ${formatValue(e.value, 'ms')}`;
  return `a figure of this run${where}: ${formatNumber(e.value, 3)}`;
}

/** What a count row counts, so "5,000" reads "5,000 waits" (issue 28: every figure with its unit). */
export function countNoun(metricId: string, value: number): string {
  const one = value === 1;
  if (/\.count$/.test(metricId)) return one ? 'wait' : 'waits';
  if (metricId.startsWith('flushes.')) return one ? 'flush' : 'flushes';
  if (metricId === 'commits') return one ? 'write transaction' : 'write transactions';
  if (metricId === 'transactions') return one ? 'transaction' : 'transactions';
  if (/\.writes$/.test(metricId)) return one ? 'write' : 'writes';
  return one ? 'time' : 'times';
}
