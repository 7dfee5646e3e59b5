// Reads the "Durability comparison" webview from the workbench page: VS Code hosts a webview in an outer iframe
// (class "webview") whose inner iframe #active-frame holds our page. Selectors use roles, labels and text.
import type { FrameLocator, Page } from 'playwright-core';

/** The panel's document. There is one panel (the extension reuses it), so the first webview frame is ours. */
export function panelFrame(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview').first().frameLocator('#active-frame');
}

export interface MetricTable {
  headers: string[];
  /** Row label → cell texts, in header order (the label cell included as the first). */
  rows: Map<string, string[]>;
}

/** Waits for the panel's h1 to match `title` (the profile and the comparison share one panel) and returns it. */
export async function waitForPanelTitle(page: Page, title: RegExp, timeoutMs = 60_000): Promise<string> {
  const heading = panelFrame(page).getByRole('heading', { level: 1, name: title });
  await heading.waitFor({ timeout: timeoutMs });
  return (await heading.textContent()) ?? '';
}

/** Clicks the panel tab titled `title` (the panel keeps the selected tab across reloads, so never assume one). */
export async function selectTab(page: Page, title: string, timeoutMs = 20_000): Promise<void> {
  await panelFrame(page).locator('[role="tab"]', { hasText: new RegExp(`^\\s*${title}\\s*(\\d+)?$`) }).click({ timeout: timeoutMs });
}

export interface VerdictView {
  headline: string;
  /** Fact label → text ("Log flushes per commit" → "DISABLED 1.00 (…), FORCED 0.004 (…)"). */
  facts: Map<string, string>;
}

/** The verdict block that opens the panel. */
export async function readVerdict(page: Page, timeoutMs = 30_000): Promise<VerdictView> {
  const verdict = panelFrame(page).locator('section.dl-verdict');
  await verdict.waitFor({ timeout: timeoutMs });
  const raw = await verdict.evaluate((el) => ({
    headline: (el.querySelector('.dl-headline')?.textContent ?? '').trim(),
    facts: Array.from(el.querySelectorAll('dt')).map((dt) => [(dt.textContent ?? '').trim(), (dt.nextElementSibling?.textContent ?? '').trim()] as [string, string]),
  }));
  return { headline: raw.headline, facts: new Map(raw.facts) };
}

/**
 * What of the panel's verdict, tab strip and metric names is cut (text wider than its box, or past the frame's right
 * edge), and how wide the panel's document is: evaluated inside the webview.
 */
export async function truncation(page: Page): Promise<{ width: number; pageScroll: number; cut: string[] }> {
  // No named helpers inside evaluate: tsx's keepNames would call a __name the page does not have.
  return panelFrame(page).locator('body').evaluate(() => ({
    width: window.innerWidth,
    pageScroll: document.documentElement.scrollWidth - window.innerWidth,
    cut: Array.from(document.querySelectorAll('.dl-verdict, .dl-verdict *, [role="tab"], .dl-table th.dl-first'))
      .filter((e) => (e as HTMLElement).scrollWidth > (e as HTMLElement).clientWidth + 1 || e.getBoundingClientRect().right > window.innerWidth + 1)
      .map((e) => (e.textContent ?? '').trim().slice(0, 80)),
  }));
}

/** The metric table (the table labelled "Metrics per durability mode") as text, from the Metrics tab. */
export async function readMetricTable(page: Page, timeoutMs = 30_000): Promise<MetricTable> {
  await selectTab(page, 'Metrics', timeoutMs);
  const table = panelFrame(page).locator('table[aria-label="Metrics per durability mode"]');
  await table.locator('tbody tr').first().waitFor({ timeout: timeoutMs });
  const raw = await table.evaluate((el) => ({
    headers: Array.from(el.querySelectorAll('thead th')).map((c) => (c.textContent ?? '').trim()),
    rows: Array.from(el.querySelectorAll('tbody tr')).map((r) => Array.from(r.querySelectorAll('th, td')).map((c) => (c.textContent ?? '').trim())),
  }));
  return { headers: raw.headers, rows: new Map(raw.rows.map((cells) => [cells[0] ?? '', cells])) };
}

/** The cell of `rowLabel` under the column whose header starts with `columnPrefix` (e.g. "FORCED (3 runs)"). */
export function cell(table: MetricTable, rowLabel: string, columnPrefix: string): string {
  const row = table.rows.get(rowLabel);
  if (!row) throw new Error(`metric table has no row "${rowLabel}" (rows: ${[...table.rows.keys()].join(', ')})`);
  const index = table.headers.findIndex((h) => h.startsWith(`${columnPrefix} (`));
  if (index < 0) throw new Error(`metric table has no column "${columnPrefix}" (headers: ${table.headers.join(' | ')})`);
  const text = row[index];
  if (text === undefined) throw new Error(`row "${rowLabel}" has no cell under "${table.headers[index]}"`);
  return text;
}

/** The median a cell shows first ("1,234 (1,200 – 1,250)" → 1234); NaN for "n/a". */
export function leadingNumber(text: string): number {
  const m = /^-?[\d,]+(?:\.\d+)?/.exec(text.trim());
  return m ? Number(m[0].replace(/,/g, '')) : Number.NaN;
}

export interface ChartCheck {
  label: string;
  width: number;
  height: number;
  /** Pixels with any opacity: an empty Chart.js canvas (no data, no axes) has none. */
  paintedPixels: number;
}

/** Selects the Charts tab and measures every chart canvas once each has a size (Chart.js sizes on resize). */
export async function checkCharts(page: Page, timeoutMs = 20_000): Promise<ChartCheck[]> {
  const frame = panelFrame(page);
  await selectTab(page, 'Charts', timeoutMs);
  const canvases = frame.locator('canvas[data-chart]');
  await canvases.first().waitFor({ state: 'visible', timeout: timeoutMs });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const checks = await canvases.evaluateAll((els) =>
      (els as HTMLCanvasElement[]).map((c) => {
        let painted = 0;
        if (c.width > 0 && c.height > 0) {
          const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
          for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
        }
        return { label: c.getAttribute('aria-label') ?? '', width: c.width, height: c.height, paintedPixels: painted };
      }),
    );
    if (checks.length > 0 && checks.every((c) => c.paintedPixels > 0)) return checks;
    if (Date.now() > deadline) throw new Error(`charts not drawn within ${timeoutMs} ms: ${JSON.stringify(checks)}`);
    await new Promise((r) => setTimeout(r, 200)); // poll interval; the deadline above bounds the wait
  }
}
