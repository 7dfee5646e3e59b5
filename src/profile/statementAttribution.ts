// Per-statement attribution (issue 16): folds the statement-trace events, in the order they fired, into figures per
// statement of the script that ran, and maps each statement to its line in the file (batch start lines included).
// A WRITELOG wait belongs to the statement whose completion follows it in the session's event stream: the wait
// happens inside that statement (an autocommit INSERT, or the COMMIT).

import type { WorkloadBatch } from '../db/types';
import type { DurationUnit } from '../xe/aggregate';
import type { XeEvent, XeScalar } from '../xe/reader';
import { STATEMENT_HISTOGRAMS_EVENT, type StatementHistograms, type StatementHistogramsEvent } from '../xe/statementTrace';
import { mergeExactCounts, type SampledStatement } from './statementExactCounts';
import type { SampledFigure, StatementFigure } from './statementFigure';

export type { SampledFigure, StatementFigure } from './statementFigure';

export interface StatementAttribution {
  status: 'measured' | 'not-measured';
  /** Why not measured (status 'not-measured'). */
  reason: string | null;
  /** The GRANT that would allow it, when the reason is a permission. */
  grant: string | null;
  /** sqlos.wait_completed / wait_info, or null when WRITELOG could not be traced per statement. */
  waitEvent: string | null;
  /** null when not measured (no trace ran): never 0. */
  attributedWritelogWaits: number | null;
  attributedWritelogMs: number | null;
  /** Waits after the last completed statement, or of statements outside the batches we sent (null: not measured). */
  unattributedWritelogWaits: number | null;
  unattributedWritelogMs: number | null;
  /** The session's WRITELOG delta from sys.dm_exec_session_wait_stats (null: not read). */
  sessionWritelogWaits: number | null;
  sessionWritelogMs: number | null;
  /** Events the reader saw vs those the session counted exactly (event_counter; null: not read). */
  eventsSeen: number | null;
  eventsCounted: number | null;
  /** Average log bytes per flush over the whole run (log file bytes / flushes); null when either is unknown. */
  logBytesPerFlush: number | null;
  /** The unit the wait event's duration was read in (the server's description, or assumed); absent in older results. */
  waitDurationUnit?: DurationUnit | null;
  /** True when the unit was inferred from the session's own WRITELOG time (profile/consistency.ts, issue 33 D2). */
  waitDurationUnitInferred?: boolean;
  /**
   * Statements beyond the first STATEMENTS_LISTED, summed (their note is unlistedStatementsNote of this); a WRITELOG
   * figure is null when it is not measured for at least one of them. Absent when every statement is listed.
   */
  unlisted?: UnlistedStatements;
  /** What the attribution cannot see, stated with every result. */
  limits: string[];
  notes: string[];
}

export interface UnlistedStatements {
  statements: number;
  executions: number;
  writelogWaits: number | null;
  writelogMs: number | null;
}

/** The note on statements beyond the first STATEMENTS_LISTED, from the figures as they stand (rewritten when rescaled). */
export function unlistedStatementsNote(u: UnlistedStatements): string {
  const waits = u.writelogWaits === null ? 'WRITELOG waits not measured' : `${u.writelogWaits} WRITELOG waits`;
  const ms = u.writelogMs === null ? 'WRITELOG time not measured' : `${u.writelogMs} ms`;
  return `${u.statements} more statement(s) are not listed (only the first ${STATEMENTS_LISTED} by WRITELOG time are): together ${u.executions} executions, ${waits} (${ms}).`;
}

export const ATTRIBUTION_LIMITS = [
  'Waits shorter than the wait event\'s duration unit count as 0 ms (their number is still counted).',
  'Statements inside nested dynamic SQL (sp_executesql, EXEC(\'…\')) are folded into the line that called them; statements of a procedure or trigger whose source is not in the file are rows of their own, under its name, on the line that called it.',
  'Executions and WRITELOG waits per statement are counted on the server by query hash (exact); the ring buffer keeps the newest events only, so durations, WRITELOG ms and rows are the exact counts × the sampled averages (≈). Statements without a plan (query_hash 0: EXECUTE, COMMIT, SET…) share one hash on the server, so they are counted from the sample, each on its own line. Without the query_hash action, a long run is attributed from its last events only (coverage below).',
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
 * The character index just past a statement whose inclusive offset_end is `offsetEnd`: offsets are bytes of UTF-16
 * text (2 per character) and offset_end is the byte offset of the statement's last character — 30 characters at
 * offset 0 end at 58 in real output (test/fixtures/real-server), as statement_end_offset in sys.dm_exec_query_stats,
 * whose documented SUBSTRING adds 1 — while -1 (or no value) means "to the end of the batch or module".
 */
export function statementEndIndex(offsetEnd: number | null, textLength: number): number {
  return offsetEnd !== null && offsetEnd >= 0 ? Math.min(textLength, Math.floor(offsetEnd / 2) + 1) : textLength;
}

/**
 * Which of our batches a statement event came from, and its file line. Offsets are bytes of UTF-16 text (2 per
 * character); offset_end is inclusive and -1 means "to the end of the batch" (statementEndIndex). The batch is the one whose text holds the event's
 * statement text at that offset (or, without a text, whose line at that offset is the event's line_number).
 */
export function locateStatement(
  batches: readonly WorkloadBatch[],
  ev: { line: number | null; offset: number | null; offsetEnd: number | null; statement: string | null },
  startAt = 0,
  /** Only a batch that holds the statement's text (or line) at its offset: no single-batch fallback (dynamic SQL). */
  exact = false,
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
  if (batchIndex < 0 && !exact && batches.length === 1 && ev.line !== null) batchIndex = 0;
  if (batchIndex < 0) return null;
  const batch = batches[batchIndex]!;
  const line = ev.line ?? (start !== null ? lineAt(batch.text, start) : 1);
  const end = statementEndIndex(ev.offsetEnd, batch.text.length);
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
  const raw = m.text !== undefined && start !== null ? m.text.slice(start, Math.max(start, statementEndIndex(ev.offsetEnd, m.text.length))) : (ev.statement ?? '');
  const line = ev.line ?? (m.text !== undefined && start !== null ? lineAt(m.text, start) : 1);
  const text = raw.replace(/\s+/g, ' ').trim();
  return { batchIndex: -1, line: m.firstLine + line, text: text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT - 1) + '…' : text };
}

export interface AttributionOptions {
  batches: readonly WorkloadBatch[];
  statementUnit: DurationUnit;
  waitUnit: DurationUnit;
  modules?: readonly ModuleSource[] | undefined;
}

/** Accumulates events in firing order; finish() returns the statements sorted by WRITELOG time, then duration. */
export class StatementAccumulator {
  private readonly byKey = new Map<string, SampledFigure>();
  /** The batch of the last located statement: where the next search starts. */
  private cursor = 0;
  private pendingWaits = 0;
  private pendingMs = 0;
  private pendingNested = 0;
  /** query_hash of the nested statements waiting for their caller's completion. */
  private pendingNestedHashes: string[] = [];
  /** Statements of procedures not in the file, with their own waits, waiting for the line of the statement that called them. */
  private pendingCalled: Array<{ e: XeEvent; objectName: string; waits: number; ms: number }> = [];
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
      // Only its text at that offset does: other dynamic SQL (EXEC('…') in the batch) is not a line of ours.
      const ours = !module && !objectName && ev.statement ? locateStatement(this.opts.batches, ev, this.cursor, true) : null;
      if (ours) {
        this.cursor = ours.batchIndex;
        where = ours;
      } else if (!module && objectName) {
        // A procedure (or trigger) not in the file, named by the event as real servers do: a row of its own under its
        // name, on the line of the statement that called it (known when that one completes), with its own waits.
        this.pendingCalled.push({ e, objectName, waits: this.pendingWaits, ms: this.pendingMs });
        this.pendingWaits = 0;
        this.pendingMs = 0;
        return;
      } else if (!module) {
        // Nested dynamic SQL: its waits stay pending for the statement that called it (whose completion follows).
        this.pendingNested++;
        this.nestedStatements++;
        const nestedHash = hashText(e.actions?.query_hash?.value);
        if (nestedHash !== null) this.pendingNestedHashes.push(nestedHash);
        return;
      } else where = { ...moduleLocation(module, ev), module: objectName };
    } else {
      where = locateStatement(this.opts.batches, ev, this.cursor);
      if (where) this.cursor = where.batchIndex;
    }
    if (where === null) {
      this.unattributedWaits += this.pendingWaits;
      this.unattributedMs += this.pendingMs;
      for (const c of this.pendingCalled) {
        this.unattributedWaits += c.waits;
        this.unattributedMs += c.ms;
      }
    } else {
      for (const c of this.pendingCalled) this.addCalled(c, where);
      // A statement is its place in the text (batch or module, offsets, line): query_hash is not its identity (0 for
      // every plan-less statement), only what the server's histograms count by.
      const key = `${where.module ? `m:${where.module.toLowerCase()}` : where.batchIndex}:${ev.offset ?? ''}:${ev.offsetEnd ?? ''}:${where.line}`;
      let f = this.byKey.get(key);
      if (!f) {
        f = { line: where.line, text: where.text, executions: 0, durationMs: 0, writelogWaits: 0, writelogMs: 0, rows: 0, batchIndex: where.batchIndex, nestedStatements: 0, module: where.module };
        if (f.module === undefined) delete f.module;
        this.byKey.set(key, f);
      }
      this.addCompletion(f, key, e, this.pendingWaits, this.pendingMs);
      if (this.pendingNestedHashes.length > 0) {
        const folded = this.foldedOf.get(key) ?? new Map<string, number>();
        for (const h of this.pendingNestedHashes) folded.set(h, (folded.get(h) ?? 0) + 1);
        this.foldedOf.set(key, folded);
      }
      f.nestedStatements += this.pendingNested;
    }
    this.pendingWaits = 0;
    this.pendingMs = 0;
    this.pendingNested = 0;
    this.pendingNestedHashes = [];
    this.pendingCalled = [];
  }

  /** A statement of a procedure not in the file, on the line of the statement that called it. */
  private addCalled(c: { e: XeEvent; objectName: string; waits: number; ms: number }, caller: StatementLocation): void {
    const d = c.e.data;
    const statement = typeof d.statement?.value === 'string' ? d.statement.value.replace(/\s+/g, ' ').trim() : '';
    const key = `c:${c.objectName.toLowerCase()}:${num(d.offset?.value) ?? ''}:${num(d.offset_end?.value) ?? ''}:${num(d.line_number?.value) ?? ''}:${caller.line}`;
    let f = this.byKey.get(key);
    if (!f) {
      const text = statement || `(statement of ${c.objectName})`;
      f = { line: caller.line, text: text.length > TEXT_LIMIT ? text.slice(0, TEXT_LIMIT - 1) + '…' : text, executions: 0, durationMs: 0, writelogWaits: 0, writelogMs: 0, rows: 0, batchIndex: -1, nestedStatements: 0, module: c.objectName };
      this.byKey.set(key, f);
    }
    this.addCompletion(f, key, c.e, c.waits, c.ms);
  }

  /** One completion of the statement `f` (keyed `key`): its execution, hash, duration, rows and the WRITELOG before it. */
  private addCompletion(f: SampledFigure, key: string, e: XeEvent, waits: number, ms: number): void {
    const d = e.data;
    f.executions++;
    const hash = hashText(e.actions?.query_hash?.value);
    if (hash !== null) this.hashOf.set(key, hash);
    f.durationMs += toMs(num(d.duration?.value) ?? 0, this.opts.statementUnit);
    f.rows += num(d.row_count?.value) ?? 0;
    f.writelogWaits += waits;
    f.writelogMs += ms;
    this.attributedWaits += waits;
    this.attributedMs += ms;
  }

  /** Statements beyond STATEMENTS_LISTED (a generated script of thousands of distinct INSERTs): their totals. */
  unlisted: UnlistedStatements = { statements: 0, executions: 0, writelogWaits: 0, writelogMs: 0 };

  /** The sampled statement's query_hash, by figure key. */
  private readonly hashOf = new Map<string, string>();
  /** By figure key: the query_hash (and sampled executions) of the nested statements folded into it. */
  private readonly foldedOf = new Map<string, Map<string, number>>();
  /** The figures with the exact counts applied (set by the histograms event, which comes after the sample). */
  private exact: StatementFigure[] | null = null;

  /**
   * Replaces the sampled counts by the server's exact ones (statementExactCounts.ts). Runs when the histograms event
   * arrives — after every sampled event — so its notes can still join the read's notes (collect() appends `h.notes`
   * after handing the event over).
   */
  private applyExact(h: StatementHistograms): void {
    this.unattributedWaits += this.pendingWaits;
    this.unattributedMs += this.pendingMs;
    this.pendingWaits = 0;
    this.pendingMs = 0;
    if (h.executionsByHash === null && h.waitsByHash === null) return;
    this.pendingNestedHashes = [];
    for (const c of this.pendingCalled) {
      this.unattributedWaits += c.waits;
      this.unattributedMs += c.ms;
    }
    this.pendingCalled = [];
    const sampled: SampledStatement[] = [...this.byKey].map(([key, figure]) => ({ figure, hash: this.hashOf.get(key) ?? null, folded: this.foldedOf.get(key) }));
    const merged = mergeExactCounts(sampled, h);
    h.notes.push(...merged.notes);
    if (merged.unattributedWaits !== null) {
      this.unattributedWaits = merged.unattributedWaits;
      this.unattributedMs = 0;
    }
    this.attributedWaits = merged.attributedWaits;
    this.attributedMs = merged.attributedMs;
    this.exact = merged.figures;
  }

  finish(): StatementFigure[] {
    // Waits after the last completion (a cancelled statement) have no statement.
    this.unattributedWaits += this.pendingWaits;
    this.unattributedMs += this.pendingMs;
    for (const c of this.pendingCalled) {
      this.unattributedWaits += c.waits;
      this.unattributedMs += c.ms;
    }
    this.pendingCalled = [];
    this.pendingWaits = 0;
    this.pendingMs = 0;
    const sorted = [...(this.exact ?? [...this.byKey.values()].map((f) => ({ ...f, counts: 'sample' as const })))]
      .map((f) => ({ ...f, durationMs: f.durationMs === null ? null : round3(f.durationMs), writelogMs: f.writelogMs === null ? null : round3(f.writelogMs) }))
      .sort((a, b) => (b.writelogMs ?? 0) - (a.writelogMs ?? 0) || (b.writelogWaits ?? 0) - (a.writelogWaits ?? 0) || (b.durationMs ?? 0) - (a.durationMs ?? 0) || a.line - b.line);
    const u = this.unlisted;
    for (const f of sorted.slice(STATEMENTS_LISTED)) {
      u.statements++;
      u.executions += f.executions;
      // A figure not measured for one of them makes the sum not measured: never a 0 standing in for it.
      u.writelogWaits = u.writelogWaits === null || f.writelogWaits === null || f.notMeasured?.includes('writelogWaits') ? null : u.writelogWaits + f.writelogWaits;
      u.writelogMs = u.writelogMs === null || f.writelogMs === null || f.notMeasured?.includes('writelogMs') ? null : round3(u.writelogMs + f.writelogMs);
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
    status: 'not-measured', reason, grant, waitEvent: null, attributedWritelogWaits: null, attributedWritelogMs: null, unattributedWritelogWaits: null, unattributedWritelogMs: null,
    sessionWritelogWaits: session.waits, sessionWritelogMs: session.ms, eventsSeen: null, eventsCounted: null, logBytesPerFlush: null, limits: ATTRIBUTION_LIMITS, notes: [],
  };
}

/** Share of the session's WRITELOG waits (count) that landed on `line`; null when the session total is unknown or 0, or the line's waits are not measured. */
export function writelogShareOfLine(statements: readonly StatementFigure[], attribution: StatementAttribution, line: number): number | null {
  const total = attribution.sessionWritelogWaits;
  if (total === null || total === 0) return null;
  const lineStatements = statements.filter((s) => s.line === line);
  if (lineStatements.some((s) => s.writelogWaits === null)) return null;
  return lineStatements.reduce((n, s) => n + (s.writelogWaits ?? 0), 0) / total;
}
