// Launches Debian's Chromium through playwright-core (never `playwright install`: it downloads browsers)
// with a fresh profile per run, and records the page console for diagnosis.
import * as fs from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';

const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export async function launchBrowser(profileDir: string): Promise<BrowserContext> {
  fs.rmSync(profileDir, { recursive: true, force: true });
  fs.mkdirSync(profileDir, { recursive: true });
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
}

/** Keeps every console line of a page (the extension's console output arrives here too). */
export function recordConsole(page: Page, sink: string[]): void {
  page.on('console', (msg) => sink.push(`[${msg.type()}] ${msg.text()}`));
  page.on('pageerror', (err) => sink.push(`[pageerror] ${err.message}`));
}
