// Dropping event sessions on any connection (including a fresh one after the first died) and finding the
// durability_lens_* sessions a crash left behind.

import type { SqlClient } from '../db/types';
import { isMissingSessionError, mapSessionError, type XePlatform } from './errors';
import { dropSessionSql, intOrNull, latencySessionName, nameParam, orphanSessionsSql, SESSION_NAME_PREFIX, sessionStateSql, sessionStatusSql, statementCountSessionName, statementSessionName, type SessionScope } from './sessionSql';

/** Stops (if running) and drops a session; "does not exist" is success. Returns whether it existed. */
export async function dropSession(client: SqlClient, name: string, scope: SessionScope = 'server', platform?: XePlatform): Promise<boolean> {
  const p = platform ?? { scope, majorVersion: null, principal: null };
  const status = async () => {
    const [row] = await client.query(sessionStatusSql(scope), nameParam(name));
    return { defined: intOrNull(row?.is_defined) === 1, running: intOrNull(row?.is_running) === 1 };
  };
  let s: { defined: boolean; running: boolean };
  try {
    s = await status();
  } catch {
    s = { defined: true, running: false }; // cannot look: try the DROP and let its error speak
  }
  if (!s.defined) return false;
  try {
    if (s.running) await stopUnlessStopped(client, name, scope, status);
    await client.execute(dropSessionSql(name, scope));
  } catch (err) {
    if (!isMissingSessionError(err)) throw mapSessionError('drop', name, p, err);
    // 15151 also means "no permission": it is only success if the session is really gone.
    let still = true;
    try {
      still = (await status()).defined;
    } catch {
      still = true;
    }
    if (still) throw mapSessionError('drop', name, p, { number: 297, message: 'permission denied', cause: err });
    return false;
  }
  return true;
}

/**
 * STOP before the DROP. A status read before it can be stale — answered with an earlier composed request, while a STOP
 * sent since on its own already ended the session — so a failed STOP is only a failure when the session still runs.
 */
async function stopUnlessStopped(client: SqlClient, name: string, scope: SessionScope, status: () => Promise<{ running: boolean }>): Promise<void> {
  try {
    await client.execute(sessionStateSql(name, scope, 'STOP'));
  } catch (err) {
    let running = true;
    try {
      running = (await status()).running;
    } catch {
      // cannot look: the STOP's error speaks
    }
    if (running) throw err;
  }
}

/** Sessions named durability_lens_* that no live run owns (left by a crash or a dropped connection). */
export async function findOrphanSessions(client: SqlClient, liveNames: Iterable<string>, scope: SessionScope = 'server'): Promise<string[]> {
  // A live session's companions (latency histogram, per-statement session) are live too.
  const live = new Set([...liveNames].flatMap((n) => [n, latencySessionName(n), statementSessionName(n), statementCountSessionName(n), statementCountSessionName(statementSessionName(n))]));
  const rows = await client.query(orphanSessionsSql(scope));
  return rows.map((r) => String(r.name)).filter((n) => n.startsWith(SESSION_NAME_PREFIX) && !live.has(n));
}

export async function dropOrphanSessions(
  client: SqlClient,
  names: readonly string[],
  scope: SessionScope = 'server',
): Promise<{ name: string; dropped: boolean; error: string | null }[]> {
  const out = [];
  for (const name of names) {
    try {
      out.push({ name, dropped: await dropSession(client, name, scope), error: null });
    } catch (err) {
      out.push({ name, dropped: false, error: (err as Error).message });
    }
  }
  return out;
}
