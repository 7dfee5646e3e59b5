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
}

/** Why the trace flags of `run` were not read, with the GRANT that fixes it (no "Not measured:" prefix); null when they were. */
export function traceFlagsNotMeasuredText(run: RunResult): string | null {
  return run.server.traceFlags.status === 'ok' ? null : notMeasuredText(run.server.traceFlags).replace(/^Not measured:\s*/i, '');
}

export function environmentOf(runs: readonly RunResult[]): EnvironmentInfo | null {
  const first = runs[0];
  if (!first) return null;
  return {
    version: first.server.version ?? first.server.identity.productVersion ?? null,
    hostPlatform: first.server.hostPlatform ?? valueOf(first.server.host)?.platform ?? null,
    recoveryModel: first.database?.recoveryModel ?? null,
    traceFlags: FLUSH_TRACE_FLAGS.map((flag) => {
      const { state, text } = flushTraceFlagState(first.server, flag);
      return { flag, enabled: state === 'unknown' ? null : state === 'on', text: state === 'on' ? 'on' : text };
    }),
    traceFlagsNotMeasured: traceFlagsNotMeasuredText(first),
    vlfCount: first.diff.log.vlfCount?.after ?? null,
    logSizeMb: first.diff.log.logSizeMb?.after ?? null,
  };
}

/** One line per item, for Markdown and the plain-text CLI. */
export function environmentLines(env: EnvironmentInfo): string[] {
  const flag = (t: TraceFlagState) => `${t.flag} ${t.text}`;
  return [
    `SQL Server ${env.version ?? 'version unknown'}${env.hostPlatform ? ` on ${env.hostPlatform}` : ''}`,
    `Recovery model: ${env.recoveryModel ?? 'unknown'}`,
    env.traceFlagsNotMeasured ? `Trace flags: ${env.traceFlags.map((t) => t.flag).join(', ')} not measured — ${env.traceFlagsNotMeasured}` : `Trace flags: ${env.traceFlags.map(flag).join(', ')}`,
    `Log: ${env.logSizeMb !== null ? formatBytes(env.logSizeMb * 1024 * 1024) : 'size unknown'}, ${env.vlfCount !== null ? `${env.vlfCount} VLFs` : 'VLF count unknown'}`,
  ];
}
