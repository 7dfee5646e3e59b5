// Exporters of a ComparisonModel: Markdown (people), CSV (spreadsheets, formula injection neutralised), JSON
// (machines). Each carries the stand-in label when any figure came from the stand-in.
import { notMeasuredText } from '../probes/measurement';
import type { ComparisonModel, MetricRow } from './comparison';
import { jsonText } from './jsonText';
import type { MetricUnit } from './metrics';
import { concurrencyMarkdownLines } from './concurrency';
import { consistencyMarkdownLines, disagreementMarker, statementsDisagreementText } from './consistency';
import { environmentLines } from './environment';
import { markdownCode, markdownText } from './markdownText';
import { statementsMarkdown } from './statements';
import { buildVerdict, verdictMarkdown, type VerdictContext } from './verdict';
import { causesMarkdownLines } from './causes/text';
import type { RatioCell, Summary } from './stats';
import { traceOverheadCsvRows, traceOverheadLines, UNTRACED_COMPARISON_TEXT } from './traceOverheadText';

// Cell and ratio text live in format.ts (no server or probe imports), so the webview bundle can use them too.
export { formatNumber, formatRatio, formatValue, NOT_MEASURED_TEXT, ratioWords } from './format';
import { evidenceText, formatValue, NOT_MEASURED_TEXT, ratioWords } from './format';

function cellText(s: Summary | null, unit: MetricUnit, notMeasured = false): string {
  if (!s) return notMeasured ? NOT_MEASURED_TEXT : 'n/a';
  if (s.n === 1 || s.min === s.max) return formatValue(s.median, unit);
  return `${formatValue(s.median, unit)} (${formatValue(s.min, unit)} – ${formatValue(s.max, unit)})`;
}

function ratioText(row: MetricRow, r: RatioCell | null): string {
  if (!r || r.ratio === null) return 'n/a';
  const words = ratioWords(row, r);
  const verdict = r.verdict === 'neutral' || words.text === '→ same' ? '' : ` ${r.verdict}`;
  return `${words.text}${words.spread ? ` [${words.spread}]` : ''}${verdict}${r.inconclusive ? ' (inconclusive)' : ''}`;
}

/** Every value in the Markdown (names, paths, messages from servers and files) is text, never markup. */
const md = markdownText;

export function toMarkdown(model: ComparisonModel, title = 'Durability comparison', verdict: VerdictContext = {}): string {
  const out: string[] = [`# ${md(title)}`, ''];
  if (model.sourceLabel) out.push(`> **${model.sourceLabel}.**`, '');
  // The answer first (issue 20): the verdict block, then the details.
  if (model.columns.length > 0 || model.failure) out.push(...verdictMarkdown(buildVerdict(model, verdict), md), '');
  if (model.database) out.push(`Database: ${markdownCode(model.database)}${model.server ? ` on ${md(model.server)}` : ''}. Baseline: ${md(model.baseline)}.`, '');
  const others = model.columns.filter((c) => c !== model.baseline);
  const head = ['Metric', ...model.columns.map((c) => `${c} (${model.runsPerColumn[c] ?? 0} run${model.runsPerColumn[c] === 1 ? '' : 's'})`), ...others.map((c) => `${c} vs ${model.baseline}`)];
  out.push(`| ${head.map(md).join(' | ')} |`, `| ${head.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`);
  for (const row of model.rows) {
    const cells = [`${row.label}${disagreementMarker(row.consistency ?? [])}`, ...model.columns.map((c) => cellText(row.cells[c] ?? null, row.unit, row.notMeasured !== null)), ...others.map((c) => ratioText(row, row.ratios[c] ?? null))];
    out.push(`| ${cells.map(md).join(' | ')} |`);
  }
  out.push('', 'Cells: median (min – max) over the measured runs. Ratios: median vs baseline [widest spread the ranges allow].');
  if (model.untracedComparison) out.push('', md(UNTRACED_COMPARISON_TEXT));
  // Whether the elapsed difference is conclusive and why (issue 28): the reason beside the figures, not only a flag.
  const elapsed = model.rows.find((r) => r.id === 'elapsed');
  for (const c of others) {
    const r = elapsed?.ratios[c];
    if (r?.conclusiveWhy) out.push('', `Elapsed, ${md(c)} vs ${md(model.baseline)}: ${r.conclusive ? 'conclusive' : 'not conclusive'} — ${md(r.conclusiveWhy)}.`);
  }
  // The trace's own cost next to the figures it slowed (issue 28): measured, or not measured with why.
  if (model.traceOverhead) out.push('', '## Per-statement trace cost', '', ...traceOverheadLines(model.traceOverhead).map((l) => `- ${md(l)}`));
  if (model.concurrency) out.push('', ...concurrencyMarkdownLines(model.concurrency, md));
  // Right after the figures they reconcile, before the diagnosis built on them.
  if (model.consistency && model.consistency.length > 0) out.push('', ...consistencyMarkdownLines(model.consistency, md));
  const causes = model.causes?.[model.baseline];
  if (model.diagnosis.length > 0 || causes) {
    out.push('', '## Diagnosis', '');
    for (const f of model.diagnosis) {
      const evidence = f.evidence.map((e) => evidenceText(model.rows, e)).join('; ');
      out.push(`- **${md(f.title)}** (${f.severity}): ${md(f.detail)}${f.suggestion ? ` ${md(f.suggestion)}` : ''}${evidence ? ` _Evidence: ${md(evidence)}_` : ''}`);
    }
    // Every cause with its evidence (issue 29): the baseline's in full, the other modes' leaders after it.
    if (causes) {
      const others = Object.fromEntries(Object.entries(model.causes ?? {}).filter(([c]) => c !== model.baseline));
      out.push(...(model.diagnosis.length > 0 ? [''] : []), ...causesMarkdownLines(causes, model.baseline, md, others));
    }
  }
  const statementsWarning = statementsDisagreementText(model.consistency);
  if (model.statements && statementsWarning) out.push('', `> ${md(statementsWarning)}`);
  if (model.statements) out.push('', ...statementsMarkdown(model.statements, md));
  if (model.environment) {
    out.push('', '## Environment', '');
    for (const line of environmentLines(model.environment)) out.push(`- ${md(line)}`);
  }
  if (model.notes.length > 0) {
    out.push('', '## Notes', '');
    for (const n of model.notes) out.push(`- ${md(n)}`);
  }
  if (model.missing.length > 0) {
    out.push('', '## Not measured', '');
    // Two measurements refused for the same reason and GRANT (the log-flush and statement traces) are one line.
    const lines = model.missing.map((m) => `- ${md(m.reason)}${m.grant ? ` To enable: ${markdownCode(m.grant)}` : ''}`);
    out.push(...lines.filter((l, i) => lines.indexOf(l) === i));
  }
  if (model.sourceLabel) out.push('', `_${model.sourceLabel}._`);
  return out.join('\n') + '\n';
}

/**
 * CSV cell: a leading = + - @ tab or CR makes spreadsheets evaluate it as a formula, so such cells get a leading
 * apostrophe (the OWASP CSV-injection advice); cells with quotes, commas or line breaks are quoted, quotes doubled.
 */
export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(model: ComparisonModel): string {
  const header = ['source', 'metric_id', 'metric', 'unit', 'column', 'runs', 'median', 'min', 'max', 'baseline', 'ratio', 'ratio_min', 'ratio_max', 'change', 'verdict', 'inconclusive', 'conclusive', 'conclusive_why', 'not_measured'];
  const lines = [header.join(',')];
  const source = model.source === 'stand-in' ? 'stand-in (simulated)' : 'sql-server';
  const push = (row: MetricRow, column: string) => {
    const s = row.cells[column] ?? null;
    const r = column === model.baseline ? null : (row.ratios[column] ?? null);
    lines.push(
      [source, row.id, row.label, row.unit, column, s?.n ?? 0, s?.median ?? null, s?.min ?? null, s?.max ?? null, model.baseline, r?.ratio ?? null, r?.spread.min ?? null, r?.spread.max ?? null, r?.change ?? null, r?.verdict ?? null, r ? r.inconclusive : null, r?.conclusive ?? null, r?.conclusiveWhy ?? null, row.notMeasured ? notMeasuredText(row.notMeasured) : null]
        .map(csvCell)
        .join(','),
    );
  };
  for (const row of model.rows) for (const c of model.columns) push(row, c);
  // The per-statement trace's cost: a profile's own rows (column RUN), not a mode's figures, so no ratio columns.
  for (const t of model.traceOverhead ? traceOverheadCsvRows(model.traceOverhead) : []) {
    lines.push([source, t.id, t.label, t.unit, 'RUN', t.runs, t.median, t.min, t.max, null, null, null, null, null, null, t.inconclusive, t.notMeasured].map(csvCell).join(','));
  }
  return lines.join('\r\n') + '\r\n';
}

/** JSON of the model (and optionally the raw runs): valid, with every control and bidi character escaped (jsonText.ts). */
export function toJson(model: ComparisonModel, extra: Record<string, unknown> = {}): string {
  return jsonText({ ...extra, model }) + '\n';
}

export type ExportFormat = 'markdown' | 'csv' | 'json';

export function formatFromPath(path: string): ExportFormat | null {
  const lower = path.toLowerCase();
  if (lower.endsWith('.md') || lower.endsWith('.markdown')) return 'markdown';
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.json')) return 'json';
  return null;
}
