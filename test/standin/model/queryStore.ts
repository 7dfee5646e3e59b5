// Query Store as the stand-in keeps it (issue 30): per user database, the options of sys.database_query_store_options,
// one query per statement text (and module), one plan per query, aggregation intervals, and per (plan, interval,
// execution type) the runtime statistics and the waits by category — filled by the statements the model runs. The
// catalog views that read this state live in queryStoreCatalog.ts. A test instrument: the rules below cite the Learn
// page each follows; modelling choices are listed in MODEL.md "Query Store".
import type { Stmt } from './ast';
import type { Server } from './server';
import type { Database, Session } from './state';
import { queryHashOf } from './xe';
import { STATEMENT_CPU_US } from './xe-statements';

export type QueryStoreMode = 'OFF' | 'READ_ONLY' | 'READ_WRITE' | 'ERROR';

/** sys.database_query_store_options (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql). */
export interface QueryStoreOptions {
  desired: Exclude<QueryStoreMode, 'ERROR'>;
  /** What Query Store does; READ_ONLY with desired READ_WRITE carries `readonlyReason` (a bit map, same page). */
  actual: QueryStoreMode;
  readonlyReason: number;
  /** WAIT_STATS_CAPTURE_MODE ("Applies to: SQL Server 2017 (14.x) and later", default ON). */
  waitStatsCapture: boolean;
  /** INTERVAL_LENGTH_MINUTES, default 60 (allowed: 1, 5, 10, 15, 30, 60, 1440). */
  intervalLengthMinutes: number;
  /** MAX_STORAGE_SIZE_MB: 100 before SQL Server 2019, 1000 from 2019 ("Manage the Query Store"). */
  maxStorageSizeMb: number;
  flushIntervalSeconds: number;
  staleQueryThresholdDays: number;
}

export interface QsQuery {
  queryId: number;
  queryTextId: number;
  text: string;
  /** The module the statement belongs to (sys.query_store_query.object_id), 0 for an ad hoc query (same page). */
  objectId: number;
  /** '0x' + 16 hex digits: the stand-in's 64-bit hash of the statement text (xe.ts queryHashOf), not SQL Server's. */
  hash: string;
  planId: number;
  lastExecution: Date;
}

export interface QsInterval {
  id: number;
  start: Date;
  end: Date;
}

/** Running sums of one row of sys.query_store_runtime_stats (one plan, interval and execution type). */
export interface QsRuntime {
  id: number;
  planId: number;
  intervalId: number;
  executionType: 0 | 3 | 4;
  /** A row flushed to disk: later executions of the active interval go to a new in-memory row (runtime stats page). */
  flushed: boolean;
  count: number;
  first: Date;
  last: Date;
  duration: Sums;
  cpu: Sums;
  logBytes: Sums;
  rows: Sums;
}

/** Waits of one (plan, interval, execution type, category): sys.query_store_wait_stats, times in µs here. */
export interface QsWait {
  id: number;
  planId: number;
  intervalId: number;
  executionType: 0 | 3 | 4;
  category: number;
  flushed: boolean;
  /** Executions that waited in this category, and their per-execution waits (µs). */
  waits: Sums;
}

export interface Sums {
  n: number;
  sum: number;
  sumSq: number;
  min: number;
  max: number;
  last: number;
}

export interface QueryStoreState {
  options: QueryStoreOptions;
  queries: Map<string, QsQuery>;
  intervals: QsInterval[];
  runtime: QsRuntime[];
  waits: QsWait[];
  nextId: number;
}

/**
 * Distinct queries kept before Query Store turns READ_ONLY with readonly_reason 65536 ("the Query Store has reached the
 * size limit set by the MAX_STORAGE_SIZE_MB option"): the model counts queries, not megabytes (modelling choice).
 */
export const MAX_QUERIES = 20_000;

const STATES = new WeakMap<Database, QueryStoreState>();

/**
 * Default state. "In SQL Server 2022 (16.x), Query Store is now enabled by default for all newly created SQL Server
 * databases" ("Manage the Query Store", https://learn.microsoft.com/sql/relational-databases/performance/manage-the-query-store):
 * READ_WRITE from 2022, OFF before; Azure SQL Database keeps it on ("cannot disable Query Store in single databases and
 * elastic pools", same page). Managed Instance on by default: modelling choice, NOT CONFIRMED. master and tempdb never
 * (Query Store cannot be enabled there; modelled for every system database).
 */
function defaultOptions(server: Server, db: Database): QueryStoreOptions {
  const on = !db.system && (server.options.product !== 'sqlserver' || server.options.major >= 16);
  return {
    desired: on ? 'READ_WRITE' : 'OFF',
    actual: on ? 'READ_WRITE' : 'OFF',
    readonlyReason: 0,
    waitStatsCapture: true,
    intervalLengthMinutes: 60,
    maxStorageSizeMb: server.options.major >= 15 ? 1000 : 100,
    flushIntervalSeconds: 900,
    staleQueryThresholdDays: 30,
  };
}

export function queryStoreOf(server: Server, db: Database): QueryStoreState {
  let qs = STATES.get(db);
  if (!qs) {
    qs = { options: defaultOptions(server, db), queries: new Map(), intervals: [], runtime: [], waits: [], nextId: 1 };
    STATES.set(db, qs);
  }
  return qs;
}

/** Whether the server has the Query Store wait statistics (sys.query_store_wait_stats: SQL Server 2017+, Azure). */
export function hasQueryStoreWaits(server: Server): boolean {
  return server.options.product !== 'sqlserver' || server.options.major >= 14;
}

/**
 * Whether sys.query_store_runtime_stats has the *_log_bytes_used columns. The current Learn page lists them without a
 * version note; its 2016-era revision said "Applies only to Azure SQL Database", and a docs pull request of 2019
 * (MicrosoftDocs/sql-docs #1771) removed that because they "work correctly in SQL Server 2017 on-prem". Absent on
 * 2016 here: NOT CONFIRMED (MODEL.md).
 */
export function hasLogBytesColumns(server: Server): boolean {
  return server.options.product !== 'sqlserver' || server.options.major >= 14;
}

// ---- Capture ----

/** Statements Query Store captures here: the ones that compile to a query plan (modelling choice, MODEL.md). */
const CAPTURED = new Set<Stmt['k']>(['select', 'insert', 'update', 'delete']);

/** Log bytes each session has appended so far (Durability.appendLog calls noteLogBytes). */
const SESSION_LOG = new WeakMap<Session, number>();

export function noteLogBytes(session: Session | null, bytes: number): void {
  if (session) SESSION_LOG.set(session, (SESSION_LOG.get(session) ?? 0) + bytes);
}

/** The procedures a session is running, innermost last (procedures.ts runProcedure): a statement's object_id. */
const MODULES = new WeakMap<Session, number[]>();

export function enterModule(session: Session, objectId: number): void {
  const stack = MODULES.get(session) ?? [];
  stack.push(objectId);
  MODULES.set(session, stack);
}

export function leaveModule(session: Session): void {
  MODULES.get(session)?.pop();
}

/** What a captured statement's end needs from its start. */
export interface CaptureStart {
  qs: QueryStoreState;
  /** The server's clock (Server.now): when the statement ends, which interval it lands in. */
  now: () => Date;
  db: Database;
  text: string;
  objectId: number;
  logBefore: number;
  waitsBefore: Map<string, number>;
}

/** Called before a statement runs; null when Query Store does not record it (off, read-only, not a query). */
export function beginCapture(server: Server, session: Session, s: Stmt, batchText: string | undefined, module: { objectId: number } | undefined): CaptureStart | null {
  if (!CAPTURED.has(s.k) || batchText === undefined) return null;
  // A SELECT that only assigns variables and reads no table compiles no plan worth keeping (modelling choice).
  if (s.k === 'select' && !s.q.from) return null;
  const db = session.db;
  if (db.system) return null;
  const qs = queryStoreOf(server, db);
  if (qs.options.actual !== 'READ_WRITE') return null;
  const text = batchText.slice(s.offset ?? 0, s.end ?? batchText.length).trim();
  if (text === '') return null;
  const waitsBefore = new Map<string, number>();
  for (const [type, w] of session.waits) waitsBefore.set(type, w.timeUs);
  const objectId = module?.objectId ?? MODULES.get(session)?.at(-1) ?? 0;
  return { qs, now: () => server.now(), db, text, objectId, logBefore: SESSION_LOG.get(session) ?? 0, waitsBefore };
}

/**
 * Called when the statement ended: execution_type 0 Regular, 3 Aborted (client cancel), 4 Exception (runtime stats
 * page). Duration = the statement's waits + STATEMENT_CPU_US (as its statement-completed event, xe-statements.ts).
 */
export function endCapture(start: CaptureStart, session: Session, executionType: 0 | 3 | 4, rowCount: number): void {
  const { qs } = start;
  if (qs.options.actual !== 'READ_WRITE') return;
  const now = start.now();
  const query = queryOf(qs, start, now);
  if (!query) return;
  query.lastExecution = now;
  const interval = currentInterval(qs, now);
  const logBytes = (SESSION_LOG.get(session) ?? 0) - start.logBefore;
  const byCategory = new Map<number, number>();
  let waitedUs = 0;
  for (const [type, w] of session.waits) {
    const us = w.timeUs - (start.waitsBefore.get(type) ?? 0);
    if (us <= 0) continue;
    waitedUs += us;
    const category = waitCategoryOf(type);
    byCategory.set(category, (byCategory.get(category) ?? 0) + us);
  }
  const row = openRow(qs, qs.runtime, query.planId, interval.id, executionType, (id) => ({
    id, planId: query.planId, intervalId: interval.id, executionType, flushed: false, count: 0, first: now, last: now,
    duration: sums(), cpu: sums(), logBytes: sums(), rows: sums(),
  }));
  row.count++;
  row.last = now;
  add(row.duration, waitedUs + STATEMENT_CPU_US);
  add(row.cpu, STATEMENT_CPU_US);
  add(row.logBytes, logBytes);
  add(row.rows, rowCount);
  if (!qs.options.waitStatsCapture) return;
  for (const [category, us] of byCategory) {
    const w = openRow(qs, qs.waits, query.planId, interval.id, executionType, (id) => ({ id, planId: query.planId, intervalId: interval.id, executionType, category, flushed: false, waits: sums() }), category);
    add(w.waits, us);
  }
}

function queryOf(qs: QueryStoreState, start: CaptureStart, now: Date): QsQuery | null {
  const key = `${start.objectId}\u0000${start.text.replace(/\s+/g, ' ')}`;
  let q = qs.queries.get(key);
  if (q) return q;
  if (qs.queries.size >= MAX_QUERIES) {
    qs.options.actual = 'READ_ONLY';
    qs.options.readonlyReason |= 65536;
    return null;
  }
  const id = qs.nextId++;
  const hash = queryHashOf(start.text);
  q = { queryId: id, queryTextId: id, text: start.text, objectId: start.objectId, hash: `0x${hash.toString(16).toUpperCase().padStart(16, '0')}`, planId: id, lastExecution: now };
  qs.queries.set(key, q);
  return q;
}

/** The interval holding `now`: INTERVAL_LENGTH_MINUTES windows aligned to the clock (modelling choice). */
function currentInterval(qs: QueryStoreState, now: Date): QsInterval {
  const last = qs.intervals[qs.intervals.length - 1];
  if (last && now < last.end) return last;
  const len = qs.options.intervalLengthMinutes * 60_000;
  const startMs = Math.floor(now.getTime() / len) * len;
  const interval = { id: qs.intervals.length + 1, start: new Date(Math.max(startMs, last?.end.getTime() ?? 0)), end: new Date(startMs + len) };
  qs.intervals.push(interval);
  return interval;
}

function openRow<T extends { planId: number; intervalId: number; executionType: number; flushed: boolean; category?: number }>(
  qs: QueryStoreState, list: T[], planId: number, intervalId: number, executionType: number, make: (id: number) => T, category?: number,
): T {
  for (let i = list.length - 1; i >= 0; i--) {
    const r = list[i]!;
    if (r.intervalId !== intervalId) break;
    if (!r.flushed && r.planId === planId && r.executionType === executionType && r.category === category) return r;
  }
  const row = make(qs.nextId++);
  list.push(row);
  return row;
}

function sums(): Sums {
  return { n: 0, sum: 0, sumSq: 0, min: Number.POSITIVE_INFINITY, max: 0, last: 0 };
}

function add(s: Sums, v: number): void {
  s.n++;
  s.sum += v;
  s.sumSq += v * v;
  s.min = Math.min(s.min, v);
  s.max = Math.max(s.max, v);
  s.last = v;
}

/**
 * Wait category of a wait type: the mapping table of sys.query_store_wait_stats
 * (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-wait-stats-transact-sql).
 * 14 "Tran Log IO": LOGMGR, LOGBUFFER, LOGMGR_RESERVE_APPEND, LOGMGR_FLUSH, LOGMGR_PMM_LOG, CHKPT, WRITELOG.
 */
export function waitCategoryOf(type: string): number {
  const t = type.toUpperCase();
  if (['WRITELOG', 'LOGBUFFER', 'LOGMGR', 'LOGMGR_RESERVE_APPEND', 'LOGMGR_FLUSH', 'LOGMGR_PMM_LOG', 'CHKPT'].includes(t)) return 14;
  if (t === 'SOS_SCHEDULER_YIELD') return 1;
  if (t.startsWith('LCK_M_')) return 3;
  if (t.startsWith('PAGEIOLATCH_')) return 6;
  if (t.startsWith('PAGELATCH_')) return 5;
  if (t.startsWith('LATCH_')) return 4;
  if (t.startsWith('PREEMPTIVE_')) return 12;
  if (['ASYNC_IO_COMPLETION', 'IO_COMPLETION', 'BACKUPIO', 'WRITE_COMPLETION', 'IO_QUEUE_LIMIT', 'IO_RETRY'].includes(t)) return 21;
  if (t === 'WAITFOR') return 18;
  if (t.startsWith('HADR_')) return 22;
  return 0;
}

export const WAIT_CATEGORY_NAMES: Record<number, string> = {
  0: 'Unknown', 1: 'CPU', 2: 'Worker Thread', 3: 'Lock', 4: 'Latch', 5: 'Buffer Latch', 6: 'Buffer IO', 7: 'Compilation', 8: 'SQL CLR',
  9: 'Mirroring', 10: 'Transaction', 11: 'Idle', 12: 'Preemptive', 13: 'Service Broker', 14: 'Tran Log IO', 15: 'Network IO',
  16: 'Parallelism', 17: 'Memory', 18: 'User Wait', 19: 'Tracing', 20: 'Full Text Search', 21: 'Other Disk IO', 22: 'Replication',
  23: 'Log Rate Governor',
};

// ---- Control (tests) and ALTER DATABASE … SET QUERY_STORE ----

/**
 * What DATA_FLUSH_INTERVAL_SECONDS does: the rows of the active interval are persisted, and later executions of that
 * interval go to new in-memory rows — so one (plan, interval, type) can show several rows, which a reader must add up
 * ("to get actual state for every interval you need to aggregate metrics", runtime stats page).
 */
export function flushQueryStore(qs: QueryStoreState): void {
  for (const r of qs.runtime) r.flushed = true;
  for (const w of qs.waits) w.flushed = true;
}

/** Ends the active interval at `at` (pass server.now() when a test set the clock): later executions land in a new interval. */
export function closeInterval(qs: QueryStoreState, at = new Date()): void {
  const last = qs.intervals[qs.intervals.length - 1];
  if (last && last.end > at) last.end = at;
}

/**
 * `ALTER DATABASE … SET QUERY_STORE = ON | OFF | CLEAR [ALL]` and `SET QUERY_STORE ( option = value, … )` (ALTER
 * DATABASE SET options, https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options):
 * OPERATION_MODE, WAIT_STATS_CAPTURE_MODE, INTERVAL_LENGTH_MINUTES, MAX_STORAGE_SIZE_MB. Returns an error text for an
 * option the model does not know (raised as 102 by the caller); null when applied.
 */
export function alterQueryStore(server: Server, db: Database, state: string, settings: ReadonlyArray<[string, string]>): string | null {
  const qs = queryStoreOf(server, db);
  const o = qs.options;
  if (state === 'CLEAR') {
    qs.queries.clear();
    qs.intervals = [];
    qs.runtime = [];
    qs.waits = [];
    if (o.actual === 'READ_ONLY' && o.desired === 'READ_WRITE') { o.actual = 'READ_WRITE'; o.readonlyReason = 0; }
    return null;
  }
  if (state === 'ON' && o.desired === 'OFF') { o.desired = 'READ_WRITE'; o.actual = 'READ_WRITE'; o.readonlyReason = 0; }
  if (state === 'OFF') { o.desired = 'OFF'; o.actual = 'OFF'; o.readonlyReason = 0; }
  for (const [name, value] of settings) {
    switch (name) {
      case 'OPERATION_MODE':
        if (value !== 'READ_WRITE' && value !== 'READ_ONLY') return value;
        o.desired = value;
        // A reason that still holds (size limit) keeps it read-only; the model clears it, as a fresh start would.
        o.actual = value;
        o.readonlyReason = 0;
        break;
      case 'WAIT_STATS_CAPTURE_MODE':
        if (!hasQueryStoreWaits(server)) return name;
        if (value !== 'ON' && value !== 'OFF') return value;
        o.waitStatsCapture = value === 'ON';
        break;
      case 'INTERVAL_LENGTH_MINUTES':
        if (![1, 5, 10, 15, 30, 60, 1440].includes(Number(value))) return value;
        o.intervalLengthMinutes = Number(value);
        break;
      case 'MAX_STORAGE_SIZE_MB':
        o.maxStorageSizeMb = Number(value);
        break;
      default:
        return name;
    }
  }
  return null;
}
