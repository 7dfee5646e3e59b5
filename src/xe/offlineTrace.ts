// Offline analysis of saved Extended Events data (issue 33, `durability-lens trace read`): event counts per name,
// log-flush aggregates, and per-statement rows with the WRITELOG waits of each statement. A WRITELOG wait belongs to
// the statement whose completion follows it in the same session (the rule of profile/statementAttribution.ts); a
// statement is its real query_hash, or — for query_hash 0, SQL Server's value on plan-less statements
// (test/fixtures/real-server) — its text, offsets and line: never one row for every plan-less statement.

import { LogFlushAggregator, type LogFlushTrace } from './aggregate';
import { EventIdentitySet } from './eventIdentitySet';
import { lostEventsOf, type XeEvent, type XeField } from './reader';
import { readTraceFile, type TraceFileRead } from './traceFile';
import { byCodeUnits } from '../shared/textOrder';

export interface OfflineStatement {
  /** sqlserver.query_hash as decimal text ("0": no plan); null when the events carried no query_hash action. */
  queryHash: string | null;
  /** The statement text (whitespace collapsed, at most 200 characters). */
  statement: string;
  /** The procedure (object_name of sp_statement_completed), when the statement is in one. */
  module?: string;
  executions: number;
  /** null when not measured: the files hold no wait event at all, so nothing could have counted WRITELOG (see notes). */
  writelogWaits: number | null;
  /**
   * null when not measured: no wait event in the files, a wait_completed (its unit is not documented) or a wait_info
   * without a duration field among this statement's waits (see notes).
   */
  writelogMs: number | null;
  /** The statement's line_number values (in its batch or procedure). */
  lines?: number[];
}

export interface OfflineTraceFile {
  file: string;
  kind: TraceFileRead['kind'];
  events: number;
  /** Events skipped as already read, in this file or an earlier one (the same event_sequence, timestamp, event and session_id). */
  duplicates: number;
  ringBuffer: (NonNullable<TraceFileRead['ringBuffer']> & { lostEvents: number }) | null;
}

export interface OfflineTrace {
  files: OfflineTraceFile[];
  /** Events read, per event name (the sample the files hold). */
  events: Record<string, number>;
  eventCount: number;
  /** event_counter target_data files: the server's exact counts per event name, summed over those files. */
  counterTarget: Record<string, number> | null;
  histograms: Array<{ file: string; buckets: number | null; slots: Array<{ value: string; count: number }> }>;
  logFlush: { measured: true; flushEvent: string; flushes: number | null; bytes: number | null; averageFlushBytes: number | null; latencyMs: LogFlushTrace['latencyMs']; durationUnit: LogFlushTrace['durationUnit']; notes: string[] } | { measured: false; reason: string };
  statements: OfflineStatement[];
  notes: string[];
}

const STATEMENT_EVENTS = new Set(['sql_statement_completed', 'sp_statement_completed']);
const TEXT_LIMIT = 200;

function text(f: XeField | undefined): string | null {
  if (f === undefined) return null;
  return typeof f.value === 'string' ? f.value : String(f.value);
}

function number(f: XeField | undefined): number | null {
  if (f === undefined) return null;
  const v = f.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

interface Pending {
  waits: number;
  ms: number;
  /** A wait whose ms cannot be read (wait_completed's undocumented unit, a wait_info without duration) made the ms not measured. */
  untimed: boolean;
}

/** Folds events in the order they fired into per-statement rows. */
class OfflineStatements {
  private readonly rows = new Map<string, OfflineStatement & { writelogWaits: number; writelogMs: number; lineSet: Set<number>; untimed: boolean }>();
  private readonly pending = new Map<string, Pending>();
  /** Wait events of any type (wait_info, wait_completed): without one, WRITELOG per statement is not measured. */
  waitEvents = 0;
  writelogWaits = 0;
  unattributedWaits = 0;
  unnamedWaits = 0;
  unknownUnitWaits = 0;
  noDurationWaits = 0;

  add(e: XeEvent): void {
    const session = text(e.actions.session_id) ?? '';
    if (e.name === 'wait_info' || e.name === 'wait_completed') {
      this.waitEvents++;
      const type = e.data.wait_type?.text;
      if (type === undefined) {
        this.unnamedWaits++;
        return;
      }
      if (type !== 'WRITELOG') return;
      // wait_info fires at the wait's begin and end; the end carries the duration.
      if (e.name === 'wait_info' && e.data.opcode?.text !== undefined && e.data.opcode.text !== 'End') return;
      const p = this.pending.get(session) ?? { waits: 0, ms: 0, untimed: false };
      p.waits++;
      this.writelogWaits++;
      // wait_info.duration is in milliseconds (Microsoft CSS, "How It Works: Extended Event (sqlos.wait_info*)":
      // WAITFOR DELAY '00:00:05' → 5000). No page states wait_completed's unit: its ms are not measured here.
      // A wait_info without a duration (a session defined without the field, a trimmed row) has no ms either: never 0.
      const duration = e.name === 'wait_info' ? number(e.data.duration) : null;
      if (duration !== null) p.ms += duration;
      else {
        p.untimed = true;
        if (e.name === 'wait_info') this.noDurationWaits++;
        else this.unknownUnitWaits++;
      }
      this.pending.set(session, p);
      return;
    }
    if (!STATEMENT_EVENTS.has(e.name)) return;
    const hash = text(e.actions.query_hash);
    const statement = (text(e.data.statement) ?? '').replace(/\s+/g, ' ').trim();
    const module = e.name === 'sp_statement_completed' ? (text(e.data.object_name) ?? '') : '';
    const line = number(e.data.line_number);
    const key = hash !== null && hash !== '0' ? `h:${hash}` : `t:${module}|${text(e.data.offset) ?? ''}|${text(e.data.offset_end) ?? ''}|${line ?? ''}|${statement}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { queryHash: hash, statement: statement.length > TEXT_LIMIT ? statement.slice(0, TEXT_LIMIT - 1) + '…' : statement, module: module || undefined, executions: 0, writelogWaits: 0, writelogMs: 0, lineSet: new Set(), untimed: false };
      if (row.module === undefined) delete row.module;
      this.rows.set(key, row);
    }
    row.executions++;
    // One hash in several procedures: no single module to name.
    if (row.module !== undefined && row.module !== module) delete row.module;
    if (line !== null) row.lineSet.add(line);
    const p = this.pending.get(session);
    if (p) {
      row.writelogWaits += p.waits;
      row.writelogMs += p.ms;
      row.untimed ||= p.untimed;
      this.pending.delete(session);
    }
  }

  finish(): OfflineStatement[] {
    for (const p of this.pending.values()) this.unattributedWaits += p.waits;
    this.pending.clear();
    // No wait event in any file: nothing could have counted a WRITELOG wait, so 0 would be a guess.
    const traced = this.waitEvents > 0;
    return [...this.rows.values()]
      .map(({ lineSet, untimed, ...row }) => {
        const out: OfflineStatement = { ...row, writelogWaits: traced ? row.writelogWaits : null, writelogMs: !traced || untimed ? null : Math.round(row.writelogMs * 1000) / 1000 };
        if (lineSet.size > 0) out.lines = [...lineSet].sort((a, b) => a - b);
        return out;
      })
      .sort((a, b) => (b.writelogWaits ?? 0) - (a.writelogWaits ?? 0) || b.executions - a.executions || byCodeUnits(a.statement, b.statement));
  }
}

/** Reads every file (in the order given) and analyses their events together. Throws TraceFileError on the first bad file. */
export function analyzeTraceFiles(files: ReadonlyArray<{ name: string; text: string }>): OfflineTrace {
  const flushes = new LogFlushAggregator();
  const statements = new OfflineStatements();
  // A Map: event names come from the file ("constructor", "__proto__" are names too, not an object's own keys).
  const events = new Map<string, number>();
  const notes: string[] = [];
  const reads: OfflineTraceFile[] = [];
  // One set over every file: rows saved in two overlapping exports (10:00–11:00 and 10:30–11:30) count once.
  const seen = new EventIdentitySet();
  let counter: Map<string, number> | null = null;
  const histograms: OfflineTrace['histograms'] = [];
  let sampleTarget: 'ring_buffer' | 'event_file' = 'ring_buffer';
  for (const f of files) {
    let inFile = 0;
    const read = readTraceFile(f.name, f.text, (e) => {
      inFile++;
      events.set(e.name, (events.get(e.name) ?? 0) + 1);
      flushes.add(e);
      statements.add(e);
    }, seen);
    if (read.kind === 'events') sampleTarget = 'event_file';
    const lost = read.ringBuffer ? lostEventsOf(read.ringBuffer, inFile + read.duplicates).total : 0;
    reads.push({ file: f.name, kind: read.kind, events: read.events, duplicates: read.duplicates, ringBuffer: read.ringBuffer ? { ...read.ringBuffer, lostEvents: lost } : null });
    if (lost > 0) notes.push(`${f.name}: its ring buffer header shows ${lost} events that are not in the XML (dropped, pushed out or cut at 4 MB): the counts below are of the events it kept.`);
    if (read.duplicates > 0) notes.push(`${f.name}: ${read.duplicates} event(s) already read (earlier in this file or in an earlier file: the same event_sequence, timestamp, event and session_id) skipped, so overlapping exports count once.`);
    if (read.counter) {
      counter ??= new Map();
      for (const [name, n] of read.counter) counter.set(name, (counter.get(name) ?? 0) + n);
    }
    if (read.histogram) {
      histograms.push({ file: f.name, buckets: read.histogram.slots, slots: [...read.histogram.buckets].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || byCodeUnits(a.value, b.value)) });
      notes.push(`${f.name}: a histogram's slots are listed as they are; the file does not say which field or action it grouped by.`);
    }
  }
  const trace = flushes.finish({ sessionName: 'trace read', target: sampleTarget, durationUnit: null });
  const logFlush: OfflineTrace['logFlush'] = trace.flushEvent === null
    ? { measured: false, reason: 'These files hold no log-flush event (databases_log_flush, log_flush_complete, log_flush_start).' }
    : { measured: true, flushEvent: trace.flushEvent, flushes: trace.flushes, bytes: trace.bytes, averageFlushBytes: trace.averageFlushBytes ?? null, latencyMs: trace.latencyMs, durationUnit: trace.durationUnit, notes: trace.notes.filter((n) => !/^No log-flush events/.test(n)) };
  const rows = statements.finish();
  const planless = rows.filter((r) => r.queryHash === '0').length;
  if (planless > 0) notes.push(`${planless} statement(s) have query_hash 0 (no plan: EXECUTE, EXEC inside a procedure, COMMIT, SET…): each is its own row, matched by its text, offsets and line.`);
  if (rows.some((r) => r.queryHash === null)) notes.push('Some statement events carry no sqlserver.query_hash action: those are matched by their text, offsets and line.');
  if (statements.unattributedWaits > 0) notes.push(`${statements.unattributedWaits} WRITELOG waits have no statement completing after them in their session: not attributed.`);
  if (statements.unnamedWaits > 0) notes.push(`${statements.unnamedWaits} wait events carry no wait-type name (no <text> for the map key): whether they are WRITELOG cannot be told, so they are not counted.`);
  if (rows.length > 0 && statements.waitEvents === 0) notes.push('WRITELOG per statement is not measured: the files hold no wait event (sqlos.wait_info or wait_completed), so writelogWaits and writelogMs are null. Add wait_info with a WRITELOG predicate to the event session to measure them.');
  if (rows.length > 0 && statements.waitEvents > 0 && statements.writelogWaits === 0) notes.push(`The files hold ${statements.waitEvents} wait events and no WRITELOG one: writelogWaits 0 holds only if the session's predicate let WRITELOG through.`);
  if (statements.noDurationWaits > 0) notes.push(`${statements.noDurationWaits} WRITELOG wait_info events carry no duration field: the WRITELOG ms of the statements they belong to are not measured (null; their waits are counted).`);
  if (statements.unknownUnitWaits > 0) notes.push(`${statements.unknownUnitWaits} WRITELOG waits come from wait_completed, whose duration unit no documentation states: their WRITELOG ms are not measured (counts are).`);
  return {
    files: reads,
    events: Object.fromEntries([...events].sort((a, b) => byCodeUnits(a[0], b[0]))),
    eventCount: [...events.values()].reduce((a, b) => a + b, 0),
    counterTarget: counter ? Object.fromEntries([...counter].sort((a, b) => byCodeUnits(a[0], b[0]))) : null,
    histograms,
    logFlush,
    statements: rows,
    notes,
  };
}
