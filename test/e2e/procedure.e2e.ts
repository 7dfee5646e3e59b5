// The procedure lenses in the real workbench against the TDS stand-in (issue 16): "Profile EXEC…" on a parameterless
// and on a parameterised procedure — the lens, the parameter prompts, the not-deployed dialog and the modal that shows
// the CREATE OR ALTER, then the result panel — and "Compare durability…" reusing the remembered values with the
// deployed definition matching. Figures asserted are the stand-in model's.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { E2eTest } from './support/harness';
import { cell, leadingNumber, panelFrame, readMetricTable, readVerdict, waitForPanelTitle } from './support/panel';
import { repoRoot } from './support/paths';
import { STANDIN_PASSWORD, STANDIN_PROFILE_NAME, type RunningStandin } from './support/standin';
import { answerInputBox, clickNotificationButton, codeLens, lensLine, lineOf, openFile, pickQuickItem, runCommand } from './support/workbench';
import { answerConsent, confirmIf, numberedLine, readConsent } from './support/consent';
import { findProcedure, type StoredProcedure } from '../standin/model/procedures';

export const PROCEDURES_FILE = 'procedures.sql';
export const GO_COMMENT_FILE = 'deploy-go-comment.sql';
const FIXTURE = path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace', PROCEDURES_FILE);
const LOAD_ROWS = 40;
const NOTE = "it's e2e";

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Clicks `button` on the modal dialog whose text matches `match`; returns the dialog's whole text. */
async function answerDialog(page: Page, match: RegExp, button: string, timeoutMs = 30_000): Promise<string> {
  const dialog = page.locator('.monaco-dialog-box', { hasText: match }).first();
  await dialog.waitFor({ timeout: timeoutMs });
  const text = (await dialog.textContent()) ?? '';
  await dialog.getByRole('button', { name: button, exact: true }).click({ timeout: timeoutMs });
  await dialog.waitFor({ state: 'hidden', timeout: timeoutMs });
  return text;
}

/** The panel titled `title`, or the text of our error notification if one shows first. */
async function panelOrError(page: Page, title: RegExp, timeoutMs: number): Promise<string> {
  const error = page.locator('.notification-toast', { hasText: /Durability Lens(: the run failed|: the workload failed| could not connect|: checking or deploying)/ }).first();
  const outcome = await Promise.race([
    waitForPanelTitle(page, title, timeoutMs).then((text) => ({ text, failed: false })),
    error.waitFor({ timeout: timeoutMs + 1000 }).then(async () => ({ text: (await error.textContent()) ?? '', failed: true })),
  ]);
  if (outcome.failed) throw new Error(`instead of the panel, the extension reported: ${outcome.text}`);
  return outcome.text;
}

/** Rows of dbo.e2e_rows on the stand-in, read through its model (not through the extension). */
function standinRows(standin: RunningStandin): Array<{ id: unknown; note: unknown }> {
  const table = standin.engine.state.dbByName('lab')?.tables.get('e2e_rows');
  if (!table) return [];
  const id = table.columns.findIndex((c) => c.name === 'id');
  const note = table.columns.findIndex((c) => c.name === 'note');
  return table.rows.map((r: unknown[]) => ({ id: r[id], note: r[note] }));
}

/** The stand-in's stored procedure object (a redeploy replaces it with a new one), read through its model. */
function standinProcedure(standin: RunningStandin, name: string): StoredProcedure | null {
  return findProcedure(standin.engine.state as never, {} as never, ['lab', 'dbo', name]);
}

/** Polls (with a deadline) until the stand-in's rows satisfy `done`: the run's end is seen in the data it wrote. */
async function pollRows(done: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what}: the expected rows did not arrive within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100)); // poll interval; bounded by the deadline above
  }
}

/**
 * Polls (with a deadline) until the panel's "Profiled" fact matches `workload`: the panel may still show the previous
 * result while this run goes on (its title is the same), and a test must not end with its run still in flight, or the
 * next test's window state (editors closed, a panel opened beside them) is changed under it when the run ends.
 */
async function profiledAs(page: Page, workload: RegExp, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const facts = (await readVerdict(page).catch(() => null))?.facts;
    const shown = facts?.get('Profiled') ?? '';
    if (workload.test(shown)) return;
    if (Date.now() > deadline) throw new Error(`the panel did not show the run of ${workload} within ${timeoutMs} ms (Profiled: ${JSON.stringify(shown)})`);
    await new Promise((r) => setTimeout(r, 200)); // poll interval; bounded by the deadline above
  }
}

/** The workload line of the panel's verdict ("Profiled" fact) and the first measured column's Log writes. */
async function profiled(page: Page): Promise<{ workload: string; writes: number; headline: string }> {
  const verdict = await readVerdict(page);
  const table = await readMetricTable(page);
  const first = table.headers[1]?.split(' (')[0] ?? '';
  return { workload: verdict.facts.get('Profiled') ?? '', writes: leadingNumber(cell(table, 'Log writes', first)), headline: verdict.headline };
}

export function procedureTests(standin: RunningStandin): E2eTest[] {
  const text = fs.readFileSync(FIXTURE, 'utf8');
  return [
    {
      name: 'procedures: a parameterless and a parameterised procedure show Profile EXEC… over their CREATE lines',
      timeoutMs: 90_000,
      run: async ({ page, screenshot }) => {
        await openFile(page, PROCEDURES_FILE);
        const reset = await lensLine(page, 'Profile EXEC dbo.e2e_reset', 60_000);
        const load = await lensLine(page, 'Profile EXEC dbo.e2e_load…', 30_000);
        await screenshot('procedures-lenses');
        assert(reset === lineOf(text, /PROCEDURE dbo\.e2e_reset/), `Profile EXEC dbo.e2e_reset is over line ${reset}`);
        assert(load === lineOf(text, /PROCEDURE dbo\.e2e_load/), `Profile EXEC dbo.e2e_load… is over line ${load}`);
      },
    },
    {
      name: 'procedures: Profile EXEC on the parameterless procedure connects, deploys it after a modal that shows the CREATE OR ALTER, and profiles the call',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        await codeLens(page, 'Profile EXEC dbo.e2e_reset').first().click({ timeout: 30_000 });
        // The window reloaded in the S1 tests: not connected any more (the password stays in SecretStorage).
        await clickNotificationButton(page, /needs a SQL Server connection/, 'Connect');
        await pickQuickItem(page, STANDIN_PROFILE_NAME);
        // After S1 the password is in SecretStorage; run alone (E2E_ONLY) it is asked once here.
        const passwordBox = page.locator('.quick-input-widget', { hasText: /password for "Stand-in \(lab\)"/ });
        const notDeployed = page.locator('.monaco-dialog-box', { hasText: /dbo\.e2e_reset is not deployed/ }).first();
        const next = await Promise.race([
          passwordBox.waitFor({ timeout: 60_000 }).then(() => 'password', () => 'none'),
          notDeployed.waitFor({ timeout: 60_000 }).then(() => 'dialog', () => 'none'),
        ]);
        if (next === 'password') await answerInputBox(page, /password for "Stand-in \(lab\)"/, STANDIN_PASSWORD);
        const missing = await answerDialog(page, /dbo\.e2e_reset is not deployed/, 'Deploy This Version First', 60_000);
        assert(/Nothing has been run or changed yet/.test(missing), `the not-deployed dialog: ${missing}`);
        // The consent view (issue 25): the CREATE OR ALTER it deploys, the call, and the body the call runs, with lines.
        const deploy = /Deploy dbo\.e2e_reset and profile EXEC \[dbo\]\.\[e2e_reset\]/;
        const confirmation = await readConsent(page, deploy, 30_000);
        await screenshot('procedures-deploy-confirmation');
        const header = lineOf(text, /PROCEDURE dbo\.e2e_reset/);
        const deleteLine = lineOf(text, /^\s+DELETE FROM dbo\.e2e_rows;/);
        await confirmIf(page, confirmation, [
          [standinProcedure(standin, 'e2e_reset') === null, 'the procedure was deployed before the user confirmed it'],
          [numberedLine(header, 'CREATE OR ALTER PROCEDURE dbo.e2e_reset').test(confirmation), `no CREATE OR ALTER at line ${header}`],
          [numberedLine(deleteLine, 'DELETE FROM dbo.e2e_rows;').test(confirmation), `no DELETE the call runs at line ${deleteLine}`],
          [/EXEC \[dbo\]\.\[e2e_reset\]/.test(confirmation), 'no call'],
        ], 'Deploy and Run', deploy);
        const title = await panelOrError(page, /Durability profile/, 120_000);
        await profiledAs(page, /EXEC \[dbo\]\.\[e2e_reset\]/);
        const run = await profiled(page);
        await screenshot('procedures-reset-profile-panel');
        assert(/lab/.test(title), `panel title: ${title}`);
        assert(/EXEC \[dbo\]\.\[e2e_reset\]/.test(run.workload), `the panel does not name the call: ${run.workload}`);
        assert(!/failed|SQL error/.test(run.headline), `the profile failed: ${run.headline}`);
        const rows = standinRows(standin);
        assert(rows.length === 1 && rows[0]!.note === 'reset', `dbo.e2e_rows after the reset call: ${JSON.stringify(rows)}`);
        assert(standin.leftBehind().eventSessions.length === 0, 'an event session was left behind');
      },
    },
    {
      name: 'procedures: Profile EXEC… on the parameterised procedure asks each parameter (type and default shown), and the call inserts what was asked',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        await page.locator('.tab', { hasText: PROCEDURES_FILE }).first().click();
        await codeLens(page, 'Profile EXEC dbo.e2e_load…').first().click({ timeout: 30_000 });
        const rowsBox = page.locator('.quick-input-widget', { hasText: /parameter 1 of 2/ });
        await rowsBox.waitFor({ timeout: 30_000 });
        const rowsPrompt = (await rowsBox.textContent()) ?? '';
        assert(/@rows int/.test(rowsPrompt), `the first prompt does not show @rows int: ${rowsPrompt}`);
        // A value that does not fit the type is refused in the box itself.
        await rowsBox.locator('input').fill('forty');
        await page.locator('.quick-input-widget', { hasText: /whole number/ }).waitFor({ timeout: 15_000 });
        await screenshot('procedures-parameter-validation');
        await answerInputBox(page, /parameter 1 of 2/, String(LOAD_ROWS));
        const noteBox = page.locator('.quick-input-widget', { hasText: /parameter 2 of 2/ });
        await noteBox.waitFor({ timeout: 15_000 });
        const notePrompt = (await noteBox.textContent()) ?? '';
        assert(/@note nvarchar\(40\) = N'e2e'/.test(notePrompt), `the second prompt does not show type and default: ${notePrompt}`);
        assert((await noteBox.locator('input').inputValue()) === 'DEFAULT', 'a parameter with a default is offered DEFAULT');
        await answerInputBox(page, /parameter 2 of 2/, NOTE);
        await answerDialog(page, /dbo\.e2e_load is not deployed/, 'Deploy This Version First', 60_000);
        const deploy = /Deploy dbo\.e2e_load and profile EXEC \[dbo\]\.\[e2e_load\] @rows = 40/;
        const confirmation = await readConsent(page, deploy, 30_000);
        const insertLine = lineOf(text, /^\s+INSERT INTO dbo\.e2e_rows \(id, note\) VALUES \(@i, @note\);/);
        await confirmIf(page, confirmation, [
          [standinProcedure(standin, 'e2e_load') === null, 'the procedure was deployed before the user confirmed it'],
          [numberedLine(insertLine, 'INSERT INTO dbo.e2e_rows (id, note) VALUES (@i, @note);').test(confirmation), `no INSERT the call runs at line ${insertLine}`],
        ], 'Deploy and Run', deploy);
        await panelOrError(page, /Durability profile/, 120_000);
        await profiledAs(page, /EXEC \[dbo\]\.\[e2e_load\] @rows = 40\b/);
        const run = await profiled(page);
        await screenshot('procedures-load-profile-panel');
        assert(/EXEC \[dbo\]\.\[e2e_load\] @rows = 40, @note = N'it''s e2e'/.test(run.workload), `the panel does not name the call: ${run.workload}`);
        // The model flushes the log once per autocommit INSERT: at least one log write per row inserted.
        assert(run.writes >= LOAD_ROWS, `Log writes ${run.writes} for ${LOAD_ROWS} autocommit inserts`);
        const rows = standinRows(standin).filter((r) => r.note === NOTE);
        assert(rows.length === LOAD_ROWS, `${rows.length} rows with the typed note, expected ${LOAD_ROWS}`);
      },
    },
    {
      name: 'procedures: Compare durability… reuses the last values and, with the deployed definition matching, compares the call',
      timeoutMs: 240_000,
      run: async ({ page, screenshot }) => {
        await page.locator('.tab', { hasText: PROCEDURES_FILE }).first().click();
        const before = standinRows(standin).length;
        const compare = page.locator('.codelens-decoration a', { hasText: /^Compare durability…$/ });
        await compare.first().click({ timeout: 30_000 });
        await pickQuickItem(page, 'Last values');
        // The definition deployed in the previous test matches the editor, and development: true → no Switch and Compare
        // dialog; the consent view asks once for the comparison's runs (the profile's confirmation covered one run).
        const runs = await readConsent(page);
        await confirmIf(page, runs, [[/The parts above run 7 times in all/.test(runs), 'no run count (7) in the consent view']], 'Run');
        const title = await panelOrError(page, /Durability comparison/, 200_000);
        const verdict = await readVerdict(page);
        await screenshot('procedures-load-comparison');
        assert(/lab/.test(title), `comparison title: ${title}`);
        assert(/restored ✓/.test(verdict.facts.get('Database') ?? ''), `restore: ${verdict.facts.get('Database')}`);
        const added = standinRows(standin).length - before;
        assert(added > 0 && added % LOAD_ROWS === 0, `the comparison's runs added ${added} rows, not a multiple of ${LOAD_ROWS}`);
        const left = standin.leftBehind();
        assert(left.delayedDurability === 'DISABLED', `lab is ${left.delayedDurability} after the comparison`);
        assert(left.eventSessions.length === 0, `event sessions left: ${left.eventSessions.join(', ')}`);
        assert(await panelFrame(page).getByRole('heading', { level: 1 }).first().isVisible(), 'the comparison panel has no heading');
      },
    },
    {
      name: 'procedures: values saved as a named set are offered by the lens and run again from it',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        const withDefaultNote = () => standinRows(standin).filter((r) => r.note === 'e2e').length;
        const before = withDefaultNote();
        await page.locator('.tab', { hasText: PROCEDURES_FILE }).first().click();
        await codeLens(page, 'Profile EXEC dbo.e2e_load…').first().click({ timeout: 30_000 });
        await pickQuickItem(page, 'Enter values and save them as a set');
        // The prompts start from the last values.
        const rowsBox = page.locator('.quick-input-widget', { hasText: /parameter 1 of 2/ });
        await rowsBox.waitFor({ timeout: 15_000 });
        assert((await rowsBox.locator('input').inputValue()) === String(LOAD_ROWS), 'the first prompt does not start from the last value');
        await answerInputBox(page, /parameter 1 of 2/, '5');
        await answerInputBox(page, /parameter 2 of 2/, 'DEFAULT');
        await answerInputBox(page, /Save the parameter values of dbo\.e2e_load/, 'five rows');
        await panelOrError(page, /Durability profile/, 120_000);
        await pollRows(() => withDefaultNote() === before + 5, 'the first run of the set');
        // Again from the lens, this time picking the saved set by its name (the panel may share the file's editor group).
        await page.locator('.tab', { hasText: PROCEDURES_FILE }).first().click();
        await codeLens(page, 'Profile EXEC dbo.e2e_load…').first().click({ timeout: 30_000 });
        const picker = page.locator('.quick-input-widget', { hasText: /Last values/ });
        await picker.waitFor({ timeout: 15_000 });
        await screenshot('procedures-saved-set-picker');
        await pickQuickItem(page, 'five rows');
        await pollRows(() => withDefaultNote() === before + 10, 'the run from the saved set');
        const run = await profiled(page);
        assert(/EXEC \[dbo\]\.\[e2e_load\] @rows = 5 \(/.test(run.workload), `the panel does not name the call from the set: ${run.workload}`);
      },
    },
    {
      name: 'procedures: a lens inside a procedure body profiles the procedure through EXEC and never redeploys it; the cursor there gets EXEC offered, nothing run',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        await page.locator('.tab', { hasText: PROCEDURES_FILE }).first().click();
        const editor = page.locator('.editor-group-container', { has: page.locator('.tab.active', { hasText: PROCEDURES_FILE }) }).first();
        const title = 'Profile this loop via EXEC dbo.e2e_load…';
        const line = await lensLine(page, title, 30_000);
        assert(line === lineOf(text, /^\s+WHILE @i < @rows/), `"${title}" is over line ${line}, not the loop`);
        // (A parameterless procedure's own "Compare durability" lens is the EXEC flow; a COMMIT pair would bring "Profile transaction".)
        const runsBatch = editor.locator('.codelens-decoration a', { hasText: /^(Profile batch|Profile batch \(GO \d+\)|Profile transaction)$/ });
        assert((await runsBatch.count()) === 0, 'a lens in the procedure file would run a procedure\'s batch (its CREATE OR ALTER)');
        const before = standinProcedure(standin, 'e2e_load');
        assert(before, 'dbo.e2e_load is not deployed on the stand-in (the earlier tests deploy it)');
        const rowsBefore = standinRows(standin).length;
        await editor.locator('.codelens-decoration a', { hasText: title }).first().click({ timeout: 30_000 });
        await pickQuickItem(page, 'Last values');
        // The call was confirmed with the deploy (same file, same text): no consent view, the run starts.
        await panelOrError(page, /Durability profile/, 120_000);
        await pollRows(() => standinRows(standin).length === rowsBefore + 5, 'the call from the lens in the body');
        const run = await profiled(page);
        await screenshot('procedures-lens-in-body');
        assert(/EXEC \[dbo\]\.\[e2e_load\] @rows = 5/.test(run.workload), `the panel does not name the call: ${run.workload}`);
        assert(standinProcedure(standin, 'e2e_load') === before, 'dbo.e2e_load was redeployed (a new object on the stand-in)');

        // The cursor inside the body, "Profile Selection" with nothing selected (docs/selection.md): the document defines a
        // procedure, so nothing runs; the refusal names the one the cursor is in and offers its EXEC.
        await page.locator('.tab', { hasText: PROCEDURES_FILE }).first().click();
        await editor.locator('.view-lines').first().click();
        await page.keyboard.press('Control+G');
        const goTo = page.locator('.quick-input-widget input');
        await goTo.waitFor({ timeout: 15_000 });
        await goTo.fill(`:${lineOf(text, /^\s+INSERT INTO dbo\.e2e_rows \(id, note\) VALUES \(@i, @note\);/)}`);
        await page.keyboard.press('Enter');
        await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 15_000 });
        const rowsNow = standinRows(standin).length;
        await runCommand(page, 'Durability Lens: Profile Selection');
        const refusal = page.locator('.notification-toast.notification-fade-in-done', { hasText: /the cursor is in the body of procedure dbo\.e2e_load/ }).first();
        await refusal.waitFor({ timeout: 30_000 });
        const said = (await refusal.textContent()) ?? '';
        await screenshot('procedures-cursor-in-body');
        assert(/redeploying it/.test(said) && /Nothing was run\./.test(said), `the refusal: ${said}`);
        assert((await refusal.getByRole('button', { name: 'Profile EXEC dbo.e2e_load…', exact: true }).count()) === 1, `no Profile EXEC offered: ${said}`);
        await runCommand(page, 'Notifications: Clear All Notifications');
        assert(standinProcedure(standin, 'e2e_load') === before, 'dbo.e2e_load was redeployed');
        assert(standinRows(standin).length === rowsNow, 'something ran');
      },
    },
    {
      name: 'procedures: "Deploy This Version First" after a `GO /* comment */` shows and deploys only the procedure, never the DELETE after it',
      timeoutMs: 180_000,
      run: async ({ page, screenshot }) => {
        const source = fs.readFileSync(path.join(repoRoot, 'test', 'e2e', 'fixtures', 'workspace', GO_COMMENT_FILE), 'utf8');
        await openFile(page, GO_COMMENT_FILE);
        const rowsBefore = standinRows(standin).length;
        assert(rowsBefore > 0, 'dbo.e2e_rows is empty: the earlier procedure tests fill it');
        await codeLens(page, 'Profile EXEC dbo.e2e_count').first().click({ timeout: 60_000 });
        await answerDialog(page, /dbo\.e2e_count is not deployed/, 'Deploy This Version First', 60_000);
        const deploy = /Deploy dbo\.e2e_count and profile EXEC \[dbo\]\.\[e2e_count\]/;
        const confirmation = await readConsent(page, deploy, 30_000);
        await screenshot('procedures-go-comment-consent');
        const header = lineOf(source, /PROCEDURE dbo\.e2e_count/);
        assert(numberedLine(header, 'CREATE OR ALTER PROCEDURE dbo.e2e_count').test(confirmation), `the consent view does not show the CREATE OR ALTER at line ${header}: ${confirmation}`);
        if (/DELETE FROM dbo\.e2e_rows/.test(confirmation)) {
          await answerConsent(page, 'Cancel', deploy);
          assert(standinProcedure(standin, 'e2e_count') === null && standinRows(standin).length === rowsBefore, 'cancelled, yet something ran');
          throw new Error(`the deploy would send the DELETE after "GO /* … */" (shown in the consent view, cancelled): ${confirmation}`);
        }
        await answerConsent(page, 'Deploy and Run', deploy);
        await panelOrError(page, /Durability profile/, 120_000);
        await profiledAs(page, /EXEC \[dbo\]\.\[e2e_count\]/);
        const deployed = standinProcedure(standin, 'e2e_count');
        assert(deployed && !/DELETE/i.test(deployed.definition), `the deployed definition: ${deployed?.definition}`);
        assert(standinRows(standin).length === rowsBefore, `dbo.e2e_rows lost rows: ${rowsBefore} → ${standinRows(standin).length}`);
      },
    },
  ];
}
