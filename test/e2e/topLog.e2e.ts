// Heaviest Log Writers in the real workbench against the TDS stand-in (issue 30, "Done when"): production's history is
// made by deploying fixtures/workspace/toplog.sql's procedure and running it (as an application would, outside VS
// Code), then the command opens the view, a click on the procedure's row lands on its INSERT line in the workspace
// file, and the production lens sits over its CREATE line. Figures are the stand-in model's; lines come from the fixture.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { connect } from '../../src/db/connect';
import type { E2eTest } from './support/harness';
import { repoRoot } from './support/paths';
import { STANDIN_DATABASE, STANDIN_PASSWORD, STANDIN_PROFILE_NAME, STANDIN_USER, type RunningStandin } from './support/standin';
import { answerInputBox, clickNotificationButton, lensLine, lineOf, openFile, pickQuickItem, waitForExplorer } from './support/workbench';

export const TOP_LOG_FILE = 'toplog.sql';
const FIXTURE = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace', TOP_LOG_FILE);
const COMMAND = 'Durability Lens: Show Heaviest Log Writers (Query Store)';
/** What is typed into the palette: its word filter does not match across the title's parentheses. */
const COMMAND_QUERY = 'Durability Lens: Show Heaviest Log Writers';
const PROCEDURE = 'dbo.e2e_log_rows';
/** Enough rows that the WRITELOG waits add up to whole milliseconds (Query Store's unit) at the e2e stand-in's speed. */
const ROWS = 400;
const VIEW = '.pane:has(.pane-header[aria-label*="Heaviest Log Writers"])';

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/**
 * Deploys the fixture's batches and runs the procedure on the stand-in, as the application in production would.
 * Query Store starts empty with 1-minute intervals first: with the default 60-minute intervals, aligned to the clock,
 * a run that crosses the hour reads a span of over an hour (the interval that began before the hour counts whole) and
 * the lens turns to per-day figures, which made this test depend on the wall clock. Cleared, with 1-minute intervals,
 * the span read is the few minutes since the history was made, so the lens shows totals.
 * INTERVAL_LENGTH_MINUTES allows 1 (ALTER DATABASE SET options, Query Store options).
 */
async function makeProductionHistory(standin: RunningStandin): Promise<void> {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  const batches = text.split(/^GO\s*$/m).map((b) => b.trim()).filter((b) => b !== '' && !/^(--[^\n]*\n?)*$/.test(b));
  const session = await connect({ server: '127.0.0.1', port: standin.server.port, database: STANDIN_DATABASE, authentication: { type: 'sql', user: STANDIN_USER }, encrypt: false, trustServerCertificate: false }, STANDIN_PASSWORD, { role: 'workload' });
  try {
    await session.execute(`ALTER DATABASE [${STANDIN_DATABASE}] SET QUERY_STORE CLEAR;`);
    await session.execute(`ALTER DATABASE [${STANDIN_DATABASE}] SET QUERY_STORE (INTERVAL_LENGTH_MINUTES = 1);`);
    for (const b of batches) await session.execute(b);
    await session.execute(`EXEC ${PROCEDURE} @rows = ${ROWS};`);
  } finally {
    await session.close();
  }
}

/** Runs the command, connecting through the UI when asked (run alone the window is not connected yet). */
async function showConnecting(page: Page): Promise<void> {
  // Right after the workbench opens (run alone), the palette may not list the extension's commands yet: ask again
  // until it does, within a deadline.
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ timeout: 15_000 });
    await input.fill(`>${COMMAND_QUERY}`);
    const found = await page.locator('.quick-input-widget .monaco-list-row.focused', { hasText: COMMAND }).waitFor({ timeout: 5_000 }).then(() => true, () => false);
    if (found) break;
    await page.keyboard.press('Escape');
    if (Date.now() > deadline) throw new Error(`the palette never listed "${COMMAND}"`);
  }
  await page.keyboard.press('Enter');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
  const connect = page.locator('.notification-toast.notification-fade-in-done', { hasText: /connect to the production \(or a copy of its\) database first/ }).first();
  const row = page.locator(`${VIEW} .monaco-list-row`).first();
  const first = await Promise.race([
    connect.waitFor({ timeout: 30_000 }).then(() => 'connect', () => 'none'),
    row.waitFor({ timeout: 30_000 }).then(() => 'rows', () => 'none'),
  ]);
  if (first !== 'connect') return;
  await clickNotificationButton(page, /connect to the production/, 'Connect…');
  await pickQuickItem(page, STANDIN_PROFILE_NAME);
  const passwordBox = page.locator('.quick-input-widget', { hasText: /password for "Stand-in \(lab\)"/ });
  const next = await Promise.race([
    passwordBox.waitFor({ timeout: 30_000 }).then(() => 'password', () => 'none'),
    row.waitFor({ timeout: 30_000 }).then(() => 'rows', () => 'none'),
  ]);
  if (next === 'password') await answerInputBox(page, /password for "Stand-in \(lab\)"/, STANDIN_PASSWORD);
}

/** The status bar's cursor position, polled until it shows `line` (1-based) or the deadline passes. */
async function waitForCursorLine(page: Page, line: number, timeoutMs = 20_000): Promise<string> {
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

/** The view's message, polled (with a deadline) until it matches `wanted`; the last text seen when it never does. */
async function viewMessage(page: Page, wanted: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const message = ((await page.locator(`${VIEW} .message`).first().textContent().catch(() => '')) ?? '').trim();
    if (wanted.test(message) || Date.now() > deadline) return message;
    await new Promise((r) => setTimeout(r, 100)); // poll interval; bounded by the deadline above
  }
}

export function topLogTests(standin: RunningStandin): E2eTest[] {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  const insertLine = lineOf(text, /^\s+INSERT INTO dbo\.e2e_log_rows_t/);
  const createLine = lineOf(text, /^CREATE OR ALTER PROCEDURE dbo\.e2e_log_rows/);
  return [
    {
      name: 'top-log: Heaviest Log Writers lists the procedure that wrote the log; its row opens the INSERT line; the production lens is over its CREATE line',
      timeoutMs: 180_000,
      async run({ page, screenshot }) {
        await makeProductionHistory(standin);
        await waitForExplorer(page); // run alone, the workbench may still be restoring
        await openFile(page, TOP_LOG_FILE); // where a developer would be; the row's click must still move the cursor
        await showConnecting(page);
        const row = page.locator(`${VIEW} .monaco-list-row`, { hasText: PROCEDURE }).first();
        await row.waitFor({ timeout: 60_000 });
        const rowText = (await row.textContent()) ?? '';
        assert(/INSERT INTO dbo\.e2e_log_rows_t/.test(rowText), `the row shows the statement: ${rowText}`);
        assert(new RegExp(`${ROWS} exec`).test(rowText), `the row counts ${ROWS} executions: ${rowText}`);
        assert(/log \(.*\/exec\)/.test(rowText), `the row shows log per execution: ${rowText}`);
        // The rows can show while a second read (the connection's own refresh) still says "Reading Query Store…":
        // poll the view's message until that read ends, with a deadline.
        const message = await viewMessage(page, /STAND-IN figures/, 30_000);
        assert(/STAND-IN figures/.test(message), `the view says the figures are the stand-in's: ${message}`);
        await screenshot('toplog-view');

        await row.click();
        await page.locator('.tab.active', { hasText: TOP_LOG_FILE }).first().waitFor({ timeout: 30_000 });
        const status = await waitForCursorLine(page, insertLine);
        assert(/Col 1\b/.test(status), `the cursor is at the start of the INSERT line: ${status}`);
        const lens = await lensLine(page, 'Production (Query Store');
        assert(lens === createLine, `the production lens is over line ${lens}, expected the CREATE line ${createLine}`);
        const title = ((await page.locator('.codelens-decoration a', { hasText: 'Production (Query Store' }).first().textContent()) ?? '').trim();
        assert(new RegExp(`stand-in\\): ${ROWS} executions, .* log, \\d+ % of its waits on the log`).test(title), `lens: ${title}`);
        await screenshot('toplog-production-lens');
      },
    },
    {
      name: 'top-log: the production lens sits beside the Profile EXEC lens of the same routine',
      timeoutMs: 60_000,
      async run({ page }) {
        await openFile(page, TOP_LOG_FILE);
        const profile = await lensLine(page, `Profile EXEC ${PROCEDURE}`);
        const production = await lensLine(page, 'Production (Query Store');
        assert(profile === production && production === createLine, `Profile EXEC over ${profile}, production over ${production}, CREATE at ${createLine}`);
      },
    },
  ];
}
