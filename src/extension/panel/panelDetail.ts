// The panel's per-run parts built from RunResults (vscode-free, unit-tested): environment block (trace flags
// 3979/3982, VLFs, log size, recovery model), log counters, log before/after, XE trace figures, server waits, and
// the per-file IO and sampled time series charts.
import { valueOf } from '../../probes/measurement';
import { flushTraceFlagState } from '../../probes/serverInfo';
import type { CounterDelta } from '../../probes/perfCounters';
import type { RunResult } from '../../profile/types';
import { columnOf } from '../../report/comparison';
import { logNotMeasured, runWithLog, traceFlagsNotMeasuredText } from '../../report/environment';
import { formatNumber, formatValue } from '../../report/export';
import { formatBytes } from '../../report/units';
import type { ChartsData, CounterRowView, EnvironmentView, LogBeforeAfterRow, RunDetails, Series, TraceFigureRow, WaitRowView } from '../../shared/webviewProtocol';
import type { LogFlushTrace } from '../../xe/aggregate';

function flagText(run: RunResult | undefined, flag: number): string | null {
  if (!run || run.server.traceFlags.status !== 'ok') return null;
  return flushTraceFlagState(run.server, flag).text;
}

/** From the first run that carries each figure; VLF count and log size as read after the run. */
export function environmentFrom(runs: readonly RunResult[]): EnvironmentView {
  const first = runs[0];
  const withLog = runWithLog(runs);
  return {
    traceFlag3979: flagText(first, 3979),
    traceFlag3982: flagText(first, 3982),
    vlfCount: withLog?.diff.log.vlfCount?.after ?? null,
    logSizeMb: withLog?.diff.log.logSizeMb?.after ?? null,
    recoveryModel: runs.find((r) => r.database)?.database?.recoveryModel ?? null,
    delayedDurability: runs.length === 1 ? (first?.delayedDurability ?? first?.database?.delayedDurability ?? null) : null,
    notMeasured: { traceFlags: first ? traceFlagsNotMeasuredText(first) : null, ...logNotMeasured(runs) },
  };
}

function counterView(c: CounterDelta): CounterRowView {
  switch (c.kind) {
    case 'cumulative':
      return { counter: c.counterName, kind: 'delta', value: formatNumber(c.delta, 0), perSecond: c.perSecond === null ? null : formatNumber(c.perSecond, 1) };
    case 'point':
      return { counter: c.counterName, kind: 'after', value: `${formatNumber(c.before, 0)} → ${formatNumber(c.after, 0)}`, perSecond: null };
    case 'ratio':
      return { counter: c.counterName, kind: 'ratio', value: c.value === null ? 'n/a' : formatNumber(c.value, 3), perSecond: null };
    default:
      return { counter: c.counterName, kind: `type ${c.type}`, value: `${c.before} → ${c.after}`, perSecond: null };
  }
}

function logRows(run: RunResult): LogBeforeAfterRow[] {
  const l = run.diff.log;
  const rows: LogBeforeAfterRow[] = [];
  if (l.vlfCount) rows.push({ figure: 'VLF count', before: formatNumber(l.vlfCount.before, 0), after: formatNumber(l.vlfCount.after, 0) });
  if (l.logSizeMb) rows.push({ figure: 'Log size', before: formatBytes(l.logSizeMb.before * 1024 * 1024), after: formatBytes(l.logSizeMb.after * 1024 * 1024) });
  if (l.usedBytes) rows.push({ figure: 'Log space used', before: formatValue(l.usedBytes.before, 'bytes'), after: `${formatValue(l.usedBytes.after, 'bytes')} (${l.usedBytes.delta >= 0 ? '+' : ''}${formatValue(l.usedBytes.delta, 'bytes')})` });
  if (l.usedPercent) rows.push({ figure: 'Log space used %', before: `${formatNumber(l.usedPercent.before)} %`, after: `${formatNumber(l.usedPercent.after)} %` });
  return rows;
}

/** The trace's figures as label/value rows (shared by profile runs and ad-hoc traces); a loss sits beside the figure it affects. */
export function traceRows(t: LogFlushTrace): TraceFigureRow[] {
  const exact = t.countSource === 'event_counter';
  const countFrom = exact ? 'event_counter, exact' : `${t.target} sample${t.lost.total > 0 ? `, ${formatNumber(t.lost.total, 0)} events lost` : ''}`;
  const notBucketed = t.histogram?.notBucketed ?? 0;
  const sizeFrom = t.sizeSource === 'histogram' ? (notBucketed > 0 ? `histogram, ${formatNumber(notBucketed, 0)} flushes not bucketed: lower bound` : 'histogram, exact') : t.sizeSource === 'sample' ? `${t.target} sample` : null;
  const flushes = t.flushes === null ? `not measured${t.notMeasured ? ` — ${t.notMeasured}` : ''}` : `${formatNumber(t.flushes, 0)} (${countFrom})`;
  const rows: TraceFigureRow[] = [
    { figure: 'Event session', value: `${t.sessionName} (${t.target})` },
    { figure: 'Events counted', value: `${formatNumber(t.eventCount, 0)} (${countFrom})` },
    { figure: `Log flushes (${t.flushEvent ?? 'no flush event'})`, value: flushes },
    { figure: 'Bytes flushed', value: t.bytes === null ? 'n/a (no write_size)' : `${formatValue(t.bytes, 'bytes')}${sizeFrom ? ` (${sizeFrom})` : ''}` },
    { figure: 'Average flush size', value: t.averageFlushBytes != null ? formatValue(t.averageFlushBytes, 'bytes') : t.bytes !== null && t.flushes ? formatValue(t.bytes / t.flushes, 'bytes') : 'n/a' },
  ];
  if (t.latencyMs) {
    const missed = t.latencyNotBucketed ?? 0;
    const of =
      t.latencySource === 'histogram'
        ? ` (histogram of ${formatNumber(t.latencyFlushes ?? 0, 0)} flushes${missed > 0 ? `; ${formatNumber(missed, 0)} not bucketed, slots full` : ', exact'})`
        : t.latencyFlushes
          ? ` (from ${formatNumber(t.latencyFlushes, 0)} sampled flushes)`
          : '';
    rows.push({ figure: 'Flush latency p50 / p95 / p99 / max', value: [t.latencyMs.p50, t.latencyMs.p95, t.latencyMs.p99, t.latencyMs.max].map((v) => `${formatNumber(v, 3)} ms`).join(' / ') + of });
  } else rows.push({ figure: 'Flush latency', value: 'n/a (no duration field)' });
  if (t.flushesPerCommit !== null) rows.push({ figure: 'Flushes per commit', value: formatNumber(t.flushesPerCommit, 3) });
  if (t.timeline.coverage) rows.push({ figure: 'Timeline covers', value: t.timeline.coverage.label });
  rows.push({ figure: 'Events missing from the counts', value: t.lostEvents > 0 ? `${formatNumber(t.lostEvents, 0)} — the counts above are lower bounds` : '0' });
  if (t.counterCrossCheck) {
    const c = t.counterCrossCheck;
    rows.push({ figure: 'Cross-check with Log Flushes/sec', value: `counter ${formatNumber(c.counterFlushes, 0)} vs XE ${formatNumber(c.xeFlushes, 0)} (${formatNumber(c.relativeDifference * 100, 1)} %): ${c.agrees ? 'agrees' : 'DISAGREES'}` });
  }
  if (t.eventFiles) rows.push({ figure: 'Files left on the server', value: t.eventFiles.files.length > 0 ? t.eventFiles.files.join(', ') : t.eventFiles.pattern });
  if (t.missingEvents.length > 0) rows.push({ figure: 'Events this server lacks', value: t.missingEvents.join(', ') });
  return rows;
}

export function detailsFrom(run: RunResult): RunDetails {
  return {
    logCounters: (valueOf(run.diff.logCounters) ?? []).map(counterView),
    log: logRows(run),
    trace: run.logFlushTrace ? traceRows(run.logFlushTrace) : [],
    traceNotes: run.logFlushTrace?.notes ?? [],
    notes: [...run.diff.notes, ...run.notes],
  };
}

/** The top `perMode` waits (session or server) of the first measured run of each column that has them. */
export function topWaitRows(runs: readonly RunResult[], columns: readonly string[], which: 'sessionWaits' | 'serverWaits', perMode: number): WaitRowView[] {
  const out: WaitRowView[] = [];
  for (const c of columns) {
    const run = runs.find((r) => !r.warmup && columnOf(r) === c && valueOf(r.diff[which]));
    for (const w of (valueOf(run?.diff[which])?.top ?? []).slice(0, perMode)) {
      out.push({ mode: c, waitType: w.waitType, waitingTasks: w.waitingTasks, waitTimeMs: w.waitTimeMs, percent: w.percent });
    }
  }
  return out;
}

export function serverWaitRowsFrom(runs: readonly RunResult[], columns: readonly string[], perMode = 5): WaitRowView[] {
  return topWaitRows(runs, columns, 'serverWaits', perMode);
}

/** Bytes written per file, one series per mode (first measured run of the mode), files in first-seen order. */
export function fileIoChartFrom(runs: readonly RunResult[], columns: readonly string[]): ChartsData['fileIo'] {
  const perMode = columns.map((c) => ({ c, files: valueOf(runs.find((r) => !r.warmup && columnOf(r) === c && valueOf(r.diff.files))?.diff.files)?.files ?? [] }));
  const labels = [...new Set(perMode.flatMap((m) => m.files.map((f) => `${f.logicalName} (${f.kind})`)))];
  if (labels.length === 0) return null;
  const series: Series[] = perMode.map((m) => ({
    label: m.c,
    values: labels.map((l) => m.files.find((f) => `${f.logicalName} (${f.kind})` === l)?.bytesWritten ?? null),
  }));
  return { labels, series };
}

/** Bytes per second of the run's snapshot interval; null when the interval is unknown. */
export function perSecond(bytes: number, intervalMs: number | null | undefined): number | null {
  return intervalMs && intervalMs > 0 ? (bytes * 1000) / intervalMs : null;
}

/**
 * Read and write throughput per file (S5: CHECKDB and BACKUP read the data files at a rate worth seeing), from the
 * first measured run of each mode: one series per mode and direction, bytes per second of the snapshot interval.
 */
export function fileThroughputChartFrom(runs: readonly RunResult[], columns: readonly string[]): NonNullable<ChartsData['fileThroughput']> | null {
  const perMode = columns.map((c) => {
    const run = runs.find((r) => !r.warmup && columnOf(r) === c && valueOf(r.diff.files));
    return { c, files: valueOf(run?.diff.files)?.files ?? [], intervalMs: run?.diff.elapsedMs ?? null };
  });
  const labels = [...new Set(perMode.flatMap((m) => m.files.map((f) => `${f.logicalName} (${f.kind})`)))];
  if (labels.length === 0 || perMode.every((m) => !m.intervalMs)) return null;
  const series: Series[] = perMode.flatMap((m) =>
    (['read', 'written'] as const).map((dir) => ({
      label: `${m.c} ${dir}`,
      values: labels.map((l) => {
        const f = m.files.find((x) => `${x.logicalName} (${x.kind})` === l);
        return f ? perSecond(dir === 'read' ? f.bytesRead : f.bytesWritten, m.intervalMs) : null;
      }),
    })),
  );
  // A series that is zero everywhere (no reads under either mode, S1) would only add empty legend entries.
  const shown = series.filter((s) => s.values.some((v) => v !== null && v > 0));
  return shown.length > 0 ? { labels, series: shown } : null;
}

/** At most this many points per PRINT series reach the chart: a GO 100000 loop would make Chart.js crawl. */
export const MAX_PRINT_POINTS = 2000;

/**
 * PRINTed "LABEL: number" series of the first measured run that has any. Long series keep the maximum of each group
 * of occurrences: spikes (a checkpoint stalling an insert, S4) are what the chart is for.
 */
export function printChartFrom(runs: readonly RunResult[]): ChartsData['printSeries'] {
  const run = runs.find((r) => !r.warmup && Array.isArray(r.printSeries) && r.printSeries.some((s) => s.values.length > 0));
  if (!run) return null;
  const series = run.printSeries.filter((s) => s.values.length > 0);
  const n = Math.max(...series.map((s) => s.values.length));
  const perPoint = Math.max(1, Math.ceil(n / MAX_PRINT_POINTS));
  const points = Math.ceil(n / perPoint);
  const labels = Array.from({ length: points }, (_, i) => String(i * perPoint + 1));
  return {
    labels,
    perPoint,
    series: series.map((s) => ({
      label: s.label,
      values: labels.map((_, i) => {
        const group = s.values.slice(i * perPoint, (i + 1) * perPoint);
        return group.length === 0 ? null : Math.max(...group);
      }),
    })),
  };
}

interface SampleLike {
  tMs: number;
  files: { fileId: number; bytesWritten: number; bytesRead?: number }[];
  logFlushes: number | null;
}

/**
 * The sampled time series (issue 4: per-file bytes and the log-flush counter every N ms), as amounts per sample
 * interval so a long CHECKDB or BACKUP shows its phases. Samples are cumulative since sampling started, hence the
 * differences. Read defensively: runs recorded before sampling existed have no `samples`.
 */
export function samplesChartFrom(runs: readonly RunResult[]): ChartsData['samples'] {
  const run = runs.find((r) => !r.warmup && Array.isArray((r as unknown as { samples?: unknown }).samples) && (r as unknown as { samples: unknown[] }).samples.length > 1);
  if (!run) return null;
  const samples = (run as unknown as { samples: SampleLike[] }).samples;
  const kindOf = new Map((valueOf(run.diff.files)?.files ?? []).map((f) => [f.fileId, f.kind]));
  const written = (s: SampleLike, kind: 'log' | 'data') => s.files.filter((f) => (kindOf.get(f.fileId) ?? 'data') === kind).reduce((n, f) => n + f.bytesWritten, 0);
  const read = (s: SampleLike) => s.files.reduce((n, f) => n + (f.bytesRead ?? 0), 0);
  const step = (f: (s: SampleLike) => number | null) =>
    samples.slice(1).map((s, i) => {
      const a = f(samples[i]!);
      const b = f(s);
      return a === null || b === null ? null : Math.max(0, b - a);
    });
  return {
    labels: samples.slice(1).map((s) => formatNumber(s.tMs / 1000, 1)),
    series: [
      { label: 'log flushes (counter)', values: step((s) => s.logFlushes) },
      { label: 'log KiB written', values: step((s) => written(s, 'log') / 1024) },
      { label: 'data KiB written', values: step((s) => written(s, 'data') / 1024) },
      { label: 'KiB read (all files)', values: step((s) => read(s) / 1024) },
    ].filter((series) => series.label !== 'KiB read (all files)' || series.values.some((v) => v !== null && v > 0)),
  };
}
