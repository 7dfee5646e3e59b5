// The README's demo steps, literally, in the real workbench against the TDS stand-in: open the S1 sample, click its
// Profile batch lens (connecting through the UI, password into SecretStorage), Compare Durability from the palette
// with the cursor at line 1; read the verdict, the table and the charts; check the panel at 600 and 1400 px, the
// stand-in left as found, and that the panel survives a reload. Figures asserted are the stand-in model's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { E2eTest } from './support/harness';
import { cell, checkCharts, leadingNumber, panelFrame, readMetricTable, readVerdict, selectTab, truncation, waitForPanelTitle, type MetricTable } from './support/panel';
import { repoRoot, resultsDir } from './support/paths';
import { STANDIN_PASSWORD, STANDIN_PROFILE_NAME, type RunningStandin } from './support/standin';
import { confirmIf, numberedLine, readConsent } from './support/consent';
import { themeTests } from './themes.e2e';
import { answerInputBox, clickNotificationButton, codeLens, lensLine, lineOf, openFile, pickQuickItem, reloadWindow, runCommand, selectAllIn, waitForExplorer } from './support/workbench';

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

/** The README's demo file, opened as the README says (the workspace holds a copy of samples/). */
export const README_SAMPLE = 'samples/s1-single-row-inserts.sql';
const SAMPLE_NAME = 'samples/s1-single-row-inserts.sql'.split('/').pop()!;
const SAMPLE_ROWS = 10_000;

/** The panel at `width` px (the browser window sized so the panel's editor group gets it): screenshot + no cut text. */
export async function panelAt(page: Page, windowWidth: number, name: string, screenshot: (n: string) => Promise<string>): Promise<number> {
  await page.setViewportSize({ width: windowWidth, height: 900 });
  const frame = page.locator('iframe.webview').first();
  // The workbench lays the editor groups out again after a resize: poll until the frame's width settles.
  const deadline = Date.now() + 15_000;
  let width = 0;
  for (let same = 0; same < 3 && Date.now() < deadline; ) {
    const box = await frame.boundingBox();
    const w = Math.round(box?.width ?? 0);
    same = w > 0 && w === width ? same + 1 : 0;
    width = w;
    await new Promise((r) => setTimeout(r, 150)); // poll interval; bounded by the deadline above
  }
  const layout = await truncation(page);
  await screenshot(name);
  await frame.screenshot({ path: path.join(resultsDir, `${name}-panel-only.png`) });
  assert(layout.cut.length === 0, `at ${layout.width} px the panel cuts: ${layout.cut.join(' | ')}`);
  assert(layout.pageScroll <= 0, `at ${layout.width} px the panel scrolls sideways by ${layout.pageScroll} px`);
  assert(layout.metricsOverflow === 0, `at ${layout.width} px the metric table is ${layout.metricsOverflow} px wider than the panel (the ratio column is off to the right)`);
  return layout.width;
}

export function scenarioTests(standin: RunningStandin): E2eTest[] {
  let compared: MetricTable | null = null;
  return [
    {
      name: 'README demo step 1: the sample shows the Profile batch lens over its loop',
      timeoutMs: 90_000,
      run: async ({ page, screenshot }) => {
        await waitForExplorer(page);
        await runCommand(page, 'Notifications: Clear All Notifications');
        // Room for the panel in the screenshots: no Problems panel (left open by the UI tests), no side bar.
        if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Hide Panel');
        await runCommand(page, 'View: Close Primary Side Bar');
        await openFile(page, README_SAMPLE);
        const line = await lensLine(page, 'Profile batch', 60_000);
        const text = fs.readFileSync(path.join(repoRoot, README_SAMPLE), 'utf8');
        await screenshot('readme-step1-sample-open');
        assert(line === lineOf(text, /^WHILE\b/), `the Profile batch lens is over line ${line}, not the WHILE loop`);
      },
    },
    {
      name: 'README demo step 2: the Profile batch lens connects through the UI, shows the setup and the loop it will run, runs only after Run, and profiles the loop',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        // Literally: the lens, no selection (it used to run the loop alone → "Invalid object name 'dbo.SingleRowInsert'").
        await codeLens(page, 'Profile batch').first().click({ timeout: 30_000 });
        await clickNotificationButton(page, /needs a SQL Server connection/, 'Connect');
        await pickQuickItem(page, STANDIN_PROFILE_NAME);
        await answerInputBox(page, PASSWORD_TITLE, STANDIN_PASSWORD);
        // The consent view (issue 25): the setup batches and the loop, with the document's line numbers, before anything runs.
        const sample = fs.readFileSync(path.join(repoRoot, README_SAMPLE), 'utf8');
        const consent = await readConsent(page);
        await screenshot('readme-step2-consent');
        const lab = standin.engine.state.dbByName('lab')!;
        const shows = ([pattern, text]: readonly [RegExp, string]) => [numberedLine(lineOf(sample, pattern), text).test(consent), `no line ${lineOf(sample, pattern)} "${text}"`] as const;
        await confirmIf(page, consent, [
          [!lab.tables.has('singlerowinsert'), 'the setup ran before the user confirmed it'],
          shows([/^CREATE TABLE dbo\.SingleRowInsert/, 'CREATE TABLE dbo.SingleRowInsert']),
          shows([/^\s+DROP TABLE dbo\.SingleRowInsert;/, 'DROP TABLE dbo.SingleRowInsert;']),
          shows([/^\s+INSERT INTO dbo\.SingleRowInsert DEFAULT VALUES;/, 'INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;']),
          [/Setup — runs first, unmeasured/.test(consent) && /── Measured/.test(consent), 'no setup and measured parts'],
        ], 'Run');
        const title = await panelOrError(page, /Durability profile/, 150_000);
        const verdict = await readVerdict(page);
        const table = await readMetricTable(page);
        await screenshot('readme-step2-profile-panel');
        assert(/lab/.test(title), `profile panel title does not name the database lab: ${title}`);
        await standinBanner(page, 'profile');
        assert(!/failed|SQL error/.test(verdict.headline), `the profile failed: ${verdict.headline}`);
        const compared = verdict.facts.get('Profiled') ?? '';
        assert(/after setup batches 1–2/.test(compared), `the panel does not say the setup ran first: ${compared}`);
        const firstColumn = table.headers[1]?.split(' (')[0] ?? '';
        const writes = leadingNumber(cell(table, LOG_WRITES, firstColumn));
        // Each of the 10,000 autocommit inserts waits for its own log flush (DISABLED): at least one write per row.
        assert(writes >= SAMPLE_ROWS, `profile shows ${writes} log writes for ${SAMPLE_ROWS} autocommit inserts (column ${firstColumn})`);
        const status = standin.leftBehind();
        assert(status.eventSessions.length === 0, `event sessions left after the profile: ${status.eventSessions.join(', ')}`);
      },
    },
    {
      name: 'README demo step 3: Compare Durability from the palette with the cursor at line 1 compares the workload, verdict first',
      timeoutMs: 240_000,
      run: async ({ page, screenshot }) => {
        // Where the file opened: line 1, no selection (it used to compare batch 1, SET NOCOUNT ON).
        await page.locator('.tab', { hasText: SAMPLE_NAME }).first().click();
        await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+Home');
        // The profile is `development: true`, so no Switch and Compare dialog: the consent view says how many runs the
        // comparison makes (the profile's confirmation covered one run, not 2 modes × 3 + 1 warm-up).
        await runCommand(page, 'Durability Lens: Compare Durability');
        const runs = await readConsent(page);
        await confirmIf(page, runs, [[/The parts above run 7 times in all: 2 modes × 3 measured run\(s\) \+ 1 warm-up run/.test(runs), 'no run count (7) in the consent view']], 'Run');
        const title = await panelOrError(page, /Durability comparison/, 200_000);
        assert(/lab/.test(title), `comparison panel title does not name lab: ${title}`);
        const verdict = await readVerdict(page);
        const table = await readMetricTable(page);
        compared = table;
        await screenshot('readme-step3-comparison-verdict');
        await standinBanner(page, 'comparison');
        assert(/^FORCED ran [\d.,]+× faster than DISABLED \([\d.,]+–[\d.,]+×, \d+ runs each; conclusive\)$/.test(verdict.headline), `verdict headline: ${verdict.headline}`);
        assert(/^Original setting DISABLED restored ✓ \(verified\)$/.test(verdict.facts.get('Database') ?? ''), `restore: ${verdict.facts.get('Database')}`);
        assert(/^DISABLED 1\.00 .*, FORCED 0\.0/.test(verdict.facts.get('Log flushes per commit') ?? ''), `flushes per commit: ${verdict.facts.get('Log flushes per commit')}`);
        assert(/^WRITELOG/.test(verdict.facts.get('Where the time went (DISABLED)') ?? ''), `top wait: ${verdict.facts.get('Where the time went (DISABLED)')}`);
        assert(/of this workload's commits/.test(verdict.facts.get('Data-loss exposure (FORCED)') ?? ''), `exposure: ${verdict.facts.get('Data-loss exposure (FORCED)')}`);
        // What the README promises: many 4 KB log writes under DISABLED against a few 60 KB ones under FORCED.
        const disabled = leadingNumber(cell(table, LOG_WRITES, 'DISABLED'));
        const forced = leadingNumber(cell(table, LOG_WRITES, 'FORCED'));
        assert(disabled >= SAMPLE_ROWS && forced * 20 < disabled, `log writes DISABLED ${disabled}, FORCED ${forced}`);
        const perWrite = (c: string) => cell(table, 'Average bytes per log write', c);
        assert(/^4(\.\d+)? KiB\/write/.test(perWrite('DISABLED')), `DISABLED bytes per log write: ${perWrite('DISABLED')}`);
        assert(/^(5\d|60)(\.\d+)? KiB\/write/.test(perWrite('FORCED')), `FORCED bytes per log write: ${perWrite('FORCED')}`);
        const charts = await checkCharts(page);
        await screenshot('readme-step3-comparison-charts');
        assert(charts.length >= 3, `expected at least 3 charts, found ${charts.length}`);
        // Through the stand-in itself, not the panel: the database is back to DISABLED and no trace remains.
        const left = standin.leftBehind();
        assert(left.delayedDurability === 'DISABLED', `stand-in lab is ${left.delayedDurability} after the comparison`);
        assert(left.eventSessions.length === 0, `event sessions left after the comparison: ${left.eventSessions.join(', ')}`);
      },
    },
    {
      name: 'the comparison verdict is whole at 600 px (beside the editor) and at 1400 px',
      timeoutMs: 90_000,
      run: async ({ page, screenshot }) => {
        await selectTab(page, 'Metrics');
        try {
          // Side bar closed, two editor groups side by side: each gets about half the window.
          const narrow = await panelAt(page, 1240, 'panel-600px', screenshot);
          assert(narrow >= 560 && narrow <= 660, `the narrow panel is ${narrow} px wide, not about 600`);
          const wide = await panelAt(page, 2840, 'panel-1400px', screenshot);
          assert(wide >= 1340 && wide <= 1460, `the wide panel is ${wide} px wide, not about 1400`);
        } finally {
          await page.setViewportSize({ width: 1400, height: 900 });
        }
      },
    },
    // The comparison still on screen: its contrast in the four kinds of theme (issue 28).
    ...themeTests(),
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
        await selectAllIn(page, SAMPLE_NAME);
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
