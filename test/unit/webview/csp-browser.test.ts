// The real webview bundle in Chromium under the panel's exact CSP: no policy violation (Chart.js, vscode-elements),
// hostile server strings stay text, buttons post typed messages, and the state survives a reload.
// Skipped when Debian's Chromium is not installed (the e2e suite needs it anyway).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildCsp, makeNonce, panelHtml } from '../../../src/extension/panel/csp';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import type { RunResult } from '../../../src/profile/types';
import { buildComparisonModel } from '../../../src/report';
import { makeRun } from '../report/runFixture';
import { comparisonFixture, HOSTILE_DATABASE, profileFixture } from './fixtureModel';

const CHROMIUM = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '../../..');
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const SCREENSHOTS = path.join(ROOT, 'test-results/webview');

/**
 * The --vscode-* variables VS Code's Dark Modern theme gives a webview (VS Code sets them on <html>); served as a
 * stylesheet from the page's origin, which the panel's CSP allows, so the screenshots show real theme colours.
 */
const DARK_THEME_CSS = `html {
  --vscode-foreground: #cccccc; --vscode-editor-background: #1f1f1f; --vscode-descriptionForeground: #9d9d9d;
  --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px; --vscode-editor-font-family: monospace; --vscode-editor-font-size: 13px;
  --vscode-errorForeground: #f85149; --vscode-editorWarning-foreground: #cca700; --vscode-textLink-foreground: #4daafc;
  --vscode-charts-blue: #3794ff; --vscode-charts-orange: #d18616; --vscode-charts-green: #89d185; --vscode-charts-purple: #b180d7; --vscode-charts-red: #f14c4c;
  --vscode-editorWidget-border: #454545; --vscode-textCodeBlock-background: #2b2b2b; --vscode-testing-iconPassed: #73c991;
  --vscode-inputValidation-warningBorder: #b89500; --vscode-inputValidation-warningBackground: #352a05;
}`;

/** Stands in for VS Code's webview API: records posted messages, keeps state across reloads like VS Code does. */
const FAKE_VSCODE_API = `
  window.__posted = [];
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  window.acquireVsCodeApi = () => ({
    postMessage: (m) => window.__posted.push(m),
    getState: () => { const s = sessionStorage.getItem('state'); return s ? JSON.parse(s) : undefined; },
    setState: (s) => sessionStorage.setItem('state', JSON.stringify(s)),
  });`;

function sampleData(): PanelData {
  const run = makeRun({ mode: null, elapsedMs: 1234, commits: 500, waits: { WRITELOG: { count: 500, ms: 900 } }, source: 'stand-in' });
  run.server.identity.serverName = `srv${HOSTILE}`;
  run.messages.first = [];
  run.missing = [{ measurement: 'logFlushTrace', reason: `no permission ${HOSTILE}`, grant: 'GRANT ALTER ANY EVENT SESSION TO [lens];' }];
  return panelDataFromRun(run, `sql1${HOSTILE}`);
}

describe('webview bundle under the strict CSP (Chromium)', function () {
  this.timeout(60_000);
  let server: http.Server;
  let origin = '';
  let browser: Browser;
  let page: Page;
  let dir = '';
  const dialogs: string[] = [];

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) this.skip();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-webview-'));
    await build({ entryPoints: [path.join(ROOT, 'src/webview/main.ts')], bundle: true, format: 'iife', target: 'es2022', outfile: path.join(dir, 'webview.js'), logLevel: 'silent' });
    const nonce = makeNonce();
    server = http.createServer((req, res) => {
      if (req.url === '/dist/webview.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(path.join(dir, 'webview.js')));
      if (req.url === '/theme.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end(DARK_THEME_CSS);
      if (req.url === '/media/webview.css') return void res.writeHead(200, { 'content-type': 'text/css' }).end(fs.readFileSync(path.join(ROOT, 'media/webview.css')));
      if (req.url === '/') {
        const html = panelHtml({ csp: buildCsp(origin, nonce), nonce, styleUri: `${origin}/media/webview.css`, scriptUri: `${origin}/dist/webview.js`, title: 'Durability comparison' });
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(html);
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.addInitScript(FAKE_VSCODE_API);
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as unknown as { __posted: { type: string }[] }).__posted.some((m) => m.type === 'ready'), undefined, { timeout: 20_000 });
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders the data with charts and no CSP violation; hostile strings stay text', async () => {
    const data = sampleData();
    await page.evaluate((d) => window.postMessage({ type: 'show', data: d }, '*'), data);
    await page.waitForSelector('.dl-table td', { timeout: 20_000 });
    // Charts in the Charts tab render into canvases sized by CSS classes once the tab is shown.
    await page.click('[role="tab"][data-tab="1"]');
    await page.waitForFunction(() => [...document.querySelectorAll('canvas')].every((c) => c.width > 0), undefined, { timeout: 20_000 });
    const result = await page.evaluate(() => ({
      violations: (window as unknown as { __violations: string[] }).__violations,
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? 0,
      imgs: document.querySelectorAll('img').length,
      canvases: document.querySelectorAll('canvas').length,
      text: document.body.textContent ?? '',
    }));
    assert.deepEqual(result.violations, []);
    assert.equal(result.pwned, 0);
    assert.equal(result.imgs, 0);
    assert.equal(result.canvases, 3); // elapsed, WRITELOG, writes vs bytes (this run has no per-file rows)
    assert.ok(result.text.includes(`sql1${HOSTILE}`));
    assert.ok(result.text.includes('STAND-IN'));
  });

  it('draws again in the new colours when the theme class changes', async () => {
    const before = await page.evaluateHandle(() => document.querySelector('canvas'));
    await page.evaluate(() => document.body.classList.add('vscode-light'));
    await page.waitForFunction((old) => document.querySelector('canvas') !== old, before, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => document.querySelectorAll('canvas').length), 3);
  });

  it('buttons post typed messages', async () => {
    await page.click('vscode-button[data-action="copyMarkdown"]');
    await page.click('vscode-button[data-action="export-csv"]');
    const posted = await page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
    assert.deepEqual(posted.slice(-2), [{ type: 'copyMarkdown' }, { type: 'export', format: 'csv' }]);
  });

  it('the state survives a reload: the panel re-renders without new data, on the same tab', async () => {
    await page.reload();
    await page.waitForSelector('.dl-table td', { state: 'attached', timeout: 20_000 });
    const text = await page.evaluate(() => document.body.textContent ?? '');
    assert.ok(text.includes('Workload elapsed'));
    assert.equal(await page.getAttribute('[role="tab"][aria-selected="true"]', 'data-tab'), '1', 'the Charts tab chosen before the reload');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
    if (process.env.DL_WEBVIEW_SCREENSHOT) await page.screenshot({ path: process.env.DL_WEBVIEW_SCREENSHOT, fullPage: true });
  });

  /** Shows `data`, selects the tab titled `tab`, waits until every canvas on it is sized, and saves a screenshot. */
  async function showAndShoot(data: PanelData, tab: string, file: string): Promise<number> {
    await page.evaluate((d) => window.postMessage({ type: 'show', data: d }, '*'), data);
    await page.waitForFunction((title) => document.querySelector('h1')?.textContent === title, data.title, { timeout: 20_000 });
    await page.locator('[role="tab"]', { hasText: new RegExp(`^\\s*${tab.replace(/[&]/g, '\\$&')}\\s*(\\d+)?$`) }).click();
    const canvases = await page.evaluate(() => [...document.querySelectorAll('[role="tabpanel"]:not([hidden]) canvas')].length);
    if (canvases > 0) {
      await page.waitForFunction(() => [...document.querySelectorAll('[role="tabpanel"]:not([hidden]) canvas')].every((c) => (c as HTMLCanvasElement).width > 0), undefined, { timeout: 20_000 });
    }
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, file), fullPage: true });
    return canvases;
  }

  it(`a comparison on a database named ${HOSTILE_DATABASE} renders it as text in a dark theme, with every chart, and no CSP violation`, async () => {
    await page.evaluate(() => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = '/theme.css';
      document.head.appendChild(link);
    });
    await page.waitForFunction(() => getComputedStyle(document.documentElement).getPropertyValue('--vscode-editor-background').trim() === '#1f1f1f', undefined, { timeout: 10_000 });
    const data = comparisonFixture();
    await showAndShoot(data, 'Metrics', 'comparison-metrics.png');
    const charts = await showAndShoot(data, 'Charts', 'comparison-charts.png');
    // elapsed, WRITELOG, writes vs bytes, flush sizes, flush timeline, per-file bytes, per-file throughput.
    assert.equal(charts, 7);
    const result = await page.evaluate(() => ({
      violations: (window as unknown as { __violations: string[] }).__violations,
      imgs: document.querySelectorAll('img').length,
      h1: document.querySelector('h1')?.textContent ?? '',
      database: [...document.querySelectorAll('.dl-facts dt')].find((dt) => dt.textContent === 'Database')?.nextElementSibling?.textContent ?? '',
      background: getComputedStyle(document.body).backgroundColor,
    }));
    assert.deepEqual(result.violations, []);
    assert.equal(result.imgs, 0);
    assert.deepEqual(dialogs, [], 'no alert() ran');
    assert.equal(result.h1, `Durability comparison: ${HOSTILE_DATABASE}`);
    assert.equal(result.database, HOSTILE_DATABASE);
    assert.equal(result.background, 'rgb(31, 31, 31)');
    await showAndShoot(data, 'Diagnosis', 'comparison-diagnosis.png');
  });

  it('a concurrency sweep draws one curve per metric (x = sessions, one line per mode) with its table, no CSP violation', async () => {
    const sweep = (mode: 'DISABLED' | 'FORCED', sessions: number, commits: number, flushes: number, wallMs: number): RunResult => ({
      ...makeRun({ mode, commits, flushesCounter: flushes, elapsedMs: wallMs, log: { writes: flushes, bytes: flushes * 4096, stallMs: 0 }, source: 'stand-in' }),
      concurrency: { sessions, wallMs, parameter: '@session', perSession: [], writelog: { waits: mode === 'DISABLED' ? commits : 0, waitTimeMs: mode === 'DISABLED' ? commits * 0.3 : 0 } },
    });
    const runs = [1, 2, 4, 8, 16].flatMap((n) => [sweep('DISABLED', n, 500 * n, Math.ceil((500 * n) / Math.min(n, 6)), 1000 + 60 * n), sweep('FORCED', n, 500 * n, 5 * n, 120 + 40 * n)]);
    const data: PanelData = { ...comparisonFixture(), title: 'Durability comparison: concurrency sweep', model: buildComparisonModel(runs) };
    await showAndShoot(data, 'Metrics', 'concurrency-metrics.png');
    assert.ok((await page.evaluate(() => document.querySelector('[data-fact="concurrency-verdict"]')?.textContent ?? '')).startsWith('Commits per second, FORCED vs DISABLED: at 16 sessions FORCED gains'));
    await showAndShoot(data, 'Charts', 'concurrency-charts.png');
    const ids = await page.evaluate(() => [...document.querySelectorAll('[role="tabpanel"]:not([hidden]) canvas[data-chart^="concurrency-"]')].map((c) => [(c as HTMLCanvasElement).dataset.chart, (c as HTMLCanvasElement).width > 0]));
    assert.deepEqual(ids, [['concurrency-commitsPerSec', true], ['concurrency-flushesPerCommit', true], ['concurrency-averageFlushBytes', true], ['concurrency-writelogMsPerCommit', true]]);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
  });

  it('a cancelled single run shows the cancel, the environment, log & trace tables and the sampled time series', async () => {
    const data = profileFixture();
    await showAndShoot(data, 'Log & trace', 'run-log-and-trace.png');
    const text = await page.evaluate(() => document.body.textContent ?? '');
    assert.ok(text.includes('Cancelled: the workload was stopped'), 'cancel banner');
    assert.ok(text.includes('Trace flag 3979'), 'environment block');
    assert.ok(text.includes('Flush latency p50 / p95 / p99 / max'), 'trace figures');
    assert.ok(text.includes('Log space used'), 'log before/after');
    const charts = await showAndShoot(data, 'Charts', 'run-charts.png');
    assert.ok(charts >= 5, `charts on the run's Charts tab: ${charts}`);
    assert.equal(await page.evaluate(() => document.querySelectorAll('canvas[data-chart="samples"]').length), 1);
    assert.equal(await page.evaluate(() => document.querySelectorAll('canvas[data-chart="printSeries"]').length), 1);
    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
    assert.deepEqual(dialogs, []);
  });

  for (const width of [600, 1400]) {
    it(`at ${width} px the verdict, the tab strip and the metric names are shown whole (no cut text, no page-wide scroll)`, async () => {
      await page.setViewportSize({ width, height: 1000 });
      const data = comparisonFixture();
      await page.evaluate((d) => window.postMessage({ type: 'show', data: d }, '*'), data);
      await page.waitForSelector('.dl-verdict .dl-headline', { timeout: 20_000 });
      await page.locator('[role="tab"]', { hasText: /^\s*Metrics\s*$/ }).click();
      // No named helpers inside evaluate: tsx's keepNames would reference a __name the page does not have.
      const layout = await page.evaluate(() => ({
        pageScroll: document.documentElement.scrollWidth - window.innerWidth,
        verdict: [...document.querySelectorAll('.dl-verdict, .dl-verdict *')].filter((e) => (e as HTMLElement).scrollWidth > (e as HTMLElement).clientWidth + 1).map((e) => e.textContent),
        tabs: [...document.querySelectorAll('[role="tab"]')].filter((t) => t.getBoundingClientRect().right > window.innerWidth + 1 || (t as HTMLElement).scrollWidth > (t as HTMLElement).clientWidth + 1).map((t) => t.textContent),
        names: [...document.querySelectorAll('.dl-table th.dl-first')].filter((e) => (e as HTMLElement).scrollWidth > (e as HTMLElement).clientWidth + 1).map((e) => e.textContent),
        // The metric table fits the panel: its ratio column is the answer, it must not sit off to the right.
        metricsOverflow: [...document.querySelectorAll('.dl-table-wrap')].filter((w) => w.querySelector('table[aria-label="Metrics per durability mode"]')).map((w) => (w as HTMLElement).scrollWidth - (w as HTMLElement).clientWidth)[0] ?? -1,
        headline: document.querySelector('.dl-headline')?.textContent ?? '',
        facts: [...document.querySelectorAll('.dl-verdict-facts dt')].map((d) => d.textContent),
      }));
      fs.mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `layout-${width}.png`), fullPage: true });
      assert.ok(layout.pageScroll <= 0, `the page scrolls sideways by ${layout.pageScroll} px`);
      assert.deepEqual(layout.verdict, [], 'verdict text cut');
      assert.deepEqual(layout.tabs, [], 'tabs cut or off-screen');
      assert.deepEqual(layout.names, [], 'metric names cut');
      assert.ok(layout.metricsOverflow === 0, `the metric table is ${layout.metricsOverflow} px wider than the panel`);
      assert.match(layout.headline, /^FORCED ran [\d.]+× faster than DISABLED \([\d.]+–[\d.]+×, 3 runs each; conclusive\)$/);
      assert.deepEqual(layout.facts.slice(0, 3), ['Compared', 'Log flushes per commit', 'Where the time went (DISABLED)']);
    });
  }
});
