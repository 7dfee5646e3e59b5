// Restricted Mode (issue 25): a second code-server with workspace trust on, its own user data and a copy of the
// fixture workspace; the trust prompt is answered "No", and then no lens or command sends the file's T-SQL — the
// Profile batch lens, Compare Durability and Profile EXEC… each say so, and the stand-in sees no connection at all.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CodeServer, writeUserSettings, type ServerDirs } from './support/codeServer';
import { report, runTests, screenshotter, type E2eTest, type Outcome } from './support/harness';
import { extensionsDir, fixtureWorkspace, runDir } from './support/paths';
import { standinConnectionSetting, type RunningStandin } from './support/standin';
import { codeLens, lensLine, lineOf, openFile, runCommand } from './support/workbench';

const RESTRICTED_DIR = path.join(runDir, 'restricted');
const DIRS: ServerDirs = { userData: path.join(RESTRICTED_DIR, 'user-data'), extensions: extensionsDir, run: RESTRICTED_DIR };
const WORKSPACE = path.join(RESTRICTED_DIR, 'workspace');

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Waits for our Restricted Mode notification (src/extension/consent/consentGate.ts) and returns its text. */
async function restrictedNotice(page: Page, shot?: () => Promise<unknown>): Promise<string> {
  const toast = page.locator('.notification-toast.notification-fade-in-done', { hasText: /this workspace is in Restricted Mode/ }).first();
  await toast.waitFor({ timeout: 30_000 });
  const text = (await toast.textContent()) ?? '';
  await shot?.();
  await runCommand(page, 'Notifications: Clear All Notifications');
  return text;
}

function tests(standin: RunningStandin): E2eTest[] {
  const loop = fs.readFileSync(path.join(fixtureWorkspace, 'loop-inserts.sql'), 'utf8');
  let connectionsBefore = 0;
  return [
    {
      name: 'Restricted Mode: the trust prompt answered "No", the lenses still show (analysis runs)',
      timeoutMs: 120_000,
      run: async ({ page, screenshot }) => {
        const prompt = page.locator('.monaco-dialog-box', { hasText: /trust the authors/i }).first();
        await prompt.waitFor({ timeout: 60_000 });
        await screenshot('restricted-trust-prompt');
        await prompt.getByRole('button', { name: /No, I don.t trust the authors/ }).click({ timeout: 15_000 });
        await prompt.waitFor({ state: 'hidden', timeout: 15_000 });
        await page.locator('.monaco-workbench').click({ position: { x: 700, y: 400 } }).catch(() => undefined);
        await openFile(page, 'loop-inserts.sql');
        const line = await lensLine(page, 'Profile batch', 60_000);
        assert(line === lineOf(loop, /^WHILE\b/), `the Profile batch lens is over line ${line}`);
        connectionsBefore = standin.server.connectionStats().length;
      },
    },
    {
      name: 'Restricted Mode: the Profile batch lens, Compare Durability and Profile EXEC… run nothing and say why',
      timeoutMs: 120_000,
      run: async ({ page, screenshot }) => {
        await codeLens(page, 'Profile batch').first().click({ timeout: 30_000 });
        const lens = await restrictedNotice(page, () => screenshot('restricted-lens'));
        assert(/Nothing was run and no database setting was changed/.test(lens), `the lens's notice: ${lens}`);
        await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
        await runCommand(page, 'Durability Lens: Compare Durability');
        const compare = await restrictedNotice(page);
        assert(/Compare durability modes for/.test(compare), `the command's notice: ${compare}`);
        await openFile(page, 'procedures.sql');
        await codeLens(page, 'Profile EXEC dbo.e2e_reset').first().click({ timeout: 60_000 });
        const exec = await restrictedNotice(page);
        assert(/Profile EXEC dbo\.e2e_reset/.test(exec), `the procedure lens's notice: ${exec}`);
        // Not even a connection was asked for or opened: nothing reached the server.
        assert((await page.locator('.notification-toast', { hasText: /needs a SQL Server connection/ }).count()) === 0, 'a connection was asked for');
        assert((await page.locator('.quick-input-widget:visible').count()) === 0, 'a prompt is open');
        const after = standin.server.connectionStats().length;
        assert(after === connectionsBefore, `the stand-in accepted ${after - connectionsBefore} connection(s) from the restricted window`);
        assert(!standin.engine.state.dbByName('lab')!.tables.has('s1_rows'), 'loop-inserts.sql created its table');
      },
    },
  ];
}

/** Starts the trust-enabled code-server, runs the Restricted Mode tests in a new page, stops it. */
export async function runRestrictedModeTests(context: BrowserContext, standin: RunningStandin, consoleLines: string[]): Promise<Outcome[]> {
  fs.rmSync(RESTRICTED_DIR, { recursive: true, force: true });
  fs.mkdirSync(RESTRICTED_DIR, { recursive: true });
  fs.cpSync(fixtureWorkspace, WORKSPACE, { recursive: true });
  writeUserSettings({ 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'always', 'durabilityLens.connections': [standinConnectionSetting(standin.server.port)] }, DIRS.userData);
  let server: CodeServer | undefined;
  const page = await context.newPage();
  page.on('console', (msg) => consoleLines.push(`[restricted ${msg.type()}] ${msg.text()}`));
  try {
    server = await CodeServer.start(WORKSPACE, { dirs: DIRS, workspaceTrust: true });
    await page.goto(`${server.url}/?folder=${encodeURIComponent(WORKSPACE)}`);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    return await runTests(tests(standin), { page, workspace: WORKSPACE, screenshot: screenshotter(page) });
  } catch (err) {
    return [report({ name: 'Restricted Mode setup', ok: false, ms: 0, error: err instanceof Error ? (err.stack ?? err.message) : String(err) })];
  } finally {
    await page.close().catch(() => undefined);
    await server?.stop();
  }
}
