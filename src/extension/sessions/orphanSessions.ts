// On connect (and on demand): lists `durability_lens_%` event sessions that no live run owns — left by a crash or a
// dropped connection — and offers to drop them. Ownership comes from the session ledger (sessionLedger.ts): a live
// session of another window is never offered; one this VS Code did not create is offered only on demand, marked as
// such. Names come from the server: shown only as plain text.
import * as vscode from 'vscode';
import type { SqlSession } from '../../db/types';
import type { ConnectionSource } from '../../profile';
import { dropOrphanSessions, findOrphanSessions, type SessionScope } from '../../xe';
import type { SessionLedger } from './sessionLedger';
import { l10n } from '../l10n';
import { oneLineField } from '../../shared/visibleText';

export interface OrphanCheck {
  source: ConnectionSource;
  scope: SessionScope;
  /** Sessions of this window that are running right now (the ad-hoc trace). */
  liveNames: readonly string[];
  output: vscode.LogOutputChannel;
  /** Manual check: say so when nothing was found, and also offer sessions this VS Code did not create. */
  reportNone?: boolean;
  /** Who created which session; without it every session found counts as this window's. */
  ledger?: SessionLedger;
}

// A button label, translated when shown (activation installs vscode.l10n.t after this module loads): the choice is
// compared with the same call.
export const DROP_ORPHANS = () => l10n.t('Drop Them');

/** Modal, so the names go in `detail` (plain text, never markdown or links) one per line. */
export function orphanPrompt(serverNames: readonly string[], serverUnknown: readonly string[] = []): { message: string; detail: string } {
  // One per line: a name holding a line feed or bidi override (a bracketed name can) shows it as visible text.
  const names = serverNames.map(oneLineField);
  const unknown = serverUnknown.map(oneLineField);
  const n = names.length + unknown.length;
  const unknownPart = unknown.length > 0 ? `${names.length > 0 ? '\n\n' : ''}${l10n.t('Not started by this VS Code (the CLI, another machine or an older version) — drop only if nobody is using them:')}\n${unknown.join('\n')}` : '';
  return {
    message: n === 1
      ? l10n.t('Durability Lens: 1 Extended Events session named durability_lens_* is left on the server and no running trace owns it.')
      : l10n.t('Durability Lens: {0} Extended Events sessions named durability_lens_* are left on the server and no running trace owns them.', n),
    detail: `${names.join('\n')}${unknownPart}\n\n${l10n.t('They were probably left by a crash or a dropped connection. A running session keeps costing the server a little for every log flush. Dropping stops and removes only the sessions listed; nothing else changes.')}`,
  };
}

/** Returns the names found and those dropped. */
export async function offerOrphanCleanup(check: OrphanCheck): Promise<{ found: string[]; dropped: string[] }> {
  let session: SqlSession | null = null;
  try {
    session = await check.source.open('monitor');
    const all = await findOrphanSessions(session, check.liveNames, check.scope);
    const owned = check.ledger ? check.ledger.classify(all, check.liveNames) : { orphans: all, liveElsewhere: [], unknown: [] };
    if (owned.liveElsewhere.length > 0) check.output.info(`Event sessions of other open windows (left alone): ${owned.liveElsewhere.map((n) => JSON.stringify(n)).join(', ')}`);
    const unknown = check.reportNone ? owned.unknown : [];
    if (owned.unknown.length > 0 && !check.reportNone) check.output.info(`Event sessions not started by this VS Code (left alone; "Drop Leftover Event Sessions" offers them): ${owned.unknown.map((n) => JSON.stringify(n)).join(', ')}`);
    const found = [...owned.orphans, ...unknown];
    if (found.length === 0) {
      if (check.reportNone) void vscode.window.showInformationMessage(l10n.t('Durability Lens: no leftover durability_lens_* event sessions on this server.'));
      return { found, dropped: [] };
    }
    check.output.warn(`Leftover event sessions: ${found.map((n) => JSON.stringify(n)).join(', ')}`);
    const prompt = orphanPrompt(owned.orphans, unknown);
    const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, DROP_ORPHANS(), l10n.t('Keep'));
    if (choice !== DROP_ORPHANS()) return { found, dropped: [] };
    const outcomes = await dropOrphanSessions(session, found, check.scope);
    for (const o of outcomes) if (o.error === null) await check.ledger?.release(o.name);
    const failed = outcomes.filter((o) => o.error !== null);
    for (const o of outcomes) {
      if (o.error) check.output.error(`Could not drop event session ${JSON.stringify(o.name)}: ${o.error}`);
      else check.output.info(`Dropped event session ${JSON.stringify(o.name)}.`);
    }
    if (failed.length > 0) void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0} leftover event session(s) could not be dropped (see the output for the reason and the GRANT needed).`, failed.length), l10n.t('Show Output')).then((c) => (c ? check.output.show(true) : undefined));
    else void vscode.window.showInformationMessage(l10n.t(`Durability Lens: dropped {0} leftover event session(s).`, outcomes.length));
    return { found, dropped: outcomes.filter((o) => o.error === null).map((o) => o.name) };
  } catch (err) {
    // Reading the list needs VIEW SERVER STATE-like rights; without them there is nothing to offer, only to log.
    check.output.warn(`Could not look for leftover event sessions: ${(err as Error).message}`);
    return { found: [], dropped: [] };
  } finally {
    await session?.close().catch(() => undefined);
  }
}
