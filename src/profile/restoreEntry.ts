// One restore: puts a journal entry's (or an ownership marker's) database back to its original setting, only while the
// setting is still what that run last applied, verifies it by reading it back, and only then clears the entry. The
// outcome says exactly what state the database is in and, when it failed, the statement to run.
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { DurabilityChangeError, readDurability, setDurabilityRetrying, type ChangeAdvice } from './durabilitySetting';
import type { RestoreEntry, RestoreJournal } from './restoreJournal';
import type { DurabilityMode } from './types';

export type RestoreStatus = 'restored' | 'already-original' | 'external-change' | 'in-use' | 'failed';

export interface RestoreOutcome {
  status: RestoreStatus;
  server: string;
  database: string;
  originalSetting: DurabilityMode;
  /** The setting read back at the end (null when it could not be read). */
  verifiedSetting: DurabilityMode | null;
  journalCleared: boolean;
  /** What the user must run when status is 'failed' (or to undo an external change, if wanted). */
  restoreStatement: string;
  message: string;
}

/**
 * Shared by the attempts of one restore: true while the setting is known to differ from the original (the
 * comparison's last verified change, or an attempt that read it), so a later attempt that finds the original
 * reports 'restored', not 'already-original' (the first attempt's ALTER ran, then the connection dropped).
 */
export interface RestoreProgress {
  changed: boolean;
}


/** How long one restore may take in all (reconnect, lock-wait retries, verify). */
export const RESTORE_TIMEOUT_MS = 30_000;

export function externalChangeMessage(entry: RestoreEntry, found: DurabilityMode): string {
  const applied = entry.lastApplied === null ? 'this comparison had not changed it' : `this comparison last set ${entry.lastApplied}`;
  return `DELAYED_DURABILITY of ${quoteName(entry.database)} is ${found}, but ${applied}: another session changed it during the comparison, so it was left as it is (not overwritten). It was ${entry.originalSetting} before the comparison; to put that back, run: ${entry.restoreStatement}`;
}

/**
 * Puts one journal entry's database back and clears the entry only after verifying it. Changes the setting only
 * while it is still what the comparison last applied; anything else is another session's change and is left.
 */
export async function restoreEntry(
  client: SqlClient,
  entry: RestoreEntry,
  journal: RestoreJournal,
  progress: RestoreProgress = { changed: false },
  advice: ChangeAdvice = {},
  deadline: number = Date.now() + RESTORE_TIMEOUT_MS,
): Promise<RestoreOutcome> {
  const base = { server: entry.server, database: entry.database, originalSetting: entry.originalSetting, restoreStatement: entry.restoreStatement };
  const current = await readDurability(client, entry.database);
  if (current !== entry.originalSetting) {
    if (current !== entry.lastApplied) {
      await journal.remove(entry.id);
      return { ...base, status: 'external-change', verifiedSetting: current, journalCleared: true, message: externalChangeMessage(entry, current) };
    }
    progress.changed = true;
    await setDurabilityRetrying(client, entry.database, entry.originalSetting, advice, deadline);
  }
  const status: RestoreStatus = progress.changed ? 'restored' : 'already-original';
  const verified = await readDurability(client, entry.database);
  if (verified !== entry.originalSetting) {
    return { ...base, status: 'failed', verifiedSetting: verified, journalCleared: false, message: `Restore did not take effect: the setting is ${verified}. Run: ${entry.restoreStatement}` };
  }
  await journal.remove(entry.id);
  return {
    ...base,
    status,
    verifiedSetting: verified,
    journalCleared: true,
    message: status === 'restored' ? `DELAYED_DURABILITY of ${quoteName(entry.database)} is back to ${verified} (verified).` : `${quoteName(entry.database)} was already ${verified}.`,
  };
}

export function failedOutcome(entry: RestoreEntry, err: unknown): RestoreOutcome {
  const now = err instanceof DurabilityChangeError ? err.settingNow : null;
  const state = now !== null ? `It is ${now} now.` : entry.lastApplied !== null ? `It may still be ${entry.lastApplied}.` : 'Its current setting is not known.';
  return {
    status: 'failed',
    server: entry.server,
    database: entry.database,
    originalSetting: entry.originalSetting,
    verifiedSetting: now,
    journalCleared: false,
    restoreStatement: entry.restoreStatement,
    message: `Could not restore DELAYED_DURABILITY of ${quoteName(entry.database)} on ${entry.server} to ${entry.originalSetting} (${(err as Error).message}). ${state} The restore journal keeps the entry; run this on the server: ${entry.restoreStatement}`,
  };
}
