// Offline analysis of saved Extended Events data (issue 33, `durability-lens trace read`): event counts per name,
// log-flush aggregates, and per-statement rows with the WRITELOG waits of each statement. A WRITELOG wait belongs to
// the statement whose completion follows it in the same session (the rule of profile/statementAttribution.ts); a
// statement is its real query_hash, or — for query_hash 0, SQL Server's value on plan-less statements
// (test/fixtures/real-server) — its text, offsets and line: never one row for every plan-less statement.

import { LogFlushAggregator, type LogFlushTrace } from './aggregate';
import { lostEventsOf, type XeEvent, type XeField } from './reader';
import { readTraceFile, type TraceFileRead } from './traceFile';

export interface OfflineStatement {
  /** sqlserver.query_hash as decimal text ("0": no plan); null when the events carried no query_hash action. */
  queryHash: string | null;
  /** The statement text (whitespace collapsed, at most 200 characters). */
  statement: string;
  /** The procedure (object_name of sp_statement_completed), when the statement is in one. */
  module?: string;
  executions: number;
  writelogWaits: number;
  /** null when not measured: a wait event whose duration unit is not known (see notes). */
  writelogMs: number | null;
  /** The statement's line_number values (in its batch or procedure). */
  lines?: number[];
}

export interface OfflineTraceFile {
  file: string;
  kind: TraceFileRead['kind'];
  events: number;
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
  /** A wait whose duration unit is unknown (wait_completed) made the ms not measured. */
  unknownUnit: boolean;
}

/** Folds events in the order they fired into per-statement rows. */
class OfflineStatements {
  private readonly rows = new Map<string, OfflineStatement & { lineSet: Set<number>; unknownUnit: boolean }>();
  private readonly pending = new Map<string, Pending>();
  unattributedWaits = 0;
  unnamedWaits = 0;
  unknownUnitWaits = 0;

  add(e: XeEvent): void {
    const session = text(e.actions.session_id) ?? '';
    if (e.name === 'wait_info' || e.name === 'wait_completed') {
      const type = e.data.wait_type?.text;
      if (type === undefined) {
        this.unnamedWaits++;
        return;
      }
      if (type !== 'WRITELOG') return;
      // wait_info fires at the wait's begin and end; the end carries the duration.
      if (e.name === 'wait_info' && e.data.opcode?.text !== undefined && e.data.opcode.text !== 'End') return;
      const p = this.pending.get(session) ?? { waits: 0, ms: 0, unknownUnit: false };
      p.waits++;
      // wait_info.duration is in milliseconds (Microsoft CSS, "How It Works: Extended Event (sqlos.wait_info*)":
      // WAITFOR DELAY '00:00:05' → 5000). No page states wait_completed's unit: its ms are not measured here.
      if (e.name === 'wait_info') p.ms += number(e.data.duration) ?? 0;
      else {
        p.unknownUnit = true;
        this.unknownUnitWaits++;
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
      row = { queryHash: hash, statement: statement.length > TEXT_LIMIT ? statement.slice(0, TEXT_LIMIT - 1) + '…' : statement, module: module || undefined, executions: 0, writelogWaits: 0, writelogMs: 0, lineSet: new Set(), unknownUnit: false };
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
      row.writelogMs = (row.writelogMs ?? 0) + p.ms;
      row.unknownUnit ||= p.unknownUnit;
      this.pending.delete(session);
    }
  }

  finish(): OfflineStatement[] {
    for (const p of this.pending.values()) this.unattributedWaits += p.waits;
    this.pending.clear();
    return [...this.rows.values()]
      .map(({ lineSet, unknownUnit, ...row }) => {
        const out: OfflineStatement = { ...row, writelogMs: unknownUnit ? null : Math.round((row.writelogMs ?? 0) * 1000) / 1000 };
        if (lineSet.size > 0) out.lines = [...lineSet].sort((a, b) => a - b);
        return out;
      })
      .sort((a, b) => b.writelogWaits - a.writelogWaits || b.executions - a.executions || a.statement.localeCompare(b.statement));
  }
}

/** Reads every file (in the order given) and analyses their events together. Throws TraceFileError on the first bad file. */
export function analyzeTraceFiles(files: ReadonlyArray<{ name: string; text: string }>): OfflineTrace {
  const flushes = new LogFlushAggregator();
  const statements = new OfflineStatements();
  const events: Record<string, number> = {};
  const notes: string[] = [];
  const reads: OfflineTraceFile[] = [];
  let counter: Map<string, number> | null = null;
  const histograms: OfflineTrace['histograms'] = [];
  let sampleTarget: 'ring_buffer' | 'event_file' = 'ring_buffer';
  for (const f of files) {
    let inFile = 0;
    const read = readTraceFile(f.name, f.text, (e) => {
      inFile++;
      events[e.name] = (events[e.name] ?? 0) + 1;
      flushes.add(e);
      statements.add(e);
    });
    if (read.kind === 'events') sampleTarget = 'event_file';
    const lost = read.ringBuffer ? lostEventsOf(read.ringBuffer, inFile + read.duplicates).total : 0;
    reads.push({ file: f.name, kind: read.kind, events: read.events, duplicates: read.duplicates, ringBuffer: read.ringBuffer ? { ...read.ringBuffer, lostEvents: lost } : null });
    if (lost > 0) notes.push(`${f.name}: its ring buffer header shows ${lost} events that are not in the XML (dropped, pushed out or cut at 4 MB): the counts below are of the events it kept.`);
    if (read.duplicates > 0) notes.push(`${f.name}: ${read.duplicates} duplicate events (same event_sequence) skipped.`);
    if (read.counter) {
      counter ??= new Map();
      for (const [name, n] of read.counter) counter.set(name, (counter.get(name) ?? 0) + n);
    }
    if (read.histogram) {
      histograms.push({ file: f.name, buckets: read.histogram.slots, slots: [...read.histogram.buckets].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)) });
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
  if (statements.unknownUnitWaits > 0) notes.push(`${statements.unknownUnitWaits} WRITELOG waits come from wait_completed, whose duration unit no documentation states: their WRITELOG ms are not measured (counts are).`);
  return {
    files: reads,
    events: Object.fromEntries(Object.entries(events).sort((a, b) => a[0].localeCompare(b[0]))),
    eventCount: Object.values(events).reduce((a, b) => a + b, 0),
    counterTarget: counter ? Object.fromEntries([...counter].sort((a, b) => a[0].localeCompare(b[0]))) : null,
    histograms,
    logFlush,
    statements: rows,
    notes,
  };
}
