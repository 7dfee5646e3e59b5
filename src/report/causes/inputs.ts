// What the cause model reads, gathered from the runs of one column (a mode, or the profile's one run): waits by type
// summed over the runs, the log file's writes and stalls, the flush and commit counters, the flush sizes the trace saw,
// the database and platform, and the commit path's settings. A source a run could not read stays "not measured" with
// its reason and GRANT — never a zero.
import { valueOf, type Measurement } from '../../probes/measurement';
import type { HyperscaleLogRate } from '../../probes/hyperscaleLogRate';
import type { InMemoryTables } from '../../probes/inMemoryTables';
import type { LogRateGovernance } from '../../probes/logRateGovernance';
import type { MissingMeasurement, RunResult } from '../../profile/types';
import type { CauseNotMeasured } from './types';

export interface WaitFigure {
  ms: number;
  count: number;
}

/** A source's figure, or why it is missing. */
export type Sourced<T> = { ok: true; value: T } | { ok: false; why: CauseNotMeasured };

export interface CauseInputs {
  runs: number;
  /** Session waits (or a recording's server-wide waits) by upper-case wait type, summed over the runs. */
  waits: Sourced<Map<string, WaitFigure>>;
  scope: 'session' | 'server-wide' | null;
  /**
   * The session's time on the server: Σ over runs of its waits + its CPU (sys.dm_exec_sessions.cpu_time); where the CPU
   * was not read, Σ of max(elapsed, waits) — then the client and the network are in it too (`timeBasis` says which).
   */
  sessionTimeMs: number;
  timeBasis: 'waits-and-cpu' | 'elapsed';
  /** The session's CPU over the runs (ms); null when not read (`cpuWhy`). */
  cpuMs: number | null;
  cpuWhy: CauseNotMeasured | null;
  elapsedMs: number;
  /** Workload sessions at once (1 outside a concurrency sweep). */
  sessions: number;
  /** The log file(s): writes, their stall and bytes (sys.dm_io_virtual_file_stats deltas). */
  logFile: Sourced<{ writes: number; stallMs: number; bytes: number }>;
  /**
   * The data files' reads summed over the runs (sys.dm_io_virtual_file_stats: io_stall_read_ms is "the total time, in
   * milliseconds, that the users waited for reads issued on the file" — every session's, and reads on several files at
   * once add up); null when the file statistics were not read.
   */
  dataReads: { stallMs: number; bytes: number } | null;
  /** Log Flushes/sec and Write Transactions/sec deltas. */
  flushes: Sourced<number>;
  commits: Sourced<number>;
  /** Average bytes per flush from the log-flush trace (exact histogram or sample), when it was read. */
  averageFlushBytes: number | null;
  database: { id: number; name: string; inAvailabilityGroup: boolean; /** Replicas of its availability group in synchronous-commit mode (this one included); null when not read. */
    synchronousReplicas: number | null } | null;
  platform: string | null;
  vlfCount: number | null;
  /** The commit path's settings, from the first run that read them (they do not change between runs). */
  logRateGovernance: Measurement<LogRateGovernance | null> | null;
  hyperscaleLogRate: Measurement<HyperscaleLogRate> | null;
  inMemoryTables: Measurement<InMemoryTables> | null;
}

function missingOf(runs: readonly RunResult[], measurement: string, fallback: string): CauseNotMeasured {
  const m: MissingMeasurement | undefined = runs.flatMap((r) => r.missing).find((x) => x.measurement === measurement);
  return m ? { reason: m.reason, grant: m.grant } : { reason: fallback, grant: null };
}

/** The first not-measured source among `ms`, as its reason and GRANT. */
function gapOf(ms: ReadonlyArray<Measurement<unknown>>): CauseNotMeasured | null {
  for (const m of ms) if (m.status === 'unavailable') return { reason: m.reason, grant: m.grant };
  return null;
}

function counterOf(run: RunResult, name: string): number | null {
  const c = valueOf(run.diff.logCounters)?.find((x) => x.counterName.toLowerCase() === name.toLowerCase());
  return c && c.kind === 'cumulative' ? c.delta : null;
}

/** Sum of a per-run figure; not measured when any run lacks it (a partial sum would understate it). */
function summed(runs: readonly RunResult[], read: (r: RunResult) => number | null, why: () => CauseNotMeasured): Sourced<number> {
  let total = 0;
  for (const r of runs) {
    const v = read(r);
    if (v === null) return { ok: false, why: why() };
    total += v;
  }
  return { ok: true, value: total };
}

/** The DMV the waits were read from, as evidence names it: a recording's are the server's (sys.dm_os_wait_stats). */
export function waitsSource(inp: Pick<CauseInputs, 'scope'>): string {
  return inp.scope === 'server-wide' ? 'sys.dm_os_wait_stats' : 'sys.dm_exec_session_wait_stats';
}

/** The session's waits, or for a recording (whose sessions are not ours) the server's, with the scope said. */
function waitsOf(runs: readonly RunResult[]): { waits: Sourced<Map<string, WaitFigure>>; scope: 'session' | 'server-wide' | null; totals: number[] } {
  const byType = new Map<string, WaitFigure>();
  const totals: number[] = [];
  const recording = runs.every((r) => r.recording);
  for (const r of runs) {
    const m = recording ? r.diff.serverWaits : r.diff.sessionWaits;
    const diff = valueOf(m);
    if (!diff) {
      // The measurement's own reason and GRANT; the run's missing list as a fallback (older results).
      const why = m.status !== 'ok' ? { reason: m.reason, grant: m.grant } : recording ? missingOf(runs, 'waitStats', 'The server waits were not read.') : missingOf(runs, 'sessionWaits', "The session's waits were not read.");
      return { waits: { ok: false, why }, scope: null, totals: [] };
    }
    totals.push(diff.totalWaitTimeMs);
    for (const w of diff.top) {
      const key = w.waitType.toUpperCase();
      const cur = byType.get(key) ?? { ms: 0, count: 0 };
      byType.set(key, { ms: cur.ms + w.waitTimeMs, count: cur.count + w.waitingTasks });
    }
  }
  return { waits: { ok: true, value: byType }, scope: recording ? 'server-wide' : 'session', totals };
}

/** A concurrency run's session 1 (whose waits the run reads) ran this long; otherwise the run's elapsed time. */
function sessionElapsed(r: RunResult): number {
  return r.concurrency?.perSession[0]?.elapsedMs ?? r.workloadElapsedMs;
}

export function causeInputsOf(runs: readonly RunResult[]): CauseInputs {
  const first = runs[0];
  const { waits, scope, totals } = waitsOf(runs);
  const elapsedMs = runs.reduce((s, r) => s + (r.recording ? (r.durationMs ?? r.workloadElapsedMs) : sessionElapsed(r)), 0);
  // Server time = waits + CPU when every run read its session's CPU; otherwise the client's elapsed time bounds it.
  const cpu = scope === 'session' ? runs.map((r) => r.diff.sessionCpu) : [];
  const cpuRead = cpu.length > 0 && cpu.every((m) => m?.status === 'ok');
  const cpuMs = cpuRead ? cpu.reduce((s, m) => s + (m as { value: { cpuMs: number } }).value.cpuMs, 0) : null;
  const firstCpuGap = cpu.find((m) => m && m.status !== 'ok');
  const cpuWhy: CauseNotMeasured | null = cpuRead
    ? null
    : scope !== 'session'
      ? { reason: "a recording's sessions are not ours: no session CPU to read", grant: null }
      : firstCpuGap && firstCpuGap.status !== 'ok'
        ? { reason: firstCpuGap.reason, grant: firstCpuGap.grant }
        : { reason: "the session's CPU was not read (results made before it was)", grant: null };
  const serverTimeMs = cpuRead ? totals.reduce((s, t) => s + t, 0) + cpuMs! : 0;
  // A server that recorded neither waits nor CPU (a session that only ran under a millisecond at a time) gives no
  // basis to split: then the client's elapsed time is the basis, as when the CPU is not read.
  const onServerTime = cpuRead && serverTimeMs > 0;
  const sessionTimeMs = onServerTime
    ? serverTimeMs
    : runs.reduce((s, r, i) => s + Math.max(r.recording ? (r.durationMs ?? r.workloadElapsedMs) : sessionElapsed(r), totals[i] ?? 0), 0);
  const fileWhy = () => gapOf(runs.map((r) => r.diff.files)) ?? missingOf(runs, 'fileStats', 'The log file statistics were not read.');
  const logFile = runs.every((r) => valueOf(r.diff.files) !== null)
    ? {
        ok: true as const,
        value: runs.reduce(
          (acc, r) => {
            const log = valueOf(r.diff.files)!.totals.find((t) => t.kind === 'log');
            return { writes: acc.writes + (log?.writes ?? 0), stallMs: acc.stallMs + (log?.writeStallMs ?? 0), bytes: acc.bytes + (log?.bytesWritten ?? 0) };
          },
          { writes: 0, stallMs: 0, bytes: 0 },
        ),
      }
    : { ok: false as const, why: fileWhy() };
  const counterWhy = () => gapOf(runs.map((r) => r.diff.logCounters)) ?? missingOf(runs, 'perfCounters', 'The log flush counters were not read.');
  const flushSamples = runs.map((r) => r.logFlushTrace?.averageFlushBytes ?? null).filter((v): v is number => v !== null);
  const info = first?.database ?? null;
  const replicas = info ? valueOf(info.agReplicas) : null;
  const path = runs.find((r) => r.commitPath)?.commitPath ?? null;
  return {
    runs: runs.length,
    waits,
    scope,
    sessionTimeMs,
    timeBasis: onServerTime ? 'waits-and-cpu' : 'elapsed',
    cpuMs,
    cpuWhy,
    elapsedMs,
    sessions: first?.concurrency?.sessions ?? 1,
    logFile,
    dataReads: runs.length > 0 && runs.every((r) => valueOf(r.diff.files) !== null)
      ? runs.reduce(
          (acc, r) => {
            const data = valueOf(r.diff.files)!.totals.find((t) => t.kind === 'data');
            return { stallMs: acc.stallMs + (data?.readStallMs ?? 0), bytes: acc.bytes + (data?.bytesRead ?? 0) };
          },
          { stallMs: 0, bytes: 0 },
        )
      : null,
    flushes: summed(runs, (r) => counterOf(r, 'Log Flushes/sec'), counterWhy),
    commits: summed(runs, (r) => counterOf(r, 'Write Transactions/sec'), counterWhy),
    averageFlushBytes: flushSamples.length > 0 ? flushSamples.reduce((s, v) => s + v, 0) / flushSamples.length : null,
    database: info
      ? {
          id: info.databaseId,
          name: info.name,
          inAvailabilityGroup: info.inAvailabilityGroup,
          synchronousReplicas: replicas ? replicas.filter((r) => /^SYNCHRONOUS_COMMIT$/i.test(r.availabilityMode.trim())).length : null,
        }
      : null,
    platform: first?.server.identity.platform ?? null,
    vlfCount: first?.diff.log.vlfCount?.after ?? null,
    logRateGovernance: path?.logRateGovernance ?? null,
    hyperscaleLogRate: path?.hyperscaleLogRate ?? null,
    inMemoryTables: path?.inMemoryTables ?? null,
  };
}
