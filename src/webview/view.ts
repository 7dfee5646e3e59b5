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
import { t } from './l10n';
import { headingOf, severityText, TAB_TITLES, tabTitles } from './panelText';

export { assertSafeAttribute, h, toHtml, type VElement, type VNode } from './vnode';
export { headingOf, TAB_TITLES, tabTitles } from './panelText';

/** "0.395 ms/wait (0.39 – 0.403)": the unit once, so median and range fit a table cell. */
function cellText(s: Summary | null | undefined, row: MetricRow): string {
  // A source that was not measured reads "not measured" (why and GRANT in the Missing measurements tab), never 0.
  if (!s) return row.notMeasured ? t('not measured') : t('n/a');
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
  if (!r || r.ratio === null) return h('span', { class: 'dl-muted' }, t('n/a'));
  const words = ratioWords(row, r);
  // Inconclusive is not a verdict: neutral colour, whatever direction the medians moved.
  const tone = r.inconclusive ? 'dl-inconclusive' : `dl-${r.verdict}`;
  return h(
    'span',
    { class: `dl-ratio ${tone}`, title: r.inconclusive ? t('min–max ranges overlap: may be noise') : r.verdict },
    words.text,
    words.spread ? h('span', { class: 'dl-spread' }, ` [${words.spread}]`) : null,
    r.inconclusive ? h('span', { class: 'dl-note' }, ` ${t('inconclusive')}`) : null,
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
    { class: 'dl-verdict', 'aria-label': t('Verdict') },
    // The first line (issue 29): the dominant cause and whether delayed durability is the lever.
    v.lead ? h('p', { class: `dl-cause-lead dl-tone-${v.lead.tone}`, 'data-cause': v.lead.cause ?? 'none' }, v.lead.text) : null,
    h('p', { class: `dl-headline dl-tone-${v.headlineTone}`, role: 'status' }, v.headline),
    h('dl', { class: 'dl-verdict-facts' }, ...v.facts.flatMap((f) => [h('dt', {}, f.label), h('dd', { class: `dl-tone-${f.tone}`, 'data-fact': f.id }, f.text)])),
    r && !r.ok && r.statement ? h('p', { class: 'dl-restore dl-error', role: 'alert' }, t('Run this to put the setting back:'), ' ', h('code', { class: 'dl-block' }, r.statement)) : null,
  );
}

/** Server facts and the environment, folded under the verdict: details, not the answer. */
function headerSection(d: PanelData): VElement {
  const hd = d.header;
  const facts: [string, string | null][] = [
    [t('Server'), hd.server],
    [t('Version'), hd.version],
    [t('Edition'), hd.edition],
    [t('Host'), hd.hostPlatform],
    [t('Database'), hd.database],
    [t('Recovery model'), hd.recoveryModel],
    [t('Status'), hd.status],
  ];
  if (hd.workload) facts.push([t('Workload'), hd.workload]);
  const summary = [hd.server, hd.database ? t('database {0}', hd.database) : null, hd.status].filter((x) => x).join(' · ');
  return h(
    'details',
    { class: 'dl-header' },
    h('summary', {}, h('span', { class: 'dl-summary-label' }, t('Server and environment')), h('span', { class: 'dl-muted' }, ` ${summary}`)),
    h('dl', { class: 'dl-facts' }, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? t('unknown'))])),
    d.kind === 'trace' ? null : environmentSection(d),
  );
}

/** What stopped the run early, above the verdict's details: a cancel or an error the verdict does not cover. */
function statusNotes(d: PanelData): VNode[] {
  const hd = d.header;
  const out: VNode[] = [];
  if (hd.status.startsWith('cancelled')) out.push(h('p', { class: 'dl-cancelled', role: 'status' }, t('Cancelled: the workload was stopped; the figures cover the run up to the cancel (the after-snapshot was still taken).')));
  // A workload error is the verdict's headline; any other error (a failed ALTER, a lost connection) is shown here.
  if (hd.error && !d.model.failure) out.push(h('p', { class: 'dl-error', role: 'alert' }, hd.error));
  return out;
}

/** Trace flags 3979/3982, VLFs, log size, recovery model: what shapes log flushing besides the workload. */
function environmentSection(d: PanelData): VElement {
  const e = d.environment;
  const unknown = t('unknown');
  // A figure that was not read says why and what fixes it (the reason is the report's English prose).
  const missing = (why: string | null | undefined): string => (why ? t('not measured — {0}', why) : unknown);
  const facts: [string, string][] = [
    [t('Recovery model'), e.recoveryModel ?? unknown],
    [t('VLF count'), e.vlfCount === null ? missing(e.notMeasured?.vlfCount) : formatNumber(e.vlfCount, 0)],
    [t('Log size'), e.logSizeMb === null ? missing(e.notMeasured?.logSize) : formatBytes(e.logSizeMb * 1024 * 1024)],
    [t('Trace flag {0}', 3979), e.traceFlag3979 ?? missing(e.notMeasured?.traceFlags)],
    [t('Trace flag {0}', 3982), e.traceFlag3982 ?? missing(e.notMeasured?.traceFlags)],
  ];
  if (e.delayedDurability) facts.push(['DELAYED_DURABILITY', e.delayedDurability]);
  return h(
    'section',
    { class: 'dl-environment', 'aria-label': t('Environment') },
    h('h2', {}, t('Environment')),
    h('dl', { class: 'dl-facts dl-env-facts' }, ...facts.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
  );
}

export function metricTable(d: PanelData): VElement {
  const m = d.model;
  const others = m.columns.filter((c) => c !== m.baseline);
  const runs = (c: string) => (m.runsPerColumn[c] === 1 ? t('{0} (1 run)', c) : t('{0} ({1} runs)', c, m.runsPerColumn[c] ?? 0));
  const headers = [t('Metric'), ...m.columns.map(runs), ...others.map((c) => t('{0} vs {1}', c, m.baseline))];
  const rows = m.rows.map((row) => [
    h('span', { title: row.source }, row.label, disagreementBadge(row.consistency)) as VNode,
    ...m.columns.map((c) => cellText(row.cells[c], row) as VNode),
    ...others.map((c) => ratioNode(row, row.ratios[c])),
  ]);
  return table(headers, rows, t('Metrics per durability mode'));
}

function diagnosisSection(d: PanelData): VElement {
  // Every cause of commit time with its evidence (issue 29), then the findings.
  return h('div', {}, causesSection(d.kind === 'trace' ? undefined : d.model.causes, d.model.baseline), findingsList(d));
}

function findingsList(d: PanelData): VElement {
  // Evidence names metric ids (writelog.avgMs): shown by the table's label, with the value in its unit; the tooltip
  // says where the figure comes from (the row's source), never the id.
  const sourceOf = (id: string) => d.model.rows.find((r) => r.id === id)?.source ?? '';
  if (d.model.diagnosis.length === 0) return h('p', { class: 'dl-muted' }, t('No finding: nothing in these figures matched a diagnosis rule.'));
  return h(
    'ul',
    { class: 'dl-findings' },
    ...d.model.diagnosis.map((f) =>
      h(
        'li',
        { class: `dl-finding dl-${f.severity}` },
        h('vscode-badge', { variant: f.severity === 'info' ? 'default' : 'counter' }, severityText(f.severity)),
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
    d.charts.repetitions.length > 0 ? chart('elapsed', t('Workload elapsed (ms) per mode and repetition')) : null,
    d.charts.repetitions.length > 0 ? chart('writelog', t('WRITELOG wait time (ms) per mode and repetition')) : null,
    d.charts.repetitions.length > 0 ? chart('writesVsBytes', t('Log writes vs log bytes (one point per run)')) : null,
    d.charts.flushSizes
      ? chart('flushSizes', d.charts.flushSizes.sources?.length ? t('Log flush sizes (XE) — {0}', d.charts.flushSizes.sources.join('; ')) : t('Log flush sizes (XE)'))
      : h('p', { class: 'dl-muted' }, t('No flush-size histogram: the log-flush trace did not run or carried no write sizes.')),
    d.charts.flushTimeline
      ? chart('flushTimeline', d.charts.flushTimeline.coverage?.length
        ? t('Log flushes over time ({0} ms buckets, first run of each mode) — {1}', d.charts.flushTimeline.bucketMs, d.charts.flushTimeline.coverage.join('; '))
        : t('Log flushes over time ({0} ms buckets, first run of each mode)', d.charts.flushTimeline.bucketMs))
      : null,
    d.charts.fileIo ? chart('fileIo', t('Bytes written per file (first run of each mode)')) : null,
    d.charts.fileThroughput ? chart('fileThroughput', t('Read and write throughput per file (first run of each mode)')) : null,
    d.charts.samples ? chart('samples', t('Sampled during the run, per sample interval (x: seconds since sampling started)')) : null,
    d.charts.printSeries
      ? chart('printSeries', d.charts.printSeries.perPoint > 1 ? t('Figures the workload PRINTed (label: number), maximum per {0} occurrences', d.charts.printSeries.perPoint) : t('Figures the workload PRINTed (label: number)'))
      : null,
  );
}

function num(v: number | null, unit: Parameters<typeof formatValue>[1]): string {
  return v === null ? t('n/a') : formatValue(v, unit);
}

function rate(v: number | null | undefined): string {
  return v === null || v === undefined ? t('n/a') : `${formatBytes(v)}/s`;
}

/** Per file: writes and reads side by side (S5: CHECKDB and BACKUP read far more than they write), with throughput. */
function ioSection(d: PanelData): VElement {
  if (d.files.length === 0) return h('p', { class: 'dl-muted' }, t('No per-file figures (sys.dm_io_virtual_file_stats was not readable).'));
  return table(
    [t('File'), t('Mode'), t('Kind'), t('Writes'), t('Bytes written'), t('ms/write'), t('Bytes/write'), t('Write throughput'), t('Reads'), t('Bytes read'), t('ms/read'), t('Read throughput')],
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
      f.bytesRead === undefined ? t('n/a') : num(f.bytesRead, 'bytes'),
      f.msPerRead === undefined ? t('n/a') : num(f.msPerRead, 'ms/read'),
      rate(f.readBytesPerSec),
    ]),
    t('Per-file IO'),
    3,
  );
}

function waitTable(rows: PanelData['waits'], label: string): VElement {
  return table(
    [t('Wait type'), t('Mode'), t('Waiting tasks'), t('Wait time'), t('Share')],
    rows.map((w) => [w.waitType, w.mode, num(w.waitingTasks, 'count'), num(w.waitTimeMs, 'ms'), w.percent === null ? t('n/a') : `${w.percent.toFixed(1)} %`]),
    label,
    2,
  );
}

/** Session waits (what the workload itself waited on) beside server waits (everything, benign ones filtered). */
function waitsSection(d: PanelData): VElement {
  return h(
    'div',
    { class: 'dl-waits' },
    h('h2', {}, t('Workload session')),
    d.waits.length === 0 ? h('p', { class: 'dl-muted' }, t('No session waits recorded.')) : waitTable(d.waits, t('Top waits of the workload session')),
    h('h2', {}, t('Whole server (same interval, benign waits filtered)')),
    d.serverWaits.length === 0 ? h('p', { class: 'dl-muted' }, t('No server waits recorded.')) : waitTable(d.serverWaits, t('Top server waits')),
  );
}

/** Single-run view: log counters, log space and VLFs before/after, and the log-flush trace's figures. */
function logSection(d: PanelData): VElement {
  const x = d.details;
  if (!x) return h('p', { class: 'dl-muted' }, t('Per-run log figures are shown for a single run: open a run from Durability Lens: Show Run History.'));
  return h(
    'div',
    { class: 'dl-log' },
    h('h2', {}, t('Log-flush trace (Extended Events)')),
    x.trace.length > 0 ? table([t('Figure'), t('Value')], x.trace.map((r) => [r.figure, r.value]), t('Log-flush trace figures')) : h('p', { class: 'dl-muted' }, t('The log-flush trace did not run (see Missing measurements).')),
    ...x.traceNotes.map((n) => h('p', { class: 'dl-note' }, n)),
    d.kind === 'trace' ? null : h('h2', {}, t('Log counters (sys.dm_os_performance_counters, delta over the run)')),
    d.kind === 'trace' ? null : x.logCounters.length > 0 ? table([t('Counter'), t('Kind'), t('Value'), t('Per second')], x.logCounters.map((c) => [c.counter, c.kind, c.value, c.perSecond ?? t('n/a')]), t('Log counters')) : h('p', { class: 'dl-muted' }, t('No log counters.')),
    d.kind === 'trace' ? null : h('h2', {}, t('Log space and VLFs')),
    d.kind === 'trace' ? null : x.log.length > 0 ? table([t('Figure'), t('Before'), t('After')], x.log.map((r) => [r.figure, r.before, r.after]), t('Log before and after')) : h('p', { class: 'dl-muted' }, t('Log space and VLFs were not readable.')),
    ...x.notes.map((n) => h('p', { class: 'dl-note' }, n)),
  );
}

function missingSection(d: PanelData): VElement {
  if (d.missing.length === 0) return h('p', { class: 'dl-muted' }, t('Every measurement was available.'));
  return h(
    'div',
    {},
    table([t('Measurement'), t('Why missing'), t('GRANT')], d.missing.map((m) => [m.measurement, m.reason, m.grant ? h('code', {}, m.grant) : t('n/a')]), t('Missing measurements')),
    d.grantScript ? h('pre', { class: 'dl-grants' }, d.grantScript) : null,
    d.grantScript ? h('vscode-button', { 'data-action': 'copyGrants', secondary: '' }, t('Copy GRANTs')) : null,
  );
}

function toolbar(): VElement {
  return h(
    'div',
    { class: 'dl-toolbar', role: 'toolbar' },
    h('vscode-button', { 'data-action': 'copyMarkdown' }, t('Copy as Markdown')),
    h('vscode-button', { 'data-action': 'export-markdown', secondary: '' }, t('Export Markdown…')),
    h('vscode-button', { 'data-action': 'export-csv', secondary: '' }, t('Export CSV…')),
    h('vscode-button', { 'data-action': 'export-json', secondary: '' }, t('Export JSON…')),
  );
}

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
      { class: 'dl-tablist', role: 'tablist', 'aria-label': t('Details') },
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
      ? h('p', { class: 'dl-muted' }, t('An ad-hoc trace measures no workload of its own: its figures are on the Log & trace and Charts tabs.'))
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
    d.standInLabel ? h('div', { class: 'dl-banner', role: 'note' }, h('strong', {}, t('STAND-IN'), ' '), d.standInLabel) : null,
    h('h1', {}, headingOf(d.title)),
    verdictSection(d),
    consistencySection(d.model.consistency),
    ...statusNotes(d),
    toolbar(),
    headerSection(d),
    tabs(tabTitles(), panels, selected, d.missing.length > 0 ? { [TAB_TITLES.indexOf('Missing measurements')]: String(d.missing.length) } : {}),
  );
}

/** While a run is in progress: what it is doing, for how long, and the sampler's live figures (not the old result). */
export function renderRunning(view: RunningView): VElement {
  const live: [string, string][] = [
    [t('Elapsed'), formatDuration(view.elapsedMs)],
    [t('Log flushes so far'), view.logFlushes === null ? t('waiting for the first sample') : formatNumber(view.logFlushes, 0)],
    [t('Log written so far'), view.logBytes === null ? t('waiting for the first sample') : formatBytes(view.logBytes)],
  ];
  return h(
    'div',
    { class: 'dl-panel dl-running' },
    h('h1', {}, view.title),
    h('p', { class: 'dl-headline dl-tone-neutral', role: 'status' }, t('Running…'), ' ', view.step),
    h('dl', { class: 'dl-verdict-facts' }, ...live.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    h('p', { class: 'dl-muted' }, t('The result replaces this view when the run ends. Cancel from the progress notification.')),
  );
}
