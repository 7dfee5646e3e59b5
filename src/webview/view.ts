// The panel's content as a plain element tree built from PanelData (no DOM here, so tests run in mocha): main.ts
// turns it into elements with createElement/textContent, and toHtml() serialises it, escaped, for tests.
import { formatNumber, formatRatio, formatValue } from '../report/export';
import type { MetricRow } from '../report/comparison';
import type { RatioCell, Summary } from '../report/stats';
import type { PanelData } from '../shared/webviewProtocol';

export interface VElement {
  tag: string;
  attrs: Record<string, string>;
  children: VNode[];
}
/** A string child is text: it is always set with textContent, never parsed as markup. */
export type VNode = VElement | string;

export function h(tag: string, attrs: Record<string, string> = {}, ...children: (VNode | null | undefined | false)[]): VElement {
  return { tag, attrs, children: children.filter((c): c is VNode => c !== null && c !== undefined && c !== false) };
}

const ATTR_NAME = /^[a-z][a-z0-9-]*$/;

/** Attributes are only ours: an on* handler or a style attribute would break the CSP promise, so they are refused. */
export function assertSafeAttribute(name: string): void {
  if (!ATTR_NAME.test(name) || name.startsWith('on') || name === 'style' || name === 'srcdoc') throw new Error(`Attribute not allowed in the panel: ${name}`);
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
function escapeAttr(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

export function toHtml(node: VNode): string {
  if (typeof node === 'string') return escapeText(node);
  if (!/^[a-z][a-z0-9-]*$/.test(node.tag) || node.tag === 'script' || node.tag === 'style') throw new Error(`Tag not allowed: ${node.tag}`);
  const attrs = Object.entries(node.attrs)
    .map(([k, v]) => {
      assertSafeAttribute(k);
      return ` ${k}="${escapeAttr(v)}"`;
    })
    .join('');
  return `<${node.tag}${attrs}>${node.children.map(toHtml).join('')}</${node.tag}>`;
}

function cellText(s: Summary | null | undefined, row: MetricRow): string {
  if (!s) return 'n/a';
  if (s.n === 1 || s.min === s.max) return formatValue(s.median, row.unit);
  return `${formatValue(s.median, row.unit)} (${formatValue(s.min, row.unit)} – ${formatValue(s.max, row.unit)})`;
}

function ratioNode(r: RatioCell | null | undefined): VNode {
  if (!r || r.ratio === null) return h('span', { class: 'dl-muted' }, 'n/a');
  const spread = r.spread.min !== null && r.spread.max !== null && r.spread.min !== r.spread.max ? ` [${formatRatio(r.spread.min)}–${formatRatio(r.spread.max)}]` : '';
  return h(
    'span',
    { class: `dl-ratio dl-${r.verdict}${r.inconclusive ? ' dl-inconclusive' : ''}`, title: r.inconclusive ? 'min–max ranges overlap: may be noise' : r.verdict },
    `${r.arrow} ×${formatRatio(r.ratio)}${spread}`,
    r.inconclusive ? h('span', { class: 'dl-note' }, ' inconclusive') : null,
  );
}

function table(headers: string[], rows: VNode[][], label: string): VElement {
  return h(
    'vscode-table',
    { zebra: '', 'bordered-columns': '', 'resizable': '', 'aria-label': label },
    h('vscode-table-header', { slot: 'header' }, ...headers.map((t) => h('vscode-table-header-cell', {}, t))),
    h('vscode-table-body', { slot: 'body' }, ...rows.map((cells) => h('vscode-table-row', {}, ...cells.map((c) => h('vscode-table-cell', {}, c))))),
  );
}

function headerSection(d: PanelData): VElement {
  const hd = d.header;
  const facts: [string, string | null][] = [
    ['Server', hd.server],
    ['Version', hd.version],
    ['Edition', hd.edition],
    ['Host', hd.hostPlatform],
    ['Database', hd.database],
    ['Recovery model', hd.recoveryModel],
    ['Status', hd.status],
  ];
  return h(
    'header',
    { class: 'dl-header' },
    h('h1', {}, d.title),
    h('dl', { class: 'dl-facts' }, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? 'unknown')])),
    hd.restore
      ? h('p', { class: hd.restore.ok ? 'dl-restore dl-ok' : 'dl-restore dl-error', role: 'status' }, hd.restore.message, hd.restore.statement ? h('code', { class: 'dl-block' }, hd.restore.statement) : null)
      : null,
    hd.error ? h('p', { class: 'dl-error', role: 'alert' }, hd.error) : null,
  );
}

export function metricTable(d: PanelData): VElement {
  const m = d.model;
  const others = m.columns.filter((c) => c !== m.baseline);
  const headers = ['Metric', ...m.columns.map((c) => `${c} (${m.runsPerColumn[c] ?? 0} run${m.runsPerColumn[c] === 1 ? '' : 's'})`), ...others.map((c) => `${c} vs ${m.baseline}`)];
  const rows = m.rows.map((row) => [
    h('span', { title: row.source }, row.label) as VNode,
    ...m.columns.map((c) => cellText(row.cells[c], row) as VNode),
    ...others.map((c) => ratioNode(row.ratios[c])),
  ]);
  return table(headers, rows, 'Metrics per durability mode');
}

function diagnosisSection(d: PanelData): VElement {
  if (d.model.diagnosis.length === 0) return h('p', { class: 'dl-muted' }, 'No finding: nothing in these figures matched a diagnosis rule.');
  return h(
    'ul',
    { class: 'dl-findings' },
    ...d.model.diagnosis.map((f) =>
      h(
        'li',
        { class: `dl-finding dl-${f.severity}` },
        h('vscode-badge', { variant: f.severity === 'info' ? 'default' : 'counter' }, f.severity),
        ' ',
        h('strong', {}, f.title),
        h('p', {}, f.detail),
        f.suggestion ? h('p', { class: 'dl-suggestion' }, f.suggestion) : null,
        f.evidence.length > 0 ? h('ul', { class: 'dl-evidence' }, ...f.evidence.map((e) => h('li', {}, `${e.metric} (${e.column}): ${formatNumber(e.value, 3)}`))) : null,
      ),
    ),
  );
}

function chartsSection(d: PanelData): VElement {
  const chart = (id: string, title: string) => h('figure', { class: 'dl-chart' }, h('figcaption', {}, title), h('div', { class: 'dl-chart-box' }, h('canvas', { 'data-chart': id, role: 'img', 'aria-label': title })));
  return h(
    'div',
    { class: 'dl-charts' },
    chart('elapsed', 'Workload elapsed (ms) per mode and repetition'),
    chart('writelog', 'WRITELOG wait time (ms) per mode and repetition'),
    chart('writesVsBytes', 'Log writes vs log bytes (one point per run)'),
    d.charts.flushSizes ? chart('flushSizes', 'Log flush sizes (XE)') : h('p', { class: 'dl-muted' }, 'No flush-size histogram: the log-flush trace did not run or carried no write sizes.'),
    d.charts.flushTimeline ? chart('flushTimeline', `Log flushes over time (${d.charts.flushTimeline.bucketMs} ms buckets, first run of each mode)`) : null,
  );
}

function num(v: number | null, unit: Parameters<typeof formatValue>[1]): string {
  return v === null ? 'n/a' : formatValue(v, unit);
}

function ioSection(d: PanelData): VElement {
  if (d.files.length === 0) return h('p', { class: 'dl-muted' }, 'No per-file figures (sys.dm_io_virtual_file_stats was not readable).');
  return table(
    ['Mode', 'File', 'Kind', 'Writes', 'Bytes written', 'ms/write', 'Bytes/write', 'Reads'],
    d.files.map((f) => [f.mode, f.file, f.kind, num(f.writes, 'count'), num(f.bytesWritten, 'bytes'), num(f.msPerWrite, 'ms/write'), num(f.avgBytesPerWrite, 'bytes/write'), num(f.reads, 'count')]),
    'Per-file IO',
  );
}

function waitsSection(d: PanelData): VElement {
  if (d.waits.length === 0) return h('p', { class: 'dl-muted' }, 'No session waits recorded.');
  return table(
    ['Mode', 'Wait type', 'Waiting tasks', 'Wait time', 'Share'],
    d.waits.map((w) => [w.mode, w.waitType, num(w.waitingTasks, 'count'), num(w.waitTimeMs, 'ms'), w.percent === null ? 'n/a' : `${w.percent.toFixed(1)} %`]),
    'Top waits of the workload session',
  );
}

function missingSection(d: PanelData): VElement {
  if (d.missing.length === 0) return h('p', { class: 'dl-muted' }, 'Every measurement was available.');
  return h(
    'div',
    {},
    table(['Measurement', 'Why missing', 'GRANT'], d.missing.map((m) => [m.measurement, m.reason, m.grant ? h('code', {}, m.grant) : 'n/a']), 'Missing measurements'),
    d.grantScript ? h('pre', { class: 'dl-grants' }, d.grantScript) : null,
    d.grantScript ? h('vscode-button', { 'data-action': 'copyGrants', secondary: '' }, 'Copy GRANTs') : null,
  );
}

function toolbar(): VElement {
  return h(
    'div',
    { class: 'dl-toolbar', role: 'toolbar' },
    h('vscode-button', { 'data-action': 'copyMarkdown' }, 'Copy as Markdown'),
    h('vscode-button', { 'data-action': 'export-markdown', secondary: '' }, 'Export Markdown…'),
    h('vscode-button', { 'data-action': 'export-csv', secondary: '' }, 'Export CSV…'),
    h('vscode-button', { 'data-action': 'export-json', secondary: '' }, 'Export JSON…'),
  );
}

export const TAB_TITLES = ['Metrics', 'Charts', 'Diagnosis', 'File IO', 'Waits', 'Missing measurements'] as const;

/** The whole panel. `selectedTab` comes from the webview state so a reload keeps the tab. */
export function renderPanel(d: PanelData, selectedTab = 0): VElement {
  const panels = [
    h('div', {}, metricTable(d), ...d.model.notes.map((n) => h('p', { class: 'dl-note' }, n))),
    chartsSection(d),
    diagnosisSection(d),
    ioSection(d),
    waitsSection(d),
    missingSection(d),
  ];
  return h(
    'div',
    { class: 'dl-panel' },
    d.standInLabel ? h('div', { class: 'dl-banner', role: 'note' }, h('strong', {}, 'STAND-IN '), d.standInLabel) : null,
    headerSection(d),
    toolbar(),
    h(
      'vscode-tabs',
      { 'selected-index': String(Math.max(0, Math.min(selectedTab, panels.length - 1))) },
      ...TAB_TITLES.flatMap((title, i) => [
        h('vscode-tab-header', { slot: 'header' }, title, title === 'Missing measurements' && d.missing.length > 0 ? h('vscode-badge', { variant: 'counter', slot: 'content-after' }, String(d.missing.length)) : null),
        h('vscode-tab-panel', {}, panels[i]!),
      ]),
    ),
  );
}
