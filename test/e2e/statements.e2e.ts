// Per-statement attribution in the real workbench against the TDS stand-in (issue 16, "Done when": a loop of
// single-row INSERTs then one batched UPDATE puts ≥ 90 % of the session's WRITELOG waits on the INSERT's line, in the
// panel and the inline hints). Profile batch on fixtures/workspace/statements.sql, then the Statements tab (first row,
// executions, the reconciliation's session total), click-to-line, and the inline hint with its hover, cleared on edit.
// Figures asserted are the stand-in model's; expected lines and counts come from the fixture text.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { E2eTest } from './support/harness';
import { confirmIf, consentDialog, numberedLine, readConsent } from './support/consent';
import { leadingNumber, panelFrame, readVerdict, selectTab } from './support/panel';
import { repoRoot } from './support/paths';
import { STANDIN_PASSWORD, STANDIN_PROFILE_NAME, type RunningStandin } from './support/standin';
import { answerInputBox, clickNotificationButton, closeAllEditors, editorLayout, lensLine, lineOf, openFile, pickQuickItem, runCommand } from './support/workbench';
import { panelAt } from './scenario.e2e';

export const STATEMENTS_FILE = 'statements.sql';
const FIXTURE = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace', STATEMENTS_FILE);
const STATEMENTS_TABLE = 'table[aria-label="Statements by WRITELOG time"]';
/** The share of the session's WRITELOG waits the INSERT's line must carry (issue 16). */
const MIN_SHARE = 0.9;

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

interface StatementRow {
  line: string;
  text: string;
  executions: string;
  writelogWaits: string;
}

/** The Statements tab: its rows (in the order shown) and the reconciliation paragraph above the table. */
async function readStatements(page: Page, timeoutMs = 30_000): Promise<{ rows: StatementRow[]; reconciliation: string }> {
  await selectTab(page, 'Statements', timeoutMs);
  const table = panelFrame(page).locator(STATEMENTS_TABLE);
  await table.locator('tbody tr').first().waitFor({ timeout: timeoutMs });
  const headers = await table.locator('thead th').allTextContents();
  const col = (name: string) => {
    const i = headers.findIndex((h) => h.trim() === name);
    if (i < 0) throw new Error(`the Statements table has no "${name}" column (headers: ${headers.join(' | ')})`);
    return i;
  };
  const index = { line: col('Line'), text: col('Statement'), executions: col('Executions'), writelogWaits: col('WRITELOG waits') };
  const cells = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('th, td')).map((c) => (c.textContent ?? '').trim())));
  const rows = cells.map((c) => ({ line: c[index.line] ?? '', text: c[index.text] ?? '', executions: c[index.executions] ?? '', writelogWaits: c[index.writelogWaits] ?? '' }));
  const reconciliation = ((await panelFrame(page).locator('.dl-statements > p').first().textContent()) ?? '').trim();
  return { rows, reconciliation };
}

/**
 * Clicks the lens and connects through the UI when asked (run alone with E2E_ONLY the window is not connected yet;
 * after the procedure tests it is, and the run starts at once). The password is typed only if it is asked for. The
 * consent view then shows the setup and the loop (this file was never confirmed): its text is returned after "Run".
 */
async function clickLensConnecting(page: Page, title: string, expected: ReadonlyArray<readonly [number, string]>): Promise<string> {
  await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: title }).first().click({ timeout: 30_000 });
  const connect = page.locator('.notification-toast.notification-fade-in-done', { hasText: /needs a SQL Server connection/ }).first();
  const consent = consentDialog(page);
  const first = await Promise.race([
    connect.waitFor({ timeout: 60_000 }).then(() => 'connect', () => 'none'),
    consent.waitFor({ timeout: 60_000 }).then(() => 'consent', () => 'none'),
  ]);
  if (first === 'connect') {
    await clickNotificationButton(page, /needs a SQL Server connection/, 'Connect');
    await pickQuickItem(page, STANDIN_PROFILE_NAME);
    const passwordBox = page.locator('.quick-input-widget', { hasText: /password for "Stand-in \(lab\)"/ });
    const next = await Promise.race([
      passwordBox.waitFor({ timeout: 60_000 }).then(() => 'password', () => 'none'),
      consent.waitFor({ timeout: 60_000 }).then(() => 'consent', () => 'none'),
    ]);
    if (next === 'password') await answerInputBox(page, /password for "Stand-in \(lab\)"/, STANDIN_PASSWORD);
  }
  const text = await readConsent(page);
  await confirmIf(page, text, expected.map(([line, statement]) => [numberedLine(line, statement).test(text), `no line ${line} "${statement}"`] as const), 'Run');
  return text;
}

/** The Statements table holding a statement of this fixture, or the text of our error notification if one shows first. */
async function statementsOrError(page: Page, timeoutMs: number): Promise<void> {
  const error = page.locator('.notification-toast', { hasText: /Durability Lens(: the run failed|: the workload failed| could not connect)/ }).first();
  const row = panelFrame(page).locator(`${STATEMENTS_TABLE} tbody tr`, { hasText: 'dbo.stmt_rows' }).first();
  const outcome = await Promise.race([
    row.waitFor({ state: 'attached', timeout: timeoutMs }).then(() => ({ failed: false, text: '' })),
    error.waitFor({ timeout: timeoutMs + 1000 }).then(async () => ({ failed: true, text: (await error.textContent()) ?? '' })),
  ]);
  if (outcome.failed) throw new Error(`instead of the panel, the extension reported: ${outcome.text}`);
}

/** How far the Statements table would scroll sideways, and which of its cells (other than statement text) are cut. */
async function statementsLayout(page: Page): Promise<{ overflow: number; cut: string[] }> {
  return panelFrame(page).locator('.dl-statements .dl-table-wrap').evaluate((wrap) => ({
    overflow: (wrap as HTMLElement).scrollWidth - (wrap as HTMLElement).clientWidth,
    cut: Array.from(wrap.querySelectorAll('th, td'))
      .filter((c) => !c.querySelector('code') && (c as HTMLElement).scrollWidth > (c as HTMLElement).clientWidth + 1)
      .map((c) => (c.textContent ?? '').trim()),
  }));
}

/** The active editor's cursor as the status bar shows it ("Ln 23, Col 1"), polled until it is `line` or the deadline. */
async function waitForCursorLine(page: Page, line: number, timeoutMs = 15_000): Promise<string> {
  const item = page.locator('[id="status.editor.selection"]');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = ((await item.textContent().catch(() => '')) ?? '').trim();
    const m = /Ln (\d+), Col (\d+)/.exec(text);
    if (m && Number(m[1]) === line) return text;
    if (Date.now() > deadline) throw new Error(`the cursor did not move to line ${line} within ${timeoutMs} ms (status bar: "${text}")`);
    await new Promise((r) => setTimeout(r, 100)); // poll interval; bounded by the deadline above
  }
}

/**
 * The rendered text of editor line `line` (1-based) in the editor showing `fileName`, inline hints included (Monaco
 * draws an inlay hint as injected text inside the line's own DOM), with non-breaking spaces as spaces. Null when
 * the line is not rendered. Matched by geometry: the line number in the margin and the view line share their top.
 */
async function renderedLine(page: Page, fileName: string, line: number): Promise<string | null> {
  const editor = fixtureEditor(page, fileName).locator('.monaco-editor').first();
  return editor.evaluate((root, wanted) => {
    const number = Array.from(root.querySelectorAll('.margin-view-overlays .line-numbers')).find((el) => Number(el.textContent?.trim()) === wanted);
    if (!number) return null;
    const top = number.getBoundingClientRect().top;
    const view = Array.from(root.querySelectorAll('.view-lines .view-line')).find((el) => Math.abs(el.getBoundingClientRect().top - top) < 2);
    return view ? (view.textContent ?? '').replace(/\u00a0/g, ' ') : null;
  }, line);
}

/** The editor group whose active tab is `fileName`. */
function fixtureEditor(page: Page, fileName = STATEMENTS_FILE): Locator {
  return page.locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: fileName }) }).first();
}

/** Polls `renderedLine` until `done` holds for it, or fails with the last text seen. */
async function waitForLine(page: Page, fileName: string, line: number, done: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last: string | null = null;
  for (;;) {
    last = await renderedLine(page, fileName, line);
    if (last !== null && done(last)) return last;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms (line ${line} reads: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 100)); // poll interval; bounded by the deadline above
  }
}

export function statementTests(_standin: RunningStandin): E2eTest[] {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  const source = text.split(/\r?\n/);
  const insertLine = lineOf(text, /^\s*INSERT INTO dbo\.stmt_rows\b/);
  const updateLine = lineOf(text, /^\s*UPDATE dbo\.stmt_rows\b/);
  const loopMatch = /^WHILE @i < (\d+)\s*$/m.exec(text);
  if (!loopMatch) throw new Error(`${STATEMENTS_FILE} has no "WHILE @i < <n>" loop`);
  const iterations = Number(loopMatch[1]);
  let insertWaits = 0;
  return [
    {
      name: 'statements: Profile batch on a loop of INSERTs and one UPDATE puts the INSERT line first in the Statements tab with ≥ 90 % of the session\'s WRITELOG waits',
      timeoutMs: 240_000,
      run: async ({ page, screenshot }) => {
        // A clean editor area: only this fixture and the panel the run opens beside it (no earlier panel to mistake).
        await closeAllEditors(page);
        await runCommand(page, 'Notifications: Clear All Notifications');
        // Room for the panel (as the S1 tests leave it when run before): no bottom panel, no side bar.
        if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Hide Panel');
        if (await page.locator('.part.sidebar').isVisible()) await runCommand(page, 'View: Close Primary Side Bar');
        await openFile(page, STATEMENTS_FILE);
        const lens = await lensLine(page, 'Profile batch', 60_000);
        assert(lens === lineOf(text, /^WHILE\b/), `the Profile batch lens is over line ${lens}, not the WHILE loop`);
        await clickLensConnecting(page, 'Profile batch', [[lineOf(text, /^CREATE TABLE dbo\.stmt_rows/), 'CREATE TABLE dbo.stmt_rows'], [insertLine, 'INSERT INTO dbo.stmt_rows DEFAULT VALUES;']]);
        await statementsOrError(page, 180_000);
        const verdict = await readVerdict(page);
        assert(!/failed|SQL error/.test(verdict.headline), `the profile failed: ${verdict.headline}`);
        const { rows, reconciliation } = await readStatements(page);
        await screenshot('statements-tab');
        // The panel opens beside the editor it ran from, never over it (the layout the next tests measure).
        const layout = await editorLayout(page);
        assert(/\[statements\.sql\*\] \| \d+ px \[Durability profile: lab\*\]$/.test(layout), `the panel is not beside statements.sql: ${layout}`);
        const first = rows[0];
        assert(first, 'the Statements tab has no rows');
        assert(Number(first.line) === insertLine, `the first statement is on line ${first.line} (${first.text}), not the INSERT's line ${insertLine}; rows: ${JSON.stringify(rows)}`);
        assert(/^INSERT INTO dbo\.stmt_rows DEFAULT VALUES/.test(first.text), `the first row's statement: ${first.text}`);
        assert(leadingNumber(first.executions) === iterations, `the INSERT ran ${first.executions} times, the loop has ${iterations} iterations`);
        const update = rows.find((r) => Number(r.line) === updateLine);
        assert(update && leadingNumber(update.executions) === 1, `the UPDATE's row (line ${updateLine}): ${JSON.stringify(update)}`);
        // The session's own total, shown beside the attributed sums ("…; the session's total: 251 (…)").
        const total = /the session's total: ([\d,]+) \(/.exec(reconciliation);
        assert(total, `the Statements tab shows no session total: ${reconciliation}`);
        const sessionWaits = leadingNumber(total[1]!);
        insertWaits = leadingNumber(first.writelogWaits);
        assert(sessionWaits > 0, `the session's WRITELOG waits: ${reconciliation}`);
        assert(insertWaits >= MIN_SHARE * sessionWaits, `the INSERT's line has ${insertWaits} of the session's ${sessionWaits} WRITELOG waits (< ${MIN_SHARE * 100} %)`);
        assert(insertWaits <= sessionWaits, `the INSERT's line has ${insertWaits} WRITELOG waits, more than the session's ${sessionWaits}`);
      },
    },
    {
      name: 'statements: the Statements tab is whole at 600 px and 1400 px',
      timeoutMs: 90_000,
      run: async ({ page, screenshot }) => {
        await selectTab(page, 'Statements');
        try {
          const narrow = await panelAt(page, 1240, 'statements-600px', screenshot);
          assert(narrow >= 560 && narrow <= 660, `the narrow panel is ${narrow} px wide, not about 600; editor groups: ${await editorLayout(page)}`);
          const atNarrow = await statementsLayout(page);
          const wide = await panelAt(page, 2840, 'statements-1400px', screenshot);
          assert(wide >= 1340 && wide <= 1460, `the wide panel is ${wide} px wide, not about 1400`);
          const atWide = await statementsLayout(page);
          for (const [width, layout] of [[narrow, atNarrow], [wide, atWide]] as const) {
            // The WRITELOG columns are the point of the tab: they must be on screen without scrolling sideways.
            assert(layout.overflow <= 1, `at ${width} px the Statements table is ${layout.overflow} px wider than the panel`);
            assert(layout.cut.length === 0, `at ${width} px Statements cells are cut: ${layout.cut.join(' | ')}`);
          }
        } finally {
          await page.setViewportSize({ width: 1400, height: 900 });
        }
      },
    },
    {
      name: 'statements: clicking the INSERT row\'s line number moves the editor\'s cursor to that line',
      timeoutMs: 60_000,
      run: async ({ page, screenshot }) => {
        // Somewhere else first, so the click has to move the cursor.
        await page.locator('.tab', { hasText: STATEMENTS_FILE }).first().click();
        await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        await waitForCursorLine(page, 1);
        await selectTab(page, 'Statements');
        await panelFrame(page).locator(`${STATEMENTS_TABLE} tbody tr`).first().locator('button.dl-link').click({ timeout: 15_000 });
        const status = await waitForCursorLine(page, insertLine);
        await screenshot('statements-click-to-line');
        assert(/Col 1\b/.test(status), `the cursor is not at the start of the line: ${status}`);
        await page.locator('.tab.active', { hasText: STATEMENTS_FILE }).first().waitFor({ timeout: 10_000 });
      },
    },
    {
      name: 'statements: an inline hint with WRITELOG sits at the end of the INSERT line, and its hover gives the line\'s share of the session\'s WRITELOG waits',
      timeoutMs: 60_000,
      run: async ({ page, screenshot }) => {
        const code = source[insertLine - 1]!;
        const hinted = await waitForLine(page, STATEMENTS_FILE, insertLine, (t) => t.startsWith(code) && /WRITELOG/.test(t.slice(code.length)), 'no inline hint with WRITELOG at the end of the INSERT line');
        await screenshot('statements-inline-hint');
        const hint = hinted.slice(code.length).trim();
        assert(hint.startsWith(`${iterations.toLocaleString('en-US')} ×`), `the hint does not start with the executions: ${hint}`);
        // The hover over the INSERT statement: the line's share of the session's WRITELOG waits.
        const editor = fixtureEditor(page);
        await editor.locator('.view-line span', { hasText: /^INSERT\b/ }).first().hover();
        // The hover widget is drawn in the workbench's overflow layer, not inside the editor group. MarkdownString's
        // appendText turns spaces into &nbsp;, hence \s in the pattern and the normalised text.
        const hover = page.locator('.monaco-hover', { hasText: /Share\sof\sthe\ssession's\sWRITELOG\swaits/ }).first();
        await hover.waitFor({ state: 'visible', timeout: 15_000 });
        const hoverText = ((await hover.textContent()) ?? '').replace(/\u00a0/g, ' ');
        await screenshot('statements-hint-hover');
        await page.keyboard.press('Escape');
        const share = /Share of the session's WRITELOG waits: ([\d.]+) ?% of ([\d,]+)/.exec(hoverText);
        assert(share, `the hover has no share of the session's WRITELOG waits: ${hoverText}`);
        assert(Number(share[1]) >= MIN_SHARE * 100, `the hover says the INSERT line has ${share[1]} % of the session's WRITELOG waits`);
        assert(hoverText.includes(`WRITELOG waits: ${insertWaits.toLocaleString('en-US')} (`), `the hover's WRITELOG waits differ from the Statements tab's ${insertWaits}: ${hoverText}`);
      },
    },
    {
      name: 'statements: the inline hint is shown whole and says its figures are the stand-in\'s',
      timeoutMs: 30_000,
      run: async ({ page }) => {
        const code = source[insertLine - 1]!;
        const hinted = await waitForLine(page, STATEMENTS_FILE, insertLine, (t) => t.startsWith(code) && /WRITELOG/.test(t.slice(code.length)), 'no inline hint with WRITELOG at the end of the INSERT line');
        const hint = hinted.slice(code.length).trim();
        assert(!hint.endsWith('…'), `the editor cut the hint: ${hint}`);
        assert(/stand-in/.test(hint), `the hint does not say stand-in: ${hint}`);
      },
    },
    {
      name: 'statements: typing in the document clears the inline hint (its lines no longer match the run), and undo restores the text',
      timeoutMs: 60_000,
      run: async ({ page, screenshot }) => {
        const code = source[insertLine - 1]!;
        await waitForLine(page, STATEMENTS_FILE, insertLine, (t) => /WRITELOG/.test(t), 'no inline hint on the INSERT line before the edit');
        await page.locator('.tab', { hasText: STATEMENTS_FILE }).first().click();
        await fixtureEditor(page).locator('.view-line span', { hasText: /^INSERT\b/ }).first().click();
        await page.keyboard.press('End');
        await page.keyboard.type(' ');
        await waitForLine(page, STATEMENTS_FILE, insertLine, (t) => !/WRITELOG/.test(t), 'the inline hint stayed after typing in the document');
        await page.keyboard.press('Home'); // scrolls the editor back to column 1 for the screenshot; no edit
        await screenshot('statements-hint-cleared-on-edit');
        await page.keyboard.press('Control+Z');
        await waitForLine(page, STATEMENTS_FILE, insertLine, (t) => t === code, 'undo did not restore the INSERT line');
        await page.locator('.tab.active.dirty', { hasText: STATEMENTS_FILE }).waitFor({ state: 'detached', timeout: 10_000 });
      },
    },
  ];
}
