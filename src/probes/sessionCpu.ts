// The workload session's CPU time, before and after a run: with its waits, the session's time on the server — what the
// cause model splits (issue 29). The rest of the client's elapsed time is the client and the network, which no
// server setting changes.
import type { SqlClient } from '../db/types';
import { EmptySourceError, measure, ok, type Measurement } from './measurement';
import type { GrantContext } from './permissions';
import { sessionVisibility } from './waitStats';
import { num } from './values';

/**
 * cpu_time: "CPU time, in milliseconds, used by this session" (int, cumulative since the session started). Without
 * VIEW SERVER STATE (≤ 2019) / VIEW SERVER PERFORMANCE STATE (2022+) a login sees only its own session's row — the
 * workload's is then missing, not zero.
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-sessions-transact-sql
 */
export const SESSION_CPU_SQL = `SELECT cpu_time
FROM sys.dm_exec_sessions
WHERE session_id = @spid;`;

export interface SessionCpu {
  /** Cumulative CPU ms of the session. */
  cpuMs: number;
}

export function sessionCpuQuery(spid: number): { sql: string; parameters: [{ name: 'spid'; type: 'int'; value: number }] } {
  return { sql: SESSION_CPU_SQL, parameters: [{ name: 'spid', type: 'int', value: spid }] };
}

export async function captureSessionCpu(monitor: SqlClient, spid: number, ctx: GrantContext): Promise<Measurement<SessionCpu>> {
  return measure('sessionCpu', ctx, async () => {
    const q = sessionCpuQuery(spid);
    const row = (await monitor.query(q.sql, q.parameters))[0];
    const cpu = num(row?.cpu_time);
    if (!row || cpu === null) {
      const visibility = sessionVisibility(ctx);
      throw new EmptySourceError(`sys.dm_exec_sessions shows no row for the workload session (${spid}): without ${visibility.permission} a login sees only its own session.`, visibility);
    }
    return { cpuMs: cpu };
  });
}

/** The CPU ms the session used between two readings; a counter that went down (a reset session) is not measured. */
export function diffSessionCpu(before: Measurement<SessionCpu> | undefined, after: Measurement<SessionCpu> | undefined): Measurement<{ cpuMs: number }> | undefined {
  if (!before || !after) return undefined;
  if (before.status !== 'ok') return before;
  if (after.status !== 'ok') return after;
  if (after.value.cpuMs < before.value.cpuMs) {
    return { status: 'unavailable', measurement: 'sessionCpu', cause: 'error', reason: "The workload session's CPU time went down between the snapshots (the session was reset): its CPU during the run is unknown.", grant: null, errorNumber: null };
  }
  return ok({ cpuMs: after.value.cpuMs - before.value.cpuMs });
}
