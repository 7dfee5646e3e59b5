// On connect (and on demand): lists `durability_lens_%` event sessions that no live run of this window owns — left
// by a crash or a dropped connection — and offers to drop them. Names come from the server: shown only as plain text.
import * as vscode from 'vscode';
import type { SqlSession } from '../db/types';
import type { ConnectionSource } from '../profile';
import { dropOrphanSessions, findOrphanSessions, type SessionScope } from '../xe';

export interface OrphanCheck {
  source: ConnectionSource;
  scope: SessionScope;
  /** Sessions of this window that are running right now (the ad-hoc trace). */
  liveNames: readonly string[];
  output: vscode.LogOutputChannel;
  /** Manual check: say so when nothing was found. */
  reportNone?: boolean;
}

export const DROP_ORPHANS = 'Drop Them';

/** Modal, so the names go in `detail` (plain text, never markdown or links) one per line. */
export function orphanPrompt(names: readonly string[]): { message: string; detail: string } {
  const n = names.length;
  return {
    message: `Durability Lens: ${n} Extended Events session${n === 1 ? '' : 's'} named durability_lens_* ${n === 1 ? 'is' : 'are'} left on the server and no run of this window owns ${n === 1 ? 'it' : 'them'}.`,
    detail: `${names.join('\n')}\n\nThey were probably left by a crash or a dropped connection. A running session keeps costing the server a little for every log flush. Dropping stops and removes only the sessions listed; nothing else changes. If another VS Code window is tracing right now, keep them.`,
  };
}

/** Returns the names found and those dropped. */
export async function offerOrphanCleanup(check: OrphanCheck): Promise<{ found: string[]; dropped: string[] }> {
  let session: SqlSession | null = null;
  try {
    session = await check.source.open('monitor');
    const found = await findOrphanSessions(session, check.liveNames, check.scope);
    if (found.length === 0) {
      if (check.reportNone) void vscode.window.showInformationMessage('Durability Lens: no leftover durability_lens_* event sessions on this server.');
      return { found, dropped: [] };
    }
    check.output.warn(`Leftover event sessions: ${found.map((n) => JSON.stringify(n)).join(', ')}`);
    const prompt = orphanPrompt(found);
    const choice = await vscode.window.showWarningMessage(prompt.message, { modal: true, detail: prompt.detail }, DROP_ORPHANS, 'Keep');
    if (choice !== DROP_ORPHANS) return { found, dropped: [] };
    const outcomes = await dropOrphanSessions(session, found, check.scope);
    const failed = outcomes.filter((o) => o.error !== null);
    for (const o of outcomes) {
      if (o.error) check.output.error(`Could not drop event session ${JSON.stringify(o.name)}: ${o.error}`);
      else check.output.info(`Dropped event session ${JSON.stringify(o.name)}.`);
    }
    if (failed.length > 0) void vscode.window.showErrorMessage(`Durability Lens: ${failed.length} leftover event session(s) could not be dropped (see the output for the reason and the GRANT needed).`, 'Show Output').then((c) => (c ? check.output.show(true) : undefined));
    else void vscode.window.showInformationMessage(`Durability Lens: dropped ${outcomes.length} leftover event session(s).`);
    return { found, dropped: outcomes.filter((o) => o.error === null).map((o) => o.name) };
  } catch (err) {
    // Reading the list needs VIEW SERVER STATE-like rights; without them there is nothing to offer, only to log.
    check.output.warn(`Could not look for leftover event sessions: ${(err as Error).message}`);
    return { found: [], dropped: [] };
  } finally {
    await session?.close().catch(() => undefined);
  }
}
