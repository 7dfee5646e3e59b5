// Recovery of restore-journal entries a previous run left behind (crash, killed process, lost connection). An entry
// is recovered only when its owner is gone — proved on the server: the database lock (databaseLock.ts) is free —
// and, like a live restore, only while the setting is still what that run last applied.
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { describeHolder, releaseDatabaseLock, tryLockDatabase } from './databaseLock';
import { failedOutcome, restoreEntry, type RestoreOutcome } from './durabilityGuard';
import { describeOwner, type RestoreEntry, type RestoreJournal } from './restoreJournal';

/** Entries a previous run left (crash, killed process, lost connection), optionally only for one server. */
export async function pendingRestores(journal: RestoreJournal, server?: string): Promise<RestoreEntry[]> {
  const all = await journal.list();
  return server === undefined ? all : all.filter((e) => e.server.toLowerCase() === server.toLowerCase());
}

/** One line per entry for a prompt: database, what it goes back to, who wrote it. */
export function describePending(entry: RestoreEntry): string {
  return `${quoteName(entry.database)} on ${entry.server}: back to ${entry.originalSetting}${entry.lastApplied ? ` (the run last set ${entry.lastApplied})` : ''}, left by ${describeOwner(entry.owner)}`;
}

/**
 * Restores every pending entry `connectFor` can reach (the UI asks first and passes only confirmed entries). An
 * entry whose database lock is held — its comparison still runs, in this or another window or process — is left
 * ('in-use'). Never throws: each entry gets an outcome; failed and in-use ones stay in the journal.
 */
export async function recoverFromJournal(
  journal: RestoreJournal,
  connectFor: (entry: RestoreEntry) => Promise<SqlClient & { close?: () => Promise<void> }>,
  entries?: readonly RestoreEntry[],
): Promise<RestoreOutcome[]> {
  const outcomes: RestoreOutcome[] = [];
  for (const entry of entries ?? (await journal.list())) {
    let client: (SqlClient & { close?: () => Promise<void> }) | null = null;
    try {
      // Re-read: another process may have recovered (or its owner finished) since the list was taken.
      if (!(await journal.list()).some((e) => e.id === entry.id)) continue;
      client = await connectFor(entry);
      const lock = await tryLockDatabase(client, entry.database);
      if (!lock.acquired) {
        outcomes.push({
          status: 'in-use',
          server: entry.server,
          database: entry.database,
          originalSetting: entry.originalSetting,
          verifiedSetting: null,
          journalCleared: false,
          restoreStatement: entry.restoreStatement,
          message: `${quoteName(entry.database)} was left alone: a comparison still holds it (${describeHolder(lock.holder)}); its own restore puts it back. The entry stays in the journal.`,
        });
        continue;
      }
      outcomes.push(await restoreEntry(client, entry, journal));
      await releaseDatabaseLock(client, entry.database).catch(() => false);
    } catch (err) {
      outcomes.push(failedOutcome(entry, err));
    } finally {
      await client?.close?.().catch(() => undefined);
    }
  }
  return outcomes;
}
