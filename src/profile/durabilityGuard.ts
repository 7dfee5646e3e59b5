// Changes DELAYED_DURABILITY for a comparison and guarantees it is put back: the database lock first (one comparison
// per database, databaseLock.ts), the original read under it, journal, ALTER ... WITH NO_WAIT from the MONITOR
// connection, verify by re-reading sys.databases, restore in finally (own deadline, reconnecting if needed, lock
// waits retried with backoff) — but only while the setting is still what we last applied: a change another session
// made meanwhile is reported and left. Recovery of entries a crashed run left behind lives in recovery.ts.
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { sqlErrorsOf } from '../db/errors';
import { text } from '../probes/values';
import { describeHolder, releaseDatabaseLock, tryLockDatabase, type LockAttempt } from './databaseLock';
import { newRestoreEntry, type RestoreEntry, type RestoreJournal } from './restoreJournal';
import { DURABILITY_MODES, type DurabilityMode } from './types';

/** delayed_durability_desc: DISABLED / ALLOWED / FORCED (Learn: sys-databases-transact-sql; reference §5). */
export const READ_DURABILITY_SQL = `SELECT delayed_durability_desc
FROM sys.databases
WHERE name = @database_name;`;

/**
 * ALTER DATABASE SET DELAYED_DURABILITY with NO_WAIT: fail at once instead of waiting on locks, never roll back
 * other sessions (Learn: alter-database-transact-sql-set-options; reference §5). The mode is one of three
 * keywords checked here; the name is quoted.
 */
export function alterDurabilitySql(database: string, mode: DurabilityMode): string {
  if (!DURABILITY_MODES.includes(mode)) throw new RangeError(`Not a DELAYED_DURABILITY value: ${String(mode)}`);
  return `ALTER DATABASE ${quoteName(database)} SET DELAYED_DURABILITY = ${mode} WITH NO_WAIT;`;
}

export const DATA_LOSS_CAVEAT =
  'While a database is FORCED (or ALLOWED with delayed commits), committed transactions whose log was not yet flushed can be lost on a crash, shutdown or restart; consistency is kept (Learn: Control Transaction Durability).';

export async function readDurability(client: SqlClient, database: string): Promise<DurabilityMode> {
  const rows = await client.query(READ_DURABILITY_SQL, [{ name: 'database_name', type: 'nvarchar', value: database }]);
  const desc = text(rows[0]?.delayed_durability_desc)?.toUpperCase();
  if (desc === 'DISABLED' || desc === 'ALLOWED' || desc === 'FORCED') return desc;
  throw new Error(`sys.databases has no DELAYED_DURABILITY for database ${quoteName(database)} (is it visible to this login?).`);
}

/** The ALTER failed or did not take effect; says whether the setting changed and what the server said. */
export class DurabilityChangeError extends Error {
  constructor(
    message: string,
    readonly statement: string,
    readonly serverErrorNumber: number | null,
    /** The setting read back after the failure; null when it could not be read. */
    readonly settingNow: DurabilityMode | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DurabilityChangeError';
  }
}

/**
 * Lock errors an ALTER ... WITH NO_WAIT reports when another session holds a lock on the database: 5061 (NO_WAIT
 * could not get the lock; test/standin/MODEL.md "ALTER DATABASE") and 1222 (lock timeout). 5069 ("ALTER DATABASE
 * statement failed") accompanies every failure, permission errors included, so it says nothing about locks.
 */
export const LOCK_ERROR_NUMBERS: ReadonlySet<number> = new Set([5061, 1222]);
/** 5011: the login may not alter this database (MODEL.md "ALTER DATABASE"). */
export const ALTER_DENIED_ERROR_NUMBER = 5011;

/** Socket-level codes tedious and src/db use for a connection that is gone (src/db/workload.ts uses the same). */
const CONNECTION_LOST_CODES = new Set(['ESOCKET', 'ECLOSE', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** True when `err` carries no server error and its code (anywhere in the cause chain) says the socket is gone. */
export function isConnectionLost(err: unknown): boolean {
  if (sqlErrorsOf(err).length > 0) return false;
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_LOST_CODES.has(code)) return true;
  }
  return false;
}

export interface ChangeAdvice {
  /** The GRANT that allows the ALTER (identifiers quoted); shown when the server refuses with 5011. */
  grant?: string;
}

/** What to tell the user after a failed ALTER: only the advice that fits the error. */
function adviceFor(err: unknown, database: string, advice: ChangeAdvice): string {
  const numbers = sqlErrorsOf(err).map((e) => e.number);
  if (numbers.some((n) => LOCK_ERROR_NUMBERS.has(n))) {
    return 'WITH NO_WAIT fails instead of waiting when another session holds a lock on the database; try again when it is idle.';
  }
  if (numbers.includes(ALTER_DENIED_ERROR_NUMBER)) {
    const grant = advice.grant ?? `GRANT ALTER ON DATABASE::${quoteName(database)} TO <the database user of this login>;`;
    return `The login lacks ALTER permission on ${quoteName(database)}. Ask an administrator to run: ${grant}`;
  }
  return '';
}

/** The driver's text without what src/db appends ("(while running: …)") and without a final period. */
function driverText(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return message.replace(/\s*\(while running: .*\)$/s, '').replace(/\.+$/, '');
}

/** Runs the ALTER and re-reads the setting; throws DurabilityChangeError when it did not become `mode`. */
export async function setDurability(client: SqlClient, database: string, mode: DurabilityMode, advice: ChangeAdvice = {}): Promise<void> {
  const statement = alterDurabilitySql(database, mode);
  try {
    await client.execute(statement);
  } catch (err) {
    const first = sqlErrorsOf(err)[0];
    let now: DurabilityMode | null = null;
    try {
      now = await readDurability(client, database);
    } catch {
      now = null;
    }
    const state = now === null ? 'The current setting could not be read back.' : `The setting is still ${now}.`;
    const what = first
      ? ` (SQL error ${first.number}: ${first.message.replace(/\.+$/, '')}).`
      : isConnectionLost(err)
        ? `: the connection to the server was lost (${driverText(err)}), so whether the ALTER ran is not known.`
        : ` (${driverText(err)}).`;
    const tail = adviceFor(err, database, advice);
    throw new DurabilityChangeError(
      `Could not set DELAYED_DURABILITY = ${mode} on ${quoteName(database)}${what} ${state}${tail ? ` ${tail}` : ''}`,
      statement,
      first?.number ?? null,
      now,
      { cause: err },
    );
  }
  let now: DurabilityMode;
  try {
    now = await readDurability(client, database);
  } catch (err) {
    throw new DurabilityChangeError(
      `ALTER DATABASE ran, but the setting could not be read back (${driverText(err)}); it may now be ${mode}.`,
      statement,
      null,
      null,
      { cause: err },
    );
  }
  if (now !== mode) {
    throw new DurabilityChangeError(`ALTER DATABASE reported success, but sys.databases says ${now}, not ${mode}.`, statement, null, now);
  }
}

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
const FIRST_RETRY_DELAY_MS = 100;
const MAX_RETRY_DELAY_MS = 2_000;

function isLockError(err: unknown): boolean {
  return err instanceof DurabilityChangeError && err.serverErrorNumber !== null && LOCK_ERROR_NUMBERS.has(err.serverErrorNumber);
}

/**
 * setDurability, retried with exponential backoff while the server reports a lock wait (5061/1222) and the deadline
 * allows: another session's lock on the database is usually short-lived.
 */
export async function setDurabilityRetrying(client: SqlClient, database: string, mode: DurabilityMode, advice: ChangeAdvice, deadline: number): Promise<void> {
  let delay = FIRST_RETRY_DELAY_MS;
  for (;;) {
    try {
      await setDurability(client, database, mode, advice);
      return;
    } catch (err) {
      if (!isLockError(err) || Date.now() + delay > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay)); // backoff before the next attempt
      delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
    }
  }
}

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

export interface GuardOptions {
  journal: RestoreJournal;
  server: string;
  database: string;
  monitor: SqlClient;
  /** Opens a fresh monitor connection when the current one failed; always called with its own time limit. */
  reopenMonitor?: (signal: AbortSignal) => Promise<SqlClient>;
  /** The GRANT that allows the ALTER, named when the server refuses it (5011). */
  grant?: string;
  /** Default RESTORE_TIMEOUT_MS. */
  restoreTimeoutMs?: number;
}

/**
 * One comparison's hold on the setting: lock() takes the database, begin() reads the original under the lock and
 * journals it, apply() changes the setting, restore() puts it back, release() gives the database up. restore() never
 * throws; its outcome says exactly what state the database is in and what to run if it failed.
 */
export class DurabilityGuard {
  private entry: RestoreEntry | null = null;
  private monitor: SqlClient;
  private locked = false;
  /** Whether the setting is known to differ from the original now (restore then reports 'restored'). */
  private readonly progress: RestoreProgress = { changed: false };

  constructor(private readonly options: GuardOptions) {
    this.monitor = options.monitor;
  }

  get journalEntry(): RestoreEntry | null {
    return this.entry;
  }

  /** Takes the database's lock without waiting; refused when another comparison (any window or process) holds it. */
  async lock(): Promise<LockAttempt> {
    const attempt = await tryLockDatabase(this.monitor, this.options.database);
    this.locked = attempt.acquired;
    return attempt;
  }

  /** Reads the original setting under the lock and journals it; must complete before the first ALTER. */
  async begin(): Promise<RestoreEntry> {
    if (!this.locked) throw new Error('DurabilityGuard.lock() must hold the database before the original is read.');
    const originalSetting = await readDurability(this.monitor, this.options.database);
    const entry = newRestoreEntry({
      server: this.options.server,
      database: this.options.database,
      originalSetting,
      lastApplied: null,
      restoreStatement: alterDurabilitySql(this.options.database, originalSetting),
    });
    await this.options.journal.put(entry);
    this.entry = entry;
    return entry;
  }

  /** The setting in force now (re-read from sys.databases). */
  readSetting(): Promise<DurabilityMode> {
    return readDurability(this.monitor, this.options.database);
  }

  async apply(mode: DurabilityMode): Promise<void> {
    if (!this.entry) throw new Error('DurabilityGuard.begin() must journal the original setting before any change.');
    await this.options.journal.put({ ...this.entry, lastApplied: mode });
    this.entry = { ...this.entry, lastApplied: mode };
    const original = this.entry.originalSetting;
    try {
      await setDurability(this.monitor, this.options.database, mode, this.advice());
    } catch (err) {
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

  async restore(): Promise<RestoreOutcome | null> {
    const entry = this.entry;
    if (!entry) return null;
    const deadline = Date.now() + (this.options.restoreTimeoutMs ?? RESTORE_TIMEOUT_MS);
    try {
      return await restoreEntry(this.monitor, entry, this.options.journal, this.progress, this.advice(), deadline);
    } catch (first) {
      if (!this.options.reopenMonitor || Date.now() >= deadline) return failedOutcome(entry, first);
      try {
        // Usually the monitor connection dropped (its session, and so our lock, are gone). A new connection with its
        // own time limit — never the run's cancelled signal — takes the lock again and puts the setting back.
        this.monitor = await this.options.reopenMonitor(AbortSignal.timeout(Math.max(1, deadline - Date.now())));
        const again = await tryLockDatabase(this.monitor, this.options.database);
        this.locked = again.acquired;
        if (!again.acquired) {
          return failedOutcome(entry, new Error(`the connection was lost and another comparison now holds the database (${describeHolder(again.holder)}), so the setting was left for it`));
        }
        return await restoreEntry(this.monitor, entry, this.options.journal, this.progress, this.advice(), deadline);
      } catch (second) {
        return failedOutcome(entry, second);
      }
    }
  }

  /** Gives the database up (the server would also release it when the monitor session closes). */
  async release(): Promise<void> {
    if (!this.locked) return;
    this.locked = false;
    await releaseDatabaseLock(this.monitor, this.options.database).catch(() => false);
  }
}
