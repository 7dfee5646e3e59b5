// Whether the owner a marker names (ownershipMarker.ts) is still alive. The server says it best: the comparison holds
// the database lock on its MONITOR session (databaseLock.ts) and a run lock on its WORKLOAD session, so killing one
// connection leaves the other holding the claim. When neither is held, its process may be reconnecting: on this host
// the process table says whether it still runs; on another host only time does — recovery waits for the owner to take
// its lock back (ownerGraceMs) before it treats it as gone. Nothing here changes the database.
import { hostname } from 'node:os';
import type { SqlClient } from '../db/types';
import { appLockCall, appLockResource, getAppLockSql } from './appLock';
import { alterDurabilitySql } from './durabilitySetting';
import { describeClaim, dropMarkerStatement, isUnreadable, shownText, type MarkerReading, type OwnershipMarker } from './ownershipMarker';

/**
 * The run lock's resource: its own prefix, so its first 32 characters (all that sys.dm_tran_locks shows in plain text,
 * sp-getapplock-transact-sql) never look like the database lock's "durability_lens:<database>".
 */
export function runLockResourceOf(run: string): string {
  return appLockResource('durability_lens_run', run);
}

/**
 * Taken on the workload session for the whole run: Shared, session-owned, no wait. Learn (sp-getapplock-transact-sql):
 * "Locks associated with the current session are released when the session is logged out"; 0/1 granted, -1 timed out.
 */
export const HOLD_RUN_LOCK_SQL = getAppLockSql('Shared');

/**
 * Whether anyone holds `resource`: asks for it Exclusive without waiting and gives it back at once when granted. Needs
 * no VIEW SERVER STATE (sys.dm_tran_locks would), only membership in the database (public may run sp_getapplock).
 */
export const PROBE_RUN_LOCK_SQL = getAppLockSql('Exclusive', { releaseAtOnce: true });

/** Takes the run lock on `workload`; false when it could not (the claim then rests on the database lock and the marker). */
export async function holdRunLock(workload: SqlClient, run: string): Promise<boolean> {
  try {
    return ((await appLockCall(workload, HOLD_RUN_LOCK_SQL, runLockResourceOf(run))) ?? -999) >= 0;
  } catch {
    return false;
  }
}

/** True when another session holds the run lock of `run`; null when the probe itself failed. */
export async function runLockHeld(client: SqlClient, run: string): Promise<boolean | null> {
  try {
    const code = await appLockCall(client, PROBE_RUN_LOCK_SQL, runLockResourceOf(run));
    return code === null || code === -999 ? null : code < 0;
  } catch {
    return null;
  }
}

/** Runs of this process whose claim is live (a guard between begin() and the marker's removal). */
const liveRuns = new Set<string>();

/** The guard says when its run holds a claim and when that ends (durabilityGuard.ts). */
export function markRunLive(run: string, live: boolean): void {
  if (live) liveRuns.add(run);
  else liveRuns.delete(run);
}

/**
 * Whether process `pid` runs on this machine: signal 0 only tests for it (Node's process.kill); EPERM means it runs
 * under another user. Also the session ledger's test of a window's process (extension/sessions/sessionLedger.ts).
 */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * 'alive': it holds a lock, or its process runs on this host — leave its database alone. 'gone': no lock and its
 * process no longer runs here — its marker may be recovered. 'unknown': no lock, another host — it may be reconnecting.
 */
export type OwnerState = 'alive' | 'gone' | 'unknown';

export interface OwnerAssessment {
  state: OwnerState;
  /** One sentence for the user: why we think so and what follows. */
  reason: string;
}

export interface AssessOptions {
  /** The host name of this machine (tests give another to play a second machine). */
  thisHost?: string;
  /** Whether a pid runs on this machine (tests replace it). */
  pidRuns?: (pid: number) => boolean;
}

/**
 * Assesses the owner of `marker` from `client`, which must hold the database lock itself (so the owner does not: its
 * monitor session is gone). Never throws.
 */
export async function assessOwner(client: SqlClient, marker: OwnershipMarker, options: AssessOptions = {}): Promise<OwnerAssessment> {
  const held = await runLockHeld(client, marker.run);
  if (held === true) {
    return { state: 'alive', reason: 'Its monitor connection is gone but its workload connection still holds the run: it reconnects and restores the database itself.' };
  }
  const thisHost = options.thisHost ?? hostname();
  if (marker.host.toLowerCase() === thisHost.toLowerCase() && marker.pid === process.pid && options.pidRuns === undefined) {
    // This very process: its own run, or a claim it left behind (its connection died while the marker was written).
    if (liveRuns.has(marker.run)) return { state: 'alive', reason: 'A comparison of this same process (another run in this window or terminal) holds it.' };
    return { state: 'gone', reason: `It was left by this process (run ${shownText(marker.run, 40)}), which no longer runs that comparison.` };
  }
  if (marker.host.toLowerCase() === thisHost.toLowerCase()) {
    if ((options.pidRuns ?? processRuns)(marker.pid)) {
      return { state: 'alive', reason: `It holds no connection now, but process ${marker.pid} still runs on this machine: it reconnects and restores the database itself (if that process is not Durability Lens, end it and try again).` };
    }
    return { state: 'gone', reason: `Process ${marker.pid} no longer runs on this machine and holds nothing on the server: that comparison is gone.` };
  }
  return { state: 'unknown', reason: `It holds no connection to the server, and whether process ${marker.pid} still runs on ${shownText(marker.host, 80)} cannot be seen from here: it may be reconnecting.` };
}

/** How long recovery waits for an owner on another machine to take its lock back (its restore has 30 s, connecting 15 s). */
export const OWNER_GRACE_MS = 90_000;

/** What a user may do about a database another comparison owns, by what is known of its owner. */
export function ownerAdvice(database: string, marker: OwnershipMarker, owner: OwnerAssessment | null, graceMs: number = OWNER_GRACE_MS): string {
  const restore = alterDurabilitySql(database, marker.original);
  if (owner?.state === 'gone') {
    return `Recovery puts it back to ${marker.original} and removes the marker (the CLI with --yes, or the prompt in VS Code); or run: ${restore} ${dropMarkerStatement(database)}`;
  }
  if (owner?.state === 'unknown') {
    return `If that process has ended, recovery (--yes) takes over once the owner has held nothing for ${Math.round(graceMs / 1000)} s; or, when you know it is gone, run: ${restore} ${dropMarkerStatement(database)}`;
  }
  return 'Try again when it has finished.';
}

/** The refusal a second comparison (or recovery) gives: who owns it since when, the original, liveness, advice. */
export function ownedRefusal(database: string, marker: MarkerReading, owner: OwnerAssessment | null): string {
  const claim = describeClaim(database, marker);
  if (marker === null || isUnreadable(marker)) return `${claim} Nothing was changed.`;
  return `${claim}. ${owner ? `${owner.reason} ` : ''}Nothing was changed. ${ownerAdvice(database, marker, owner)}`;
}
