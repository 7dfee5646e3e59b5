// Per-statement figures as people read them (issue 16): the view the panel's Statements tab, the Markdown top-10
// table and the editor's inline hints share — one wording for "10,000 × · 42 s WRITELOG · 4 KiB log/flush".
// Pure (no server, no vscode), so the webview bundle and the extension can both use it.
import type { RunResult } from '../profile/types';
import type { StatementAttribution, StatementFigure } from '../profile/statementAttribution';
import { oneLineField } from '../shared/visibleText';
import { markdownCode } from './markdownText';
import { formatBytes, formatCount, formatDuration, formatShare } from './units';

/** The statements of one run, kept in the model (a comparison shows its first measured run of the baseline). */
export interface StatementsView {
  /** The column (mode) the run belongs to, "RUN" for a plain profile. */
  column: string;
  statements: StatementFigure[];
  attribution: StatementAttribution;
}

/** How many statements the model keeps (the panel's table); the Markdown shows the first 10. */
export const STATEMENTS_KEPT = 50;
export const MARKDOWN_TOP = 10;

/** From the first run of `preferredColumn` that has an attribution, else any run with one; null when none. */
export function statementsViewOf(runs: readonly RunResult[], columnOf: (r: RunResult) => string, preferredColumn: string): StatementsView | null {
  const candidates = runs.filter((r) => !r.warmup && r.statementAttribution);
  const run = candidates.find((r) => columnOf(r) === preferredColumn) ?? candidates[0];
  if (!run) return null;
  return { column: columnOf(run), statements: (run.statements ?? []).slice(0, STATEMENTS_KEPT), attribution: run.statementAttribution! };
}

/** "≈ " before a figure that scales the sample's averages by the exact counts (durations, WRITELOG ms, rows). */
export function approxPrefix(f: StatementFigure): string {
  return f.approx ? '≈ ' : '';
}

/** A figure's cell: "not measured" when the row says it has no source for it (a not-located hash's duration, rows). */
export function figureCell(f: StatementFigure, field: 'durationMs' | 'rows' | 'writelogMs', format: (n: number) => string): string {
  const value = f[field];
  return value === null || f.notMeasured?.includes(field) ? 'not measured' : approxPrefix(f) + format(value);
}

/** An execution or wait count: "≈ " before it when the row's counts are approximate (its `approximate` says why); "not measured" for null. */
export function countCell(f: StatementFigure, n: number | null): string {
  return n === null ? 'not measured' : (f.approximate ? '≈ ' : '') + formatCount(n);
}

/** The WRITELOG waits cell: not measured when the run could not trace WRITELOG per statement, or the row says so. */
export function writelogWaitsCell(f: StatementFigure, a: StatementAttribution): string {
  return a.waitEvent === null || f.notMeasured?.includes('writelogWaits') ? 'not measured' : countCell(f, f.writelogWaits);
}

/** The WRITELOG time cell, by the same rule. */
export function writelogMsCell(f: StatementFigure, a: StatementAttribution): string {
  return a.waitEvent === null ? 'not measured' : figureCell(f, 'writelogMs', formatDuration);
}

/** The line cell: "not located" for a hash the sample never saw, the shared lines for one text on several lines. */
export function statementLineText(f: StatementFigure): string {
  if (f.located === false) return 'not located';
  const line = f.sharedLines && f.sharedLines.length > 1 ? f.sharedLines.join(', ') : String(f.line);
  // A procedure's statement: on its own line of the file, or on the line that called it when its source is elsewhere.
  return f.module ? `${line} (in ${oneLineField(f.module)})` : line;
}

/**
 * "10,000 × · 42.00 s WRITELOG" — the inline hint at the end of a hot line. Short on purpose: VS Code cuts inlay hints
 * past editor.inlayHints.maximumLength (43 characters by default), and the stand-in label lineHints adds must stay
 * visible; the run's log per flush, shared lines and the sample's coverage are in the hover.
 */
export function statementHintText(f: StatementFigure, a: StatementAttribution): string {
  const parts = [`${countCell(f, f.executions)} ×`];
  if (a.waitEvent !== null) parts.push(`${figureCell(f, 'writelogMs', formatDuration)} WRITELOG`);
  else parts.push(figureCell(f, 'durationMs', formatDuration));
  return parts.join(' · ');
}

/** The hover's lines: every figure, the share of the session's WRITELOG, and what attribution cannot see. */
export function statementHoverLines(f: StatementFigure, a: StatementAttribution): string[] {
  const lines = [
    `Executions: ${countCell(f, f.executions)}`,
    `Duration (sum): ${figureCell(f, 'durationMs', formatDuration)}`,
    a.waitEvent !== null ? `WRITELOG waits: ${writelogWaitsCell(f, a)} (${writelogMsCell(f, a)})` : 'WRITELOG waits: not measured per statement',
    `Rows: ${figureCell(f, 'rows', formatCount)}`,
  ];
  if (f.approximate) lines.push(`Counts ${f.approximate}.`);
  if (f.queryHash === '0') lines.push('No plan (query_hash 0): counted by its text, offsets and line, never merged with other statements.');
  if (f.counts === 'exact') lines.push('Executions and WRITELOG waits: counted on the server (exact); ≈ figures are these counts × the sampled averages.');
  if (f.sharedLines && f.sharedLines.length > 1) lines.push(`Lines ${f.sharedLines.join(', ')} have the same query hash: these figures are theirs together.`);
  // A ring buffer that kept only the newest events: the counts are of that part of the run.
  if (a.eventsCounted !== null && a.eventsSeen !== null && a.eventsCounted > a.eventsSeen) lines.push(`End of the run only: the sample holds ${formatShare(a.eventsSeen / a.eventsCounted)} of the events (${formatCount(a.eventsSeen)} of ${formatCount(a.eventsCounted)}).`);
  if (a.sessionWritelogWaits !== null && a.sessionWritelogWaits > 0 && a.waitEvent !== null && f.writelogWaits !== null) {
    lines.push(`Share of the session's WRITELOG waits: ${formatShare(f.writelogWaits / a.sessionWritelogWaits)} of ${formatCount(a.sessionWritelogWaits)} (sys.dm_exec_session_wait_stats)`);
  }
  if (a.logBytesPerFlush !== null) lines.push(`Log per flush: ${formatBytes(a.logBytesPerFlush)} (average over the whole run, not this statement)`);
  if (f.nestedStatements > 0) lines.push(`Includes ${formatCount(f.nestedStatements)} nested statement(s) (dynamic SQL or procedures) it called.`);
  return lines;
}

function countOrNot(n: number | null): string {
  return n === null ? 'not measured' : formatCount(n);
}

/** The reconciliation line: attributed WRITELOG next to the session's own total. */
export function reconciliationText(a: StatementAttribution): string {
  if (a.status !== 'measured') return `Statements not measured: ${a.reason ?? 'unknown reason'}`;
  if (a.waitEvent === null) return 'WRITELOG waits were not traced per statement (see notes); statement counts and durations are.';
  const session = a.sessionWritelogWaits === null ? 'not measured' : `${formatCount(a.sessionWritelogWaits)} (${formatDuration(a.sessionWritelogMs ?? 0)})`;
  const coverage = a.eventsCounted !== null && a.eventsSeen !== null && a.eventsCounted > a.eventsSeen ? ` Coverage: ${formatCount(a.eventsSeen)} of ${formatCount(a.eventsCounted)} events.` : '';
  return `WRITELOG attributed to statements: ${countOrNot(a.attributedWritelogWaits)} waits (${a.attributedWritelogMs === null ? 'not measured' : formatDuration(a.attributedWritelogMs)}); not attributed: ${countOrNot(a.unattributedWritelogWaits)}; the session's total: ${session}.${coverage}`;
}

/** The Markdown section: a top-10 table by WRITELOG time, the reconciliation and the limits. `md` escapes text. */
export function statementsMarkdown(view: StatementsView, md: (text: string) => string): string[] {
  const a = view.attribution;
  const out = ['## Statements', ''];
  if (a.status !== 'measured') {
    out.push(`${md(reconciliationText(a))}${a.grant ? ` To enable: ${markdownCode(a.grant)}` : ''}`);
    return out;
  }
  out.push(`Top ${MARKDOWN_TOP} by WRITELOG time (run: ${md(view.column)}).`, '');
  out.push('| Line | Statement | Executions | Duration | WRITELOG waits | WRITELOG time | Rows |', '| ---: | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const f of view.statements.slice(0, MARKDOWN_TOP)) {
    const cells = [statementLineText(f), f.text, countCell(f, f.executions), figureCell(f, 'durationMs', formatDuration), writelogWaitsCell(f, a), writelogMsCell(f, a), figureCell(f, 'rows', formatCount)];
    out.push(`| ${cells.map(md).join(' | ')} |`);
  }
  out.push('', md(reconciliationText(a)));
  for (const l of [...a.limits, ...a.notes]) out.push(`- ${md(l)}`);
  return out;
}

/** A sum of two figures; not measured when either is. */
function sumOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}

/** How many lines get an inline hint: the hottest ones only, so the editor stays readable. */
export const HINT_LINES = 10;

export interface LineHint {
  /** 1-based line in the file that ran. */
  line: number;
  hint: string;
  hover: string[];
}

/**
 * The hot lines of a run: those whose statements waited on WRITELOG (by WRITELOG time), else the longest-running,
 * at most `max`. Statements sharing a line are summed. Stand-in figures say so in the hint and the hover.
 */
export function lineHints(statements: readonly StatementFigure[], a: StatementAttribution, standIn: boolean, max = HINT_LINES): LineHint[] {
  if (a.status !== 'measured') return [];
  const byLine = new Map<number, StatementFigure>();
  for (const s of statements) {
    const cur = byLine.get(s.line);
    byLine.set(s.line, cur ? { ...cur, executions: Math.max(cur.executions, s.executions), durationMs: sumOrNull(cur.durationMs, s.durationMs), writelogWaits: sumOrNull(cur.writelogWaits, s.writelogWaits), writelogMs: sumOrNull(cur.writelogMs, s.writelogMs), rows: sumOrNull(cur.rows, s.rows), nestedStatements: cur.nestedStatements + s.nestedStatements } : s);
  }
  const lines = [...byLine.values()];
  const waited = lines.filter((s) => (s.writelogWaits ?? 0) > 0);
  const hot = (waited.length > 0 ? waited.sort((x, y) => (y.writelogMs ?? 0) - (x.writelogMs ?? 0) || (y.writelogWaits ?? 0) - (x.writelogWaits ?? 0)) : lines.sort((x, y) => (y.durationMs ?? 0) - (x.durationMs ?? 0))).slice(0, max);
  const label = standIn ? ' (stand-in)' : '';
  return hot.map((s) => ({
    line: s.line,
    hint: statementHintText(s, a) + label,
    hover: [...statementHoverLines(s, a), ...(standIn ? ['Figures from the Durability Lens stand-in: simulated by a model, not measured on SQL Server.'] : []), reconciliationText(a)],
  }));
}
