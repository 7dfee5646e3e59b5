// Changes DELAYED_DURABILITY for a comparison and guarantees it is put back. The claim on the database has three parts
// (docs/reliability.md "Ownership"): the database lock on the MONITOR session (databaseLock.ts), a run lock on the
// WORKLOAD session, and a marker ON the database (ownershipMarker.ts) written before the first change and dropped after
// the verified restore — so killing one connection does not free the database while it may still be FORCED. The
// original is read under the lock, journalled, and changed with ALTER ... WITH NO_WAIT from the monitor, verified by
// reading it back; restore runs in finally (own deadline, reconnecting and taking the claim back if needed) and only
// while the setting is still what we last applied. A run whose monitor dies stops changing the database.
import type { SqlClient } from '../db/types';
import { describeHolder, releaseDatabaseLock, tryLockDatabase, type LockAttempt } from './databaseLock';
import { alterDurabilitySql, isConnectionLost, readDurability, setDurability, type ChangeAdvice, DurabilityChangeError } from './durabilitySetting';
import { assessOwner, holdRunLock, markRunLive, ownedRefusal, type OwnerAssessment } from './ownerLiveness';
import { addMarker, dropMarkerOf, dropMarkerStatement, isUnreadable, newMarker, readMarker, updateMarker, type MarkerReading, type OwnershipMarker } from './ownershipMarker';
import { failedOutcome, RESTORE_TIMEOUT_MS, restoreEntry, type RestoreOutcome, type RestoreProgress } from './restoreEntry';
import { newRestoreEntry, type RestoreEntry, type RestoreJournal } from './restoreJournal';
import type { DurabilityMode } from './types';
import { quoteName } from '../db/quote';

export * from './durabilitySetting';
export * from './restoreEntry';

export interface GuardOptions {
  journal: RestoreJournal;
  server: string;
  database: string;
  monitor: SqlClient;
  /** The workload session: it holds the run lock, so the claim outlives a killed monitor connection. */
  workload?: SqlClient;
  /** Opens a fresh monitor connection when the current one failed; always called with its own time limit. */
  reopenMonitor?: (signal: AbortSignal) => Promise<SqlClient>;
  /** The GRANT that allows the ALTER, named when the server refuses it (5011) or the marker cannot be written. */
  grant?: string;
  /** Default RESTORE_TIMEOUT_MS. */
  restoreTimeoutMs?: number;
}

/** Another comparison's marker is on the database: nothing was read for the restore, nothing changed. */
export class DatabaseOwnedError extends Error {
  constructor(
    readonly marker: MarkerReading,
    readonly owner: OwnerAssessment | null,
    database: string,
  ) {
    super(ownedRefusal(database, marker, owner));
    this.name = 'DatabaseOwnedError';
  }
}

/** The monitor connection (and with it the database lock) was lost; `taken` when another run now owns the database. */
export class OwnershipLostError extends Error {
  constructor(
    message: string,
    readonly taken: MarkerReading | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'OwnershipLostError';
  }
}

const FIRST_LOCK_RETRY_MS = 100;
const MAX_LOCK_RETRY_MS = 2_000;

/**
 * One comparison's hold on the setting: lock() takes the database, begin() checks no other claim exists, reads the
 * original under the lock, journals it and marks the database, apply() changes the setting, readSetting() re-reads it
 * (taking the claim back when the monitor died), restore() puts it back and drops the marker, release() gives the
 * database up. restore() never throws; its outcome says exactly what state the database is in.
 */
export class DurabilityGuard {
  private entry: RestoreEntry | null = null;
  private marker: OwnershipMarker | null = null;
  private monitor: SqlClient;
  private locked = false;
  /** The monitor connection died: nothing is changed until the claim is taken back (reclaim). */
  private lost = false;
  /** Whether the setting is known to differ from the original now (restore then reports 'restored'). */
  private readonly progress: RestoreProgress = { changed: false };

  constructor(private readonly options: GuardOptions) {
    this.monitor = options.monitor;
  }

  get journalEntry(): RestoreEntry | null {
    return this.entry;
  }

  /** Whether the monitor connection was lost since the claim was last confirmed. */
  get monitorLost(): boolean {
    return this.lost;
  }

  /** Takes the database's lock without waiting; refused when another comparison (any window or process) holds it. */
  async lock(): Promise<LockAttempt> {
    const attempt = await tryLockDatabase(this.monitor, this.options.database);
    this.locked = attempt.acquired;
    return attempt;
  }

  /**
   * Under the lock: refuses when another run's marker is there (DatabaseOwnedError — its FORCED is not our original),
   * reads the original, journals it, then writes the marker (MarkerWriteError: nothing changed) and takes the run lock
   * on the workload session. Must complete before the first ALTER.
   */
  async begin(): Promise<RestoreEntry> {
    if (!this.locked) throw new Error('DurabilityGuard.lock() must hold the database before the original is read.');
    const { database, journal } = this.options;
    const existing = await readMarker(this.monitor);
    if (existing !== null) throw new DatabaseOwnedError(existing, isUnreadable(existing) ? null : await assessOwner(this.monitor, existing), database);
    const originalSetting = await readDurability(this.monitor, database);
    const entry = newRestoreEntry({ server: this.options.server, database, originalSetting, lastApplied: null, restoreStatement: alterDurabilitySql(database, originalSetting) });
    await journal.put(entry);
    const marker = newMarker({ run: entry.id, window: entry.owner?.session ?? 'cli', original: originalSetting, applied: null });
    markRunLive(entry.id, true);
    try {
      if (!(await addMarker(this.monitor, database, marker, this.options.grant))) {
        // 15233: a claim appeared after the read (a version that does not take the database lock).
        const now = await readMarker(this.monitor);
        throw new DatabaseOwnedError(now, now === null || isUnreadable(now) ? null : await assessOwner(this.monitor, now), database);
      }
    } catch (err) {
      // When the connection died with the marker's write in flight, the marker may be there: recovery then finds it
      // left by this process and clears it (its setting is still the original: nothing was changed).
      markRunLive(entry.id, false);
      await journal.remove(entry.id).catch(() => undefined);
      throw err;
    }
    this.entry = entry;
    this.marker = marker;
    if (this.options.workload) await holdRunLock(this.options.workload, entry.id);
    return entry;
  }

  /**
   * The setting now. When the monitor connection turns out to be gone, the claim is taken back first (reconnect, lock,
   * our marker) and `reclaimed` is true: the caller must stop changing the database. Throws OwnershipLostError when the
   * claim cannot be taken back (then restore() reports the state).
   */
  async readSetting(): Promise<{ setting: DurabilityMode; reclaimed: boolean }> {
    if (!this.lost) {
      try {
        return { setting: await readDurability(this.monitor, this.options.database), reclaimed: false };
      } catch (err) {
        if (!isConnectionLost(err)) throw err;
        this.lost = true;
      }
    }
    await this.reclaim(Date.now() + (this.options.restoreTimeoutMs ?? RESTORE_TIMEOUT_MS));
    return { setting: await readDurability(this.monitor, this.options.database), reclaimed: true };
  }

  async apply(mode: DurabilityMode): Promise<void> {
    if (!this.entry || !this.marker) throw new Error('DurabilityGuard.begin() must journal the original setting before any change.');
    if (this.lost) throw new OwnershipLostError(`This comparison's claim on ${quoteName(this.options.database)} was interrupted (its monitor connection was lost), so DELAYED_DURABILITY was not changed to ${mode}.`);
    await this.options.journal.put({ ...this.entry, lastApplied: mode });
    this.entry = { ...this.entry, lastApplied: mode };
    const marked = { ...this.marker, applied: mode };
    try {
      await updateMarker(this.monitor, marked);
    } catch (err) {
      if (isConnectionLost(err)) {
        this.lost = true;
        throw new OwnershipLostError(`The monitor connection, which holds this comparison's claim on ${quoteName(this.options.database)}, was lost before DELAYED_DURABILITY was changed to ${mode}: that change was not made.`, null, { cause: err });
      }
      throw new DurabilityChangeError(`DELAYED_DURABILITY was not changed to ${mode}: the ownership marker of ${quoteName(this.options.database)} could not be updated first (${(err as Error).message}).`, alterDurabilitySql(this.options.database, mode), null, null, { cause: err });
    }
    this.marker = marked;
    const original = this.entry.originalSetting;
    try {
      await setDurability(this.monitor, this.options.database, mode, this.advice());
    } catch (err) {
      if (isConnectionLost(err)) this.lost = true;
      // Read back after the failure: that is the state restore starts from. Unknown (null): restore will see.
      if (err instanceof DurabilityChangeError && err.settingNow !== null) this.progress.changed = err.settingNow !== original;
      throw err;
    }
    // A later run back in the original mode means restore only has to verify ('already-original').
    this.progress.changed = mode !== original;
  }

  private advice(): ChangeAdvice {
    return this.options.grant !== undefined ? { grant: this.options.grant } : {};
  }

  /**
   * Takes the claim back on a new monitor connection: the database lock (waiting with backoff within `deadline`: a
   * second comparison or a recovery may hold it for a moment while it reads our marker), then our marker must still be
   * there. A marker of another run (or an unreadable one) means the database was taken over: OwnershipLostError with
   * `taken`, and nothing is changed. No marker at all: someone removed it by hand; the journal entry still guides.
   */
  private async reclaim(deadline: number): Promise<void> {
    const { database, reopenMonitor } = this.options;
    if (!reopenMonitor) throw new OwnershipLostError(`The monitor connection was lost and this comparison has no way to reconnect to ${quoteName(database)}.`);
    this.locked = false;
    this.monitor = await reopenMonitor(AbortSignal.timeout(Math.max(1, deadline - Date.now())));
    let delay = FIRST_LOCK_RETRY_MS;
    for (;;) {
      const attempt = await tryLockDatabase(this.monitor, database);
      if (attempt.acquired) break;
      if (Date.now() + delay > deadline) {
        throw new OwnershipLostError(`the connection was lost and another session now holds the database lock of ${quoteName(database)} (${describeHolder(attempt.holder)}), so the setting was left for it`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay)); // backoff while another session holds the lock
      delay = Math.min(delay * 2, MAX_LOCK_RETRY_MS);
    }
    this.locked = true;
    const found = await readMarker(this.monitor);
    if (found !== null && (isUnreadable(found) || found.run !== this.marker?.run)) {
      throw new OwnershipLostError(`while this comparison's connection was gone, another process took ${quoteName(database)} over`, found);
    }
    if (found === null && this.marker) {
      // Our claim was removed (by hand, or by a recovery that restored the database): whatever is there now is not ours.
      this.progress.changed = false;
      this.marker = null;
    }
    this.lost = false;
  }

  async restore(): Promise<RestoreOutcome | null> {
    const entry = this.entry;
    if (!entry) return null;
    const deadline = Date.now() + (this.options.restoreTimeoutMs ?? RESTORE_TIMEOUT_MS);
    let first: unknown = null;
    if (!this.lost) {
      try {
        return await this.finish(await restoreEntry(this.monitor, entry, this.options.journal, this.progress, this.advice(), deadline), deadline);
      } catch (err) {
        first = err;
      }
    }
    if (!this.options.reopenMonitor || Date.now() >= deadline) return failedOutcome(entry, first ?? new Error('the monitor connection was lost'));
    try {
      // Usually the monitor connection dropped (its session, and so the database lock, are gone). A new connection with
      // its own time limit — never the run's cancelled signal — takes the claim back and puts the setting back.
      await this.reclaim(deadline);
    } catch (err) {
      if (err instanceof OwnershipLostError && err.taken !== null) return this.takenOver(entry, err);
      return failedOutcome(entry, err);
    }
    try {
      return await this.finish(await restoreEntry(this.monitor, entry, this.options.journal, this.progress, this.advice(), deadline), deadline);
    } catch (second) {
      return failedOutcome(entry, second);
    }
  }

  /**
   * After a restore that verified the setting (or left another session's change alone) the claim ends: the marker is
   * dropped — over a new connection when this one dies meanwhile (the claim taken back first, within the deadline).
   */
  private async finish(outcome: RestoreOutcome, deadline: number): Promise<RestoreOutcome> {
    if (outcome.status === 'failed' || !this.marker) return outcome;
    const run = this.marker.run;
    try {
      try {
        await dropMarkerOf(this.monitor, run);
      } catch (err) {
        if (!isConnectionLost(err) || !this.options.reopenMonitor || Date.now() >= deadline) throw err;
        this.lost = true;
        await this.reclaim(deadline);
        await dropMarkerOf(this.monitor, run);
      }
      markRunLive(run, false);
      this.marker = null;
      return outcome;
    } catch (err) {
      return {
        ...outcome,
        message: `${outcome.message} The ownership marker could not be removed (${(err as Error).message}); the next comparison on ${quoteName(outcome.database)} will find it and recovery clears it once this process has ended, or run: ${dropMarkerStatement(outcome.database)}`,
      };
    }
  }

  /** The database was taken over while we were disconnected: nothing is changed; the state is read and reported. */
  private async takenOver(entry: RestoreEntry, err: OwnershipLostError): Promise<RestoreOutcome> {
    const base = { server: entry.server, database: entry.database, originalSetting: entry.originalSetting, restoreStatement: entry.restoreStatement };
    let now: DurabilityMode;
    try {
      now = await readDurability(this.monitor, entry.database);
    } catch (readErr) {
      return failedOutcome(entry, new Error(`${err.message}, and the setting could not be read (${(readErr as Error).message})`));
    }
    await this.options.journal.remove(entry.id).catch(() => undefined);
    const claim = err.taken && !isUnreadable(err.taken) ? ` (run ${err.taken.run} since ${err.taken.since})` : '';
    return {
      ...base,
      status: now === entry.originalSetting ? 'already-original' : 'external-change',
      verifiedSetting: now,
      journalCleared: true,
      message: `The connection to the server was lost during the comparison, and ${err.message}${claim}: DELAYED_DURABILITY of ${quoteName(entry.database)} is ${now} now (verified), it was ${entry.originalSetting} before this comparison; it was left as it is.${now === entry.originalSetting ? '' : ` To put it back, run: ${entry.restoreStatement}`}`,
    };
  }

  /** Gives the database up (the server would also release it when the monitor session closes). */
  async release(): Promise<void> {
    // From here on a marker still there is a leftover (its removal failed): recovery may clear it.
    if (this.entry) markRunLive(this.entry.id, false);
    if (!this.locked) return;
    this.locked = false;
    await releaseDatabaseLock(this.monitor, this.options.database).catch(() => false);
  }
}
