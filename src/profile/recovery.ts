// Recovery of what a gone comparison left behind (crash, killed process, lost connection): restore-journal entries on
// this machine, and ownership markers on the database (any machine). Never touches a database whose owner is alive:
// its database lock is held, its run lock is held, or its process still runs on this machine; an owner on another
// machine that holds nothing is given OWNER_GRACE_MS to take its lock back first. When the owner is gone, the marker's
// original is restored — never what the setting happens to be now — and, like a live restore, only while the setting
// is still what that run last applied.
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { text } from '../probes/values';
import { describeHolder, releaseDatabaseLock, tryLockDatabase } from './databaseLock';
import { alterDurabilitySql } from './durabilitySetting';
import { assessOwner, OWNER_GRACE_MS, ownedRefusal, runLockHeld, type AssessOptions, type OwnerAssessment } from './ownerLiveness';
import { describeClaim, dropMarkerOf, dropMarkerStatement, isUnreadable, readMarker, type OwnershipMarker } from './ownershipMarker';
import { failedOutcome, restoreEntry, type RestoreOutcome } from './restoreEntry';
import { dropRunEventSessions } from './runEventSessions';
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

export interface RecoveryOptions {
  /** How long an owner on another machine that holds nothing may take to come back (default OWNER_GRACE_MS). */
  ownerGraceMs?: number | undefined;
  /** Told once when recovery starts waiting for such an owner. */
  onWait?: ((message: string) => void) | undefined;
  /** Liveness checks (tests play a second machine). */
  assess?: AssessOptions | undefined;
  /** The command was told to stop (a signal): a wait for an owner ends at once and its claim is left alone. */
  signal?: AbortSignal | undefined;
}

type Client = SqlClient & { close?: () => Promise<void> };

/**
 * Restores every pending entry `connectFor` can reach (the UI asks first and passes only confirmed entries). An entry
 * whose comparison still lives — in this or another window, process or machine — is left ('in-use'). Never throws:
 * each entry gets an outcome; failed and in-use ones stay in the journal.
 */
export async function recoverFromJournal(
  journal: RestoreJournal,
  connectFor: (entry: RestoreEntry) => Promise<Client>,
  entries?: readonly RestoreEntry[],
  options: RecoveryOptions = {},
): Promise<RestoreOutcome[]> {
  const outcomes: RestoreOutcome[] = [];
  for (const entry of entries ?? (await journal.list())) {
    let client: Client | null = null;
    try {
      // Re-read: another process may have recovered (or its owner finished) since the list was taken.
      if (!(await journal.list()).some((e) => e.id === entry.id)) continue;
      client = await connectFor(entry);
      outcomes.push(...(await recoverDatabase(client, { server: entry.server, database: entry.database, journal, entry }, options)));
    } catch (err) {
      outcomes.push((await droppedDatabaseOutcome(journal, connectFor, entry, err)) ?? failedOutcome(entry, err));
    } finally {
      await client?.close?.().catch(() => undefined);
    }
  }
  return outcomes;
}

/**
 * Whether the entry's database is listed, and whether this login would see it listed if it existed: VIEW ANY DATABASE
 * (granted to public by default) shows every database in sys.databases; without it only master, tempdb and the
 * login's own are shown (Learn: sys.databases, Permissions; "VIEW ANY DATABASE Permission"). Azure SQL Database
 * (EngineEdition 5, 12) lists only master and the current database, so it is never asked (serverproperty-transact-sql).
 */
export const DATABASE_LISTED_SQL = `SELECT CASE WHEN EXISTS (SELECT 1 FROM sys.databases WHERE name = @database_name) THEN 1 ELSE 0 END AS listed,
       HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW ANY DATABASE') AS sees_all,
       CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition;`;

/**
 * The entry's database could not be opened (4060: "does not exist … or this login may not open it"). Read from master:
 * a database that is not there has no setting left to restore, and its entry would otherwise fail every start. One this
 * login may not open, or whose absence this login could not see, stays a failure (null).
 */
async function droppedDatabaseOutcome(journal: RestoreJournal, connectFor: (entry: RestoreEntry) => Promise<Client>, entry: RestoreEntry, err: unknown): Promise<RestoreOutcome | null> {
  const number = (err as { info?: { serverErrorNumber?: number }; number?: number })?.info?.serverErrorNumber ?? (err as { number?: number })?.number;
  if (number !== 4060 || entry.database.toLowerCase() === 'master') return null;
  let master: Client | null = null;
  try {
    master = await connectFor({ ...entry, database: 'master' });
    const [row] = await master.query(DATABASE_LISTED_SQL, [{ name: 'database_name', type: 'nvarchar', value: entry.database }]);
    if (Number(row?.listed) !== 0 || Number(row?.sees_all) !== 1 || [5, 12].includes(Number(row?.engine_edition))) return null;
    await journal.remove(entry.id);
  } catch {
    return null;
  } finally {
    await master?.close?.().catch(() => undefined);
  }
  return {
    status: 'external-change',
    server: entry.server,
    database: entry.database,
    originalSetting: entry.originalSetting,
    verifiedSetting: null,
    journalCleared: true,
    restoreStatement: entry.restoreStatement,
    message: `${quoteName(entry.database)} no longer exists on ${entry.server} (sys.databases has no row for it): it has no DELAYED_DURABILITY left to restore, so the journal entry was removed (left by ${describeOwner(entry.owner)}).`,
  };
}

export interface RecoveryTarget {
  server: string;
  database: string;
  journal: RestoreJournal;
  /** This machine's journal entry for the database, if any. */
  entry?: RestoreEntry;
}

/** The marker's claim as a journal entry (same id), so one restore routine serves both. */
export function entryFromMarker(target: Pick<RecoveryTarget, 'server' | 'database'>, marker: OwnershipMarker): RestoreEntry {
  return {
    id: marker.run,
    server: target.server,
    database: target.database,
    originalSetting: marker.original,
    lastApplied: marker.applied,
    createdAt: marker.since,
    restoreStatement: alterDurabilitySql(target.database, marker.original),
    owner: { pid: marker.pid, host: marker.host, session: marker.window, startedAt: marker.since },
  };
}

function leftAlone(target: Pick<RecoveryTarget, 'server' | 'database'>, entry: RestoreEntry | undefined, message: string): RestoreOutcome {
  const original = entry?.originalSetting ?? 'DISABLED';
  return {
    status: 'in-use',
    server: target.server,
    database: target.database,
    originalSetting: original,
    verifiedSetting: null,
    journalCleared: false,
    restoreStatement: entry?.restoreStatement ?? alterDurabilitySql(target.database, original),
    message,
  };
}

/**
 * Recovers one database on `client` (opened in that database): the marker of a gone owner first (its original), then
 * this machine's entry. Returns the outcomes (none when there was nothing to do). Holds the database lock while it
 * acts and gives it back; throws only what the connection throws.
 */
export async function recoverDatabase(client: SqlClient, target: RecoveryTarget, options: RecoveryOptions = {}): Promise<RestoreOutcome[]> {
  const { database } = target;
  await enterDatabase(client, database);
  const lock = await tryLockDatabase(client, database);
  if (!lock.acquired) {
    const marker = await readMarker(client).catch(() => null);
    const claim = marker !== null && !isUnreadable(marker) ? ` ${describeClaim(database, marker)}.` : '';
    return [leftAlone(target, target.entry, `${quoteName(database)} was left alone: a comparison still holds it (${describeHolder(lock.holder)}).${claim} Its own restore puts it back; the journal keeps the entry.`)];
  }
  let locked = true;
  try {
    const outcomes: RestoreOutcome[] = [];
    let marker = await readMarker(client);
    if (marker !== null && isUnreadable(marker)) return [leftAlone(target, target.entry, `${describeClaim(database, marker)} It was left alone.`)];
    if (marker !== null) {
      let owner: OwnerAssessment = await assessOwner(client, marker, options.assess);
      if (owner.state === 'unknown') {
        await releaseDatabaseLock(client, database).catch(() => false);
        locked = false;
        const waited = await waitForOwner(client, database, marker, owner, options);
        locked = waited.locked;
        if (waited.marker !== marker.run) {
          // The marker changed while we waited (its owner finished, or another recovery acted): look again from the top.
          if (locked) await releaseDatabaseLock(client, database).catch(() => false);
          locked = false;
          return recoverDatabase(client, target, options);
        }
        owner = waited.owner;
      }
      if (owner.state !== 'gone') return [leftAlone(target, target.entry, `${quoteName(database)} was left alone: ${ownedRefusal(database, marker, owner)}`)];
      const claimed = entryFromMarker(target, marker);
      const outcome = await restoreEntry(client, claimed, target.journal);
      if (outcome.status !== 'failed') {
        const dropped = await dropMarkerOf(client, marker.run).catch((err: Error) => err);
        const message = dropped instanceof Error ? `${outcome.message} The ownership marker could not be removed (${dropped.message}); run: ${dropMarkerStatement(database)}` : `${outcome.message} (Recovered for ${marker.window === 'cli' ? 'a CLI' : 'a VS Code'} comparison that is gone: process ${marker.pid}, run ${marker.run}; its marker was removed.)`;
        // Its owner is gone, so nothing will drop the event sessions it left running but this recovery.
        outcomes.push({ ...outcome, message: `${message}${await dropRunEventSessions(client, marker.run)}` });
      } else outcomes.push(outcome);
      marker = null;
      if (!target.entry || target.entry.id === claimed.id || outcome.status === 'failed') return outcomes;
    }
    // This machine's entry (no marker: its run never wrote one, or its marker was already recovered or removed).
    if (target.entry && (await target.journal.list()).some((e) => e.id === target.entry!.id)) {
      const outcome = await restoreEntry(client, target.entry, target.journal);
      outcomes.push(outcome.status === 'failed' ? outcome : { ...outcome, message: `${outcome.message}${await dropRunEventSessions(client, target.entry.id)}` });
    }
    return outcomes;
  } finally {
    if (locked) await releaseDatabaseLock(client, database).catch(() => false);
  }
}

/**
 * The database lock, the run lock and the marker all live in the target database (sp_getapplock: "locks are scoped to
 * the current database"; the marker is a property of the current database), so recovery must work from inside it —
 * a connection opened elsewhere (master) would see none of them and take a live run's database for a gone one's.
 */
async function enterDatabase(client: SqlClient, database: string): Promise<void> {
  const rows = await client.query('SELECT DB_NAME() AS name;');
  if (text(rows[0]?.name) === database) return;
  await client.execute(`USE ${quoteName(database)};`);
}

interface WaitResult {
  /** The marker's run when the wait ended (null: removed). */
  marker: string | null;
  owner: OwnerAssessment;
  /** Whether the database lock is held again on return. */
  locked: boolean;
}

/**
 * Watches, without holding the database lock (the owner must be able to take it back), whether an owner on another
 * machine comes back within the grace period: its database lock or run lock held again means alive; its marker gone
 * or changed means it finished. Otherwise returns with the lock held and the owner 'gone'.
 */
async function waitForOwner(client: SqlClient, database: string, marker: OwnershipMarker, owner: OwnerAssessment, options: RecoveryOptions): Promise<WaitResult> {
  const grace = options.ownerGraceMs ?? OWNER_GRACE_MS;
  const deadline = Date.now() + grace;
  if (grace > 0) options.onWait?.(`${describeClaim(database, marker)}. ${owner.reason} Waiting up to ${Math.round(grace / 1000)} s for it to take its lock back before treating it as gone…`);
  const poll = Math.max(10, Math.min(1000, Math.floor(grace / 10)));
  const stopped: OwnerAssessment = { state: 'unknown', reason: 'The wait for its owner was stopped (this command was told to stop) before the grace period ended.' };
  for (;;) {
    if (options.signal?.aborted) return { marker: marker.run, owner: stopped, locked: false };
    if (Date.now() >= deadline) {
      const lock = await tryLockDatabase(client, database);
      if (!lock.acquired) return { marker: marker.run, owner: { state: 'alive', reason: `It took the database lock back (${describeHolder(lock.holder)}).` }, locked: false };
      const now = await readMarker(client);
      const run = now === null ? null : isUnreadable(now) ? '?' : now.run;
      if (run !== marker.run) return { marker: run, owner, locked: true };
      if ((await runLockHeld(client, marker.run)) === true) return { marker: run, owner: { state: 'alive', reason: 'Its workload connection holds the run again.' }, locked: true };
      return { marker: run, owner: { state: 'gone', reason: `It held nothing on the server for ${Math.round(grace / 1000)} s.` }, locked: true };
    }
    await pause(Math.min(poll, Math.max(1, deadline - Date.now())), options.signal); // poll the server until the deadline
    if (options.signal?.aborted) return { marker: marker.run, owner: stopped, locked: false };
    const lock = await tryLockDatabase(client, database);
    if (!lock.acquired) return { marker: marker.run, owner: { state: 'alive', reason: `It took the database lock back (${describeHolder(lock.holder)}).` }, locked: false };
    const now = await readMarker(client);
    const held = await runLockHeld(client, marker.run);
    await releaseDatabaseLock(client, database).catch(() => false);
    const run = now === null ? null : isUnreadable(now) ? '?' : now.run;
    if (run !== marker.run) return { marker: run, owner, locked: false };
    if (held === true) return { marker: run, owner: { state: 'alive', reason: 'Its workload connection holds the run again.' }, locked: false };
  }
}

/** Waits `ms`, or less when `signal` aborts meanwhile. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
