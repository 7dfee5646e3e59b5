// Issue 28: the panel reads right in every theme. With the S1 comparison on screen (after scenario step 3), the theme
// switches through Light Modern, Default High Contrast Light, Default High Contrast and Dark Modern (user settings,
// then a window reload); in each, the webview's computed styles of the verdict headline
// and the main text must reach WCAG AA contrast on the background they are painted on (4.5:1, large text 3:1), and
// every chart series colour 3:1 (non-text contrast). Screenshots `theme-<kind>.png` (docs/images/ keeps copies).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { contrastRatio, over, parseColour, type Rgb } from '../../src/webview/contrast';
import type { E2eTest } from './support/harness';
import { panelFrame, selectTab, waitForPanelTitle } from './support/panel';
import { reloadWindow } from './support/workbench';
import { resultsDir, userDataDir } from './support/paths';

/** The built-in themes by their settings id (extensions/theme-defaults/package.json of VS Code 1.117). */
export const THEMES = [
  { id: 'Light Modern', kind: 'vscode-light', slug: 'light' },
  { id: 'Default High Contrast Light', kind: 'vscode-high-contrast-light', slug: 'hc-light' },
  { id: 'Default High Contrast', kind: 'vscode-high-contrast', slug: 'hc-dark' },
  { id: 'Dark Modern', kind: 'vscode-dark', slug: 'dark' },
] as const;

/** The verdict and the main text of the panel: what must be readable (hidden tab panels have no box and are skipped). */
const TEXT_SELECTORS = 'h1, .dl-headline, .dl-cause-lead, .dl-verdict-facts dt, .dl-verdict-facts dd, .dl-verdict-facts dd *, [role="tab"], .dl-table th, .dl-table td, .dl-table td *, .dl-muted, .dl-note, .dl-banner, .dl-banner *, main p, main li';

interface TextSample { text: string; color: string; fontSize: number; fontWeight: number; backgrounds: string[] }

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const settingsFile = path.join(userDataDir, 'User', 'settings.json');

/**
 * Sets workbench.colorTheme in the user settings and reloads the window: this code-server does not pick up a changed
 * settings file while it runs (tried: the theme stayed), and its Color Theme picker follows the system scheme. The
 * panel comes back through the extension's serializer (the scenario's reload test checks that it does).
 */
async function applyTheme(page: Page, id: string | undefined): Promise<void> {
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  if (id === undefined) delete settings['workbench.colorTheme'];
  else settings['workbench.colorTheme'] = id;
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  await reloadWindow(page);
  await waitForPanelTitle(page, /Durability comparison/, 90_000);
}

async function waitForThemeKind(page: Page, kind: string, timeoutMs = 30_000): Promise<void> {
  const body = panelFrame(page).locator('body');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await body.getAttribute('data-vscode-theme-kind', { timeout: timeoutMs });
    if (now === kind) return;
    if (Date.now() > deadline) throw new Error(`the panel's theme kind stayed ${now}, not ${kind}`);
    await new Promise((r) => setTimeout(r, 200)); // poll interval; the deadline above bounds the wait
  }
}

/** The background an element is painted on: its ancestors' background colours composited from the page up. */
function effectiveBackground(chain: readonly string[]): Rgb {
  let bg: Rgb = { r: 255, g: 255, b: 255, a: 1 };
  const layers = chain.map((c) => parseColour(c)).filter((c): c is Rgb => c !== null);
  const firstOpaque = layers.findIndex((c) => c.a >= 1);
  const used = firstOpaque >= 0 ? layers.slice(0, firstOpaque + 1) : layers;
  for (const layer of used.reverse()) bg = over(layer, bg);
  return bg;
}

/** WCAG 2.2 "large scale": at least 18 pt (24 px), or 14 pt (18.66 px) bold. */
function isLarge(s: TextSample): boolean {
  return s.fontSize >= 24 || (s.fontSize >= 18.66 && s.fontWeight >= 700);
}

async function textSamples(page: Page): Promise<TextSample[]> {
  // No named helpers inside evaluate: tsx's keepNames would call a __name the page does not have.
  return panelFrame(page).locator('body').evaluate((_body, selectors) => {
    const out: { text: string; color: string; fontSize: number; fontWeight: number; backgrounds: string[] }[] = [];
    for (const el of Array.from(document.querySelectorAll(selectors))) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      if (!Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.textContent ?? '').trim() !== '')) continue;
      const style = getComputedStyle(el);
      const backgrounds: string[] = [];
      for (let e: Element | null = el; e; e = e.parentElement) backgrounds.push(getComputedStyle(e).backgroundColor);
      out.push({ text: (el.textContent ?? '').trim().slice(0, 60), color: style.color, fontSize: parseFloat(style.fontSize), fontWeight: Number(style.fontWeight), backgrounds });
    }
    return out;
  }, TEXT_SELECTORS);
}

async function chartColours(page: Page, timeoutMs = 20_000): Promise<{ label: string; colours: string[]; background: string }[]> {
  await selectTab(page, 'Charts', timeoutMs);
  const canvases = panelFrame(page).locator('canvas[data-series-colours]');
  await canvases.first().waitFor({ state: 'visible', timeout: timeoutMs });
  return canvases.evaluateAll((els) => els.map((c) => ({
    label: c.getAttribute('aria-label') ?? '',
    colours: (c.getAttribute('data-series-colours') ?? '').split(' ').filter((x) => x !== ''),
    background: getComputedStyle(document.body).backgroundColor,
  })));
}

export function themeTests(): E2eTest[] {
  return [
    {
      name: 'the comparison panel meets WCAG AA (headline and text 4.5:1, large text and chart series 3:1) in light, dark and both high-contrast themes',
      timeoutMs: 240_000,
      run: async ({ page, screenshot }) => {
        const failures: string[] = [];
        try {
          for (const theme of THEMES) {
            await applyTheme(page, theme.id);
            await waitForThemeKind(page, theme.kind);
            await selectTab(page, 'Metrics');
            const samples = await textSamples(page);
            assert(samples.some((s) => s.text.length > 0), `${theme.id}: no text found in the panel`);
            const headline = samples.filter((s) => /faster|slower|no clear difference|conclusive/i.test(s.text));
            assert(headline.length > 0, `${theme.id}: the verdict headline was not among the checked text`);
            for (const s of samples) {
              const min = isLarge(s) ? 3 : 4.5;
              const ratio = contrastRatio(parseColour(s.color) ?? { r: 0, g: 0, b: 0, a: 0 }, effectiveBackground(s.backgrounds));
              if (!(ratio >= min)) failures.push(`${theme.id}: "${s.text}" ${s.color} on ${s.backgrounds.find((b) => b !== 'rgba(0, 0, 0, 0)')} is ${ratio.toFixed(2)}:1 (needs ${min}:1)`);
            }
            await page.locator('iframe.webview').first().screenshot({ path: path.join(resultsDir, `theme-${theme.slug}.png`) });
            await screenshot(`theme-${theme.slug}-workbench`);
            for (const chart of await chartColours(page)) {
              const bg = effectiveBackground([chart.background]);
              for (const colour of chart.colours) {
                const ratio = contrastRatio(parseColour(colour) ?? { r: 0, g: 0, b: 0, a: 0 }, bg);
                if (!(ratio >= 3)) failures.push(`${theme.id}: chart "${chart.label}" series ${colour} on ${chart.background} is ${ratio.toFixed(2)}:1 (needs 3:1)`);
              }
            }
            await screenshot(`theme-${theme.slug}-charts`);
          }
        } catch (err) {
          failures.push(err instanceof Error ? err.message : String(err));
        } finally {
          await applyTheme(page, undefined).catch(() => undefined);
          await selectTab(page, 'Metrics').catch(() => undefined);
        }
        assert(failures.length === 0, `contrast below WCAG AA:\n${failures.join('\n')}`);
      },
    },
  ];
}
