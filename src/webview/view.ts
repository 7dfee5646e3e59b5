// The panel's content as a plain element tree built from PanelData (no DOM here, so tests run in mocha): main.ts
// turns it into elements with createElement/textContent, and toHtml() serialises it, escaped, for tests.
import { evidenceText, formatNumber, formatValue, ratioWords } from '../report/format';
import type { MetricRow } from '../report/comparison';
import type { RatioCell, Summary } from '../report/stats';
import { formatBytes, formatDuration } from '../report/units';
import { buildVerdict } from '../report/verdict';
import type { PanelData, RunningView } from '../shared/webviewProtocol';
import { statementsSection, traceOverheadNote } from './statementsView';
import { UNTRACED_COMPARISON_TEXT } from '../report/traceOverheadText';
import { concurrencyCharts, concurrencySection } from './concurrencyView';
import { consistencySection, disagreementBadge } from './consistencyView';
import { causesSection } from './causesView';
import { h, type VElement, type VNode } from './vnode';

export { assertSafeAttribute, h, toHtml, type VElement, type VNode } from './vnode';

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

function ratioNode(row: MetricRow, r: RatioCell | null | undefined): VNode {
  if (!r || r.ratio === null) return h('span', { class: 'dl-muted' }, 'n/a');
  const words = ratioWords(row, r);
  // Inconclusive is not a verdict: neutral colour, whatever direction the medians moved.
  const tone = r.inconclusive ? 'dl-inconclusive' : `dl-${r.verdict}`;
  return h(
    'span',
    { class: `dl-ratio ${tone}`, title: r.inconclusive ? 'min–max ranges overlap: may be noise' : r.verdict },
    words.text,
    words.spread ? h('span', { class: 'dl-spread' }, ` [${words.spread}]`) : null,
    r.inconclusive ? h('span', { class: 'dl-note' }, ' inconclusive') : null,
  );
}

/**
 * A plain table in a horizontally scrolling box: cells wrap, the first column sticks while the others scroll, so
 * the names and figures stay readable in a 600 px panel (vscode-table cut every cell with an ellipsis there).
 */
function table(headers: string[], rows: VNode[][], label: string, numericFrom = 1): VElement {
  const cls = (i: number) => (i === 0 ? 'dl-first' : i >= numericFrom ? 'dl-num' : '');
  return h(
    'div',
    { class: 'dl-table-wrap', role: 'region', 'aria-label': label, tabindex: '0' },
    h(
      'table',
      { class: 'dl-table', 'aria-label': label },
      h('thead', {}, h('tr', {}, ...headers.map((t, i) => h('th', { scope: 'col', class: cls(i) }, t)))),
      h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c, i) => (i === 0 ? h('th', { scope: 'row', class: 'dl-first' }, c) : h('td', { class: cls(i) }, c)))))),
    ),
  );
}

/** The answer at a glance: headline, what was compared, flushes per commit, where the time went, exposure, restore. */
export function verdictSection(d: PanelData): VElement | null {
  if (d.kind === 'trace') return null;
  const r = d.header.restore;
  const v = buildVerdict(d.model, {
    restore: r ? { ok: r.ok, originalSetting: r.originalSetting ?? null, verifiedSetting: r.verifiedSetting ?? null, message: r.message } : null,
    workload: d.header.workload ?? null,
  });
  return h(
    'section',
    { class: 'dl-verdict', 'aria-label': 'Verdict' },
    // The first line (issue 29): the dominant cause and whether delayed durability is the lever.
    v.lead ? h('p', { class: `dl-cause-lead dl-tone-${v.lead.tone}`, 'data-cause': v.lead.cause ?? 'none' }, v.lead.text) : null,
    h('p', { class: `dl-headline dl-tone-${v.headlineTone}`, role: 'status' }, v.headline),
    h('dl', { class: 'dl-verdict-facts' }, ...v.facts.flatMap((f) => [h('dt', {}, f.label), h('dd', { class: `dl-tone-${f.tone}`, 'data-fact': f.id }, f.text)])),
    r && !r.ok && r.statement ? h('p', { class: 'dl-restore dl-error', role: 'alert' }, 'Run this to put the setting back: ', h('code', { class: 'dl-block' }, r.statement)) : null,
  );
}

/** Server facts and the environment, folded under the verdict: details, not the answer. */
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
  if (hd.workload) facts.push(['Workload', hd.workload]);
  const summary = [hd.server, hd.database ? `database ${hd.database}` : null, hd.status].filter((x) => x).join(' · ');
  return h(
    'details',
    { class: 'dl-header' },
    h('summary', {}, h('span', { class: 'dl-summary-label' }, 'Server and environment'), h('span', { class: 'dl-muted' }, ` ${summary}`)),
    h('dl', { class: 'dl-facts' }, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? 'unknown')])),
    d.kind === 'trace' ? null : environmentSection(d),
  );
}

/** What stopped the run early, above the verdict's details: a cancel or an error the verdict does not cover. */
function statusNotes(d: PanelData): VNode[] {
  const hd = d.header;
  const out: VNode[] = [];
  if (hd.status.startsWith('cancelled')) out.push(h('p', { class: 'dl-cancelled', role: 'status' }, 'Cancelled: the workload was stopped; the figures cover the run up to the cancel (the after-snapshot was still taken).'));
  // A workload error is the verdict's headline; any other error (a failed ALTER, a lost connection) is shown here.
  if (hd.error && !d.model.failure) out.push(h('p', { class: 'dl-error', role: 'alert' }, hd.error));
  return out;
}

/** Trace flags 3979/3982, VLFs, log size, recovery model: what shapes log flushing besides the workload. */
function environmentSection(d: PanelData): VElement {
  const e = d.environment;
  const facts: [string, string][] = [
    ['Recovery model', e.recoveryModel ?? 'unknown'],
    ['VLF count', e.vlfCount === null ? 'unknown' : formatNumber(e.vlfCount, 0)],
    ['Log size', e.logSizeMb === null ? 'unknown' : formatBytes(e.logSizeMb * 1024 * 1024)],
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
    h('span', { title: row.source }, row.label, disagreementBadge(row.consistency)) as VNode,
    ...m.columns.map((c) => cellText(row.cells[c], row) as VNode),
    ...others.map((c) => ratioNode(row, row.ratios[c])),
  ]);
  return table(headers, rows, 'Metrics per durability mode');
}

function diagnosisSection(d: PanelData): VElement {
  // Every cause of commit time with its evidence (issue 29), then the findings.
  return h('div', {}, causesSection(d.kind === 'trace' ? undefined : d.model.causes, d.model.baseline), findingsList(d));
}

function findingsList(d: PanelData): VElement {
  // Evidence names metric ids (writelog.avgMs): shown by the table's label, with the value in its unit; the tooltip
  // says where the figure comes from (the row's source), never the id.
  const sourceOf = (id: string) => d.model.rows.find((r) => r.id === id)?.source ?? '';
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
        f.evidence.length > 0 ? h('ul', { class: 'dl-evidence' }, ...f.evidence.map((e) => h('li', { title: sourceOf(e.metric) }, evidenceText(d.model.rows, e)))) : null,
      ),
    ),
  );
}

function chartsSection(d: PanelData): VElement {
  const chart = (id: string, title: string) => h('figure', { class: 'dl-chart' }, h('figcaption', {}, title), h('div', { class: 'dl-chart-box' }, h('canvas', { 'data-chart': id, role: 'img', 'aria-label': title })));
  return h(
    'div',
    { class: 'dl-charts' },
    // A concurrency sweep's curve first: it is the sweep's answer.
    ...concurrencyCharts(d.model.concurrency, chart),
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
    d.charts.fileThroughput ? chart('fileThroughput', 'Read and write throughput per file (first run of each mode)') : null,
    d.charts.samples ? chart('samples', 'Sampled during the run, per sample interval (x: seconds since sampling started)') : null,
    d.charts.printSeries
      ? chart('printSeries', `Figures the workload PRINTed (label: number)${d.charts.printSeries.perPoint > 1 ? `, maximum per ${d.charts.printSeries.perPoint} occurrences` : ''}`)
      : null,
  );
}

function num(v: number | null, unit: Parameters<typeof formatValue>[1]): string {
  return v === null ? 'n/a' : formatValue(v, unit);
}

function rate(v: number | null | undefined): string {
  return v === null || v === undefined ? 'n/a' : `${formatBytes(v)}/s`;
}

/** Per file: writes and reads side by side (S5: CHECKDB and BACKUP read far more than they write), with throughput. */
function ioSection(d: PanelData): VElement {
  if (d.files.length === 0) return h('p', { class: 'dl-muted' }, 'No per-file figures (sys.dm_io_virtual_file_stats was not readable).');
  return table(
    ['File', 'Mode', 'Kind', 'Writes', 'Bytes written', 'ms/write', 'Bytes/write', 'Write throughput', 'Reads', 'Bytes read', 'ms/read', 'Read throughput'],
    d.files.map((f) => [
      f.file,
      f.mode,
      f.kind,
      num(f.writes, 'count'),
      num(f.bytesWritten, 'bytes'),
      num(f.msPerWrite, 'ms/write'),
      num(f.avgBytesPerWrite, 'bytes/write'),
      rate(f.writeBytesPerSec),
      num(f.reads, 'count'),
      f.bytesRead === undefined ? 'n/a' : num(f.bytesRead, 'bytes'),
      f.msPerRead === undefined ? 'n/a' : num(f.msPerRead, 'ms/read'),
      rate(f.readBytesPerSec),
    ]),
    'Per-file IO',
    3,
  );
}

function waitTable(rows: PanelData['waits'], label: string): VElement {
  return table(
    ['Wait type', 'Mode', 'Waiting tasks', 'Wait time', 'Share'],
    rows.map((w) => [w.waitType, w.mode, num(w.waitingTasks, 'count'), num(w.waitTimeMs, 'ms'), w.percent === null ? 'n/a' : `${w.percent.toFixed(1)} %`]),
    label,
    2,
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

export const TAB_TITLES = ['Metrics', 'Charts', 'Diagnosis', 'File IO', 'Waits', 'Statements', 'Log & trace', 'Missing measurements'] as const;

/**
 * Tabs as plain buttons and sections (role tab / tabpanel): the strip wraps onto a second line in a narrow panel
 * instead of cutting titles off, and main.ts switches them by toggling `hidden`.
 */
function tabs(titles: readonly string[], panels: VElement[], selected: number, badges: Record<number, string>): VElement {
  return h(
    'div',
    { class: 'dl-tabs' },
    h(
      'div',
      { class: 'dl-tablist', role: 'tablist', 'aria-label': 'Details' },
      ...titles.map((title, i) =>
        h(
          'button',
          { class: 'dl-tab', role: 'tab', id: `dl-tab-${i}`, 'data-tab': String(i), 'aria-selected': String(i === selected), 'aria-controls': `dl-tabpanel-${i}`, tabindex: i === selected ? '0' : '-1' },
          title,
          badges[i] ? h('span', { class: 'dl-badge' }, badges[i]!) : null,
        ),
      ),
    ),
    ...panels.map((p, i) => h('section', { class: 'dl-tabpanel', role: 'tabpanel', id: `dl-tabpanel-${i}`, 'aria-labelledby': `dl-tab-${i}`, 'data-tabpanel': String(i), hidden: i === selected ? undefined : '' }, p)),
  );
}

/** The whole panel. `selectedTab` comes from the webview state so a reload keeps the tab. */
export function renderPanel(d: PanelData, selectedTab = 0): VElement {
  const panels = [
    d.kind === 'trace'
      ? h('p', { class: 'dl-muted' }, 'An ad-hoc trace measures no workload of its own: its figures are on the Log & trace and Charts tabs.')
      : h(
          'div',
          {},
          concurrencySection(d.model.concurrency),
          metricTable(d),
          // Next to the figures: a comparison ran without the per-statement trace; a profile's trace cost (issue 28).
          d.model.untracedComparison ? h('p', { class: 'dl-note', 'data-untraced': 'true' }, UNTRACED_COMPARISON_TEXT) : null,
          traceOverheadNote(d, { h }),
          ...d.model.notes.map((n) => h('p', { class: 'dl-note' }, n)),
        ),
    chartsSection(d),
    diagnosisSection(d),
    ioSection(d),
    waitsSection(d),
    statementsSection(d, { h, table }),
    logSection(d),
    missingSection(d),
  ];
  const selected = Math.max(0, Math.min(selectedTab, panels.length - 1));
  return h(
    'div',
    { class: 'dl-panel' },
    d.standInLabel ? h('div', { class: 'dl-banner', role: 'note' }, h('strong', {}, 'STAND-IN '), d.standInLabel) : null,
    h('h1', {}, d.title),
    verdictSection(d),
    consistencySection(d.model.consistency),
    ...statusNotes(d),
    toolbar(),
    headerSection(d),
    tabs(TAB_TITLES, panels, selected, d.missing.length > 0 ? { [TAB_TITLES.indexOf('Missing measurements')]: String(d.missing.length) } : {}),
  );
}

/** While a run is in progress: what it is doing, for how long, and the sampler's live figures (not the old result). */
export function renderRunning(view: RunningView): VElement {
  const live: [string, string][] = [
    ['Elapsed', formatDuration(view.elapsedMs)],
    ['Log flushes so far', view.logFlushes === null ? 'waiting for the first sample' : formatNumber(view.logFlushes, 0)],
    ['Log written so far', view.logBytes === null ? 'waiting for the first sample' : formatBytes(view.logBytes)],
  ];
  return h(
    'div',
    { class: 'dl-panel dl-running' },
    h('h1', {}, view.title),
    h('p', { class: 'dl-headline dl-tone-neutral', role: 'status' }, 'Running… ', view.step),
    h('dl', { class: 'dl-verdict-facts' }, ...live.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    h('p', { class: 'dl-muted' }, 'The result replaces this view when the run ends. Cancel from the progress notification.'),
  );
}
