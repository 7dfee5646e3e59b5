// The environment block of a report (issue 6): what about the server and database shapes log-flush behaviour —
// trace flags 3979/3982 (Linux forced flush vs FUA, reference §6), VLF count, log size, recovery model.
import { notMeasuredText, valueOf } from '../probes/measurement';
import { FLUSH_TRACE_FLAGS, flushTraceFlagState } from '../probes/serverInfo';
import type { RunResult } from '../profile/types';
import { formatBytes } from './units';

export interface TraceFlagState {
  flag: number;
  /** true when DBCC TRACESTATUS lists it enabled; null when the trace flags could not be read. */
  enabled: boolean | null;
  /** What to print: "on (global)", "off", "not set (Linux default behaviour applies)" for 3982 on Linux, "unknown …". */
  text: string;
}

export interface EnvironmentInfo {
  version: string | null;
  hostPlatform: string | null;
  recoveryModel: string | null;
  traceFlags: TraceFlagState[];
  /** Why the trace flags were not read (and the GRANT, when one fixes it); null when they were. Absent in older models. */
  traceFlagsNotMeasured?: string | null;
  /** After the first measured run (the log may grow during a run). */
  vlfCount: number | null;
  logSizeMb: number | null;
  /** Why the VLF count / log size is null (reason and GRANT); null where it was read. Absent in older models. */
  logNotMeasured?: LogNotMeasured;
}

export interface LogNotMeasured {
  vlfCount: string | null;
  logSize: string | null;
}

/** Why the trace flags of `run` were not read, with the GRANT that fixes it (no "Not measured:" prefix); null when they were. */
export function traceFlagsNotMeasuredText(run: RunResult): string | null {
  return run.server.traceFlags.status === 'ok' ? null : notMeasuredText(run.server.traceFlags).replace(/^Not measured:\s*/i, '');
}

/** Why `measurement` was not read in any of `runs` (its reason and GRANT), or null when no run lacks it. */
function missingText(runs: readonly RunResult[], measurement: string): string | null {
  const missing = runs.flatMap((r) => r.missing).find((m) => m.measurement === measurement);
  return missing ? notMeasuredText(missing) : null;
}

/** The first run that read the log's VLF count or size: the one both the reports and the panel show. */
export function runWithLog(runs: readonly RunResult[]): RunResult | undefined {
  return runs.find((r) => r.diff.log.vlfCount || r.diff.log.logSizeMb);
}

/**
 * Why the VLF count and the log size are not shown. The VLF count comes from sys.dm_db_log_info (or DBCC LOGINFO),
 * else sys.dm_db_log_stats; the log size from the latter. A reason only where the figure is missing.
 */
export function logNotMeasured(runs: readonly RunResult[]): LogNotMeasured {
  const withLog = runWithLog(runs);
  const unread = (why: string | null) => why ?? 'no run read it.';
  return {
    vlfCount: withLog?.diff.log.vlfCount ? null : unread(missingText(runs, 'vlfs') ?? missingText(runs, 'logStats')),
    logSize: withLog?.diff.log.logSizeMb ? null : unread(missingText(runs, 'logStats')),
  };
}

export function environmentOf(runs: readonly RunResult[]): EnvironmentInfo | null {
  const first = runs[0];
  if (!first) return null;
  const log = runWithLog(runs)?.diff.log;
  return {
    version: first.server.version ?? first.server.identity.productVersion ?? null,
    hostPlatform: first.server.hostPlatform ?? valueOf(first.server.host)?.platform ?? null,
    recoveryModel: first.database?.recoveryModel ?? null,
    traceFlags: FLUSH_TRACE_FLAGS.map((flag) => {
      const { state, text } = flushTraceFlagState(first.server, flag);
      return { flag, enabled: state === 'unknown' ? null : state === 'on', text: state === 'on' ? 'on' : text };
    }),
    traceFlagsNotMeasured: traceFlagsNotMeasuredText(first),
    vlfCount: log?.vlfCount?.after ?? null,
    logSizeMb: log?.logSizeMb?.after ?? null,
    logNotMeasured: logNotMeasured(runs),
  };
}

/** One line per item, for Markdown and the plain-text CLI. */
export function environmentLines(env: EnvironmentInfo): string[] {
  const flag = (t: TraceFlagState) => `${t.flag} ${t.text}`;
  return [
    `SQL Server ${env.version ?? 'version unknown'}${env.hostPlatform ? ` on ${env.hostPlatform}` : ''}`,
    `Recovery model: ${env.recoveryModel ?? 'unknown'}`,
    env.traceFlagsNotMeasured ? `Trace flags: ${env.traceFlags.map((t) => t.flag).join(', ')} not measured — ${env.traceFlagsNotMeasured}` : `Trace flags: ${env.traceFlags.map(flag).join(', ')}`,
    logLine(env),
  ];
}

/** "Log: 64 MB, 12 VLFs"; a figure not read says so, with why, on the line itself. */
function logLine(env: EnvironmentInfo): string {
  const why = (text: string | null | undefined) => (text ? ` (${text.replace(/\.$/, '')})` : '');
  const reasons = env.logNotMeasured;
  if (env.logSizeMb === null && env.vlfCount === null && reasons?.logSize === reasons?.vlfCount) return `Log: size and VLF count not measured${why(reasons?.logSize)}`;
  const size = env.logSizeMb !== null ? formatBytes(env.logSizeMb * 1024 * 1024) : `size not measured${why(env.logNotMeasured?.logSize)}`;
  const vlfs = env.vlfCount !== null ? `${env.vlfCount} VLFs` : `VLF count not measured${why(env.logNotMeasured?.vlfCount)}`;
  return `Log: ${size}, ${vlfs}`;
}
