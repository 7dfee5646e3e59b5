// The Heaviest Log Writers document (issue 30): Query Store's history of one database turned into ranked rows with
// per-execution and per-day figures, the state's outcome with its fix, and every figure that could not be read marked
// "not measured" with why — what `durability-lens top-log --json` prints and what the extension's view and lenses read.
// Documented in docs/run-result-schema.md ("Heaviest log writers"). Pure: no I/O.
import { notMeasuredText, type Measurement } from '../probes/measurement';
import type { QueryStoreHistory, QueryStoreQueryRow } from '../probes/queryStore';
import { queryStoreOutcome, type QueryStoreOutcomeKind, type QueryStoreFix } from '../probes/queryStoreState';
import type { TopLogRanking } from '../probes/queryStoreSql';

export const TOP_LOG_SCHEMA_VERSION = 1 as const;

export interface TopLogObject {
  schema: string | null;
  name: string | null;
  objectId: number;
}

export interface TopLogRow {
  rank: number;
  queryId: string;
  queryHash: string | null;
  /** The module the statement belongs to; null for an ad hoc query. */
  object: TopLogObject | null;
  /** `schema.name`, `object <id>` when the login may not see its name, or `ad hoc`. */
  objectLabel: string;
  text: string;
  /** The statement's full length when `text` was cut at 4,000 characters, else null. */
  fullTextLength: number | null;
  executions: number;
  /** Executions per day over the span read; null when the span is under an hour (not extrapolated). */
  executionsPerDay: number | null;
  unfinishedExecutions: number;
  logBytes: number | null;
  logBytesPerExecution: number | null;
  logBytesPerDay: number | null;
  /** This query's share of the window's log bytes (0…1); null when not measured. */
  logShare: number | null;
  logWaitMs: number | null;
  logWaitMsPerExecution: number | null;
  totalWaitMs: number | null;
  /** Share of the query's waits (all categories but Idle and User Wait) that were on the log (0…1). */
  logWaitShare: number | null;
  durationMs: number;
  durationMsPerExecution: number | null;
  commitsAloneScore: number;
  firstExecution: string | null;
  lastExecution: string | null;
}

export interface TopLogDocument {
  schemaVersion: typeof TOP_LOG_SCHEMA_VERSION;
  kind: 'top-log';
  /** 'stand-in': the figures are the Durability Lens stand-in's model, not SQL Server's. */
  source: 'sql-server' | 'stand-in';
  database: string;
  server: { majorVersion: number; engineEdition: number };
  readAt: string;
  window: {
    requestedHours: number;
    /** Aggregation intervals read (each counted whole), their first start and last end, and the span in hours. */
    intervals: number | null;
    from: string | null;
    to: string | null;
    spanHours: number | null;
  };
  ranking: { requested: TopLogRanking; used: TopLogRanking | 'executions' | null; note: string | null };
  queryStore: {
    outcome: QueryStoreOutcomeKind;
    message: string;
    fix: QueryStoreFix | null;
    notices: string[];
    actualState: string | null;
    desiredState: string | null;
    readonlyReason: number | null;
    waitStatsCaptureMode: string | null;
    intervalLengthMinutes: number | null;
    currentStorageSizeMb: number | null;
    maxStorageSizeMb: number | null;
  };
  totals: { executions: number; logBytes: number | null; queries: number } | null;
  totalsNotMeasured: string | null;
  top: number;
  rows: TopLogRow[];
  logBytesNotMeasured: string | null;
  waitsNotMeasured: string | null;
  rowsNotMeasured: string | null;
}

const RANKING_WORDS: Record<TopLogRanking | 'executions', string> = {
  log: 'total log bytes',
  wait: 'log-IO wait time',
  alone: 'executions that each commit on their own',
  executions: 'executions',
};

function rankingNote(h: QueryStoreHistory): string | null {
  const r = h.ranking;
  if (!r) return null;
  const notes: string[] = [];
  if (r.used !== r.requested) notes.push(`Asked to rank by ${RANKING_WORDS[r.requested]}, ranked by ${RANKING_WORDS[r.used]}: ${r.requested === 'wait' || (r.requested === 'alone' && !r.waits) ? 'wait statistics are not measured here' : 'this server keeps no log bytes per query'}.`);
  if (r.used === 'alone') {
    notes.push(r.waits
      ? 'Executions that each commit on their own = executions × the share of their duration spent waiting on the log (category Tran Log IO): a statement committing alone waits for its own flush every time.'
      : 'Without wait statistics, executions that each commit on their own are estimated as executions writing less than one log block (60 KB) each: this cannot tell a statement that commits alone from one inside a larger transaction.');
  }
  return notes.length > 0 ? notes.join(' ') : null;
}

function spanHoursOf(from: string | null, to: string | null, now: string | null): number | null {
  if (!from || !to) return null;
  const end = Math.min(Date.parse(to), now ? Date.parse(now) : Date.parse(to));
  const ms = end - Date.parse(from);
  return Number.isFinite(ms) && ms > 0 ? ms / 3_600_000 : null;
}

/** Per-day only over at least an hour of history: five minutes of data does not make a daily rate. */
const MIN_SPAN_HOURS_PER_DAY = 1;

function perDay(total: number | null, spanHours: number | null): number | null {
  if (total === null || spanHours === null || spanHours < MIN_SPAN_HOURS_PER_DAY) return null;
  return (total * 24) / spanHours;
}

function objectLabelOf(r: QueryStoreQueryRow): string {
  if (r.objectId === 0) return 'ad hoc';
  if (r.objectName) return r.schemaName ? `${r.schemaName}.${r.objectName}` : r.objectName;
  return `object ${r.objectId}`;
}

function ratio(n: number | null, d: number): number | null {
  return n === null || d <= 0 ? null : n / d;
}

export function toTopLogRow(r: QueryStoreQueryRow, rank: number, spanHours: number | null, windowLogBytes: number | null): TopLogRow {
  const waitShare = r.logWaitMs !== null && r.totalWaitMs !== null && r.totalWaitMs > 0 ? r.logWaitMs / r.totalWaitMs : null;
  return {
    rank,
    queryId: r.queryId,
    queryHash: r.queryHash,
    object: r.objectId === 0 ? null : { schema: r.schemaName, name: r.objectName, objectId: r.objectId },
    objectLabel: objectLabelOf(r),
    text: r.text,
    fullTextLength: r.fullTextLength,
    executions: r.executions,
    executionsPerDay: perDay(r.executions, spanHours),
    unfinishedExecutions: r.unfinishedExecutions,
    logBytes: r.logBytes,
    logBytesPerExecution: ratio(r.logBytes, r.executions),
    logBytesPerDay: perDay(r.logBytes, spanHours),
    logShare: r.logBytes !== null && windowLogBytes !== null && windowLogBytes > 0 ? r.logBytes / windowLogBytes : null,
    logWaitMs: r.logWaitMs,
    logWaitMsPerExecution: ratio(r.logWaitMs, r.executions),
    totalWaitMs: r.totalWaitMs,
    logWaitShare: waitShare,
    durationMs: r.durationUs / 1000,
    durationMsPerExecution: ratio(r.durationUs / 1000, r.executions),
    commitsAloneScore: r.commitsAloneScore,
    firstExecution: r.firstExecution,
    lastExecution: r.lastExecution,
  };
}

export interface TopLogContext {
  /** The server is the Durability Lens stand-in (its @@VERSION says so). */
  standIn: boolean;
  /** When the read happened (ISO); default now. */
  readAt?: string;
}

export function buildTopLogDocument(h: QueryStoreHistory, context: TopLogContext): TopLogDocument {
  const outcome = queryStoreOutcome(h);
  const options = h.options.status === 'ok' ? h.options.value : null;
  const coverage = h.coverage.status === 'ok' ? h.coverage.value : null;
  const spanHours = spanHoursOf(coverage?.firstStart ?? null, coverage?.lastEnd ?? null, coverage?.serverNow ?? null);
  const totals = h.totals.status === 'ok' ? h.totals.value : null;
  const rows = outcome.readable && h.rows.status === 'ok' ? h.rows.value.map((r, i) => toTopLogRow(r, i + 1, spanHours, totals?.logBytes ?? null)) : [];
  const notMeasured = (m: Measurement<unknown>): string | null => (m.status === 'ok' ? null : notMeasuredText(m));
  return {
    schemaVersion: TOP_LOG_SCHEMA_VERSION,
    kind: 'top-log',
    source: context.standIn ? 'stand-in' : 'sql-server',
    database: h.ctx.databaseName,
    server: { majorVersion: h.ctx.majorVersion, engineEdition: h.ctx.engineEdition },
    readAt: context.readAt ?? new Date().toISOString(),
    window: { requestedHours: h.windowHours, intervals: coverage?.intervals ?? null, from: coverage?.firstStart ?? null, to: coverage?.lastEnd ?? null, spanHours },
    ranking: { requested: h.ranking?.requested ?? 'log', used: h.ranking?.used ?? null, note: rankingNote(h) },
    queryStore: {
      outcome: outcome.kind,
      message: outcome.message,
      fix: outcome.fix,
      notices: outcome.notices,
      actualState: options?.actualState ?? null,
      desiredState: options?.desiredState ?? null,
      readonlyReason: options?.readonlyReason ?? null,
      waitStatsCaptureMode: options?.waitStatsCaptureMode ?? null,
      intervalLengthMinutes: options?.intervalLengthMinutes ?? null,
      currentStorageSizeMb: options?.currentStorageSizeMb ?? null,
      maxStorageSizeMb: options?.maxStorageSizeMb ?? null,
    },
    totals,
    totalsNotMeasured: outcome.readable ? notMeasured(h.totals) : outcome.message,
    top: h.top,
    rows,
    logBytesNotMeasured: notMeasured(h.logBytes),
    waitsNotMeasured: notMeasured(h.waits),
    rowsNotMeasured: outcome.readable ? notMeasured(h.rows) : outcome.message,
  };
}

/** A routine's production figures: every row of that module added up (its statements), for its lens and lab comparison. */
export interface RoutineProduction {
  /** `schema.name` as Query Store named it. */
  label: string;
  /** The parts (null schema: not visible to the login). */
  schema: string | null;
  name: string;
  objectId: number;
  statements: number;
  executions: number;
  executionsPerDay: number | null;
  logBytes: number | null;
  logBytesPerDay: number | null;
  logWaitMs: number | null;
  totalWaitMs: number | null;
  logWaitShare: number | null;
  /** Statements that wrote log: their executions, log bytes and log waits (the lab comparison's "per writing execution"). */
  writingExecutions: number;
  /** Those statements, to find them in a lab run (by query_hash or text). */
  writingStatements: Array<{ queryHash: string | null; text: string }>;
  logBytesPerWritingExecution: number | null;
  logWaitMsPerWritingExecution: number | null;
  spanHours: number | null;
  windowHours: number;
  source: TopLogDocument['source'];
  logBytesNotMeasured: string | null;
  waitsNotMeasured: string | null;
}

export function routineProductions(doc: TopLogDocument): RoutineProduction[] {
  const byObject = new Map<number, TopLogRow[]>();
  for (const r of doc.rows) {
    if (!r.object?.name) continue; // ad hoc, or a module whose name this login may not see: nothing to match
    const list = byObject.get(r.object.objectId) ?? [];
    list.push(r);
    byObject.set(r.object.objectId, list);
  }
  const sum = (rows: TopLogRow[], f: (r: TopLogRow) => number | null): number | null => (rows.some((r) => f(r) === null) ? null : rows.reduce((s, r) => s + (f(r) ?? 0), 0));
  return [...byObject.entries()].map(([objectId, rows]) => {
    const writing = rows.filter((r) => (r.logBytes ?? 0) > 0);
    const executions = rows.reduce((s, r) => s + r.executions, 0);
    const logBytes = sum(rows, (r) => r.logBytes);
    const logWaitMs = sum(rows, (r) => r.logWaitMs);
    const totalWaitMs = sum(rows, (r) => r.totalWaitMs);
    const writingExecutions = writing.reduce((s, r) => s + r.executions, 0);
    const writingLog = sum(writing, (r) => r.logBytes);
    const writingWait = sum(writing, (r) => r.logWaitMs);
    return {
      label: rows[0]!.objectLabel,
      schema: rows[0]!.object!.schema,
      name: rows[0]!.object!.name!,
      objectId,
      statements: rows.length,
      executions,
      executionsPerDay: perDay(executions, doc.window.spanHours),
      logBytes,
      logBytesPerDay: perDay(logBytes, doc.window.spanHours),
      logWaitMs,
      totalWaitMs,
      logWaitShare: logWaitMs !== null && totalWaitMs !== null && totalWaitMs > 0 ? logWaitMs / totalWaitMs : null,
      writingExecutions,
      writingStatements: writing.map((r) => ({ queryHash: r.queryHash, text: r.text })),
      logBytesPerWritingExecution: ratio(writingLog, writingExecutions),
      logWaitMsPerWritingExecution: doc.waitsNotMeasured === null ? ratio(writingWait, writingExecutions) : null,
      spanHours: doc.window.spanHours,
      windowHours: doc.window.requestedHours,
      source: doc.source,
      logBytesNotMeasured: doc.logBytesNotMeasured,
      waitsNotMeasured: doc.waitsNotMeasured,
    };
  });
}
