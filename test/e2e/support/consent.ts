// The consent view in the workbench (issue 25): the modal that shows exactly what a run sends, batch by batch with
// document line numbers, before anything that changes data or schema runs. Every wait has a deadline.
import type { Locator, Page } from 'playwright-core';

/** The consent modal's message starts "Durability Lens: confirm what runs —" (src/extension/consent/consentView.ts). */
export const CONSENT_DIALOG = /confirm what runs —/;

export function consentDialog(page: Page, match: RegExp = CONSENT_DIALOG): Locator {
  return page.locator('.monaco-dialog-box', { hasText: match }).first();
}

/**
 * Waits for the consent modal and returns its text as shown: innerText keeps the line breaks between the numbered
 * lines (the dialog collapses runs of spaces, so indentation reads as one space).
 */
export async function readConsent(page: Page, match: RegExp = CONSENT_DIALOG, timeoutMs = 60_000): Promise<string> {
  const dialog = consentDialog(page, match);
  await dialog.waitFor({ timeout: timeoutMs });
  return dialog.innerText();
}

/** Clicks `button` ("Run", "Deploy and Run", "Cancel") on the open consent modal and waits until it is gone. */
export async function answerConsent(page: Page, button: string, match: RegExp = CONSENT_DIALOG, timeoutMs = 30_000): Promise<void> {
  const dialog = consentDialog(page, match);
  await dialog.getByRole('button', { name: button, exact: true }).click({ timeout: timeoutMs });
  await dialog.waitFor({ state: 'hidden', timeout: timeoutMs });
}

/** A numbered line of the consent text: `12 │ CREATE TABLE …` (spaces collapsed as the dialog shows them). */
export function numberedLine(line: number, text: string): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`(^|\\n)\\s*${line}\\s+│\\s+${escaped}`);
}

/**
 * Answers the open consent modal with `button` when every check holds; otherwise cancels it (so the next test does not
 * meet an open dialog) and throws with what was missing and the text shown.
 */
export async function confirmIf(page: Page, shown: string, checks: ReadonlyArray<readonly [boolean, string]>, button: string, match: RegExp = CONSENT_DIALOG): Promise<void> {
  const failed = checks.filter(([ok]) => !ok).map(([, what]) => what);
  if (failed.length === 0) {
    await answerConsent(page, button, match);
    return;
  }
  await answerConsent(page, 'Cancel', match).catch(() => undefined);
  throw new Error(`${failed.join('; ')} — the consent view showed:\n${shown}`);
}
