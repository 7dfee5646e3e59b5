// Statement-completed and wait events of a user session (issue 16, per-statement attribution). Rules (MODEL.md,
// "Statement and wait events"): one sql_statement_completed per executed statement of a batch, sp_statement_completed
// inside sp_executesql / EXEC('…'); a wait fires wait_info (begin, end) and wait_completed in the waiting session
// before its statement completes, so the events arrive in the order the client attributes by.
import type { Stmt } from './ast';
import type { Durability } from './durability';
import type { Session } from './state';
import { waitTypeKeys } from './xe-maps';

/** Simulated CPU time of one statement (µs), so durations are never 0: a modelling choice. */
export const STATEMENT_CPU_US = 5;

const keysByMajor = new Map<number, Map<string, number>>();
function waitKey(major: number, type: string): number {
  let keys = keysByMajor.get(major);
  if (!keys) keysByMajor.set(major, (keys = waitTypeKeys(major)));
  return keys.get(type) ?? 0;
}

/** Total simulated wait time of a session so far (µs): a statement's duration is its waits plus CPU. */
export function sessionWaitUs(session: Session): number {
  let total = 0;
  for (const w of session.waits.values()) total += w.timeUs;
  return total;
}

/**
 * Fires wait_info (opcode Begin, then End with the duration) and wait_completed for a wait of `us` µs. wait_info's
 * duration is in ms and wait_completed's in µs here (their field descriptions say so); the real units are NOT CONFIRMED.
 */
export function fireWaitEvents(d: Durability, session: Session, type: string, us: number, major: number): void {
  const key = waitKey(major, type);
  if (d.wants('wait_info')) {
    d.fire('wait_info', { wait_type: key, opcode: 0, duration: 0n, signal_duration: 0n }, session, { wait_type: type, opcode: 'Begin' });
    d.fire('wait_info', { wait_type: key, opcode: 1, duration: BigInt(Math.floor(us / 1000)), signal_duration: 0n }, session, { wait_type: type, opcode: 'End' });
  }
  if (d.wants('wait_completed')) d.fire('wait_completed', { wait_type: key, duration: BigInt(Math.round(us)), signal_duration: 0n }, session, { wait_type: type });
}

/** What a statement-completed event needs from the interpreter. */
export interface StatementContext {
  session: Session;
  /** Text of the batch (or the dynamic SQL) the statement belongs to. */
  batchText: string;
  inProc: boolean;
  rowCount: number;
  waitUsBefore: number;
  /** Set when the statement belongs to a procedure (object_type 8272 'P' as public scripts show it; NOT CONFIRMED). */
  module?: { objectId: number; name: string };
}

/** Kinds that are containers, not statements of their own here (SQL Server also reports IF / WHILE conditions: NOT modelled). */
const CONTAINERS = new Set<Stmt['k']>(['block', 'if', 'while']);

/** Statements whose row count the event reports (others: 0, modelling choice). */
const ROW_KINDS = new Set<string>(['insert', 'update', 'delete', 'select']);

/** The statement's own text in its batch (what sqlserver.query_hash hashes here); undefined for containers. */
export function statementTextOf(s: Stmt, batchText: string): string | undefined {
  if (CONTAINERS.has(s.k)) return undefined;
  return batchText.slice(s.offset ?? 0, s.end ?? batchText.length);
}

/** A statement finished: its STATEMENT_CPU_US join the session's CPU, as its completed event reports it (cpu_time). */
export function chargeStatementCpu(session: Session, s: Stmt): void {
  if (!CONTAINERS.has(s.k)) session.cpuUs += STATEMENT_CPU_US;
}

export function wantsStatementEvents(d: Durability, inProc: boolean): boolean {
  return d.wants(inProc ? 'sp_statement_completed' : 'sql_statement_completed');
}

/**
 * One statement-completed event. line_number is 1-based in the batch; offset / offset_end are byte offsets into the
 * batch text as UTF-16 (2 bytes per character), as the SQL:StmtCompleted trace class documents its end offset "in bytes".
 * offset_end is inclusive — the byte offset of the statement's last character, as published real output shows it
 * (30 characters at offset 0 end at 58; test/fixtures/real-server) — and -1 means "to the end": sent here for a
 * statement of a procedure or of dynamic SQL that runs to the end of its text (when real servers send -1 is NOT
 * CONFIRMED; MODEL.md).
 */
export function fireStatementCompleted(d: Durability, s: Stmt, c: StatementContext): void {
  if (CONTAINERS.has(s.k)) return;
  const offset = s.offset ?? 0;
  const end = s.end ?? c.batchText.length;
  const offsetEnd = c.inProc && end >= c.batchText.length ? -1 : (end - 1) * 2;
  const durationUs = sessionWaitUs(c.session) - c.waitUsBefore + STATEMENT_CPU_US;
  const data = {
    duration: BigInt(Math.round(durationUs)), cpu_time: BigInt(STATEMENT_CPU_US), logical_reads: 0n, writes: 0n,
    row_count: BigInt(ROW_KINDS.has(s.k) ? c.rowCount : 0), line_number: s.line, offset: offset * 2, offset_end: offsetEnd,
    statement: c.batchText.slice(offset, end),
  };
  if (c.inProc) {
    const m = c.module;
    d.fire('sp_statement_completed', { ...data, source_database_id: c.session.db.id, object_id: m?.objectId ?? 0, object_type: m ? 8272 : 0, object_name: m?.name ?? '', nest_level: 1 }, c.session);
  }
  else d.fire('sql_statement_completed', data, c.session);
}
