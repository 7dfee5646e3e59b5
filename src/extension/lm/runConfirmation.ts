// What the user sees before an agent's Profile / Compare runs: the confirmation VS Code shows (title and message) and
// the invocation line, in the display language. Each sentence is one l10n.t message; the template's own words are
// appended as text (escaped, so neither a translation nor a value can turn into Markdown: no link, no image) and the
// values — the agent's path, the server's names — as escaped text too, bold where the code says so.
// The results the tools return to the model (lmTools.ts) stay English on purpose: they are instructions and figures for
// the model, not UI, and an agent reads them the same in every display language.
import * as vscode from 'vscode';
import { l10n } from '../l10n';

export interface RunConfirmationInput {
  mode: 'profile' | 'compare';
  path: string;
  startLine?: number | undefined;
  endLine?: number | undefined;
  /** A Profile measuring the trace's cost: runs with the trace (and as many without). */
  overheadRuns?: number | undefined;
  connection: { database: string; serverLabel: string } | null;
}

interface Value {
  text: string;
  bold?: boolean;
}

/**
 * The placeholders themselves as arguments: l10n.t then gives the translated template with its {n} still in place
 * (vscode.l10n.t fills a placeholder it has no argument for with "undefined"), for appendTemplate to fill escaped.
 */
const SLOTS = ['{0}', '{1}', '{2}', '{3}', '{4}', '{5}'];

/** A translated template's words as text, its {n} replaced by the n-th value (escaped, bold when asked). */
export function appendTemplate(target: vscode.MarkdownString, template: string, values: readonly Value[]): vscode.MarkdownString {
  let at = 0;
  for (const m of template.matchAll(/\{(\d+)\}/g)) {
    const value = values[Number(m[1])];
    if (!value) continue;
    if (m.index > at) target.appendText(template.slice(at, m.index));
    if (value.bold) target.appendMarkdown('**').appendText(value.text).appendMarkdown('**');
    else target.appendText(value.text);
    at = m.index + m[0].length;
  }
  if (at < template.length) target.appendText(template.slice(at));
  return target;
}

/** "lines 7–12", "the batch at line 7", "the whole file". */
function rangeText(i: Pick<RunConfirmationInput, 'startLine' | 'endLine'>): string {
  if (i.startLine === undefined) return l10n.t('the whole file');
  return i.endLine !== undefined ? l10n.t('lines {0}–{1}', i.startLine, i.endLine) : l10n.t('the batch at line {0}', i.startLine);
}

/** The first sentence's template: what runs, how often, where; its values in the order of the placeholders. */
function whatRuns(i: RunConfirmationInput, path: Value, range: Value): { template: string; values: Value[] } {
  const c = i.connection;
  const where = c ? [{ text: c.database, bold: true }, { text: c.serverLabel, bold: true }] : [];
  if (i.mode === 'compare') {
    return c
      ? { template: l10n.t('Durability Lens will run {0} ({1}) repeatedly on database {2} on {3}, switching its DELAYED_DURABILITY between DISABLED and FORCED and restoring it afterwards.', ...SLOTS.slice(0, 4)), values: [path, range, ...where] }
      : { template: l10n.t('Durability Lens will run {0} ({1}) repeatedly on a SQL Server connection (you will be asked to connect), switching its DELAYED_DURABILITY between DISABLED and FORCED and restoring it afterwards.', ...SLOTS.slice(0, 2)), values: [path, range] };
  }
  if (i.overheadRuns !== undefined) {
    const counts = [{ text: String(i.overheadRuns * 2) }, { text: String(i.overheadRuns) }];
    return c
      ? { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3} with the per-statement trace, {3} without, to measure what the trace costs) on database {4} on {5} with commit measurements.', ...SLOTS.slice(0, 6)), values: [path, range, ...counts, ...where] }
      : { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3} with the per-statement trace, {3} without, to measure what the trace costs) on a SQL Server connection (you will be asked to connect) with commit measurements.', ...SLOTS.slice(0, 4)), values: [path, range, ...counts] };
  }
  return c
    ? { template: l10n.t('Durability Lens will run {0} ({1}) once on database {2} on {3} with commit measurements.', ...SLOTS.slice(0, 4)), values: [path, range, ...where] }
    : { template: l10n.t('Durability Lens will run {0} ({1}) once on a SQL Server connection (you will be asked to connect) with commit measurements.', ...SLOTS.slice(0, 2)), values: [path, range] };
}

/** The confirmation VS Code shows before the tool runs. */
export function runConfirmation(i: RunConfirmationInput): { title: string; message: vscode.MarkdownString } {
  const first = whatRuns(i, { text: i.path }, { text: rangeText(i) });
  const message = appendTemplate(new vscode.MarkdownString(), first.template, first.values);
  message.appendText(' ');
  // The consent view's button is l10n.t('Run') too (profilingController.ts): the same word in every language.
  const run = [{ text: l10n.t('Run'), bold: true }];
  appendTemplate(
    message,
    i.mode === 'compare'
      ? l10n.t('The statements execute for real. Before anything that changes data or schema is sent, Durability Lens shows you the exact T-SQL and runs it only when you choose {0}; the switch of the setting is confirmed as well (unless the connection is a development database).', ...SLOTS.slice(0, 1))
      : l10n.t('The statements execute for real. Before anything that changes data or schema is sent, Durability Lens shows you the exact T-SQL and runs it only when you choose {0}.', ...SLOTS.slice(0, 1)),
    run,
  );
  return { title: i.mode === 'compare' ? l10n.t('Compare DELAYED_DURABILITY modes?') : l10n.t('Profile T-SQL?'), message };
}

/** The line the chat shows while the tool runs. */
export function runInvocationMessage(mode: 'profile' | 'compare', path: string): string {
  return mode === 'compare' ? l10n.t('Comparing durability modes for {0}', path) : l10n.t('Profiling {0}', path);
}
