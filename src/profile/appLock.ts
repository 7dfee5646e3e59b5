// Session-owned application locks, the one primitive behind the database lock (databaseLock.ts, MONITOR session) and
// the run lock (ownerLiveness.ts, WORKLOAD session): the resource name, the statement text, and calling it once.
// Learn: https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql
import type { SqlClient } from '../db/types';
import { num } from '../probes/values';

/** `<prefix>:<name>`, cut to sp_getapplock's @Resource nvarchar(255) (binary-compared, scoped to the current database). */
export function appLockResource(prefix: string, name: string): string {
  return `${prefix}:${name}`.slice(0, 255);
}

/**
 * sp_getapplock with @LockOwner = 'Session' (held until released or the session logs out) and @LockTimeout = 0 (never
 * waits), returning its code as `result`: 0 granted at once, 1 granted after waiting, -1 timed out (someone else holds
 * it), -2 cancelled, -3 deadlock victim, -999 parameter or other call error. `releaseAtOnce`: give a granted lock back
 * in the same batch (a probe of whether anyone else holds it). The resource is the parameter @resource.
 */
export function getAppLockSql(mode: 'Exclusive' | 'Shared', { releaseAtOnce = false }: { releaseAtOnce?: boolean } = {}): string {
  return `DECLARE @result int;
EXEC @result = sys.sp_getapplock @Resource = @resource, @LockMode = '${mode}', @LockOwner = 'Session', @LockTimeout = 0;
${releaseAtOnce ? "IF @result >= 0 EXEC sys.sp_releaseapplock @Resource = @resource, @LockOwner = 'Session';\n" : ''}SELECT @result AS result;`;
}

/** sp_releaseapplock of a session-owned lock: 0 released, -999 not held (Learn: sp-releaseapplock-transact-sql). */
export const RELEASE_APPLOCK_SQL = `DECLARE @result int;
EXEC @result = sys.sp_releaseapplock @Resource = @resource, @LockOwner = 'Session';
SELECT @result AS result;`;

/** Runs one of the statements above for `resource` and returns its code; null when the server sent none. */
export async function appLockCall(client: SqlClient, sql: string, resource: string): Promise<number | null> {
  const rows = await client.query(sql, [{ name: 'resource', type: 'nvarchar', value: resource }]);
  return num(rows[0]?.result);
}
