// Browser side of the "Durability comparison" panel: renders PanelData from the extension into elements (text via
// textContent only), draws the charts with Chart.js in theme colours, keeps data + tab in the webview state.
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, ScatterController, Tooltip, type ChartConfiguration } from 'chart.js';
import { CONCURRENCY_METRICS } from '../report/concurrencyFormat';
import { byteScale } from '../report/units';
import { concurrencyChartId, concurrencySeries } from './concurrencyView';
import { readableOn } from './contrast';
import type { ExportFormat, FromWebview, PanelData, RunningView, ToWebview } from '../shared/webviewProtocol';
import { assertSafeAttribute, renderPanel, renderRunning, TAB_TITLES, type VNode } from './view';
import { messagesFrom, t, useMessages } from './l10n';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, ScatterController, Legend, Tooltip);

interface WebviewApi<S> {
  postMessage(message: FromWebview): void;
  getState(): S | undefined;
  setState(state: S): void;
}
declare function acquireVsCodeApi<S>(): WebviewApi<S>;

interface PanelState {
  data: PanelData | null;
  tab: number;
  /** A run in progress; the last result stays in `data` for when the run ends without one. */
  running?: RunningView | null;
}

// The display language's text of the panel: the host put its translations on the page (l10n.ts; English without).
useMessages(messagesFrom(document.getElementById('root')?.dataset.l10n));

const vscode = acquireVsCodeApi<PanelState>();
let state: PanelState = vscode.getState() ?? { data: null, tab: 0 };
const charts: Chart[] = [];

function toDom(node: VNode): Node {
  if (typeof node === 'string') return document.createTextNode(node);
  const el = document.createElement(node.tag);
  for (const [k, v] of Object.entries(node.attrs)) {
    assertSafeAttribute(k);
    el.setAttribute(k, v);
  }
  for (const c of node.children) el.appendChild(toDom(c));
  return el;
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** The theme's chart colours, each made to reach 3:1 on the panel's background (contrast.ts). */
function palette(): string[] {
  const background = cssVar('--vscode-editor-background', '#1e1e1e');
  const foreground = cssVar('--vscode-foreground', '#cccccc');
  return [
    cssVar('--vscode-charts-blue', '#3794ff'),
    cssVar('--vscode-charts-orange', '#d18616'),
    cssVar('--vscode-charts-green', '#89d185'),
    cssVar('--vscode-charts-purple', '#b180d7'),
    cssVar('--vscode-charts-red', '#f14c4c'),
  ].map((c) => readableOn(c, background, foreground, 3));
}

/** Byte figures plotted in one binary unit chosen from the largest value (units.ts), so the axis gets round ticks. */
function byteUnit(values: readonly (number | null)[]): { divisor: number; unit: string } {
  return byteScale(values);
}

function shareOf(s: { label: string; values: (number | null)[] }): { label: string; values: (number | null)[] } {
  const total = s.values.reduce<number>((n, v) => n + (v ?? 0), 0);
  return { label: s.label, values: s.values.map((v) => (v === null || total === 0 ? null : Math.round((v / total) * 1000) / 10)) };
}

function chartConfigs(d: PanelData): Record<string, ChartConfiguration> {
  const colours = palette();
  const fg = cssVar('--vscode-foreground', '#cccccc');
  const grid = cssVar('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)');
  const scales = (x: string, y: string) => ({
    x: { title: { display: true, text: x, color: fg }, ticks: { color: fg }, grid: { color: grid } },
    y: { title: { display: true, text: y, color: fg }, ticks: { color: fg }, grid: { color: grid }, beginAtZero: true },
  });
  const options = (x: string, y: string) => ({
    // Sizes come from the CSS class of the box; Chart.js then only sets canvas sizes through CSSOM (allowed by the CSP).
    responsive: true,
    maintainAspectRatio: false,
    animation: false as const,
    plugins: { legend: { labels: { color: fg } } },
    scales: scales(x, y),
  });
  const bars = (labels: string[], series: { label: string; values: (number | null)[] }[], x: string, y: string): ChartConfiguration => ({
    type: 'bar',
    data: { labels, datasets: series.map((s, i) => ({ label: s.label, data: s.values, backgroundColor: colours[i % colours.length] })) },
    options: options(x, y),
  });
  // Points are drawn only while few enough to tell apart; a long series reads better as a bare line.
  const lines = (labels: string[], series: { label: string; values: (number | null)[] }[], x: string, y: string): ChartConfiguration => ({
    type: 'line',
    data: { labels, datasets: series.map((s, i) => ({ label: s.label, data: s.values, borderColor: colours[i % colours.length], backgroundColor: colours[i % colours.length], pointRadius: labels.length < 30 ? 3 : 0 })) },
    options: options(x, y),
  });
  const out: Record<string, ChartConfiguration> = {
    elapsed: bars(d.charts.repetitions, d.charts.elapsedMs, t('repetition'), 'ms'),
    writelog: bars(d.charts.repetitions, d.charts.writelogMs, t('repetition'), 'ms'),
    writesVsBytes: (() => {
      const { divisor, unit } = byteUnit(d.charts.writesVsBytes.flatMap((s) => s.points.map((p) => p.y)));
      return {
        type: 'scatter',
        data: { datasets: d.charts.writesVsBytes.map((s, i) => ({ label: s.label, data: s.points.map((p) => ({ x: p.x, y: p.y / divisor })), backgroundColor: colours[i % colours.length] })) },
        options: options(t('log writes'), t('log {0} written', unit)),
      } as ChartConfiguration;
    })(),
  };
  // Shares, not counts: one mode may flush a hundred times more often, and its bars would flatten the other's.
  if (d.charts.flushSizes) out.flushSizes = bars(d.charts.flushSizes.labels, d.charts.flushSizes.series.map(shareOf), t('flush size'), t("% of the mode's flushes"));
  if (d.charts.flushTimeline) {
    const timeline = d.charts.flushTimeline;
    const length = Math.max(0, ...timeline.series.map((s) => s.values.length));
    out.flushTimeline = lines(Array.from({ length }, (_, i) => String(i * timeline.bucketMs)), timeline.series, t('ms since the timeline starts (session start, or the first sampled flush)'), t('flushes per bucket'));
  }
  if (d.charts.fileIo) {
    const { divisor, unit } = byteUnit(d.charts.fileIo.series.flatMap((s) => s.values));
    out.fileIo = bars(d.charts.fileIo.labels, d.charts.fileIo.series.map((s) => ({ label: s.label, values: s.values.map((v) => (v === null ? null : v / divisor)) })), t('file'), t('{0} written', unit));
  }
  const throughput = d.charts.fileThroughput;
  if (throughput) {
    const { divisor, unit } = byteUnit(throughput.series.flatMap((s) => s.values));
    out.fileThroughput = bars(throughput.labels, throughput.series.map((s) => ({ label: s.label, values: s.values.map((v) => (v === null ? null : v / divisor)) })), t('file'), `${unit}/s`);
  }
  const sweep = d.model.concurrency;
  if (sweep) {
    for (const m of CONCURRENCY_METRICS) {
      const { labels, series } = concurrencySeries(sweep, m.id);
      if (m.unit === 'bytes') {
        const { divisor, unit } = byteUnit(series.flatMap((s) => s.values));
        out[concurrencyChartId(m.id)] = lines(labels, series.map((s) => ({ label: s.label, values: s.values.map((v) => (v === null ? null : v / divisor)) })), t('sessions'), unit);
      } else {
        out[concurrencyChartId(m.id)] = lines(labels, series, t('sessions'), m.unit === 'per-second' ? t('commits per second') : m.unit === 'per-commit' ? t('flushes per commit') : t('ms per commit'));
      }
    }
  }
  if (d.charts.samples) out.samples = lines(d.charts.samples.labels, d.charts.samples.series, t('seconds since sampling started'), t('per sample interval'));
  if (d.charts.printSeries) out.printSeries = lines(d.charts.printSeries.labels, d.charts.printSeries.series, t('occurrence in the output'), t('printed value'));
  return out;
}

function post(message: FromWebview): void {
  vscode.postMessage(message);
}

function render(): void {
  const root = document.getElementById('root')!;
  for (const c of charts.splice(0)) c.destroy();
  root.replaceChildren();
  if (state.running) {
    root.appendChild(toDom(renderRunning(state.running)));
    return;
  }
  if (!state.data) {
    root.appendChild(toDom(t('Waiting for results…')));
    return;
  }
  root.appendChild(toDom(renderPanel(state.data, state.tab)));
  const configs = chartConfigs(state.data);
  for (const canvas of root.querySelectorAll<HTMLCanvasElement>('canvas[data-chart]')) {
    const config = configs[canvas.dataset.chart ?? ''];
    if (!config) continue;
    // The series colours drawn, for the e2e contrast check (test/e2e/themes.e2e.ts): an attribute, not a style.
    canvas.dataset.seriesColours = config.data.datasets.map((ds) => String(ds.borderColor ?? ds.backgroundColor ?? '')).join(' ');
    charts.push(new Chart(canvas, config));
  }
}

/** Shows tab `index` (buttons and sections rendered by view.ts) and keeps it in the state for a reload. */
function selectTab(index: number): void {
  const root = document.getElementById('root')!;
  for (const tab of root.querySelectorAll<HTMLElement>('[role="tab"][data-tab]')) {
    const on = Number(tab.dataset.tab) === index;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    if (on) tab.focus({ preventScroll: true });
  }
  for (const panel of root.querySelectorAll<HTMLElement>('[role="tabpanel"][data-tabpanel]')) panel.hidden = Number(panel.dataset.tabpanel) !== index;
  state = { ...state, tab: index };
  vscode.setState(state);
}

document.addEventListener('keydown', (event) => {
  const tab = (event.target as Element | null)?.closest<HTMLElement>('[role="tab"][data-tab]');
  if (!tab || (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft')) return;
  const count = TAB_TITLES.length;
  selectTab((Number(tab.dataset.tab) + (event.key === 'ArrowRight' ? 1 : count - 1)) % count);
  event.preventDefault();
});

document.addEventListener('click', (event) => {
  const tab = (event.target as Element | null)?.closest<HTMLElement>('[role="tab"][data-tab]');
  if (tab) {
    selectTab(Number(tab.dataset.tab));
    return;
  }
  const target = (event.target as Element | null)?.closest('[data-action]');
  const action = target?.getAttribute('data-action');
  if (!action) return;
  if (action === 'openLine') {
    const line = Number(target?.getAttribute('data-line'));
    if (Number.isInteger(line) && line >= 1) post({ type: 'openLine', line });
    return;
  }
  if (action === 'copyMarkdown') post({ type: 'copyMarkdown' });
  else if (action === 'copyGrants') post({ type: 'copyGrants' });
  else if (action.startsWith('export-')) post({ type: 'export', format: action.slice('export-'.length) as ExportFormat });
});

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  if (message?.type === 'show') {
    // A new result opens on its first tab (an ad-hoc trace on its figures); the same one keeps the tab the user chose.
    const firstTab = message.data.kind === 'trace' ? TAB_TITLES.indexOf('Log & trace') : 0;
    state = { data: message.data, tab: state.data && state.data.createdAt === message.data.createdAt ? state.tab : firstTab, running: null };
    vscode.setState(state);
    render();
  } else if (message?.type === 'runEnded') {
    if (!state.running) return;
    state = { ...state, running: null };
    vscode.setState(state);
    render();
  } else if (message?.type === 'running') {
    state = { ...state, running: message.view };
    vscode.setState(state);
    render();
  }
});

// VS Code switches the body class (vscode-light / vscode-dark / vscode-high-contrast) on a theme change: the
// charts read their colours once, so draw again.
new MutationObserver(() => render()).observe(document.body, { attributes: true, attributeFilter: ['class'] });

render();
post({ type: 'ready' });
