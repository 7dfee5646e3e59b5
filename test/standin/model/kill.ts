// KILL session_id: ends another session's connection from the server side — its open transaction rolled back, its
// session-owned application locks released, its TCP connection closed — as a DBA (or a test) does to a comparison's
// monitor connection. The engine registers how a session ends (index.ts); this file checks and dispatches.
//
// Sources (Learn):
// - KILL: https://learn.microsoft.com/sql/t-sql/language-elements/kill-transact-sql — "KILL ends a normal connection,
//   which internally stops the transactions that are associated with the specified session ID"; "You can't kill your
//   own process"; SQL Server requires ALTER ANY CONNECTION (sysadmin, processadmin); Azure SQL Database requires KILL
//   DATABASE CONNECTION. WITH STATUSONLY reports a rollback in progress, else error 6120.
// - Errors (Database engine events and errors, 6000–6999): 6102 (severity 14) "User does not have permission to use
//   the KILL statement."; 6104 "Cannot use KILL to kill your own process."; 6106 "Process ID %d is not an active
//   process ID."; 6115 "KILL command cannot be used inside user transactions."; 6120 "Status report cannot be
//   obtained. Rollback operation for Process ID %d is not in progress."
// - sp_getapplock: "Locks associated with the current session are released when the session is logged out."
// NOT CONFIRMED (MODEL.md "KILL"): the rollback of the killed session is instant (no KILLED/ROLLBACK state, so WITH
// STATUSONLY always answers 6120); the exact moment the client sees the socket close.
import type { Stmt } from './ast';
import { SqlError } from './errors';
import { evaluate } from './eval';
import type { Flow, RunCtx } from './interpreter';
import type { Output } from '../engine';
import type { Server } from './server';
import { toNumber } from './values';

const KILLERS = new WeakMap<Server, (spid: number) => void>();

/** The engine's way to end a session (logout + close its connection); set once per model (index.ts). */
export function setSessionKiller(server: Server, kill: (spid: number) => void): void {
  KILLERS.set(server, kill);
}

export async function* killSession(s: Stmt & { k: 'kill' }, ctx: RunCtx): AsyncGenerator<Output, Flow> {
  const { server, session } = ctx.b;
  const spid = toNumber(evaluate(s.spid, { batch: ctx.b, scope: null }));
  const permission = server.options.product === 'azure-sqldb' ? 'KILL DATABASE CONNECTION' : 'ALTER ANY CONNECTION';
  const allowed = server.options.product === 'azure-sqldb' ? server.hasDatabasePermission(session.login, session.db, permission) : server.hasServerPermission(session.login, permission);
  if (!allowed) throw new SqlError(6102, 14, 'User does not have permission to use the KILL statement.', s.line);
  if (session.trancount > 0) throw new SqlError(6115, 16, 'KILL command cannot be used inside user transactions.', s.line);
  if (spid === session.spid) throw new SqlError(6104, 16, 'Cannot use KILL to kill your own process.', s.line);
  const target = server.sessions.get(spid);
  if (!target || !target.alive) throw new SqlError(6106, 16, `Process ID ${spid} is not an active process ID.`, s.line);
  if (s.statusOnly) throw new SqlError(6120, 16, `Status report cannot be obtained. Rollback operation for Process ID ${spid} is not in progress.`, s.line);
  const kill = KILLERS.get(server);
  if (!kill) throw new SqlError(50000, 16, 'stand-in: this model has no way to end a session (KILL is wired by createStandin).', s.line);
  kill(spid);
  yield { kind: 'done', inProc: ctx.inProc };
}
