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

/** "0.395 ms/wait (0.39 – 0.403)": the unit once, so median and range fit a table cell. */
function cellText(s: Summary | null | undefined, row: MetricRow): string {
  // A source that was not measured reads "not measured" (why and GRANT in the Missing measurements tab), never 0.
  if (!s) return row.notMeasured ? 'not measured' : 'n/a';
  const median = formatValue(s.median, row.unit);
  if (s.n === 1 || s.min === s.max) return median;
  const lo = formatValue(s.min, row.unit);
  const hi = formatValue(s.max, row.unit);
  // A spread below the shown precision says nothing: "1.5 KB/write (1.5 – 1.5)" reads as noise.
  if (lo === hi) return median;
  const unitOf = (t: string) => t.replace(/^-?[\d.,]+/, '');
  const unit = unitOf(median);
  if (unitOf(lo) === unit && unitOf(hi) === unit) return `${median} (${lo.slice(0, lo.length - unit.length)} – ${hi.slice(0, hi.length - unit.length)})`;
  return `${median} (${lo} – ${hi})`;
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
    hd.status.startsWith('cancelled') ? h('p', { class: 'dl-cancelled', role: 'status' }, 'Cancelled: the workload was stopped; the figures cover the run up to the cancel (the after-snapshot was still taken).') : null,
    hd.error ? h('p', { class: 'dl-error', role: 'alert' }, hd.error) : null,
    d.kind === 'trace' ? null : environmentSection(d),
  );
}

/** Trace flags 3979/3982, VLFs, log size, recovery model: what shapes log flushing besides the workload. */
function environmentSection(d: PanelData): VElement {
  const e = d.environment;
  const facts: [string, string][] = [
    ['Recovery model', e.recoveryModel ?? 'unknown'],
    ['VLF count', e.vlfCount === null ? 'unknown' : formatNumber(e.vlfCount, 0)],
    ['Log size', e.logSizeMb === null ? 'unknown' : `${formatNumber(e.logSizeMb)} MB`],
    ['Trace flag 3979', e.traceFlag3979 ?? 'unknown'],
    ['Trace flag 3982', e.traceFlag3982 ?? 'unknown'],
  ];
  if (e.delayedDurability) facts.push(['DELAYED_DURABILITY', e.delayedDurability]);
  return h(
    'section',
    { class: 'dl-environment', 'aria-label': 'Environment' },
    h('h2', {}, 'Environment'),
    h('dl', { class: 'dl-facts dl-env-facts' }, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
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
  // Evidence names metric ids (writelog.avgMs); the table's label reads better, the id stays in the tooltip.
  const labelOf = (id: string) => d.model.rows.find((r) => r.id === id)?.label ?? id;
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
        f.evidence.length > 0 ? h('ul', { class: 'dl-evidence' }, ...f.evidence.map((e) => h('li', { title: e.metric }, `${labelOf(e.metric)} (${e.column}): ${formatNumber(e.value, 3)}`))) : null,
      ),
    ),
  );
}

function chartsSection(d: PanelData): VElement {
  const chart = (id: string, title: string) => h('figure', { class: 'dl-chart' }, h('figcaption', {}, title), h('div', { class: 'dl-chart-box' }, h('canvas', { 'data-chart': id, role: 'img', 'aria-label': title })));
  return h(
    'div',
    { class: 'dl-charts' },
    // An ad-hoc trace has no runs: only its own charts.
    d.charts.repetitions.length > 0 ? chart('elapsed', 'Workload elapsed (ms) per mode and repetition') : null,
    d.charts.repetitions.length > 0 ? chart('writelog', 'WRITELOG wait time (ms) per mode and repetition') : null,
    d.charts.repetitions.length > 0 ? chart('writesVsBytes', 'Log writes vs log bytes (one point per run)') : null,
    d.charts.flushSizes
      ? chart('flushSizes', `Log flush sizes (XE)${d.charts.flushSizes.sources?.length ? ` — ${d.charts.flushSizes.sources.join('; ')}` : ''}`)
      : h('p', { class: 'dl-muted' }, 'No flush-size histogram: the log-flush trace did not run or carried no write sizes.'),
    d.charts.flushTimeline
      ? chart('flushTimeline', `Log flushes over time (${d.charts.flushTimeline.bucketMs} ms buckets, first run of each mode)${d.charts.flushTimeline.coverage?.length ? ` — ${d.charts.flushTimeline.coverage.join('; ')}` : ''}`)
      : null,
    d.charts.fileIo ? chart('fileIo', 'Bytes written per file (first run of each mode)') : null,
    d.charts.samples ? chart('samples', 'Sampled during the run, per sample interval (x: seconds since sampling started)') : null,
    d.charts.printSeries
      ? chart('printSeries', `Figures the workload PRINTed (label: number)${d.charts.printSeries.perPoint > 1 ? `, maximum per ${d.charts.printSeries.perPoint} occurrences` : ''}`)
      : null,
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

function waitTable(rows: PanelData['waits'], label: string): VElement {
  return table(
    ['Mode', 'Wait type', 'Waiting tasks', 'Wait time', 'Share'],
    rows.map((w) => [w.mode, w.waitType, num(w.waitingTasks, 'count'), num(w.waitTimeMs, 'ms'), w.percent === null ? 'n/a' : `${w.percent.toFixed(1)} %`]),
    label,
  );
}

/** Session waits (what the workload itself waited on) beside server waits (everything, benign ones filtered). */
function waitsSection(d: PanelData): VElement {
  return h(
    'div',
    { class: 'dl-waits' },
    h('h2', {}, 'Workload session'),
    d.waits.length === 0 ? h('p', { class: 'dl-muted' }, 'No session waits recorded.') : waitTable(d.waits, 'Top waits of the workload session'),
    h('h2', {}, 'Whole server (same interval, benign waits filtered)'),
    d.serverWaits.length === 0 ? h('p', { class: 'dl-muted' }, 'No server waits recorded.') : waitTable(d.serverWaits, 'Top server waits'),
  );
}

/** Single-run view: log counters, log space and VLFs before/after, and the log-flush trace's figures. */
function logSection(d: PanelData): VElement {
  const x = d.details;
  if (!x) return h('p', { class: 'dl-muted' }, 'Per-run log figures are shown for a single run: open a run from Durability Lens: Show Run History.');
  return h(
    'div',
    { class: 'dl-log' },
    h('h2', {}, 'Log-flush trace (Extended Events)'),
    x.trace.length > 0 ? table(['Figure', 'Value'], x.trace.map((r) => [r.figure, r.value]), 'Log-flush trace figures') : h('p', { class: 'dl-muted' }, 'The log-flush trace did not run (see Missing measurements).'),
    ...x.traceNotes.map((n) => h('p', { class: 'dl-note' }, n)),
    d.kind === 'trace' ? null : h('h2', {}, 'Log counters (sys.dm_os_performance_counters, delta over the run)'),
    d.kind === 'trace' ? null : x.logCounters.length > 0 ? table(['Counter', 'Kind', 'Value', 'Per second'], x.logCounters.map((c) => [c.counter, c.kind, c.value, c.perSecond ?? 'n/a']), 'Log counters') : h('p', { class: 'dl-muted' }, 'No log counters.'),
    d.kind === 'trace' ? null : h('h2', {}, 'Log space and VLFs'),
    d.kind === 'trace' ? null : x.log.length > 0 ? table(['Figure', 'Before', 'After'], x.log.map((r) => [r.figure, r.before, r.after]), 'Log before and after') : h('p', { class: 'dl-muted' }, 'Log space and VLFs were not readable.'),
    ...x.notes.map((n) => h('p', { class: 'dl-note' }, n)),
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

export const TAB_TITLES = ['Metrics', 'Charts', 'Diagnosis', 'File IO', 'Waits', 'Log & trace', 'Missing measurements'] as const;

/** The whole panel. `selectedTab` comes from the webview state so a reload keeps the tab. */
export function renderPanel(d: PanelData, selectedTab = 0): VElement {
  const panels = [
    d.kind === 'trace'
      ? h('p', { class: 'dl-muted' }, 'An ad-hoc trace measures no workload of its own: its figures are on the Log & trace and Charts tabs.')
      : h('div', {}, metricTable(d), ...d.model.notes.map((n) => h('p', { class: 'dl-note' }, n))),
    chartsSection(d),
    diagnosisSection(d),
    ioSection(d),
    waitsSection(d),
    logSection(d),
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
