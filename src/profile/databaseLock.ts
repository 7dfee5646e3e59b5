// One comparison per database at a time, held on the server: an exclusive, session-owned application lock taken on
// the MONITOR session for the whole comparison. Any other window or process (CLI, CI job, another machine) asks the
// same server for the same resource, so the refusal holds across all of them; the server releases the lock itself
// when the session ends (crash, kill, dropped connection), so a dead owner never blocks the database.
import type { SqlClient } from '../db/types';
import { isPermissionError } from '../db/errors';
import { num, text } from '../probes/values';
import { appLockCall, appLockResource, getAppLockSql, RELEASE_APPLOCK_SQL } from './appLock';

/**
 * The lock's resource name (appLock.ts), scoped to the session's current database: the monitor is opened in the target
 * database.
 */
export function lockResourceOf(database: string): string {
  return appLockResource('durability_lens', database);
}

/** Exclusive, session-owned, no wait (appLock.ts): one comparison per database. */
export const GET_APPLOCK_SQL = getAppLockSql('Exclusive');

export { RELEASE_APPLOCK_SQL };

/**
 * Who holds it: APPLICATION locks of this database owned by a SESSION in X mode, joined to the session's host,
 * program and login time. resource_description is "<DbPrincipalId>:<up to 32 characters>:(<hash_value>)", so the
 * resource is matched on its first 32 characters in code. Needs VIEW SERVER STATE (SQL Server 2022: VIEW SERVER
 * PERFORMANCE STATE) to see other sessions. Learn: sys-dm-tran-locks-transact-sql, sys-dm-exec-sessions-transact-sql.
 * login_time is a datetime in the server machine's local time, as GETDATE is (getdate-transact-sql), and the driver reads
 * a datetime as UTC: it is moved to UTC on the server by the server's own offset now (SYSDATETIME vs SYSUTCDATETIME),
 * which is an hour off only for a login from before a daylight-saving change.
 */
export const LOCK_HOLDER_SQL = `SELECT l.request_session_id AS session_id, l.resource_description, s.host_name, s.program_name, s.host_process_id, s.login_name,
  DATEADD(MINUTE, DATEDIFF(MINUTE, SYSDATETIME(), SYSUTCDATETIME()), s.login_time) AS login_time_utc
FROM sys.dm_tran_locks AS l
JOIN sys.dm_exec_sessions AS s ON s.session_id = l.request_session_id
WHERE l.resource_type = N'APPLICATION'
  AND l.resource_database_id = DB_ID()
  AND l.request_owner_type = N'SESSION'
  AND l.request_mode = N'X'
  AND l.request_session_id <> @@SPID;`;

export interface LockHolder {
  /** null when the holder could not be read (no VIEW SERVER STATE, or it ended meanwhile). */
  sessionId: number | null;
  host: string | null;
  program: string | null;
  hostProcessId: number | null;
  login: string | null;
  /** ISO time the holder's session logged in. */
  since: string | null;
  /** Why the fields are unknown, when they are. */
  unknownReason?: string;
}

export type LockAttempt = { acquired: true } | { acquired: false; code: number; holder: LockHolder };

/** Tries the lock once without waiting; when refused, says who holds it (as far as this login may see). */
export async function tryLockDatabase(client: SqlClient, database: string): Promise<LockAttempt> {
  const resource = lockResourceOf(database);
  const code = (await appLockCall(client, GET_APPLOCK_SQL, resource)) ?? -999;
  if (code >= 0) return { acquired: true };
  return { acquired: false, code, holder: await readLockHolder(client, resource) };
}

export async function readLockHolder(client: SqlClient, resource: string): Promise<LockHolder> {
  const none = (unknownReason: string): LockHolder => ({ sessionId: null, host: null, program: null, hostProcessId: null, login: null, since: null, unknownReason });
  try {
    const rows = await client.query(LOCK_HOLDER_SQL);
    const holders = rows.filter((r) => describesLock(text(r.resource_description) ?? '', resource));
    // Only the first 32 characters of a name are kept in plain text (sp_getapplock): two names that share them cannot
    // be told apart, and naming one of their sessions would be a guess (issue 33 D10).
    const sessions = new Set(holders.map((r) => num(r.session_id)));
    if (sessions.size > 1) return none(`${sessions.size} sessions hold application locks whose names share the first 32 characters of ${JSON.stringify(resource.slice(0, 32))} (only those are kept in plain text), so which one is the comparison's is not known`);
    const row = holders[0];
    if (!row) return none('the holding session was not visible (it may have just ended)');
    const since = row.login_time_utc instanceof Date ? row.login_time_utc.toISOString() : text(row.login_time_utc);
    return {
      sessionId: num(row.session_id),
      host: text(row.host_name),
      program: text(row.program_name),
      hostProcessId: num(row.host_process_id),
      login: text(row.login_name),
      since,
    };
  } catch (err) {
    if (isPermissionError(err)) return none('this login may not read sys.dm_tran_locks (GRANT VIEW SERVER STATE shows who holds it)');
    return none(`sys.dm_tran_locks could not be read (${(err as Error).message})`);
  }
}

/**
 * Whether an APPLICATION lock's resource_description ("<DbPrincipalId>:<up to 32 characters>:(<hash_value>)",
 * sys-dm-tran-locks-transact-sql; "only the first 32 characters can be retrieved in plain text", sp-getapplock) is
 * `resource`'s: its plain-text part, brackets optional, equals the resource's first 32 characters — not merely
 * contains them, so "durability_lens:lab" does not match "durability_lens:lab2".
 */
export function describesLock(description: string, resource: string): boolean {
  const m = /^\d+:\[?(.*?)\]?:\([^()]*\)\s*$/s.exec(description.trim());
  const plain = m ? m[1]! : null;
  return plain !== null && plain === resource.slice(0, 32);
}

export async function releaseDatabaseLock(client: SqlClient, database: string): Promise<boolean> {
  return (await appLockCall(client, RELEASE_APPLOCK_SQL, lockResourceOf(database))) === 0;
}

/** Server-provided text shown to a user: control characters (terminal escapes, newlines) become spaces. */
function shown(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** "session 57 from host BUILD-7 (program "Durability Lens CLI", pid 4242, login ci), connected since …". */
export function describeHolder(holder: LockHolder): string {
  const h = { ...holder, host: holder.host && shown(holder.host), program: holder.program && shown(holder.program), login: holder.login && shown(holder.login) };
  holder = h;
  if (holder.sessionId === null) return `another session (who: unknown — ${holder.unknownReason ?? 'not readable'})`;
  const parts = [
    holder.program !== null ? `program "${holder.program}"` : null,
    holder.hostProcessId !== null && holder.hostProcessId > 0 ? `pid ${holder.hostProcessId}` : null,
    holder.login !== null ? `login ${holder.login}` : null,
  ].filter((p): p is string => p !== null);
  return `session ${holder.sessionId}${holder.host ? ` on host ${holder.host}` : ''}${parts.length ? ` (${parts.join(', ')})` : ''}${holder.since ? `, connected since ${holder.since}` : ''}`;
}
