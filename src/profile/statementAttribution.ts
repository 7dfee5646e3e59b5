// Per-statement attribution (issue 16): folds the statement-trace events, in the order they fired, into figures per
// statement of the script that ran, and maps each statement to its line in the file (batch start lines included).
// A WRITELOG wait belongs to the statement whose completion follows it in the session's event stream: the wait
// happens inside that statement (an autocommit INSERT, or the COMMIT).

import type { WorkloadBatch } from '../db/types';
import type { DurationUnit } from '../xe/aggregate';
import type { XeEvent, XeScalar } from '../xe/reader';
import { STATEMENT_HISTOGRAMS_EVENT, type StatementHistograms, type StatementHistogramsEvent } from '../xe/statementTrace';

/** One statement of the script: where it is and what it cost over the run. */
export interface StatementFigure {
  /** 1-based line in the file that was run (the statement's first line). */
  line: number;
  /** The statement as sent (collapsed whitespace, at most 200 characters). */
  text: string;
  executions: number;
  /** null when not measured (see notMeasured): never a 0 that was not measured. */
  durationMs: number | null;
  writelogWaits: number;
  /** null when not measured (see notMeasured). */
  writelogMs: number | null;
  /** null when not measured (see notMeasured). */
  rows: number | null;
  /** 0-based batch of the run; -1 for a statement inside a procedure (`module`). */
  batchIndex: number;
  /** The procedure (as the event named it) whose definition holds the statement; absent for the batches we sent. */
  module?: string;
  /** Statements inside nested modules / dynamic SQL whose figures were folded into this one. */
  nestedStatements: number;
  /**
   * Where executions and writelogWaits come from: 'exact' = the server's histograms by sqlserver.query_hash (every
   * execution of the run), 'sample' = the events the ring buffer / event_file kept. Absent in older results (sample).
   */
  counts?: 'exact' | 'sample';
  /** durationMs, writelogMs and rows are ≈: the exact counts × this statement's averages in the sample (false when the sample held every execution and wait). */
  approx?: boolean;
  /** sqlserver.query_hash (decimal) the server counted this statement under. */
  queryHash?: string;
  /** Every file line whose statement has this hash (identical text): the counts are theirs together. */
  sharedLines?: number[];
  /** false: the hash was counted on the server but never appeared in the sample, so its line is unknown (line 0). */
  located?: boolean;
  /** Figures of this row that are not measured (null, and "not measured" in every view): a not-located row's durationMs and rows have no sample. */
  notMeasured?: Array<'durationMs' | 'rows' | 'writelogMs'>;
}

/** A statement's figures while the sample is folded: every sum is a number (nulls appear only in the result). */
type SampledFigure = StatementFigure & { durationMs: number; writelogMs: number; rows: number };

export interface StatementAttribution {
  status: 'measured' | 'not-measured';
  /** Why not measured (status 'not-measured'). */
  reason: string | null;
  /** The GRANT that would allow it, when the reason is a permission. */
  grant: string | null;
  /** sqlos.wait_completed / wait_info, or null when WRITELOG could not be traced per statement. */
  waitEvent: string | null;
  attributedWritelogWaits: number;
  attributedWritelogMs: number;
  /** Waits after the last completed statement, or of statements outside the batches we sent. */
  unattributedWritelogWaits: number;
  unattributedWritelogMs: number;
  /** The session's WRITELOG delta from sys.dm_exec_session_wait_stats (null: not read). */
  sessionWritelogWaits: number | null;
  sessionWritelogMs: number | null;
  /** Events the reader saw vs those the session counted exactly (event_counter; null: not read). */
  eventsSeen: number;
  eventsCounted: number | null;
  /** Average log bytes per flush over the whole run (log file bytes / flushes); null when either is unknown. */
  logBytesPerFlush: number | null;
  /** The unit the wait event's duration was read in (the server's description, or assumed); absent in older results. */
  waitDurationUnit?: DurationUnit | null;
  /** True when the unit was inferred from the session's own WRITELOG time (profile/consistency.ts, issue 33 D2). */
  waitDurationUnitInferred?: boolean;
  /** What the attribution cannot see, stated with every result. */
  limits: string[];
  notes: string[];
}

export const ATTRIBUTION_LIMITS = [
  'Waits shorter than the wait event\'s duration unit count as 0 ms (their number is still counted).',
  'Statements inside nested dynamic SQL (sp_executesql, EXEC(\'…\')) and procedures are folded into the line that called them.',
  'Executions and WRITELOG waits per statement are counted on the server by query hash (exact); the ring buffer keeps the newest events only, so durations, WRITELOG ms and rows are the exact counts × the sampled averages (≈). Without the query_hash action, a long run is attributed from its last events only (coverage below).',
  'Tracing every statement adds a little work to each statement of the measured session; elapsed times include it.',
];

const TEXT_LIMIT = 200;
/** At most this many statements are listed (by WRITELOG time); the rest are summed in one note, so a RunResult stays small. */
export const STATEMENTS_LISTED = 1000;

function num(v: XeScalar | undefined): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return null;
}

export function toMs(value: number, unit: DurationUnit): number {
  return unit === 'milliseconds' ? value : value / 1000;
}

/** 1-based line of character `offset` within `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export interface StatementLocation {
  batchIndex: number;
  /** 1-based line in the file. */
  line: number;
  text: string;
}

/**
 * Which of our batches a statement event came from, and its file line. Offsets are bytes of UTF-16 text (2 per
 * character); offset_end -1 means "to the end of the batch". The batch is the one whose text holds the event's
 * statement text at that offset (or, without a text, whose line at that offset is the event's line_number).
 */
export function locateStatement(
  batches: readonly WorkloadBatch[],
  ev: { line: number | null; offset: number | null; offsetEnd: number | null; statement: string | null },
  startAt = 0,
): StatementLocation | null {
  const start = ev.offset !== null && ev.offset >= 0 ? Math.floor(ev.offset / 2) : null;
  const matches = (i: number): boolean => {
    const text = batches[i]!.text;
    if (start === null || start > text.length) return false;
    if (ev.statement !== null && ev.statement.length > 0) return text.startsWith(ev.statement, start);
    return ev.line !== null && lineAt(text, start) === ev.line;
  };
  // Batches run in order, so the search starts at the batch of the previous statement and goes forward (wrapping):
  // one comparison per event in the usual case, whatever the number of batches. A statement whose text and offset
  // are identical in two batches is credited to the first one found from there.
  let batchIndex = -1;
  for (let k = 0; k < batches.length; k++) {
    const i = (startAt + k) % batches.length;
    if (matches(i)) {
      batchIndex = i;
      break;
    }
  }
  if (batchIndex < 0 && batches.length === 1 && ev.line !== null) batchIndex = 0;
  if (batchIndex < 0) return null;
  const batch = batches[batchIndex]!;
  const line = ev.line ?? (start !== null ? lineAt(batch.text, start) : 1);
  const end = ev.offsetEnd !== null && ev.offsetEnd >= 0 ? Math.floor(ev.offsetEnd / 2) : batch.text.length;
  const raw = start !== null ? batch.text.slice(start, Math.max(start, end)) : (ev.statement ?? '');
  const text = raw.replace(/\s+/g, ' ').trim();
  return { batchIndex, line: batch.firstLine + line, text: text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT - 1) + '…' : text };
}

/**
 * A procedure whose source is in the file that ran (the CREATE PROCEDURE the lens sits on): its statements'
 * sp_statement_completed events land on the file's lines instead of on the EXEC that called it.
 */
export interface ModuleSource {
  /** The name as sp_statement_completed's object_name reports it (no schema; compared case-insensitively). */
  name: string;
  /** 0-based file line of the definition's line 1 (line_number N is file line firstLine + N, 1-based). */
  firstLine: number;
  /** The definition's text, for the statement text by offset; without it the event's own text is used. */
  text?: string;
}

/** A statement of a procedure in the file: its line from the definition's first line, its text from the definition. */
function moduleLocation(m: ModuleSource, ev: { line: number | null; offset: number | null; offsetEnd: number | null; statement: string | null }): StatementLocation {
  const start = ev.offset !== null && ev.offset >= 0 ? Math.floor(ev.offset / 2) : null;
  const end = ev.offsetEnd !== null && ev.offsetEnd >= 0 ? Math.floor(ev.offsetEnd / 2) : undefined;
  const raw = m.text !== undefined && start !== null ? m.text.slice(start, end) : (ev.statement ?? '');
  const line = ev.line ?? (m.text !== undefined && start !== null ? lineAt(m.text, start) : 1);
  const text = raw.replace(/\s+/g, ' ').trim();
  return { batchIndex: -1, line: m.firstLine + line, text: text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT - 1) + '…' : text };
}

export interface AttributionOptions {
  batches: readonly WorkloadBatch[];
  statementUnit: DurationUnit;
  waitUnit: DurationUnit;
  modules?: readonly ModuleSource[];
}

/** Accumulates events in firing order; finish() returns the statements sorted by WRITELOG time, then duration. */
export class StatementAccumulator {
  private readonly byKey = new Map<string, SampledFigure>();
  /** The batch of the last located statement: where the next search starts. */
  private cursor = 0;
  private pendingWaits = 0;
  private pendingMs = 0;
  private pendingNested = 0;
  unattributedWaits = 0;
  unattributedMs = 0;
  attributedWaits = 0;
  attributedMs = 0;
  nestedStatements = 0;

  constructor(private readonly opts: AttributionOptions) {}

  add(e: XeEvent): void {
    if (e.name === 'wait_completed' || e.name === 'wait_info') {
      // wait_info's begin has no duration; the session's predicate keeps the end only, this guards a server that did not.
      if (e.name === 'wait_info' && typeof e.data.opcode?.text === 'string' && e.data.opcode.text !== 'End') return;
      this.pendingWaits++;
      this.pendingMs += toMs(num(e.data.duration?.value) ?? 0, this.opts.waitUnit);
      return;
    }
    if (e.name === STATEMENT_HISTOGRAMS_EVENT && 'histograms' in e) {
      this.applyExact((e as StatementHistogramsEvent).histograms);
      return;
    }
    if (e.name !== 'sql_statement_completed' && e.name !== 'sp_statement_completed') return;
    const d = e.data;
    const ev = { line: num(d.line_number?.value), offset: num(d.offset?.value), offsetEnd: num(d.offset_end?.value), statement: typeof d.statement?.value === 'string' ? d.statement.value : null };
    let where: (StatementLocation & { module?: string }) | null;
    if (e.name === 'sp_statement_completed') {
      const objectName = typeof d.object_name?.value === 'string' ? d.object_name.value : '';
      const module = objectName ? this.opts.modules?.find((m) => m.name.toLowerCase() === objectName.toLowerCase()) : undefined;
      // A batch sent through sp_executesql (a concurrency sweep's session-param marker) reports its statements as
      // sp_statement_completed of dynamic SQL whose text is our batch: its text at its offset locates it in the file.
      const ours = !module && !objectName && ev.statement ? locateStatement(this.opts.batches, ev, this.cursor) : null;
      if (ours) {
        this.cursor = ours.batchIndex;
        where = ours;
      } else if (!module) {
        // Nested dynamic SQL or a procedure not in the file: its waits stay pending for the statement that called it
        // (whose completion follows).
        this.pendingNested++;
        this.nestedStatements++;
        return;
      } else where = { ...moduleLocation(module, ev), module: objectName };
    } else {
      where = locateStatement(this.opts.batches, ev, this.cursor);
      if (where) this.cursor = where.batchIndex;
    }
    if (where === null) {
      this.unattributedWaits += this.pendingWaits;
      this.unattributedMs += this.pendingMs;
    } else {
      const key = `${where.module ? `m:${where.module.toLowerCase()}` : where.batchIndex}:${ev.offset ?? where.line}`;
      let f = this.byKey.get(key);
      if (!f) {
        f = { line: where.line, text: where.text, executions: 0, durationMs: 0, writelogWaits: 0, writelogMs: 0, rows: 0, batchIndex: where.batchIndex, nestedStatements: 0, ...(where.module ? { module: where.module } : {}) };
        this.byKey.set(key, f);
      }
      f.executions++;
      const hash = hashText(e.actions?.query_hash?.value);
      if (hash !== null) this.hashOf.set(key, hash);
      f.durationMs += toMs(num(d.duration?.value) ?? 0, this.opts.statementUnit);
      f.rows += num(d.row_count?.value) ?? 0;
      f.writelogWaits += this.pendingWaits;
      f.writelogMs += this.pendingMs;
      f.nestedStatements += this.pendingNested;
      this.attributedWaits += this.pendingWaits;
      this.attributedMs += this.pendingMs;
    }
    this.pendingWaits = 0;
    this.pendingMs = 0;
    this.pendingNested = 0;
  }

  /** Statements beyond STATEMENTS_LISTED (a generated script of thousands of distinct INSERTs): their totals. */
  unlisted: { statements: number; executions: number; writelogWaits: number; writelogMs: number } = { statements: 0, executions: 0, writelogWaits: 0, writelogMs: 0 };

  /** The sampled statement's query_hash, by figure key. */
  private readonly hashOf = new Map<string, string>();
  /** The figures with the exact counts applied (set by the histograms event, which comes after the sample). */
  private exact: StatementFigure[] | null = null;

  /**
   * Replaces the sampled counts by the server's exact ones, per query_hash: statements of one hash become one row
   * (their lines in sharedLines), hashes the sample never saw become "not located" rows, and the ≈ figures scale
   * the sampled averages. Runs when the histograms event arrives — after every sampled event — so its notes can
   * still join the read's notes (collect() appends `h.notes` after handing the event over).
   */
  private applyExact(h: StatementHistograms): void {
    this.unattributedWaits += this.pendingWaits;
    this.unattributedMs += this.pendingMs;
    this.pendingWaits = 0;
    this.pendingMs = 0;
    if (h.executionsByHash === null && h.waitsByHash === null) return;
    let sampledWaits = 0;
    let sampledWaitMs = 0;
    for (const f of this.byKey.values()) {
      sampledWaits += f.writelogWaits;
      sampledWaitMs += f.writelogMs;
    }
    // A statement whose own sample holds no wait takes the average wait of the whole sample.
    const overallWaitMs = sampledWaits > 0 ? sampledWaitMs / sampledWaits : null;
    const groups = new Map<string, SampledFigure[]>();
    const unhashed: SampledFigure[] = [];
    for (const [key, f] of this.byKey) {
      const hash = this.hashOf.get(key);
      if (hash === undefined) unhashed.push(f);
      else groups.set(hash, [...(groups.get(hash) ?? []), f]);
    }
    const hashes = new Set([...groups.keys(), ...(h.executionsByHash?.keys() ?? []), ...(h.waitsByHash?.keys() ?? [])]);
    const out: StatementFigure[] = [...unhashed];
    let noAverage = 0;
    let attributedWaits = 0;
    let attributedMs = 0;
    for (const hash of hashes) {
      const fs = (groups.get(hash) ?? []).sort((a, b) => a.line - b.line);
      const sample = fs.reduce((t, f) => ({ executions: t.executions + f.executions, durationMs: t.durationMs + f.durationMs, waits: t.waits + f.writelogWaits, waitMs: t.waitMs + f.writelogMs, rows: t.rows + f.rows, nested: t.nested + f.nestedStatements }), { executions: 0, durationMs: 0, waits: 0, waitMs: 0, rows: 0, nested: 0 });
      const executions = h.executionsByHash?.get(hash) ?? sample.executions;
      const waits = h.waitsByHash ? (h.waitsByHash.get(hash) ?? 0) : sample.waits;
      const perExec = sample.executions > 0 ? executions / sample.executions : 0;
      const waitAvg = sample.waits > 0 ? sample.waitMs / sample.waits : overallWaitMs;
      if (waits > 0 && waitAvg === null) noAverage += waits;
      const writelogMs = waits * (waitAvg ?? 0);
      attributedWaits += waits;
      attributedMs += writelogMs;
      const first = fs[0];
      const base = first ?? { line: 0, text: `not located (query_hash ${hash})`, batchIndex: -1, nestedStatements: 0 };
      out.push({
        ...base,
        executions,
        // A hash the sample never saw has no duration or rows to scale: null (not measured), never 0.
        durationMs: first ? sample.durationMs * perExec : null,
        writelogWaits: waits,
        writelogMs: waits > 0 && waitAvg === null ? null : writelogMs,
        rows: first ? Math.round(sample.rows * perExec) : null,
        nestedStatements: Math.round(sample.nested * perExec),
        counts: h.executionsByHash ? 'exact' : 'sample',
        // Only a scaled figure is ≈: when the sample saw every execution and wait, its sums are the measured ones.
        approx: sample.executions !== executions || sample.waits !== waits,
        queryHash: hash,
        ...(fs.length > 1 ? { sharedLines: [...new Set(fs.map((f) => f.line))] } : {}),
        ...(first ? {} : { located: false }),
        ...(first && !(waits > 0 && waitAvg === null) ? {} : { notMeasured: [...(first ? [] : (['durationMs', 'rows'] as const)), ...(waits > 0 && waitAvg === null ? (['writelogMs'] as const) : [])] }),
      });
    }
    const notLocated = out.filter((f) => f.located === false);
    if (notLocated.length > 0) {
      h.notes.push(`${notLocated.length} statement hash(es) counted on the server never appeared in the sample, so their lines are unknown (listed as "not located", line 0): together ${notLocated.reduce((n, f) => n + f.executions, 0)} executions, ${notLocated.reduce((n, f) => n + f.writelogWaits, 0)} WRITELOG waits (exact; WRITELOG ms ≈ at the sample's average wait; their duration and rows are not measured).`);
    }
    const shared = out.filter((f) => f.sharedLines);
    if (shared.length > 0) {
      h.notes.push(`Statements with the same query hash are counted together on one row (its sharedLines): ${shared.map((f) => `lines ${f.sharedLines!.join(', ')}`).join('; ')}. SQL Server's query_hash is the same for statements of similar logic (differing only in literals).`);
    }
    if (noAverage > 0) h.notes.push(`${noAverage} WRITELOG waits have no sampled wait to take a duration from: their WRITELOG ms are not measured.`);
    if (h.waitsByHash && h.waitEvents !== null) {
      this.unattributedWaits = Math.max(0, h.waitEvents - attributedWaits);
      this.unattributedMs = 0;
      if (this.unattributedWaits > 0) h.notes.push(`${this.unattributedWaits} WRITELOG waits are not attributed (the histogram did not place them); their ms are not measured.`);
    }
    this.attributedWaits = attributedWaits;
    this.attributedMs = attributedMs;
    this.exact = out;
  }

  finish(): StatementFigure[] {
    // Waits after the last completion (a cancelled statement) have no statement.
    this.unattributedWaits += this.pendingWaits;
    this.unattributedMs += this.pendingMs;
    this.pendingWaits = 0;
    this.pendingMs = 0;
    const sorted = [...(this.exact ?? [...this.byKey.values()].map((f) => ({ ...f, counts: 'sample' as const })))]
      .map((f) => ({ ...f, durationMs: f.durationMs === null ? null : round3(f.durationMs), writelogMs: f.writelogMs === null ? null : round3(f.writelogMs) }))
      .sort((a, b) => (b.writelogMs ?? 0) - (a.writelogMs ?? 0) || b.writelogWaits - a.writelogWaits || (b.durationMs ?? 0) - (a.durationMs ?? 0) || a.line - b.line);
    for (const f of sorted.slice(STATEMENTS_LISTED)) {
      this.unlisted.statements++;
      this.unlisted.executions += f.executions;
      this.unlisted.writelogWaits += f.writelogWaits;
      this.unlisted.writelogMs = round3(this.unlisted.writelogMs + (f.writelogMs ?? 0));
    }
    return sorted.slice(0, STATEMENTS_LISTED);
  }
}

/** query_hash as decimal text (the histogram's slot values are text too). */
function hashText(v: XeScalar | undefined): string | null {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return v;
  return null;
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** The attribution when no trace ran: figures are "not measured", never zero. */
export function notMeasuredAttribution(reason: string, grant: string | null, session: { waits: number | null; ms: number | null } = { waits: null, ms: null }): StatementAttribution {
  return {
    status: 'not-measured', reason, grant, waitEvent: null, attributedWritelogWaits: 0, attributedWritelogMs: 0, unattributedWritelogWaits: 0, unattributedWritelogMs: 0,
    sessionWritelogWaits: session.waits, sessionWritelogMs: session.ms, eventsSeen: 0, eventsCounted: null, logBytesPerFlush: null, limits: ATTRIBUTION_LIMITS, notes: [],
  };
}

/** Share of the session's WRITELOG waits (count) that landed on `line`; null when the session total is unknown or 0. */
export function writelogShareOfLine(statements: readonly StatementFigure[], attribution: StatementAttribution, line: number): number | null {
  const total = attribution.sessionWritelogWaits;
  if (total === null || total === 0) return null;
  return statements.filter((s) => s.line === line).reduce((n, s) => n + s.writelogWaits, 0) / total;
}
