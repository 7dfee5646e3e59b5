// Application locks: sys.sp_getapplock / sys.sp_releaseapplock and their rows in sys.dm_tran_locks.
// Durability Lens takes one exclusive session-owned lock per database for a whole comparison, so this models
// exactly what that needs and refuses the rest with -999.
//
// Sources (Learn):
// - sp_getapplock: https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-getapplock-transact-sql
//   return codes 0 (granted at once), 1 (granted after waiting), -1 (timed out), -2 (cancelled), -3 (deadlock victim),
//   -999 (parameter validation or other call error); @LockOwner Transaction (default, needs a transaction) or Session;
//   @LockTimeout 0 = do not wait; locks are scoped to the current database; "Locks associated with the current
//   session are released when the session is logged out"; all locks are released when the server shuts down;
//   @Resource is binary-compared (case-sensitive), nvarchar(255).
// - sp_releaseapplock: https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-releaseapplock-transact-sql
//   returns 0 (released) or -999 (parameter validation or other call error).
// - sys.dm_tran_locks: https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-tran-locks-transact-sql
//   resource_type APPLICATION, resource_description "<DbPrincipalId>:<up to 32 characters>:(<hash_value>)",
//   request_owner_type SESSION; VIEW SERVER STATE (2022+: VIEW SERVER PERFORMANCE STATE) to see other sessions.
// NOT CONFIRMED (MODEL.md): only Exclusive and Shared are compatible-checked (X blocks all; S shares with S); waits
// (@LockTimeout > 0) are not modelled — an unavailable lock returns -1 at once; the hash in resource_description is
// a made-up stable number; lock counts (acquiring the same lock twice) are tracked, no lock conversion; APPLOCK_MODE
// and APPLOCK_TEST are not modelled.
import { register, requireServerState, type VRow } from './catalog';
import type { BatchContext } from './eval';
import type { Server } from './server';

interface AppLock {
  spid: number;
  databaseId: number;
  resource: string;
  mode: 'Exclusive' | 'Shared';
  owner: 'Session' | 'Transaction';
  count: number;
  grantedAt: Date;
}

const LOCKS = new WeakMap<Server, AppLock[]>();

/** Locks whose session is still alive: a logged-out (or restarted-away) session holds nothing. */
function liveLocks(server: Server): AppLock[] {
  const all = LOCKS.get(server) ?? [];
  const live = all.filter((l) => server.sessions.get(l.spid)?.alive === true);
  LOCKS.set(server, live);
  return live;
}

const MODES: Record<string, 'Exclusive' | 'Shared'> = { exclusive: 'Exclusive', shared: 'Shared' };

/** Named or positional arguments in the documented order. */
function argsOf(names: readonly string[], args: ReadonlyArray<{ name: string | null; value: unknown }>): Map<string, unknown> {
  const out = new Map<string, unknown>();
  args.forEach((a, i) => {
    const key = a.name ? a.name.replace(/^@/, '').toLowerCase() : names[i];
    if (key) out.set(key, a.value);
  });
  return out;
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

/** sp_getapplock; returns the documented return code. */
export function getAppLock(b: BatchContext, args: ReadonlyArray<{ name: string | null; value: unknown }>): number {
  const a = argsOf(['resource', 'lockmode', 'lockowner', 'locktimeout', 'dbprincipal'], args);
  const resource = str(a.get('resource'));
  const mode = MODES[(str(a.get('lockmode')) ?? '').toLowerCase()];
  const ownerText = (str(a.get('lockowner')) ?? 'Transaction').toLowerCase();
  if (!resource || !mode || (ownerText !== 'session' && ownerText !== 'transaction')) return -999;
  const owner = ownerText === 'session' ? 'Session' : 'Transaction';
  // Learn: with @LockOwner = 'Transaction' the procedure must run inside a transaction (modelled as a call error).
  if (owner === 'Transaction' && b.session.trancount === 0) return -999;
  const locks = liveLocks(b.server);
  const name = resource.slice(0, 255);
  const sameResource = locks.filter((l) => l.databaseId === b.session.db.id && l.resource === name);
  const mine = sameResource.find((l) => l.spid === b.session.spid && l.owner === owner && l.mode === mode);
  const conflicting = sameResource.filter((l) => l.spid !== b.session.spid && (l.mode === 'Exclusive' || mode === 'Exclusive'));
  if (conflicting.length > 0) return -1; // no waiting modelled: @LockTimeout 0 (and any other value) times out at once
  if (mine) mine.count++;
  else locks.push({ spid: b.session.spid, databaseId: b.session.db.id, resource: name, mode, owner, count: 1, grantedAt: new Date() });
  return 0;
}

/** sp_releaseapplock; 0 when released, -999 when this session does not hold it (the server also raises 1223). */
export function releaseAppLock(b: BatchContext, args: ReadonlyArray<{ name: string | null; value: unknown }>): number {
  const a = argsOf(['resource', 'lockowner', 'dbprincipal'], args);
  const resource = str(a.get('resource'));
  const owner = (str(a.get('lockowner')) ?? 'Transaction').toLowerCase() === 'session' ? 'Session' : 'Transaction';
  const locks = liveLocks(b.server);
  const i = locks.findIndex((l) => l.spid === b.session.spid && l.databaseId === b.session.db.id && l.resource === resource && l.owner === owner);
  if (i < 0) return -999;
  const lock = locks[i]!;
  if (--lock.count === 0) locks.splice(i, 1);
  return 0;
}

/** A stable made-up hash for resource_description (the real one is internal). */
function hashOf(text: string): string {
  let h = 0;
  for (const ch of text) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h.toString(16).padStart(8, '0');
}

export function registerAppLockTables(): void {
  register({
    name: 'sys.dm_tran_locks',
    check: requireServerState,
    columns:
      'resource_type nvarchar(60), resource_subtype nvarchar(60), resource_database_id int, resource_description nvarchar(256), ' +
      'resource_associated_entity_id bigint, request_mode nvarchar(60), request_type nvarchar(60), request_status nvarchar(60), ' +
      'request_reference_count smallint, request_session_id int, request_owner_type nvarchar(60)',
    rows: (b): VRow[] =>
      liveLocks(b.server).map((l) => ({
        resource_type: 'APPLICATION',
        resource_subtype: '',
        resource_database_id: l.databaseId,
        resource_description: `0:[${l.resource.slice(0, 32)}]:(${hashOf(l.resource)})`,
        resource_associated_entity_id: 0n,
        request_mode: l.mode === 'Exclusive' ? 'X' : 'S',
        request_type: 'LOCK',
        request_status: 'GRANT',
        request_reference_count: l.count,
        request_session_id: l.spid,
        request_owner_type: l.owner === 'Session' ? 'SESSION' : 'TRANSACTION',
      })),
  });
}
