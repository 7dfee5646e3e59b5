// What the results tool tells an agent about a profile or comparison: the verdict, the causes and diagnosis with their
// figures, the consistency checks, every figure that was NOT measured (with why and the GRANT — never a zero), whether
// the figures are the stand-in's, and how the database was left. Built from the report model both hosts already have
// (the run history's panel data in VS Code, the comparison document in the CLI). vscode-free.
import { STAND_IN_LABEL, type ComparisonModel } from '../report/comparison';
import { formatValue } from '../report/format';
import { traceOverheadLines } from '../report/traceOverheadText';
import { buildVerdict } from '../report/verdict';
import { agentField, agentJson } from './agentText';

/** The part of a stored result the summary reads. */
export interface ResultInput {
  kind: 'comparison' | 'profile' | 'trace';
  title: string;
  createdAt: string;
  workload: string | null;
  status: string;
  error: string | null;
  /** Comparisons: how DELAYED_DURABILITY was left; null when nothing was changed. */
  restore: { ok: boolean; message: string; originalSetting?: string | null; verifiedSetting?: string | null } | null;
  model: ComparisonModel;
}

type Figure = { median: number; min: number; max: number; runs: number; text: string } | { notMeasured: string; grant: string | null } | null;

export interface ResultSummary {
  kind: ResultInput['kind'];
  title: string;
  createdAt: string;
  server: string | null;
  database: string | null;
  workload: string | null;
  status: string;
  error: string | null;
  /** "SQL Server" or the stand-in label: stand-in figures are a simulation, never SQL Server's. */
  figures: string;
  verdict: {
    headline: string;
    facts: { label: string; text: string }[];
    /** The headline speed-up and whether it is conclusive (two runs or more per mode, ranges apart), with why (issue 28). */
    speedup: { mode: string; baseline: string; factor: number; min: number | null; max: number | null; runs: { baseline: number; mode: number }; conclusive: boolean; why: string } | null;
  } | null;
  /** Diagnosis findings: what was concluded and the figures it rests on. */
  findings: { severity: string; title: string; detail: string; suggestion: string | null }[];
  /** report/causes per column when this version's model carries it (absent from older results). */
  causes: unknown;
  consistency: { check: string; label: string; status: string; detail: string }[];
  notMeasured: { measurement: string; reason: string; grant: string | null }[];
  /** Key figures per column (mode, or RUN for a profile): median, range and runs; or why not measured. */
  figuresByColumn: Record<string, Record<string, Figure>>;
  /**
   * A profile's per-statement trace cost (profile tool's traceOverheadRuns, CLI --trace-overhead): elapsed with vs
   * without the trace, or why it was not measured (figures null, never 0). Null for comparisons and older results.
   */
  traceOverhead: {
    status: 'measured' | 'not-measured';
    /** Asked for: runs each way; null when it was not asked for. */
    runsEach: number | null;
    /** Runs made in all, the profile's own first run included (fewer than 2×runsEach when the alternation stopped). */
    runsMade: number;
    /** The report's own words: the answer, the cost per statement or why not, how to switch the trace off (or on). */
    lines: string[];
    withTraceMs: { median: number; min: number; max: number; runs: number } | null;
    withoutTraceMs: { median: number; min: number; max: number; runs: number } | null;
    percent: number | null;
    rangesOverlap: boolean | null;
    perStatementMs: number | null;
  } | null;
  /** What the run left behind on the server. */
  databaseState: string;
}

const KEY_METRICS = ['elapsed', 'commits', 'flushes.counter', 'flushes.xe', 'log.bytes', 'writelog.ms', 'writelog.count', 'log.msPerWrite'];

function figureOf(model: ComparisonModel, id: string, column: string): Figure {
  const row = model.rows.find((r) => r.id === id);
  if (!row) return null;
  const cell = row.cells[column];
  if (cell) return { median: cell.median, min: cell.min, max: cell.max, runs: cell.n, text: `${formatValue(cell.median, row.unit)} (range ${formatValue(cell.min, row.unit)}–${formatValue(cell.max, row.unit)})` };
  if (row.notMeasured) return { notMeasured: row.notMeasured.reason, grant: row.notMeasured.grant };
  // Absent without a recorded reason (a source that was off, an average over no events): still not a zero.
  return { notMeasured: `no ${column} run has this figure`, grant: null };
}

const AGENT_SWITCH_ON = 'or, from an agent, durability_lens_profile with "traceOverheadRuns": 2';

function traceOverheadOf(m: ComparisonModel): ResultSummary['traceOverhead'] {
  const t = m.traceOverhead;
  if (!t) return null;
  const side = (s: typeof t.withTrace) => (s ? { median: s.medianMs, min: s.minMs, max: s.maxMs, runs: s.runs } : null);
  // Not asked for: the report names the setting and the CLI flag; an agent's own way is its tool's input.
  const lines = traceOverheadLines(t).map((l) => (t.runsEach === null && l.startsWith('To measure it: ') ? `${l.slice(0, -1)}, ${AGENT_SWITCH_ON}.` : l));
  return { status: t.status, runsEach: t.runsEach, runsMade: Math.max(1, t.runs.length), lines, withTraceMs: side(t.withTrace), withoutTraceMs: side(t.withoutTrace), percent: t.percent, rangesOverlap: t.rangesOverlap, perStatementMs: t.perStatementMs };
}

function databaseStateOf(r: ResultInput): string {
  if (r.kind !== 'comparison') return r.model.workloadDurabilityChange?.message ?? 'DELAYED_DURABILITY was not changed: a profile runs the workload only.';
  if (!r.restore) return 'DELAYED_DURABILITY was not changed (the comparison stopped before switching it).';
  if (r.restore.ok) return `DELAYED_DURABILITY restored${r.restore.verifiedSetting ? ` to ${r.restore.verifiedSetting} and verified` : ''}: ${r.restore.message}`;
  return `DELAYED_DURABILITY was NOT restored: ${r.restore.message}`;
}

export function summarizeResult(r: ResultInput): ResultSummary {
  const m = r.model;
  let verdict: ResultSummary['verdict'] = null;
  if (r.kind !== 'trace') {
    try {
      const v = buildVerdict(m, { restore: r.restore ? { ok: r.restore.ok, message: r.restore.message, originalSetting: r.restore.originalSetting ?? null, verifiedSetting: r.restore.verifiedSetting ?? null } : null, workload: r.workload });
      const sp = v.speedup;
      verdict = { headline: v.headline, facts: v.facts.map((f) => ({ label: f.label, text: f.text })), speedup: sp ? { mode: sp.mode, baseline: sp.baseline, factor: sp.factor, min: sp.min, max: sp.max, runs: sp.runs, conclusive: sp.conclusive, why: sp.why } : null };
    } catch {
      verdict = null; // an older result's model may lack what the verdict reads: the rest is still told
    }
  }
  const figuresByColumn: ResultSummary['figuresByColumn'] = {};
  for (const column of m.columns) {
    const figures: Record<string, Figure> = {};
    for (const id of KEY_METRICS) {
      const f = figureOf(m, id, column);
      if (f) figures[id] = f;
    }
    figuresByColumn[column] = figures;
  }
  return {
    kind: r.kind,
    title: r.title,
    createdAt: r.createdAt,
    server: m.server,
    database: m.database,
    workload: r.workload,
    status: r.status,
    error: r.error,
    figures: m.source === 'stand-in' ? (m.sourceLabel ?? STAND_IN_LABEL) : 'SQL Server (measured)',
    verdict,
    findings: (m.diagnosis ?? []).map((f) => ({ severity: f.severity, title: f.title, detail: f.detail, suggestion: f.suggestion })),
    causes: (m as { causes?: unknown }).causes ?? null,
    consistency: (m.consistency ?? []).map((c) => ({ check: c.check, label: c.label, status: c.status, detail: c.detail })),
    notMeasured: (m.missing ?? []).map((x) => ({ measurement: x.measurement, reason: x.reason, grant: x.grant })),
    figuresByColumn,
    traceOverhead: traceOverheadOf(m),
    databaseState: databaseStateOf(r),
  };
}

/** The text a tool returns: the headline and state first (what a model quotes), then the whole summary as JSON. */
export function resultText(s: ResultSummary): string {
  // Every line of the head is ours; what the server or a file said inside it stays on its line (agentField).
  const head = [
    `${agentField(s.title)} — ${s.status}${s.error ? ` (${agentField(s.error)})` : ''}.`,
    s.verdict ? agentField(s.verdict.headline) : '',
    `Figures: ${agentField(s.figures)}.`,
    // Asked for (traceOverheadRuns): its answer belongs with the verdict; not asked, it stays in the JSON.
    s.traceOverhead && s.traceOverhead.runsEach !== null ? agentField(s.traceOverhead.lines[0] ?? '') : '',
    agentField(s.databaseState),
    s.notMeasured.length > 0 ? `Not measured (not zero): ${s.notMeasured.map((n) => agentField(n.measurement)).join(', ')} — see notMeasured for why and the GRANT.` : '',
  ].filter((x) => x !== '');
  return `${head.join('\n')}\n\n${agentJson(s)}`;
}
