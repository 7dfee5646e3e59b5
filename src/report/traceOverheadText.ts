// The per-statement trace's cost in words (issue 28 item 5), one wording for the panel, the Markdown and CSV exports
// and the CLI: "the per-statement trace slowed this run by 72 % (1.80 s vs 1.00 s, 2 runs each); switch it off with …".
// A comparison's figures are said to be measured without it. Pure (no server, no vscode): the webview uses it too.
import type { ElapsedSummary, TraceOverhead } from '../profile/traceOverhead';
import type { RunResult } from '../profile/types';
import { formatCount, formatDuration, formatNumber } from './units';

/** Said next to a comparison's figures: its runs leave the per-statement trace out (profile/compareRuns.ts). */
export const UNTRACED_COMPARISON_TEXT =
  'Measured without the per-statement trace: a comparison leaves it out, since tracing every statement slows the runs being compared. Profile the script for per-statement figures (and --trace-overhead for what the trace costs).';

/** The profile's traceOverhead (its first run that has one); null when no run carries it (comparisons, older results). */
export function traceOverheadOf(runs: readonly RunResult[]): TraceOverhead | null {
  return runs.find((r) => !r.warmup && r.traceOverhead)?.traceOverhead ?? null;
}

/**
 * True when every measured run is a comparison's and ran without the per-statement trace (its attribution is the
 * "off" kind: not measured, no GRANT, nothing started). Older results without attribution say nothing.
 */
export function isUntracedComparison(runs: readonly RunResult[]): boolean {
  const measured = runs.filter((r) => !r.warmup);
  return measured.length > 0 && measured.every((r) => r.mode !== null && r.statementAttribution != null && r.statementAttribution.status !== 'measured' && (r.statementAttribution.eventsSeen === null || r.statementAttribution.eventsSeen === 0));
}

function range(s: ElapsedSummary): string {
  return s.minMs === s.maxMs ? formatDuration(s.medianMs) : `${formatDuration(s.minMs)} – ${formatDuration(s.maxMs)}`;
}

/** "1.80 s vs 1.00 s (medians, 2 runs each; ranges 1.75 s – 1.85 s vs 0.98 s – 1.02 s)". */
function figuresText(t: TraceOverhead): string {
  const w = t.withTrace!;
  const wo = t.withoutTrace!;
  const runs = w.runs === wo.runs ? `${w.runs} run${w.runs === 1 ? '' : 's'} each` : `${w.runs} with, ${wo.runs} without`;
  return `${formatDuration(w.medianMs)} vs ${formatDuration(wo.medianMs)} (medians, ${runs}, alternating; ranges ${range(w)} with vs ${range(wo)} without)`;
}

/** The one-line answer: by how much the trace slowed the run, or why that was not measured. */
export function traceOverheadHeadline(t: TraceOverhead): string {
  const standIn = t.source === 'stand-in' ? ' (stand-in figures, not SQL Server\'s)' : '';
  if (t.status !== 'measured' || t.percent === null) return `Per-statement trace cost${standIn}: ${t.reason ?? 'not measured.'}`;
  const noise = t.rangesOverlap ? ' The ranges overlap, so the difference may be noise.' : '';
  if (t.percent <= 0) return `The per-statement trace did not measurably slow this run${standIn}: ${formatNumber(t.percent, 1)} %, ${figuresText(t)}.${noise}`;
  return `The per-statement trace slowed this run by ${formatNumber(t.percent, 1)} %${standIn}: ${figuresText(t)}.${noise}`;
}

/** Every line: the answer, the cost per statement (or why not), and how to switch the trace off (or on). */
export function traceOverheadLines(t: TraceOverhead): string[] {
  const out = [traceOverheadHeadline(t)];
  if (t.status === 'measured') {
    if (t.perStatementMs !== null && t.statementExecutions !== null) out.push(`About ${formatDuration(t.perStatementMs)} per statement (${formatDuration(t.extraMs ?? 0)} more over ${formatCount(t.statementExecutions)} traced statement executions).`);
    else if (t.perStatementReason) out.push(t.perStatementReason);
    // Run 1 comes first and is traced: a cold start (caches, plan compilation) lands on the traced side. With 2 runs
    // each the median is the mean of both, so it shows; from 3 on the median leaves the slowest run out.
    const first = t.runs[0];
    if (t.withTrace?.runs === 2 && first && t.runs.length > 1 && t.runs.slice(1).every((r) => r.elapsedMs < first.elapsedMs)) {
      out.push('Run 1 — the first, with the trace — was the slowest of all: a first run also pays for cold caches and plan compilation. With 3 or more runs each way the medians leave it out.');
    }
    out.push(`The elapsed times and statement figures of this report come from run 1, with the trace. Switch it off with ${t.switchOff}.`);
  } else if (t.fix) {
    out.push(`To measure it: ${t.fix}.`);
  }
  return out;
}

export interface TraceOverheadCsvRow {
  id: string;
  label: string;
  unit: string;
  runs: number;
  median: number | null;
  min: number | null;
  max: number | null;
  /** The percent row: the ranges overlap (the difference may be noise). */
  inconclusive: boolean | null;
  /** Why the figure is empty (the CSV's not_measured column); null when it is measured. */
  notMeasured: string | null;
}

/** The CSV rows: figures only when measured, never a 0 that was not (then not_measured says why). */
export function traceOverheadCsvRows(t: TraceOverhead): TraceOverheadCsvRow[] {
  if (t.status !== 'measured') {
    const why = `${t.reason ?? 'not measured'}${t.fix ? ` To measure it: ${t.fix}.` : ''}`;
    return [{ id: 'traceOverhead.percent', label: 'Per-statement trace overhead', unit: '%', runs: 0, median: null, min: null, max: null, inconclusive: null, notMeasured: why }];
  }
  const side = (id: string, label: string, s: ElapsedSummary): TraceOverheadCsvRow => ({ id, label, unit: 'ms', runs: s.runs, median: s.medianMs, min: s.minMs, max: s.maxMs, inconclusive: null, notMeasured: null });
  return [
    side('traceOverhead.withTraceMs', 'Elapsed with the per-statement trace', t.withTrace!),
    side('traceOverhead.withoutTraceMs', 'Elapsed without the per-statement trace', t.withoutTrace!),
    { id: 'traceOverhead.percent', label: 'Per-statement trace overhead', unit: '%', runs: t.withTrace!.runs + t.withoutTrace!.runs, median: t.percent, min: null, max: null, inconclusive: t.rangesOverlap, notMeasured: null },
    { id: 'traceOverhead.perStatementMs', label: 'Per-statement trace cost per statement', unit: 'ms', runs: t.perStatementMs === null ? 0 : 1, median: t.perStatementMs, min: null, max: null, inconclusive: null, notMeasured: t.perStatementMs === null ? t.perStatementReason : null },
  ];
}
