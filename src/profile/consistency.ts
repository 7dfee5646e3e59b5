// Cross-checks run on every measured run, on the user's own server (issue 33 item 3): independent sources of the same
// quantity — the log-flush trace, the Log Flushes/sec and Log Bytes Flushed/sec counters, the log file's writes in
// sys.dm_io_virtual_file_stats, the per-statement WRITELOG trace and the session's sys.dm_exec_session_wait_stats —
// are reconciled, and each check says passed, disagrees (by how much) or not possible (why). The WRITELOG time check
// also infers the wait event's duration unit (D2) and hands back the per-statement figures in that unit.
import { valueOf } from '../probes/measurement';
import type { SnapshotDiff } from '../probes/snapshot';
import type { LogFlushTrace } from '../xe/aggregate';
import type { DurationUnit } from '../xe/aggregate';
import { unlistedStatementsNote, type StatementAttribution, type StatementFigure } from './statementAttribution';
import type { ConsistencyCheck, ConsistencyCheckId, MissingMeasurement } from './types';

/**
 * How far two sources may differ and still agree: |a − b| ≤ max(absolute, relative × max(a, b)). Each tolerance says
 * in its comment why the sources may legitimately differ by that much.
 */
interface Tolerance {
  relative: number;
  absolute: number;
}

/**
 * Flush counts (XE, counter, file writes): the counter and the file stats are read in the before-snapshot, before the
 * event session starts, so a flush by another session or the checkpoint in between is in those two only; the counter
 * and num_of_writes count whole flushes (granularity 1). 10 % is the trace's own counter cross-check (xe/aggregate.ts).
 * That one flush is one write of the log file is an inference ("Log Flushes/sec: Number of log flushes per second",
 * sql-server-databases-object; num_of_writes "Number of writes made on this file", sys-dm-io-virtual-file-stats): no
 * page states it, so a real server that splits a flush into several writes shows here as a disagreement to look into.
 */
const FLUSHES: Tolerance = { relative: 0.1, absolute: 2 };
/**
 * Log bytes: the same window edge as FLUSHES, and one flush is at most one log block of 60 KB (reference §4.1, the
 * sizes S1 reports); writes are rounded to the sector size (512 B or 4 KB) in every source alike.
 */
const BYTES: Tolerance = { relative: 0.1, absolute: 61440 };
/**
 * WRITELOG waits of one session: the trace and sys.dm_exec_session_wait_stats count the same completed waits of the
 * same session; the trace starts after the before-snapshot and is read with the after-snapshot, so at most a wait at
 * each edge differs.
 */
const WAITS: Tolerance = { relative: 0.02, absolute: 1 };
/**
 * WRITELOG time (per run). The session's side is sys.dm_exec_session_wait_stats.wait_time_ms, "Total wait time for this
 * wait type in milliseconds" (bigint, sys-dm-exec-session-wait-stats-transact-sql): whole milliseconds, so the delta of
 * two readings is within 1 ms of the time waited between them — the absolute part. Everything else is relative to the
 * larger figure: 20 % for the trace timing each wait itself against SQLOS's accounting, for a wait at each window edge
 * and for sampled averages. No "1 ms per wait" term: with waits averaging ≤ 1 ms such a term is as large as the whole
 * session time, and then a unit 1000× wrong fits too (attack33). Whether SQLOS rounds each wait to whole milliseconds
 * before adding it up is NOT CONFIRMED (no page says); if it does, or if the event's duration is whole milliseconds,
 * sub-millisecond waits make one side short and this check says "disagrees" — it never passes on a wrong unit.
 * The two units are 1000× apart, so within this tolerance both fit only when both figures are about 1 ms or less:
 * then the unit is "not inferable" and the check is not possible, never passed.
 */
const TIME: Tolerance = { relative: 0.2, absolute: 1 };

const LABELS: Record<ConsistencyCheckId, string> = {
  'log-flushes:xe-vs-counter': 'Log flushes: Extended Events count vs the Log Flushes/sec counter',
  'log-flushes:counter-vs-file-writes': 'Log flushes: the Log Flushes/sec counter vs log-file writes (sys.dm_io_virtual_file_stats)',
  'log-flushes:xe-vs-file-writes': 'Log flushes: Extended Events count vs log-file writes (sys.dm_io_virtual_file_stats)',
  'log-bytes:xe-vs-file': 'Log bytes: flushed (Extended Events size histogram) vs written to the log file',
  'log-bytes:counter-vs-file': 'Log bytes: the Log Bytes Flushed/sec counter vs written to the log file',
  'writelog-waits:statements-vs-session': "WRITELOG waits: per-statement trace vs the session's sys.dm_exec_session_wait_stats",
  'writelog-time:statements-vs-session': "WRITELOG time: per-statement trace vs the session's sys.dm_exec_session_wait_stats (infers the duration unit)",
};

/** The metric rows (report/metrics.ts ids) each check is about: a disagreement is shown next to them. */
const CONCERNS: Record<ConsistencyCheckId, string[]> = {
  'log-flushes:xe-vs-counter': ['flushes.xe', 'flushes.counter'],
  'log-flushes:counter-vs-file-writes': ['flushes.counter', 'log.writes'],
  'log-flushes:xe-vs-file-writes': ['flushes.xe', 'log.writes'],
  'log-bytes:xe-vs-file': ['log.bytes'],
  'log-bytes:counter-vs-file': ['log.bytes'],
  'writelog-waits:statements-vs-session': ['writelog.count', 'statements'],
  'writelog-time:statements-vs-session': ['writelog.ms', 'statements'],
};

export const CONSISTENCY_CHECK_IDS = Object.keys(LABELS) as ConsistencyCheckId[];

/** A figure from one source, or why that source has none. */
type Source = { name: string; value: number } | { name: string; value: null; why: string };

/** What a run measured, as the checks read it. */
export interface ConsistencyInput {
  diff: SnapshotDiff;
  logFlushTrace: LogFlushTrace | null;
  statements: readonly StatementFigure[];
  statementAttribution: StatementAttribution | null;
  missing: readonly MissingMeasurement[];
  /** Set for a concurrency run: its session rows describe session 1 only. */
  concurrentSessions?: number | null;
}

export interface ConsistencyResult {
  checks: ConsistencyCheck[];
  /** The per-statement figures in the inferred unit (unchanged when the unit was not inferred or is the one used). */
  statements: StatementFigure[];
  statementAttribution: StatementAttribution | null;
}

function percentDifference(a: number, b: number): number {
  const larger = Math.max(Math.abs(a), Math.abs(b));
  return larger === 0 ? 0 : (100 * Math.abs(a - b)) / larger;
}

function agrees(a: number, b: number, t: Tolerance): boolean {
  return Math.abs(a - b) <= Math.max(t.absolute, t.relative * Math.max(Math.abs(a), Math.abs(b)));
}

const n = (v: number) => (Number.isInteger(v) ? v.toLocaleString('en-US') : v.toLocaleString('en-US', { maximumFractionDigits: 3 }));

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function notPossible(check: ConsistencyCheckId, why: string): ConsistencyCheck {
  return { check, label: LABELS[check], status: 'not-possible', detail: `Not possible: ${why}`, concerns: CONCERNS[check], sources: [], differencePercent: null, tolerance: null };
}

/** Compares two sources; `unit` names what is counted ("flushes", "bytes", "ms"). */
function compare(check: ConsistencyCheckId, a: Source, b: Source, t: Tolerance, unit: string, why: string): ConsistencyCheck {
  if (a.value === null) return notPossible(check, `${a.name}: ${a.why}`);
  if (b.value === null) return notPossible(check, `${b.name}: ${b.why}`);
  const diff = percentDifference(a.value, b.value);
  const ok = agrees(a.value, b.value, t);
  const figures = capitalised(`${a.name} ${n(a.value)} ${unit}, ${b.name} ${n(b.value)} ${unit}`);
  const tolerance = `tolerance ${Math.round(t.relative * 100)} % or ${n(t.absolute)} ${unit}: ${why}`;
  return {
    check,
    label: LABELS[check],
    status: ok ? 'passed' : 'disagrees',
    detail: ok ? `${figures}: they agree (${diff.toFixed(1)} % apart; ${tolerance}).` : `${figures}: they disagree by ${diff.toFixed(1)} % (${tolerance}). One of the sources is wrong here; the figures that depend on it are marked.`,
    concerns: CONCERNS[check],
    sources: [
      { source: a.name, value: a.value },
      { source: b.name, value: b.value },
    ],
    differencePercent: Math.round(diff * 10) / 10,
    tolerance: { ...t },
  };
}

function missingReason(missing: readonly MissingMeasurement[], measurement: string, fallback: string): string {
  return missing.find((m) => m.measurement === measurement)?.reason ?? fallback;
}

function counterSource(input: ConsistencyInput, name: string): Source {
  const counters = valueOf(input.diff.logCounters);
  if (!counters) return { name: `the ${name} counter`, value: null, why: missingReason(input.missing, 'perfCounters', 'the log counters were not read.') };
  const c = counters.find((x) => x.counterName.toLowerCase() === name.toLowerCase());
  if (!c) return { name: `the ${name} counter`, value: null, why: 'the server did not report it for this database.' };
  if (c.kind !== 'cumulative') return { name: `the ${name} counter`, value: null, why: `its cntr_type (${c.type}) is not a cumulative counter, so it has no delta.` };
  return { name: `the ${name} counter`, value: c.delta };
}

function logFileSource(input: ConsistencyInput, field: 'writes' | 'bytesWritten'): Source {
  const name = field === 'writes' ? 'log-file writes' : 'log-file bytes written';
  const files = valueOf(input.diff.files);
  if (!files) return { name, value: null, why: missingReason(input.missing, 'fileStats', 'per-file IO was not read.') };
  const log = files.totals.find((t) => t.kind === 'log');
  if (!log) return { name, value: null, why: 'no log file was among the files read.' };
  return { name, value: log[field] };
}

function xeSource(input: ConsistencyInput, what: 'flushes' | 'bytes'): Source {
  const name = what === 'flushes' ? 'the Extended Events flush count' : 'Extended Events bytes flushed';
  const t = input.logFlushTrace;
  if (!t) return { name, value: null, why: missingReason(input.missing, 'extendedEvents', 'the log-flush trace did not run.') };
  if (what === 'flushes') {
    if (t.flushes === null) return { name, value: null, why: t.notMeasured ?? 'the trace counted no flushes.' };
    if (t.countSource === 'sample' && t.lostEvents > 0) return { name, value: null, why: `the count comes from a sample that lost ${t.lostEvents} events (the event_counter target was not read).` };
    return { name, value: t.flushes };
  }
  if (t.bytes === null) return { name, value: null, why: t.sizeEvent ? 'the size histogram was not read.' : 'no traced event carries a write size on this server.' };
  if ((t.histogram?.notBucketed ?? 0) > 0) return { name, value: null, why: `${t.histogram!.notBucketed} flushes found no free slot in the size histogram, so its byte sum is short.` };
  return { name, value: t.bytes };
}

/**
 * Whether the log grew during the run: growing zero-fills the new part of the log file, which sys.dm_io_virtual_file_stats
 * counts as writes and bytes that no flush made (Learn, "Database instant file initialization": log files are
 * zero-initialized when they grow, except growths of up to 64 MB from SQL Server 2022).
 */
function logGrowth(input: ConsistencyInput): string | null {
  const growths = valueOf(input.diff.logCounters)?.find((c) => c.counterName.toLowerCase() === 'log growths');
  if (growths && growths.kind === 'point' && growths.after > growths.before) return `the log grew ${growths.after - growths.before} time(s) during the run, and zero-filling the new part writes to the log file without a flush.`;
  const size = input.diff.log.logSizeMb;
  if (size && size.after > size.before) return `the log grew from ${n(size.before)} MB to ${n(size.after)} MB during the run, and zero-filling the new part writes to the log file without a flush.`;
  return null;
}

/** Per-statement WRITELOG (the trace) and the session's own (sys.dm_exec_session_wait_stats), or why a check cannot run. */
function writelogSources(input: ConsistencyInput): { why: string } | { a: StatementAttribution; sessionWaits: number; sessionMs: number; xeWaits: number; xeMs: number; unattributedWaits: number; complete: boolean } {
  if (input.concurrentSessions && input.concurrentSessions > 1) return { why: `statements are traced on one session and this run used ${input.concurrentSessions} at once.` };
  const a = input.statementAttribution;
  if (!a || a.status !== 'measured') return { why: a?.reason ?? 'the statement trace did not run.' };
  if (a.waitEvent === null) return { why: 'WRITELOG is not traced per statement on this server (see the attribution notes).' };
  if (a.sessionWritelogWaits === null || a.sessionWritelogMs === null) return { why: missingReason(input.missing, 'sessionWaits', "the session's waits were not read.") };
  if (a.eventsSeen === null || a.attributedWritelogWaits === null || a.unattributedWritelogWaits === null || a.attributedWritelogMs === null || a.unattributedWritelogMs === null) return { why: 'the statement trace has no WRITELOG figures.' };
  const exact = input.statements.some((s) => s.counts === 'exact');
  const complete = exact || a.eventsCounted === null || a.eventsCounted <= a.eventsSeen;
  return { a, sessionWaits: a.sessionWritelogWaits, sessionMs: a.sessionWritelogMs, xeWaits: a.attributedWritelogWaits + a.unattributedWritelogWaits, xeMs: a.attributedWritelogMs + a.unattributedWritelogMs, unattributedWaits: a.unattributedWritelogWaits, complete };
}

function writelogWaitsCheck(input: ConsistencyInput): ConsistencyCheck {
  const id = 'writelog-waits:statements-vs-session';
  const s = writelogSources(input);
  if ('why' in s) return notPossible(id, s.why);
  if (!s.complete) return notPossible(id, `the trace's sample holds ${s.a.eventsSeen} of ${s.a.eventsCounted} events and the per-statement counts are not exact, so its waits are a part of the session's.`);
  return compare(id, { name: 'the per-statement trace', value: s.xeWaits }, { name: "the session's wait stats", value: s.sessionWaits }, WAITS, 'WRITELOG waits', 'the same session and window, a wait at each edge');
}

const toMs = (value: number, unit: DurationUnit) => (unit === 'milliseconds' ? value : value / 1000);
const unitName = (unit: DurationUnit): 'milliseconds' | 'microseconds' => (unit === 'milliseconds' ? 'milliseconds' : 'microseconds');

/**
 * The WRITELOG time check and the duration unit (D2): the trace's total in raw event units is compared with the
 * session's wait_time_ms read as milliseconds and as microseconds (tolerance TIME). When exactly one fits, that is the
 * unit ("unit inferred", or "confirmed" when the server stated it) and the per-statement figures are converted to it;
 * when both fit (both figures about 1 ms or less) the unit is not inferable and the check is not possible — the stated
 * or assumed unit stays; when neither fits the sources disagree.
 */
function writelogTimeCheck(input: ConsistencyInput): { check: ConsistencyCheck; scale: number; unit: DurationUnit | null } {
  const id = 'writelog-time:statements-vs-session';
  const s = writelogSources(input);
  if ('why' in s) return { check: notPossible(id, s.why), scale: 1, unit: null };
  const used: DurationUnit = s.a.waitDurationUnit ?? 'assumed-microseconds';
  const untimed = input.statements.reduce((k, f) => k + (f.writelogMs === null ? (f.writelogWaits ?? 0) : 0), 0) + (input.statements.some((f) => f.counts === 'exact') ? s.unattributedWaits : 0);
  const timedWaits = Math.max(0, s.xeWaits - untimed);
  const xeMsAsUsed = s.xeMs;
  // Waits without a duration (a partial sample, hashes never sampled): compare at the session's wait count.
  const scaleToSession = timedWaits > 0 && s.sessionWaits > 0 && timedWaits !== s.sessionWaits ? s.sessionWaits / timedWaits : 1;
  const raw = (used === 'milliseconds' ? xeMsAsUsed : xeMsAsUsed * 1000) * scaleToSession;
  const asMs = raw;
  const asUs = raw / 1000;
  const fitsMs = agrees(asMs, s.sessionMs, TIME);
  const fitsUs = agrees(asUs, s.sessionMs, TIME);
  const scaled = scaleToSession !== 1 ? ` (≈: ${n(timedWaits)} of the trace's waits carry a duration, scaled to the session's ${n(s.sessionWaits)})` : '';
  const inferred: DurationUnit | null = fitsMs && !fitsUs ? 'milliseconds' : fitsUs && !fitsMs ? 'microseconds' : null;
  const effective: DurationUnit = inferred ?? used;
  const xeMs = toMs(raw, effective === 'milliseconds' ? 'milliseconds' : 'microseconds');
  const why = 'wait_time_ms holds whole milliseconds, so its delta is within 1 ms; 20 % for the trace timing each wait itself';
  const base = compare(id, { name: 'the per-statement trace', value: Math.round(xeMs * 1000) / 1000 }, { name: "the session's wait stats", value: s.sessionMs }, TIME, 'ms', why);
  const unit = { event: s.a.waitEvent, used: unitName(used), inferred, assumed: used === 'assumed-microseconds' };
  const kept = `${unitName(used)} ${used === 'assumed-microseconds' ? 'assumed' : 'as the server states'}`;
  const other = (u: DurationUnit) => (unitName(u) === 'milliseconds' ? 'microseconds' : 'milliseconds');
  if (fitsMs && fitsUs) {
    // Both units fit only when both figures are about 1 ms or less: nothing is learnt, and nothing "passed".
    const detail =
      `Not possible: unit not inferable — the session waited ${n(s.sessionMs)} ms on WRITELOG, the trace ${n(asMs)} ms if its duration is in milliseconds or ${n(asUs)} ms if in microseconds${scaled}: ` +
      `both fit, since wait_time_ms counts whole milliseconds (±1 ms), so the unit cannot be told from so little WRITELOG time; ${kept}.`;
    return { check: { check: id, label: LABELS[id], status: 'not-possible', detail, concerns: CONCERNS[id], sources: [], differencePercent: null, tolerance: null, unit }, scale: 1, unit: null };
  }
  let unitText: string;
  if (inferred && used !== 'assumed-microseconds' && unitName(used) === inferred) {
    unitText = `Unit confirmed: ${s.a.waitEvent}.duration is in ${inferred}, as the field's description says (the session's WRITELOG time fits ${inferred} and not ${other(inferred)}).`;
  } else if (inferred) {
    const stated = used === 'assumed-microseconds' ? 'the server names no unit for it' : `the field's description says ${unitName(used)}`;
    unitText = `Unit inferred: ${s.a.waitEvent}.duration is in ${inferred} (${stated}; the session's WRITELOG time fits ${inferred} and not ${other(inferred)}).`;
  } else {
    unitText =
      `Unit not inferred: the session's WRITELOG time fits neither milliseconds nor microseconds; ${kept}. ` +
      'With waits averaging about 1 ms or less, a source that rounds each wait to whole milliseconds (wait_info.duration; wait_time_ms per wait, NOT CONFIRMED) comes out short.';
  }
  const check: ConsistencyCheck = { ...base, detail: `${base.detail.replace(/\.$/, '')}${scaled}. ${unitText}`, unit };
  const scale = inferred && unitName(inferred) !== unitName(used) ? toMs(1, inferred) / toMs(1, used === 'milliseconds' ? 'milliseconds' : 'microseconds') : 1;
  return { check, scale, unit: inferred };
}

/** The per-statement WRITELOG figures converted by `scale` (the inferred unit over the one the trace was read in). */
function rescale(statements: readonly StatementFigure[], a: StatementAttribution, scale: number, unit: DurationUnit): { statements: StatementFigure[]; attribution: StatementAttribution } {
  const r = (v: number | null): number | null => (v === null ? null : Math.round(v * scale * 1000) / 1000);
  // The note on statements past the first 1,000 was written in the unit read: it is rewritten in the inferred one.
  const unlisted = a.unlisted && a.unlisted.writelogMs !== null ? { ...a.unlisted, writelogMs: r(a.unlisted.writelogMs) } : a.unlisted;
  const before = a.unlisted ? unlistedStatementsNote(a.unlisted) : null;
  const notes = a.notes.map((note) => (unlisted && note === before ? unlistedStatementsNote(unlisted) : note));
  const attribution: StatementAttribution = {
    ...a,
    attributedWritelogMs: r(a.attributedWritelogMs),
    unattributedWritelogMs: r(a.unattributedWritelogMs),
    waitDurationUnit: unit,
    waitDurationUnitInferred: true,
    notes: [...notes, `WRITELOG ms per statement are in the unit inferred from the session's waits (${unitName(unit)}); see the consistency check "writelog-time:statements-vs-session".`],
  };
  if (unlisted) attribution.unlisted = unlisted;
  return { statements: statements.map((f) => (f.writelogMs === null ? f : { ...f, writelogMs: r(f.writelogMs) })), attribution };
}

/** Every check for one run, in CONSISTENCY_CHECK_IDS order, and the per-statement figures in the inferred unit. */
export function reconcileRun(input: ConsistencyInput): ConsistencyResult {
  const xeFlushes = xeSource(input, 'flushes');
  const counterFlushes = counterSource(input, 'Log Flushes/sec');
  const fileWrites = logFileSource(input, 'writes');
  const growth = logGrowth(input);
  const withFile = (check: ConsistencyCheck): ConsistencyCheck => (growth && check.status !== 'not-possible' ? notPossible(check.check, growth) : check);
  const time = writelogTimeCheck(input);
  const checks: ConsistencyCheck[] = [
    compare('log-flushes:xe-vs-counter', xeFlushes, counterFlushes, FLUSHES, 'flushes', 'a flush between the before-snapshot and the session start counts in the counter only'),
    withFile(compare('log-flushes:counter-vs-file-writes', counterFlushes, fileWrites, FLUSHES, 'flushes', 'each flush is one write of a log block; both are read in the same snapshots')),
    withFile(compare('log-flushes:xe-vs-file-writes', xeFlushes, fileWrites, FLUSHES, 'flushes', 'a flush between the before-snapshot and the session start is in the file stats only')),
    withFile(compare('log-bytes:xe-vs-file', xeSource(input, 'bytes'), logFileSource(input, 'bytesWritten'), BYTES, 'bytes', 'one log block (≤ 60 KB) at each window edge')),
    withFile(compare('log-bytes:counter-vs-file', counterSource(input, 'Log Bytes Flushed/sec'), logFileSource(input, 'bytesWritten'), BYTES, 'bytes', 'one log block (≤ 60 KB) at each window edge')),
    writelogWaitsCheck(input),
    time.check,
  ];
  const a = input.statementAttribution;
  if (a && time.unit && time.scale !== 1) {
    const out = rescale(input.statements, a, time.scale, time.unit);
    return { checks, statements: out.statements, statementAttribution: out.attribution };
  }
  const attribution = a && time.unit ? { ...a, waitDurationUnit: time.unit, waitDurationUnitInferred: true } : a;
  return { checks, statements: [...input.statements], statementAttribution: attribution };
}
