// Page-level helpers for code-server's workbench: open the workspace, open a file, find code lenses and the
// line they sit over, read the Problems panel, catch notifications. Every wait has a deadline.
import type { Locator, Page } from 'playwright-core';

export async function openWorkbench(page: Page, serverUrl: string, folder: string, extraQuery = ''): Promise<void> {
  await page.goto(`${serverUrl}/?folder=${encodeURIComponent(folder)}${extraQuery}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
}

/**
 * Waits until the Explorer lists the workspace (the workbench has restored and the remote file system answers). An
 * earlier test may have left another view in the side bar (the walkthrough does): the Explorer is shown first.
 */
export async function waitForExplorer(page: Page): Promise<void> {
  const rows = page.locator('.explorer-folders-view .monaco-list-row').first();
  if (!(await rows.isVisible())) await runCommand(page, 'View: Show Explorer').catch(() => undefined);
  await rows.waitFor({ timeout: 60_000 });
}

/** Opens a workspace file through Quick Open and waits until its tab is the active one. */
export async function openFile(page: Page, relativePath: string): Promise<void> {
  const base = relativePath.split('/').pop()!;
  const activeTab = page.locator('.tab.active', { hasText: base }).first();
  // In a fresh window under load the first Ctrl+P can land before the workbench takes keys, or Quick Open can list
  // the file only once the workspace's file index is built: each attempt waits on what the UI shows, and a picker
  // that did not take the text or never lists the file is closed and opened again, until a deadline.
  const deadline = Date.now() + 60_000;
  for (let attempt = 1; ; attempt++) {
    const left = () => Math.max(1_000, deadline - Date.now());
    try {
      await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } }).catch(() => undefined);
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: Math.min(15_000, left()) });
      await input.fill(relativePath);
      // Enter opens the focused row; right after typing, that can still be the previous history entry, so wait
      // until the focused row is our file.
      await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: base }).waitFor({ timeout: Math.min(15_000, left()) });
      await page.keyboard.press('Enter');
      // .first(): the same file may be open in two editor groups (each has an active tab).
      await activeTab.waitFor({ timeout: Math.min(20_000, left()) });
      break;
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`openFile(${relativePath}): no active tab after ${attempt} attempt(s): ${(err as Error).message}`);
      await page.keyboard.press('Escape').catch(() => undefined);
    }
  }
  await page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor({ timeout: 20_000 });
}

export function codeLens(page: Page, title: string): Locator {
  return page.locator('.codelens-decoration a', { hasText: title });
}

/**
 * 1-based editor lines the visible code lenses titled `title` are drawn over, in one pass inside the page (the
 * workbench re-renders lenses as they resolve, so measuring element by element from outside can race). Monaco
 * draws a lens in a view zone directly above its line: the line is the first line number at or below the
 * lens's bottom edge in the same editor.
 */
export async function visibleLensLines(page: Page, title: string): Promise<number[]> {
  return page.evaluate((wanted) => {
    const result: number[] = [];
    for (const lens of Array.from(document.querySelectorAll('.codelens-decoration a'))) {
      if (!(lens.textContent ?? '').includes(wanted)) continue;
      const box = lens.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const editor = lens.closest('.monaco-editor');
      const numbers = Array.from(editor?.querySelectorAll('.margin-view-overlays .line-numbers') ?? [])
        .map((el) => ({ n: Number(el.textContent?.trim()), top: el.getBoundingClientRect().top }))
        .filter((l) => Number.isFinite(l.n) && l.n > 0 && l.top >= box.bottom - 2)
        .sort((a, b) => a.top - b.top);
      if (numbers.length) result.push(numbers[0]!.n);
    }
    return result;
  }, title);
}

/**
 * Waits (with a deadline) until a lens titled `title` is visible and its line is stable, and returns that line.
 * Stable = the same answer on 3 consecutive polls: while an editor first lays out, Monaco can draw the lens
 * before it has positioned it (it was once measured over line 2 for a lens that settled over line 6).
 */
export async function lensLine(page: Page, title: string, timeoutMs = 30_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  let sameCount = 0;
  for (;;) {
    const lines = await visibleLensLines(page, title);
    const key = lines.join(',');
    sameCount = key === last ? sameCount + 1 : 1;
    last = key;
    if (lines.length > 0 && sameCount >= 3) {
      if (lines.length > 1) throw new Error(`expected one "${title}" lens, found them over lines ${key}`);
      return lines[0]!;
    }
    if (Date.now() > deadline) throw new Error(`no stable visible "${title}" lens within ${timeoutMs} ms (last seen over lines: ${key || 'none'})`);
    await new Promise((r) => setTimeout(r, 100)); // poll interval; the deadline above bounds the wait
  }
}

export interface ProblemRow {
  /** Text of the file row the marker sits under (file name, folder, count). */
  file: string;
  text: string;
  line: number;
  column: number;
}

/**
 * Opens the Problems panel and returns the marker rows whose text contains `needle`, once at least one is
 * there. The panel is a tree: file rows (aria-level 1) followed by their markers (aria-level 2).
 */
export async function problemRows(page: Page, needle: string, timeoutMs = 30_000): Promise<ProblemRow[]> {
  await runCommand(page, 'Problems: Focus on Problems View');
  await page.locator('.markers-panel .monaco-list-row', { hasText: needle }).first().waitFor({ timeout: timeoutMs });
  const rows = await page.locator('.markers-panel .monaco-list-row').evaluateAll((els) =>
    els.map((el) => ({ level: el.getAttribute('aria-level'), text: el.textContent ?? '', top: el.getBoundingClientRect().top })),
  );
  rows.sort((a, b) => a.top - b.top);
  const found: ProblemRow[] = [];
  let file = '';
  for (const row of rows) {
    if (row.level === '1') { file = row.text; continue; }
    if (!row.text.includes(needle)) continue;
    const m = /\[Ln (\d+), Col (\d+)\]/.exec(row.text);
    if (!m) throw new Error(`Problems row has no [Ln, Col]: ${row.text}`);
    found.push({ file, text: row.text, line: Number(m[1]), column: Number(m[2]) });
  }
  return found;
}

/** Runs a command by its palette title (F1, then the title, then Enter on the matching entry). */
export async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15_000 });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: title }).waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
}

/** Text of the first notification toast whose text matches, once it has faded in. */
export async function notificationText(page: Page, match: RegExp, timeoutMs = 20_000): Promise<string> {
  const toast = page.locator('.notification-toast.notification-fade-in-done', { hasText: match }).first();
  await toast.waitFor({ timeout: timeoutMs });
  return (await toast.textContent()) ?? '';
}

/** 1-based line of the first line in `text` matching `pattern`: expected positions come from the fixture itself. */
export function lineOf(text: string, pattern: RegExp): number {
  const index = text.split(/\r?\n/).findIndex((l) => pattern.test(l));
  if (index < 0) throw new Error(`fixture has no line matching ${pattern}`);
  return index + 1;
}

/** Clicks the button `button` on the notification toast whose text matches `match`. */
export async function clickNotificationButton(page: Page, match: RegExp, button: string, timeoutMs = 20_000): Promise<void> {
  const toast = page.locator('.notification-toast.notification-fade-in-done', { hasText: match }).first();
  await toast.waitFor({ timeout: timeoutMs });
  await toast.getByRole('button', { name: button, exact: true }).click({ timeout: timeoutMs });
}

/** Picks the quick-pick row labelled `label` (typing it as a filter first) in the open quick input. */
export async function pickQuickItem(page: Page, label: string, timeoutMs = 20_000): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: timeoutMs });
  await input.fill(label);
  await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: label }).waitFor({ timeout: timeoutMs });
  await page.keyboard.press('Enter');
}

/** Answers an input box (a password prompt included) whose title matches `title`. */
export async function answerInputBox(page: Page, title: RegExp, value: string, timeoutMs = 20_000): Promise<void> {
  const widget = page.locator('.quick-input-widget', { hasText: title });
  await widget.waitFor({ timeout: timeoutMs });
  await widget.locator('input').fill(value);
  await page.keyboard.press('Enter');
  await widget.waitFor({ state: 'hidden', timeout: timeoutMs });
}

/** Focuses the editor of an open file (by its tab) and selects all its text. */
export async function selectAllIn(page: Page, fileName: string): Promise<void> {
  await page.locator('.tab', { hasText: fileName }).first().click();
  await page.locator('.tab.active', { hasText: fileName }).first().waitFor({ timeout: 15_000 });
  const editor = page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
  await editor.click();
  await page.keyboard.press('Control+A');
}

/** Runs "Developer: Reload Window" and waits until the reloaded workbench is there again. */
export async function reloadWindow(page: Page, timeoutMs = 60_000): Promise<void> {
  const loaded = page.waitForEvent('load', { timeout: timeoutMs });
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15_000 });
  await input.fill('>Developer: Reload Window');
  await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: 'Developer: Reload Window' }).waitFor({ timeout: 15_000 });
  await page.keyboard.press('Enter');
  await loaded;
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
}

/**
 * 1-based lines of the focused editor marked by a diagnostic: `hint` (Monaco's dotted `squiggly-hint`) and `squiggle`
 * (`squiggly-info|warning|error`), matched to the line numbers drawn at the same height, each sorted. The Problems panel
 * lists no hints, so the editor's own marks are what the user sees.
 */
export async function markerLines(page: Page): Promise<{ hint: number[]; squiggle: number[] }> {
  // No named functions inside evaluate: the test runner's transpiler wraps them in a helper the page does not have.
  return page.evaluate(() => {
    const editor = document.querySelector('.editor-group-container.active .monaco-editor');
    const numbers = Array.from(editor?.querySelectorAll('.margin-view-overlays .line-numbers') ?? [])
      .map((el) => ({ n: Number(el.textContent?.trim()), box: el.getBoundingClientRect() }))
      .filter((l) => Number.isFinite(l.n) && l.n > 0);
    const result = { hint: [] as number[], squiggle: [] as number[] };
    for (const el of Array.from(editor?.querySelectorAll('.squiggly-hint, .squiggly-info, .squiggly-warning, .squiggly-error') ?? [])) {
      const box = el.getBoundingClientRect();
      const middle = (box.top + box.bottom) / 2;
      const line = numbers.find((l) => l.box.top <= middle && middle <= l.box.bottom)?.n;
      if (line === undefined) continue;
      (el.classList.contains('squiggly-hint') ? result.hint : result.squiggle).push(line);
    }
    result.hint.sort((x, y) => x - y);
    result.squiggle.sort((x, y) => x - y);
    return result;
  });
}

/**
 * The editor groups as laid out, left to right: each group's width and its tabs (the active one marked `*`), e.g.
 * `596 px [statements.sql*] | 596 px [Durability profile: lab*]`. For a test's precondition message: when a layout
 * assertion fails, it says where each editor ended up.
 */
export async function editorLayout(page: Page): Promise<string> {
  return page.locator('.editor-group-container').evaluateAll((groups) =>
    groups
      .map((g) => ({ g, box: g.getBoundingClientRect() }))
      .sort((a, b) => a.box.left - b.box.left || a.box.top - b.box.top)
      .map(({ g, box }) => {
        const tabs = Array.from(g.querySelectorAll('.tab')).map((t) => `${(t.querySelector('.label-name')?.textContent ?? t.textContent ?? '').trim()}${t.classList.contains('active') ? '*' : ''}`);
        return `${Math.round(box.width)} px${box.width === 0 ? ' (hidden)' : ''} [${tabs.join(', ')}]`;
      })
      .join(' | '),
  );
}

/** "View: Close All Editors", then polls (with a deadline) until no editor tab is left in any group. */
export async function closeAllEditors(page: Page, timeoutMs = 15_000): Promise<void> {
  await runCommand(page, 'View: Close All Editors');
  const deadline = Date.now() + timeoutMs;
  while ((await page.locator('.editor-group-container .tab').count()) > 0) {
    if (Date.now() > deadline) throw new Error(`"Close All Editors" left editors open: ${await editorLayout(page)}`);
    await new Promise((r) => setTimeout(r, 100)); // poll interval; bounded by the deadline above
  }
}
