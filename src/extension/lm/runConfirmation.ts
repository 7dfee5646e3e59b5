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
  /** A comparison's modes and runs, from the user's durabilityLens.compare.* settings (said as they are). */
  compare?: { modes: readonly string[]; repetitions: number; warmup: boolean; total: number } | undefined;
}

interface Value {
  text: string;
  bold?: boolean;
}

/**
 * The arguments that keep a template's placeholders as they are: appendTemplate fills them with escaped values. Passed
 * explicitly rather than left out, so the template comes back whole whatever a translator does with a placeholder it
 * has no argument for (the test fake's wrote "undefined").
 */
const KEEP = ['{0}', '{1}', '{2}', '{3}', '{4}', '{5}', '{6}', '{7}'];

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
    // The runs and modes of the user's settings (durabilityLens.compare.*), never a fixed text: a workspace may set them.
    const k = i.compare;
    if (!k) {
      // Not told the count (a caller without the settings): said as "repeatedly", never a number made up here.
      return c
        ? { template: l10n.t('Durability Lens will run {0} ({1}) repeatedly on database {2} on {3}, switching its DELAYED_DURABILITY and restoring it afterwards.', ...KEEP), values: [path, range, ...where] }
        : { template: l10n.t('Durability Lens will run {0} ({1}) repeatedly on a SQL Server connection (you will be asked to connect), switching its DELAYED_DURABILITY and restoring it afterwards.', ...KEEP), values: [path, range] };
    }
    const plan = k.warmup ? l10n.t('{0} × {1} + 1 warm-up', k.modes.join(', '), k.repetitions) : l10n.t('{0} × {1}', k.modes.join(', '), k.repetitions);
    const runs = [{ text: String(k.total) }, { text: plan }];
    const [first, second] = k.modes;
    const modes = k.modes.length === 2 ? [{ text: first! }, { text: second! }] : [{ text: k.modes.join(', ') }];
    if (k.modes.length === 2) {
      return c
        ? { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3}) on database {4} on {5}, switching its DELAYED_DURABILITY between {6} and {7} and restoring it afterwards.', ...KEEP), values: [path, range, ...runs, ...where, ...modes] }
        : { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3}) on a SQL Server connection (you will be asked to connect), switching its DELAYED_DURABILITY between {4} and {5} and restoring it afterwards.', ...KEEP), values: [path, range, ...runs, ...modes] };
    }
    return c
      ? { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3}) on database {4} on {5}, switching its DELAYED_DURABILITY through {6} and restoring it afterwards.', ...KEEP), values: [path, range, ...runs, ...where, ...modes] }
      : { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3}) on a SQL Server connection (you will be asked to connect), switching its DELAYED_DURABILITY through {4} and restoring it afterwards.', ...KEEP), values: [path, range, ...runs, ...modes] };
  }
  if (i.overheadRuns !== undefined) {
    const counts = [{ text: String(i.overheadRuns * 2) }, { text: String(i.overheadRuns) }];
    return c
      ? { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3} with the per-statement trace, {3} without, to measure what the trace costs) on database {4} on {5} with commit measurements.', ...KEEP), values: [path, range, ...counts, ...where] }
      : { template: l10n.t('Durability Lens will run {0} ({1}) {2} times ({3} with the per-statement trace, {3} without, to measure what the trace costs) on a SQL Server connection (you will be asked to connect) with commit measurements.', ...KEEP), values: [path, range, ...counts] };
  }
  return c
    ? { template: l10n.t('Durability Lens will run {0} ({1}) once on database {2} on {3} with commit measurements.', ...KEEP), values: [path, range, ...where] }
    : { template: l10n.t('Durability Lens will run {0} ({1}) once on a SQL Server connection (you will be asked to connect) with commit measurements.', ...KEEP), values: [path, range] };
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
      ? l10n.t('The statements execute for real. Before anything that changes data or schema is sent, Durability Lens shows you the exact T-SQL and runs it only when you choose {0}; the switch of the setting is confirmed as well (unless the connection is a development database).', ...KEEP)
      : l10n.t('The statements execute for real. Before anything that changes data or schema is sent, Durability Lens shows you the exact T-SQL and runs it only when you choose {0}.', ...KEEP),
    run,
  );
  return { title: i.mode === 'compare' ? l10n.t('Compare DELAYED_DURABILITY modes?') : l10n.t('Profile T-SQL?'), message };
}

/** The line the chat shows while the tool runs. */
export function runInvocationMessage(mode: 'profile' | 'compare', path: string): string {
  return mode === 'compare' ? l10n.t('Comparing durability modes for {0}', path) : l10n.t('Profiling {0}', path);
}
