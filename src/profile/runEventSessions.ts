// A comparison's event sessions are named after its run (the id its journal entry and ownership marker carry), so the
// recovery of a run that is gone — a killed process cannot drop what it created — drops exactly the sessions that run
// left running, and never another run's (another terminal, window or machine; their names derive from other runs).
import { createHash } from 'node:crypto';
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { dropSession, findOrphanSessions } from '../xe/cleanup';
import { owningSessionName, SESSION_NAME_PREFIX, type SessionScope } from '../xe/sessionSql';
import { sessionScopeOf } from '../xe/sessionRunner';

/** `durability_lens_<16 hex>` (the shape of newSessionName) from the run id: the same name for the run and its recovery. */
export function eventSessionOfRun(run: string): string {
  return SESSION_NAME_PREFIX + createHash('sha256').update(run).digest('hex').slice(0, 16);
}

/** The scope this server's sessions are defined in, by the one EngineEdition rule (xe sessionScopeOf). */
async function scopeOf(client: SqlClient): Promise<SessionScope> {
  const rows = await client.query("SELECT CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition;");
  const edition = Number(rows[0]?.engine_edition);
  return sessionScopeOf(Number.isInteger(edition) ? edition : null);
}

/**
 * Drops the sessions (the log-flush session and its companions) a gone run left; call only once its owner is judged
 * gone. Returns a sentence for the recovery's message: '' when that run left none.
 */
export async function dropRunEventSessions(client: SqlClient, run: string): Promise<string> {
  const own = eventSessionOfRun(run);
  let left: string[];
  let scope: SessionScope;
  try {
    scope = await scopeOf(client);
    left = (await findOrphanSessions(client, [], scope)).filter((n) => owningSessionName(n) === own);
  } catch (err) {
    return ` Whether that run left event sessions could not be read (${(err as Error).message}); look for ${own} in sys.server_event_sessions.`;
  }
  if (left.length === 0) return '';
  const dropped: string[] = [];
  const failed: string[] = [];
  for (const name of left) {
    try {
      await dropSession(client, name, scope);
      dropped.push(quoteName(name));
    } catch (err) {
      failed.push(`${quoteName(name)} (${(err as Error).message})`);
    }
  }
  const on = scope === 'server' ? 'SERVER' : 'DATABASE';
  return `${dropped.length > 0 ? ` The event session${dropped.length === 1 ? '' : 's'} that run left running ${dropped.length === 1 ? 'was' : 'were'} dropped: ${dropped.join(', ')}.` : ''}${failed.length > 0 ? ` Left running, could not be dropped: ${failed.join('; ')}; run DROP EVENT SESSION [name] ON ${on}; for each.` : ''}`;
}
