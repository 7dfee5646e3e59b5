// How a comparison claims its database and what it says when it cannot: the database lock, then no other run's
// ownership marker, then the original under the lock, the journal and our marker (DurabilityGuard.begin). A refusal
// names the owner from its marker — since when, which process on which machine, the original setting — and whether
// it is still alive; the plan the user confirms names the marker statements too.
import type { SqlClient } from '../db/types';
import { describeHolder, releaseDatabaseLock, tryLockDatabase, type LockHolder } from './databaseLock';
import { assessOwner, ownedRefusal } from './ownerLiveness';
import { DatabaseOwnedError, type DurabilityGuard } from './durabilityGuard';
import { describeClaim, isUnreadable, MARKER_NAME, MarkerWriteError, readMarker, type OwnershipMarker } from './ownershipMarker';
import type { ComparisonPlan } from './plan';
import type { RestoreEntry } from './restoreJournal';

export type Claim =
  | { kind: 'claimed'; entry: RestoreEntry }
  | { kind: 'refused'; message: string; heldBy: LockHolder | undefined; ownedBy: OwnershipMarker | undefined }
  | { kind: 'failed'; message: string };

/**
 * Takes the database for the comparison, or says why not. Nothing is changed unless 'claimed'; on refusal or failure
 * the database lock is given back.
 */
export async function claimDatabase(guard: DurabilityGuard, monitor: SqlClient, database: string): Promise<Claim> {
  const lock = await guard.lock();
  if (!lock.acquired) {
    // The marker is readable without the lock: it says since when and what the setting was before that comparison.
    const marker = await readMarker(monitor).catch(() => null);
    const owned = marker !== null && !isUnreadable(marker) ? ` ${describeClaim(database, marker)}.` : '';
    return {
      kind: 'refused',
      message: `Another comparison is running on ${database}: ${describeHolder(lock.holder)} holds it.${owned} Nothing was changed; try again when it has finished.`,
      heldBy: lock.holder,
      ownedBy: marker !== null && !isUnreadable(marker) ? marker : undefined,
    };
  }
  try {
    return { kind: 'claimed', entry: await guard.begin() };
  } catch (err) {
    await guard.release();
    if (err instanceof DatabaseOwnedError) {
      const marker = err.marker !== null && !isUnreadable(err.marker) ? err.marker : undefined;
      return { kind: 'refused', message: err.message, heldBy: undefined, ownedBy: marker };
    }
    if (err instanceof MarkerWriteError) return { kind: 'refused', message: err.message, heldBy: undefined, ownedBy: undefined };
    return { kind: 'failed', message: `${(err as Error).message ?? String(err)} Nothing was changed.` };
  }
}

/**
 * Before the user is asked: is the database another run's? Reads the marker (no lock needed) and, when there is one,
 * whether its owner lives — the database lock taken for a moment, or seen held. The claim itself (claimDatabase,
 * after the confirmation) checks again under the lock; this only spares the user a plan that would take another
 * comparison's FORCED for the original.
 */
export async function inspectClaim(monitor: SqlClient, database: string): Promise<{ message: string; ownedBy: OwnershipMarker | undefined } | null> {
  const marker = await readMarker(monitor).catch(() => null);
  if (marker === null) return null;
  if (isUnreadable(marker)) return { message: ownedRefusal(database, marker, null), ownedBy: undefined };
  const lock = await tryLockDatabase(monitor, database);
  if (!lock.acquired) {
    return { message: `${describeClaim(database, marker)}. It is running: ${describeHolder(lock.holder)} holds the database lock. Nothing was changed; try again when it has finished.`, ownedBy: marker };
  }
  try {
    return { message: ownedRefusal(database, marker, await assessOwner(monitor, marker)), ownedBy: marker };
  } finally {
    await releaseDatabaseLock(monitor, database).catch(() => false);
  }
}

/** The plan's statements with the marker's: added before the first ALTER, dropped after the verified restore. */
export function withOwnershipStatements(plan: ComparisonPlan): ComparisonPlan {
  const add = `EXEC sys.sp_addextendedproperty @name = N'${MARKER_NAME}', @value = N'<this run: machine, process, start time, original setting ${plan.currentSetting}>';`;
  const drop = `EXEC sys.sp_dropextendedproperty @name = N'${MARKER_NAME}';`;
  return { ...plan, statements: [add, ...plan.statements, drop] };
}

/** Why a comparison stopped when its monitor connection (and with it the database lock) died. */
export function ownershipLostText(database: string, label: string, when: 'before' | 'after'): string {
  return `The monitor connection, which holds this comparison's claim on ${database}, was lost ${when === 'before' ? 'before' : 'during'} ${label}. The comparison reconnected and took its claim back, and then stopped changing the database${when === 'after' ? ' (that run is kept: the setting was still its mode when re-read)' : ''}; the runs so far are kept.`;
}

/** The note on the last run when its monitor died during it: the claim was taken back before its setting was read. */
export function reclaimedNote(database: string): string {
  return `The monitor connection (which holds this comparison's claim on ${database}) was lost during this run; the comparison reconnected and took its claim back before re-reading the setting (still this run's mode), and then only restored the database.`;
}
