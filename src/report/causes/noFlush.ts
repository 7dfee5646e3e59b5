// Time that is not a commit waiting for the log: either the workload committed where no flush is waited for (tempdb,
// whose log is flushed lazily; SCHEMA_ONLY memory-optimized tables, which are not logged) — then that is why its
// commits cost nothing — or it simply went elsewhere (other waits, or running), which no commit setting changes.
import { formatBytes, formatCount, formatDuration, formatShare } from '../units';
import type { CauseInputs } from './inputs';
import type { Part } from './logWrites';

/** tempdb's database_id (sys.databases; tempdb is always database 2). */
export const TEMPDB_ID = 2;
/** WRITELOG waits below this share of the commits: the commits did not wait for their own flush. */
export const NO_FLUSH_WAIT_SHARE = 0.1;

/** Why commits here wait for no log flush, or null when they do (or it is not known). */
export function noFlushReason(inp: CauseInputs): { kind: 'tempdb' | 'schema-only'; evidence: string[] } | null {
  const db = inp.database;
  if (db && (db.id === TEMPDB_ID || db.name.toLowerCase() === 'tempdb')) {
    return { kind: 'tempdb', evidence: ['the measured database is tempdb: its log is flushed lazily at commit — it behaves as delayed durable whatever sys.databases says (Microsoft SQL Server Blog, "I/O optimizations for tempdb"; Learn calls tempdb minimally logged)'] };
  }
  const mem = inp.inMemoryTables;
  if (mem?.status === 'ok' && mem.value.schemaOnlyTables > 0 && inp.waits.ok && inp.commits.ok && inp.commits.value > 0) {
    const waits = inp.waits.value.get('WRITELOG')?.count ?? 0;
    if (waits < NO_FLUSH_WAIT_SHARE * inp.commits.value) {
      return {
        kind: 'schema-only',
        evidence: [
          `${formatCount(mem.value.schemaOnlyTables)} SCHEMA_ONLY memory-optimized table(s) in the database: "A SCHEMA_ONLY durability avoids transaction logging" (Learn) — sys.tables`,
          `${formatCount(waits)} WRITELOG waits for ${formatCount(inp.commits.value)} write transactions: the commits did not wait for the log`,
        ],
      };
    }
  }
  return null;
}

/** The time outside the commit path: the session's other waits (largest first) and the time it spent running. */
export function elsewherePart(inp: CauseInputs, commitWaitMs: number, commitTypes: (type: string) => boolean): Part {
  if (!inp.waits.ok) {
    return { ms: Math.max(0, inp.sessionTimeMs), evidence: [`elapsed ${formatDuration(inp.elapsedMs)}; how much of it was waiting is not measured`], notMeasured: inp.waits.why };
  }
  const elsewhere = Math.max(0, inp.sessionTimeMs - commitWaitMs);
  const others = [...inp.waits.value.entries()].filter(([t, f]) => !commitTypes(t) && f.ms > 0).sort((a, b) => b[1].ms - a[1].ms);
  const otherMs = others.reduce((s, [, f]) => s + f.ms, 0);
  const waitsMs = commitWaitMs + otherMs;
  const evidence = [
    ...others.slice(0, 3).map(([t, f]) => `${t}: ${formatDuration(f.ms)} (${formatShare(inp.sessionTimeMs > 0 ? f.ms / inp.sessionTimeMs : 0)} of the session's time)`),
    ...(others.length > 3 ? [`${others.length - 3} other wait type(s): ${formatDuration(others.slice(3).reduce((s, [, f]) => s + f.ms, 0))}`] : []),
    ...(inp.dataReads && inp.dataReads.stallMs > 0
      ? [`data-file reads: ${formatDuration(inp.dataReads.stallMs)} of read stall for ${formatBytes(inp.dataReads.bytes)} read (io_stall_read_ms, sys.dm_io_virtual_file_stats: every session's reads; reads on several files at once add up)`]
      : []),
    inp.timeBasis === 'waits-and-cpu'
      ? `CPU: ${formatDuration(inp.cpuMs!)} (sys.dm_exec_sessions.cpu_time); the client and the network took the rest of the ${formatDuration(inp.elapsedMs)} elapsed (${formatDuration(Math.max(0, inp.elapsedMs - waitsMs - inp.cpuMs!))}), outside the server's time`
      : inp.cpuMs !== null
        ? `no wait and no CPU recorded on the server (CPU ${formatDuration(inp.cpuMs)}): the ${formatDuration(inp.elapsedMs)} elapsed went to running briefly, the client and the network`
        : `running, or the client and the network (elapsed minus waits; the session's CPU not measured: ${inp.cpuWhy?.reason ?? 'unknown'}): ${formatDuration(Math.max(0, inp.elapsedMs - waitsMs))}`,
  ];
  return { ms: elsewhere, evidence, notMeasured: null };
}
