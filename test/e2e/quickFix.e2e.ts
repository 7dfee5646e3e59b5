// Quick fixes in the real workbench: put the cursor on the flagged INSERT, open the Quick Fix menu (Ctrl+.), pick a
// fix, and watch the editor drop the diagnostic's mark; undo brings it back; the "commit every N" snippet takes the N
// typed in place. Run by run.ts after the UI tests, on fixtures/workspace/quick-fix.sql (no server needed).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { E2eTest } from './support/harness';
import { lineOf, markerLines, openFile, runCommand } from './support/workbench';

const FILE = 'quick-fix.sql';
const CODE = 'autocommit-dml-in-loop';

/** Polls `read` until `done` holds (deadline `timeoutMs`); returns the last value read. */
async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 200)); // poll interval; the deadline above bounds the wait
  }
}


/** 1-based line of the first editor line matching `pattern` (the fixture is short: every line is rendered). */
function editorLineOf(text: string, pattern: RegExp): number {
  const index = text.split('\n').findIndex((l) => pattern.test(l));
  if (index < 0) throw new Error(`no editor line matches ${pattern}:\n${text}`);
  return index + 1;
}

/** Focuses the fixture's editor again (the Problems view took the focus). */
async function focusEditor(page: Page): Promise<void> {
  await page.locator('.tab', { hasText: FILE }).first().click();
  await page.locator('.tab.active', { hasText: FILE }).first().waitFor({ timeout: 15_000 });
}

/** Puts the fixture back as it is on disk (not dirty), so later tests and window reloads meet no unsaved editor. */
async function revert(page: Page): Promise<void> {
  await focusEditor(page);
  await runCommand(page, 'File: Revert File');
  await page.locator('.tab.active.dirty', { hasText: FILE }).waitFor({ state: 'detached', timeout: 15_000 });
}

/** Moves the cursor to line:column (1-based) with Go to Line. */
async function goTo(page: Page, line: number, column: number): Promise<void> {
  await focusEditor(page);
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15_000 });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
}

/**
 * Opens the Quick Fix menu at the cursor and applies the entry whose title starts with `title`, by keyboard as a user
 * would (the menu's pointer block takes mouse clicks meant for the rows).
 */
async function applyQuickFix(page: Page, title: string): Promise<void> {
  // The editor asks for code actions itself when the cursor lands on the finding and shows its light bulb once the
  // server has answered with some. Ctrl+. pressed while that request is still out answered "No code actions
  // available" on a loaded machine (1 run in 3): wait for the light bulb, the editor's sign that the fixes arrived.
  await page.locator('.editor-group-container.active .lightBulbWidget').first().waitFor({ state: 'visible', timeout: 30_000 });
  await page.keyboard.press('Control+.');
  const rows = page.locator('.action-widget .monaco-list-row.action');
  await rows.filter({ hasText: title }).first().waitFor({ timeout: 20_000 });
  const count = await rows.count();
  for (let i = 0; i <= count; i++) {
    const focused = (await page.locator('.action-widget .monaco-list-row.action.focused').first().getAttribute('aria-label')) ?? '';
    if (focused.startsWith(title)) {
      await page.keyboard.press('Enter');
      await page.locator('.action-widget').first().waitFor({ state: 'hidden', timeout: 15_000 });
      return;
    }
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`the Quick Fix menu has no entry starting "${title}": ${(await rows.allTextContents()).join(' | ')}`);
}

/** The editor's visible text (the fixture is short enough to be all visible), non-breaking spaces as spaces. */
async function editorText(page: Page): Promise<string> {
  const lines = await page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line').evaluateAll((els) =>
    els.map((el) => ({ top: el.getBoundingClientRect().top, text: el.textContent ?? '' })));
  return lines.sort((a, b) => a.top - b.top).map((l) => l.text.replace(/\u00a0/g, ' ')).join('\n');
}

/** Where the INSERT is: its line, and a column inside the statement (the diagnostic's range). */
function insertPosition(workspace: string): { line: number; column: number } {
  const text = fs.readFileSync(path.join(workspace, FILE), 'utf8');
  const line = lineOf(text, /^\s*INSERT\b/);
  return { line, column: text.split(/\r?\n/)[line - 1]!.indexOf('INSERT') + 3 };
}

export const quickFixTests: E2eTest[] = [
  {
    name: 'quick fix: "Wrap the loop in one transaction" removes the autocommit-dml-in-loop mark, and undo brings it back',
    timeoutMs: 120_000,
    run: async ({ page, workspace, screenshot }) => {
      await openFile(page, FILE);
      const at = insertPosition(workspace);
      const only = (line: number) => (m: { hint: number[]; squiggle: number[] }) => m.hint.join() === String(line) && m.squiggle.length === 0;
      await pollUntil(() => markerLines(page), only(at.line), `the ${CODE} hint on line ${at.line}`, 90_000);
      await goTo(page, at.line, at.column);
      await applyQuickFix(page, 'Wrap the loop in one transaction (BEGIN TRANSACTION before, COMMIT after)');
      // The editor re-renders after the edit: wait for the wrapped text rather than reading it once.
      await pollUntil(() => editorText(page), (t) => /BEGIN TRANSACTION;\s*\nWHILE @i < 100[\s\S]*END;\s*\nCOMMIT TRANSACTION;/.test(t), 'the loop wrapped in BEGIN TRANSACTION … COMMIT TRANSACTION');
      await screenshot('quick-fix-wrapped');
      await pollUntil(() => markerLines(page), (m) => m.hint.length === 0 && m.squiggle.length === 0, `no mark left after the fix`);
      await screenshot('quick-fix-no-marks');
      await page.keyboard.press('Control+Z');
      await pollUntil(() => markerLines(page), only(at.line), `the ${CODE} hint back after undo`);
      await revert(page);
    },
  },
  {
    name: 'quick fix: "Commit every N iterations" is a snippet — the N typed in place, the diagnostic gone',
    timeoutMs: 120_000,
    run: async ({ page, workspace, screenshot }) => {
      await openFile(page, FILE);
      const at = insertPosition(workspace);
      await pollUntil(() => markerLines(page), (m) => m.hint.join() === String(at.line), `the ${CODE} hint on line ${at.line}`);
      await goTo(page, at.line, at.column);
      await applyQuickFix(page, 'Commit every N iterations');
      // The placeholder (1000) is selected: typing replaces it.
      await page.keyboard.type('250');
      await page.keyboard.press('Escape');
      const text = await pollUntil(() => editorText(page), (t) => t.includes('% 250 = 0'), 'the typed N in the loop');
      if (!/DECLARE @iterations_since_commit int = 0;\s*\nBEGIN TRANSACTION;/.test(text) || !/COMMIT TRANSACTION;\s*\n\s*BEGIN TRANSACTION;/.test(text)) {
        throw new Error(`the loop does not commit every N:\n${text}`);
      }
      await screenshot('quick-fix-commit-every-n');
      // The INSERT is no longer marked; the only mark left is the commit-in-loop hint naming N on the inner COMMIT.
      const commitLine = editorLineOf(text, /^\s+COMMIT TRANSACTION;/);
      await pollUntil(() => markerLines(page), (m) => m.hint.join() === String(commitLine) && m.squiggle.length === 0, `only the commit-every-N hint (line ${commitLine})`);
      await revert(page);
      await pollUntil(() => markerLines(page), (m) => m.hint.join() === String(at.line), `the ${CODE} hint back after revert`);
    },
  },
];
