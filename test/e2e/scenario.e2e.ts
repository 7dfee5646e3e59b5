// Scenario S1 end to end in the real workbench against the TDS stand-in: connect through the UI (password into
// SecretStorage), profile the selection, compare durability modes, read the panel's table and charts, check the
// stand-in was left as found, and that the panel survives a reload. Figures asserted are the stand-in model's.
import type { Page } from 'playwright-core';
import type { E2eTest } from './support/harness';
import { cell, checkCharts, leadingNumber, panelFrame, readMetricTable, waitForPanelTitle, type MetricTable } from './support/panel';
import { STANDIN_PASSWORD, STANDIN_PROFILE_NAME, type RunningStandin } from './support/standin';
import { answerInputBox, clickNotificationButton, lensLine, openFile, pickQuickItem, reloadWindow, runCommand, selectAllIn, waitForExplorer } from './support/workbench';

/** Rows of the scaled-down S1 copy the run writes into the workspace. */
export const S1_ROWS = 300;
export const S1_FILE = `s1-${S1_ROWS}-rows.sql`;

const LOG_WRITES = 'Log writes';
/** The title of the extension's password prompt for the seeded profile. */
const PASSWORD_TITLE = new RegExp(`for "${STANDIN_PROFILE_NAME.replace(/[()]/g, '\\$&')}"`);

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The panel must say its figures are the stand-in's (architecture: anything shown from it says "stand-in"). */
async function standinBanner(page: Page, what: string): Promise<void> {
  const banner = panelFrame(page).getByRole('note').filter({ hasText: 'STAND-IN' });
  await banner.first().waitFor({ timeout: 10_000 }).catch(() => {
    throw new Error(`the ${what} panel shows no STAND-IN label`);
  });
}

/**
 * Waits for the panel titled `title`, or fails at once with the text of an error notification of ours (a failed
 * run, connection or workload) instead of waiting out the whole deadline.
 */
async function panelOrError(page: Page, title: RegExp, timeoutMs: number): Promise<string> {
  const error = page.locator('.notification-toast', { hasText: /Durability Lens(: the run failed|: the workload failed| could not connect)/ }).first();
  const outcome = await Promise.race([
    waitForPanelTitle(page, title, timeoutMs).then((text) => ({ text, failed: false })),
    error.waitFor({ timeout: timeoutMs + 1000 }).then(async () => ({ text: (await error.textContent()) ?? '', failed: true })),
  ]);
  if (outcome.failed) throw new Error(`instead of the panel, the extension reported: ${outcome.text}`);
  return outcome.text;
}

export function scenarioTests(standin: RunningStandin): E2eTest[] {
  let compared: MetricTable | null = null;
  return [
    {
      name: 'S1: Profile Selection connects through the UI and shows the run in the panel',
      timeoutMs: 120_000,
      run: async ({ page, screenshot }) => {
        await waitForExplorer(page);
        await runCommand(page, 'Notifications: Clear All Notifications');
        // Room for the panel in the screenshots: no Problems panel (left open by the UI tests), no side bar.
        if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Hide Panel');
        await runCommand(page, 'View: Close Primary Side Bar');
        await openFile(page, S1_FILE);
        await lensLine(page, 'Profile batch', 60_000);
        await selectAllIn(page, S1_FILE);
        await runCommand(page, 'Durability Lens: Profile Selection');
        // Not connected yet: the command says so and offers to connect; the profile comes from the seeded settings.
        await clickNotificationButton(page, /needs a SQL Server connection/, 'Connect');
        await pickQuickItem(page, STANDIN_PROFILE_NAME);
        await answerInputBox(page, PASSWORD_TITLE, STANDIN_PASSWORD);
        const title = await panelOrError(page, /Durability profile/, 90_000);
        const table = await readMetricTable(page);
        await screenshot('s1-profile-panel');
        assert(/lab/.test(title), `profile panel title does not name the database lab: ${title}`);
        await standinBanner(page, 'profile');
        const firstColumn = table.headers[1]?.split(' (')[0] ?? '';
        const writes = leadingNumber(cell(table, LOG_WRITES, firstColumn));
        // Each of the 300 autocommit inserts waits for its own log flush (DISABLED): at least one write per row.
        assert(writes >= S1_ROWS, `profile shows ${writes} log writes for ${S1_ROWS} autocommit inserts (column ${firstColumn})`);
        const status = standin.leftBehind();
        assert(status.eventSessions.length === 0, `event sessions left after the profile: ${status.eventSessions.join(', ')}`);
      },
    },
    {
      name: 'S1: Compare Durability shows the metric table, charts and the restored setting',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        await selectAllIn(page, S1_FILE);
        // The profile is `development: true`, so no confirmation dialog is expected before the switch.
        await runCommand(page, 'Durability Lens: Compare Durability');
        const title = await panelOrError(page, /Durability comparison/, 150_000);
        assert(/lab/.test(title), `comparison panel title does not name lab: ${title}`);
        const restore = panelFrame(page).getByRole('status').filter({ hasText: /restored|restore/i }).first();
        await restore.waitFor({ timeout: 10_000 });
        const restoreText = (await restore.textContent()) ?? '';
        const table = await readMetricTable(page);
        compared = table;
        await screenshot('s1-comparison-metrics');
        assert(/Original setting DISABLED restored/.test(restoreText), `header does not say DISABLED was restored: ${restoreText}`);
        assert(/verified: DISABLED/.test(restoreText), `restore not verified as DISABLED: ${restoreText}`);
        await standinBanner(page, 'comparison');
        const disabled = leadingNumber(cell(table, LOG_WRITES, 'DISABLED'));
        const forced = leadingNumber(cell(table, LOG_WRITES, 'FORCED'));
        assert(Number.isFinite(disabled) && Number.isFinite(forced), `log writes not numeric: DISABLED ${cell(table, LOG_WRITES, 'DISABLED')}, FORCED ${cell(table, LOG_WRITES, 'FORCED')}`);
        assert(forced < disabled, `log writes under FORCED (${forced}) are not fewer than under DISABLED (${disabled})`);
        const charts = await checkCharts(page);
        await screenshot('s1-comparison-charts');
        assert(charts.length >= 3, `expected at least 3 charts, found ${charts.length}`);
        // Through the stand-in itself, not the panel: the database is back to DISABLED and no trace remains.
        const left = standin.leftBehind();
        assert(left.delayedDurability === 'DISABLED', `stand-in lab is ${left.delayedDurability} after the comparison`);
        assert(left.eventSessions.length === 0, `event sessions left after the comparison: ${left.eventSessions.join(', ')}`);
      },
    },
    {
      name: 'S1: the comparison panel re-renders after a window reload',
      timeoutMs: 120_000,
      run: async ({ page, screenshot }) => {
        assert(compared, 'no comparison table from the previous test');
        // "Developer: Reload Window" is VS Code's own reload: the workbench saves its state (the webview's state
        // included) before the page reloads. A bare browser reload (F5) can skip that save: see README.
        await reloadWindow(page);
        await waitForPanelTitle(page, /Durability comparison/, 90_000);
        // The charts are drawn again (the panel restored with the Charts tab, the one selected before the reload).
        const charts = await checkCharts(page);
        await screenshot('s1-comparison-charts-after-reload');
        assert(charts.length >= 3, `expected at least 3 charts after the reload, found ${charts.length}`);
        const table = await readMetricTable(page);
        await screenshot('s1-comparison-after-reload');
        const before = cell(compared, LOG_WRITES, 'FORCED');
        const after = cell(table, LOG_WRITES, 'FORCED');
        assert(before === after, `FORCED log writes changed across the reload: ${before} → ${after}`);
        assert(table.headers.join('|') === compared.headers.join('|'), `columns changed across the reload: ${table.headers.join(' | ')}`);
      },
    },
    {
      name: 'S1: after a browser reload (F5) right after a run, the panel shows that run',
      timeoutMs: 120_000,
      run: async ({ page, screenshot }) => {
        // The panel shows the comparison (restored above). Profile now, so the newest data is a profile…
        await selectAllIn(page, S1_FILE);
        await runCommand(page, 'Durability Lens: Profile Selection');
        // After the window reload the extension is not connected: Connect again (the password is in SecretStorage).
        await clickNotificationButton(page, /needs a SQL Server connection/, 'Connect');
        await pickQuickItem(page, STANDIN_PROFILE_NAME);
        const passwordBox = page.locator('.quick-input-widget', { hasText: PASSWORD_TITLE });
        const asked = await Promise.race([
          passwordBox.waitFor({ timeout: 90_000 }).then(() => true),
          waitForPanelTitle(page, /Durability profile/, 90_000).then(() => false),
        ]);
        if (asked) throw new Error('the password was asked again after a window reload: it did not stay in SecretStorage');
        // …and reload the page the way a browser user does, without VS Code's shutdown save.
        await page.reload();
        await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        await waitForPanelTitle(page, /Durability (profile|comparison)/, 90_000);
        const title = (await panelFrame(page).getByRole('heading', { level: 1 }).first().textContent()) ?? '';
        await screenshot('s1-panel-after-browser-reload');
        assert(/Durability profile/.test(title), `after F5 the panel shows "${title}", not the profile that ran last`);
      },
    },
];
}
