// Principals through T-SQL, as a DBA sets up a least-privileged login: CREATE LOGIN / USER, DROP LOGIN / USER,
// GRANT / DENY / REVOKE of server and database permissions, ALTER SERVER ROLE / ALTER ROLE ... ADD|DROP MEMBER.
// They feed the permission model of server.ts (hasServerPermission / hasDatabasePermission), which every DMV,
// HAS_PERMS_BY_NAME and sys.fn_my_permissions read; logins made here then log in through LOGIN7.
import type { Output } from '../engine';
import type { Stmt } from './ast';
import { errors, SqlError } from './errors';
import { evaluate } from './eval';
import type { Flow, RunCtx } from './interpreter';
import { SERVER_PERMISSIONS_2022 } from './server';
import type { Database, Login } from './state';
import { toText } from './values';

type Gen = AsyncGenerator<Output, Flow>;

export function execSecurityStatement(s: Stmt, ctx: RunCtx): Gen | null {
  switch (s.k) {
    case 'createLogin': return createLogin(s, ctx);
    case 'createUser': return createUser(s, ctx);
    case 'dropPrincipal': return dropPrincipal(s, ctx);
    case 'permission': return permission(s, ctx);
    case 'alterRole': return alterRole(s, ctx);
    default: return null;
  }
}

/** Security statements need sysadmin / CONTROL SERVER here (securityadmin / ALTER ANY LOGIN are not modelled). */
function requireSecurityAdmin(ctx: RunCtx, line: number): void {
  if (!ctx.b.server.hasServerPermission(ctx.b.session.login, 'CONTROL SERVER')) throw errors.noPermission(line);
}

function loginNamed(ctx: RunCtx, name: string, line: number): Login {
  const login = ctx.b.server.logins.get(name.toLowerCase());
  // Msg 15151 "Cannot find the login '…', because it does not exist or you do not have permission." (text as SQL Server prints it; NOT CONFIRMED by a Learn page)
  if (!login) throw new SqlError(15151, 16, `Cannot find the login '${name}', because it does not exist or you do not have permission.`, line);
  return login;
}

/** The login behind a database user: a CREATE USER mapping, else a login of that name that may open the database. */
function userLogin(ctx: RunCtx, db: Database, user: string, line: number): Login {
  const { server } = ctx.b;
  const mapped = server.dbUsers.get(db.id)?.get(user.toLowerCase());
  const login = mapped ? server.logins.get(mapped) : server.logins.get(user.toLowerCase());
  if (!login || (!mapped && !server.canOpen(login, db))) {
    throw new SqlError(15151, 16, `Cannot find the user '${user}', because it does not exist or you do not have permission.`, line);
  }
  return login;
}

async function* createLogin(s: Stmt & { k: 'createLogin' }, ctx: RunCtx): Gen {
  requireSecurityAdmin(ctx, s.line);
  const { server } = ctx.b;
  if (server.logins.has(s.name.toLowerCase())) throw new SqlError(15025, 16, `The server principal '${s.name}' already exists.`, s.line);
  const password = toText(evaluate(s.password, { batch: ctx.b, scope: null }));
  const defaultDatabase = s.options['DEFAULT_DATABASE'];
  // A new login holds CONNECT SQL only: it opens master and tempdb (guest) and no user database until CREATE USER.
  const login = server.addLogin({ name: s.name, password, databases: [], ...(defaultDatabase ? { defaultDatabase } : {}) });
  login.databases = new Set();
}

async function* createUser(s: Stmt & { k: 'createUser' }, ctx: RunCtx): Gen {
  requireSecurityAdmin(ctx, s.line);
  const { server, session } = ctx.b;
  const db = session.db;
  const users = server.dbUsers.get(db.id) ?? new Map<string, string>();
  if (users.has(s.name.toLowerCase())) throw new SqlError(15023, 16, `User, group, or role '${s.name}' already exists in the current database.`, s.line);
  const login = loginNamed(ctx, s.login ?? s.name, s.line);
  users.set(s.name.toLowerCase(), login.name.toLowerCase());
  server.dbUsers.set(db.id, users);
  if (login.databases !== 'all') login.databases.add(db.name.toLowerCase());
}

async function* dropPrincipal(s: Stmt & { k: 'dropPrincipal' }, ctx: RunCtx): Gen {
  requireSecurityAdmin(ctx, s.line);
  const { server, session } = ctx.b;
  if (s.what === 'LOGIN') {
    const login = server.logins.get(s.name.toLowerCase());
    if (!login) { if (s.ifExists) return; loginNamed(ctx, s.name, s.line); return; }
    if ([...server.sessions.values()].some((x) => x.alive && x.login === login)) {
      throw new SqlError(15434, 16, `Could not drop login '${s.name}' as the user is currently logged in.`, s.line);
    }
    server.logins.delete(s.name.toLowerCase());
    return;
  }
  const users = server.dbUsers.get(session.db.id);
  const loginName = users?.get(s.name.toLowerCase());
  if (!loginName) {
    if (s.ifExists) return;
    throw new SqlError(15151, 16, `Cannot drop the user '${s.name}', because it does not exist or you do not have permission.`, s.line);
  }
  users!.delete(s.name.toLowerCase());
  const login = server.logins.get(loginName);
  if (login && login.databases !== 'all') login.databases.delete(session.db.name.toLowerCase());
  login?.databasePermissions.delete(session.db.name.toLowerCase());
  login?.deniedDatabase.delete(session.db.name.toLowerCase());
}

/**
 * GRANT / DENY / REVOKE (https://learn.microsoft.com/sql/t-sql/statements/grant-server-permissions-transact-sql,
 * .../grant-database-permissions-transact-sql): a permission this version lists as a server permission goes to the
 * login; `ON DATABASE::[db]` or any other permission goes to the user in that (else the current) database.
 * DENY overrides GRANT; REVOKE removes either.
 */
async function* permission(s: Stmt & { k: 'permission' }, ctx: RunCtx): Gen {
  const { server, session } = ctx.b;
  // Msg 4613 "Grantor does not have GRANT permission." (text as SQL Server prints it; NOT CONFIRMED by a Learn page)
  if (!server.hasServerPermission(session.login, 'CONTROL SERVER')) throw new SqlError(4613, 16, 'Grantor does not have GRANT permission.', s.line);
  const serverScope = s.on === null && s.permissions.every((p) => SERVER_PERMISSIONS_2022.includes(p) || p === 'CONNECT SQL' || p === 'CREATE ANY DATABASE');
  if (s.on && s.on.cls !== 'DATABASE' && s.on.cls !== 'SERVER') return; // object / schema permissions: accepted, not modelled
  let db: Database | undefined;
  if (!serverScope) {
    db = s.on?.cls === 'DATABASE' ? server.dbByName(s.on.name) : session.db;
    if (!db) throw errors.dbNotExist(s.on!.name, s.line);
  }
  for (const principal of s.principals) {
    const login = serverScope || s.on?.cls === 'SERVER' ? loginNamed(ctx, principal, s.line) : userLogin(ctx, db!, principal, s.line);
    const key = db?.name.toLowerCase();
    const granted = key ? login.databasePermissions.get(key) ?? new Set<string>() : login.serverPermissions;
    const denied = key ? login.deniedDatabase.get(key) ?? new Set<string>() : login.deniedServer;
    for (const p of s.permissions) {
      if (s.verb === 'GRANT') { granted.add(p); denied.delete(p); }
      else if (s.verb === 'DENY') { denied.add(p); granted.delete(p); }
      else { granted.delete(p); denied.delete(p); }
    }
    if (key) { login.databasePermissions.set(key, granted); login.deniedDatabase.set(key, denied); }
  }
}

/** ALTER SERVER ROLE (sysadmin, ##MS_ServerStateReader##, ...) and ALTER ROLE db_owner (= CONTROL on the database). */
async function* alterRole(s: Stmt & { k: 'alterRole' }, ctx: RunCtx): Gen {
  requireSecurityAdmin(ctx, s.line);
  const { session } = ctx.b;
  const role = s.role.toLowerCase();
  if (s.server) {
    const login = loginNamed(ctx, s.member, s.line);
    if (role === 'sysadmin') login.sysadmin = s.add;
    else if (s.add) login.serverRoles.add(role);
    else login.serverRoles.delete(role);
    return;
  }
  const login = userLogin(ctx, session.db, s.member, s.line);
  const key = session.db.name.toLowerCase();
  const granted = login.databasePermissions.get(key) ?? new Set<string>();
  const carried = role === 'db_owner' ? ['CONTROL'] : role === 'db_datareader' ? ['SELECT'] : role === 'db_datawriter' ? ['INSERT', 'UPDATE', 'DELETE'] : [];
  for (const p of carried) if (s.add) granted.add(p); else granted.delete(p);
  login.databasePermissions.set(key, granted);
}
