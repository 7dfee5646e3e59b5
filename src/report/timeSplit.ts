// Where a run's time went, weighed on what was measured (issue 28: S5 read its data files for half the run and the
// verdict called it "CPU"): the session's largest wait, its CPU, and the data files' read stall beyond the read waits
// already counted — the largest measured part leads; a part that was not measured is never the answer by default.
import type { ComparisonModel } from './comparisonModel';
import { formatDuration, formatShare } from './units';

/** Waits that are a session reading (sys.dm_os_wait_stats): counted there already, so the file stall adds only the rest. */
const READ_WAIT = /^(PAGEIOLATCH_|IO_COMPLETION$|ASYNC_IO_COMPLETION$|BACKUPIO$)/;

/** A part below this share of the elapsed time is not named beside the lead. */
export const MENTION_SHARE = 0.1;

export interface TimePart {
  kind: 'wait' | 'cpu' | 'reads';
  /** What the part is, in words ("WRITELOG", "CPU", "data-file reads"). */
  name: string;
  ms: number;
}

export interface TimeSplit {
  elapsedMs: number | null;
  /** The session's largest wait (type and ms); null when it recorded none or its waits were not read. */
  topWait: { waitType: string; ms: number } | null;
  /** Session CPU (sys.dm_exec_sessions.cpu_time); null when not measured. */
  cpuMs: number | null;
  /** The data files' read stall (sys.dm_io_virtual_file_stats io_stall_read_ms, every session); null when not measured. */
  readStallMs: number | null;
  /** Of that stall, what the session's read waits do not already hold. */
  readsBeyondWaitsMs: number | null;
  /** Whether the session's waits were readable. */
  waitsRead: boolean;
  /** The measured parts, largest first (only those above zero). */
  parts: TimePart[];
}

function med(model: ComparisonModel, id: string, column: string): number | null {
  return model.rows.find((r) => r.id === id)?.cells[column]?.median ?? null;
}

export function timeSplit(model: ComparisonModel, column: string, topWait: { waitType: string; ms: number } | null): TimeSplit {
  const cpuMs = med(model, 'cpu.ms', column);
  const readStallMs = med(model, 'data.readStallMs', column);
  const readWaits = model.rows.filter((r) => r.id.startsWith('wait.') && READ_WAIT.test(r.id.slice('wait.'.length))).reduce((s, r) => s + (r.cells[column]?.median ?? 0), 0);
  const readsBeyondWaitsMs = readStallMs === null ? null : Math.max(0, readStallMs - readWaits);
  const parts: TimePart[] = [];
  if (topWait && topWait.ms > 0) parts.push({ kind: 'wait', name: topWait.waitType, ms: topWait.ms });
  if (cpuMs !== null && cpuMs > 0) parts.push({ kind: 'cpu', name: 'CPU', ms: cpuMs });
  if (readsBeyondWaitsMs !== null && readsBeyondWaitsMs > 0) parts.push({ kind: 'reads', name: 'data-file reads', ms: readsBeyondWaitsMs });
  parts.sort((a, b) => b.ms - a.ms);
  return { elapsedMs: med(model, 'elapsed', column), topWait, cpuMs, readStallMs, readsBeyondWaitsMs, waitsRead: med(model, 'waits.sessionTotalMs', column) !== null, parts };
}

/** "52 % of the elapsed time", or "more than the elapsed time (…)" where parallel work adds up past the clock. */
export function ofElapsedText(ms: number, elapsedMs: number | null, why: string): string | null {
  if (elapsedMs === null || elapsedMs <= 0) return null;
  return ms > elapsedMs ? `more than the elapsed time (${why})` : `${formatShare(ms / elapsedMs)} of the elapsed time`;
}

/** The lead when it is not a wait: CPU or data-file reads, with the other measured parts that matter beside it. */
export function nonWaitLeadText(split: TimeSplit): string {
  const lead = split.parts[0]!;
  const share = (p: TimePart) => ofElapsedText(p.ms, split.elapsedMs, p.kind === 'reads' ? 'reads on several files at once add up' : 'parallel tasks add up');
  const leadText =
    lead.kind === 'reads'
      ? `data-file reads, ${formatDuration(lead.ms)} of read stall${share(lead) ? ` — ${share(lead)}` : ''} (io_stall_read_ms of the data files, sys.dm_io_virtual_file_stats: every session's reads of the database)`
      : `CPU (running), ${formatDuration(lead.ms)}${share(lead) ? ` — ${share(lead)}` : ''} (sys.dm_exec_sessions.cpu_time)`;
  const others = split.parts.slice(1).filter((p) => split.elapsedMs !== null && split.elapsedMs > 0 && p.ms / split.elapsedMs >= MENTION_SHARE).map((p) => `${p.kind === 'wait' ? `${p.name} waits` : p.name} ${formatDuration(p.ms)}`);
  const notMeasured = [split.cpuMs === null ? 'CPU' : null, split.readStallMs === null ? 'data-file reads' : null].filter((x) => x);
  return `${leadText}${others.length > 0 ? `; then ${others.join(', ')}` : ''}${notMeasured.length > 0 ? `; not measured: ${notMeasured.join(', ')}` : ''}`;
}

/** No measured part above zero: say what was measured as nothing and what was not measured, never "CPU" by default. */
export function nothingRecordedText(split: TimeSplit): string {
  const none = ['no waits', split.cpuMs === 0 ? 'no CPU' : null, split.readStallMs === 0 ? 'no data-file read stall' : null].filter((x): x is string => x !== null);
  const list = none.length > 1 ? `${none.slice(0, -1).join(', ')} and ${none[none.length - 1]}` : none[0]!;
  const notMeasured = [split.cpuMs === null ? "the session's CPU" : null, split.readStallMs === null ? 'the data-file reads' : null].filter((x) => x);
  const elapsed = split.elapsedMs !== null ? `the ${formatDuration(split.elapsedMs)} elapsed` : 'the elapsed time';
  return `the server recorded ${list} for the session: ${elapsed} went to the client and the network, or to work too short to record${notMeasured.length > 0 ? ` (not measured: ${notMeasured.join(', ')})` : ''}`;
}

/** Below this share of the elapsed time recorded on the server, the verdict says where the rest is (not on the server). */
export const RECORDED_SHARE_LOW = 0.5;

/**
 * "; the server recorded 3 % of the 1.20 s elapsed (waits, CPU) — the rest was the client, the network or work too short
 * to record", when what the server measured is a small part of the elapsed time: a top wait of 0.5 ms is then no answer
 * on its own. Empty when the recorded time covers the run, or when a part of it was not measured.
 */
export function unrecordedText(split: TimeSplit, waitsMs: number | null): string {
  const e = split.elapsedMs;
  if (e === null || e <= 0 || waitsMs === null || split.cpuMs === null) return '';
  const recorded = waitsMs + split.cpuMs + (split.readsBeyondWaitsMs ?? 0);
  if (recorded / e >= RECORDED_SHARE_LOW) return '';
  const what = ['waits', 'CPU', split.readsBeyondWaitsMs ? 'data-file reads' : null].filter((x) => x).join(', ');
  return `; the server recorded ${formatShare(recorded / e)} of the ${formatDuration(e)} elapsed (${what}) — the rest was the client, the network or work too short to record`;
}
