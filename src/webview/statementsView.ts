// The panel's Statements tab (issue 16): the run's statements sorted by WRITELOG time, each line number a button that
// opens that line in the editor, the reconciliation with the session's total and what attribution cannot see.
// Built from the model's plain data; every server string (statement text, notes) stays a text node.
import { formatCount, formatDuration } from '../report/units';
import { statementsDisagreementText } from '../report/consistency';
import { countCell, figureCell, reconciliationText, statementLineText, writelogMsCell, writelogWaitsCell } from '../report/statements';
import { traceOverheadLines } from '../report/traceOverheadText';
import type { PanelData } from '../shared/webviewProtocol';
import type { VElement, VNode } from './vnode';
import { t } from './l10n';

/** The element builders of view.ts, passed in so the two modules do not import each other. */
export interface ViewKit {
  h(tag: string, attrs?: Record<string, string>, ...children: (VNode | null | undefined | false)[]): VElement;
  table(headers: string[], rows: VNode[][], label: string, numericFrom?: number): VElement;
}

/**
 * What the per-statement trace cost this run (issue 28), said next to the figures it slowed: measured, or not measured
 * with why and how to measure it. Null when the model has none (comparisons, older results).
 */
export function traceOverheadNote(d: PanelData, { h }: Pick<ViewKit, 'h'>): VElement | null {
  const o = d.model.traceOverhead ?? null;
  if (!o) return null;
  const [headline, ...rest] = traceOverheadLines(o);
  const tone = o.status !== 'measured' ? 'dl-muted' : (o.percent ?? 0) > 0 && !o.rangesOverlap ? 'dl-tone-bad' : 'dl-muted';
  return h('div', { class: 'dl-trace-overhead', role: 'note', 'data-trace-overhead': o.status }, h('p', { class: tone }, headline!), ...rest.map((l) => h('p', { class: 'dl-note' }, l)));
}

export function statementsSection(d: PanelData, kit: ViewKit): VElement {
  const { h } = kit;
  const overhead = traceOverheadNote(d, kit);
  const section = statementsBody(d, kit);
  return overhead ? h('div', {}, overhead, section) : section;
}

function statementsBody(d: PanelData, { h, table }: ViewKit): VElement {
  const view = d.model.statements ?? null;
  if (!view) return h('p', { class: 'dl-muted' }, d.kind === 'trace' ? t('An ad-hoc trace runs no statements of its own.') : t('This result has no per-statement figures (made by an earlier version, or the statement trace was off).'));
  const a = view.attribution;
  if (a.status !== 'measured') {
    return h('div', {}, h('p', { class: 'dl-muted' }, reconciliationText(a)), a.grant ? h('p', {}, t('To enable:'), ' ', h('code', {}, a.grant)) : null);
  }
  const canOpen = !!d.documentUri;
  // "≈" on counts a possibly folded histogram gave, as in the Markdown; the row's `approximate` (why) is the cell's tooltip.
  const count = (s: (typeof view.statements)[number], text: string): VNode => (s.approximate ? h('span', { title: `Counts ${s.approximate}.` }, text) : text);
  const rows: VNode[][] = view.statements.map((s) => [
    canOpen && s.located !== false ? h('button', { class: 'dl-link', 'data-action': 'openLine', 'data-line': String(s.line), title: t('Go to line {0}', s.line) }, statementLineText(s)) : statementLineText(s),
    h('code', {}, s.text),
    count(s, countCell(s, s.executions)),
    figureCell(s, 'durationMs', formatDuration),
    count(s, writelogWaitsCell(s, a)),
    writelogMsCell(s, a),
    figureCell(s, 'rows', formatCount),
  ]);
  return h(
    'div',
    { class: 'dl-statements' },
    h('p', {}, reconciliationText(a)),
    // A consistency check disagrees about these figures: said above them, never hidden (issue 33).
    statementsDisagreementText(d.model.consistency) ? h('p', { class: 'dl-tone-bad', role: 'note' }, statementsDisagreementText(d.model.consistency)!) : null,
    view.column !== 'RUN' ? h('p', { class: 'dl-muted' }, t('Statements of the first measured {0} run.', view.column)) : null,
    rows.length > 0
      ? table([t('Line'), t('Statement'), t('Executions'), t('Duration'), t('WRITELOG waits'), t('WRITELOG time'), t('Rows')], rows, t('Statements by WRITELOG time'), 2)
      : h('p', { class: 'dl-muted' }, t('No statement of the script completed while traced.')),
    h('ul', { class: 'dl-notes' }, ...[...a.limits, ...a.notes].map((n) => h('li', {}, n))),
  );
}
