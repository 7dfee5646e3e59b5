// The concurrency sweep's core (issue 18): levels (1, 2, 4, 8, …), the server's connection limit, N workload
// connections opened all-or-nothing, and one measured workload run on all of them at once — a barrier releases every
// session together once all are connected — with per-session outcomes and the sessions' WRITELOG summed.
import type { SqlClient, SqlSession, WorkloadBatch, WorkloadMessage } from '../db/types';
import { notMeasuredText } from '../probes/measurement';
import type { GrantContext } from '../probes/permissions';
import { captureSessionWaits } from '../probes/waitStats';
import { num } from '../probes/values';
import { withSessionParam } from './sessionParam';
import type { BatchOutcome, RunConcurrency, RunError, SessionOutcome, WorkloadExecutor } from './types';

/** Levels above this need an explicit, larger maxSessions: each level holds that many connections open at once. */
export const MAX_SESSIONS_DEFAULT = 64;

/** "1,4,16" → [1, 4, 16]; each a whole number 1..max, no repeats; order kept. A string is the problem, for the user. */
export function parseSessionLevels(value: string | readonly number[], max = MAX_SESSIONS_DEFAULT): number[] | string {
  const typed = typeof value === 'string';
  const parts = typed ? value.split(',').map((p) => p.trim()) : value.map(String);
  if (parts.every((p) => p === '')) return 'sessions needs at least one level, e.g. 1,4,16';
  // Typed text is taken as written: an empty item (1,,2) or a level given twice (1,1) is a typing mistake, not a sweep.
  if (typed && parts.includes('')) return `sessions: '${value}' has an empty item; write the levels as 1,4,16`;
  const levels: number[] = [];
  for (const p of parts) {
    // Plain decimal digits only: Number() would also take 0x10, 1e1 or +4.
    const n = /^\d{1,6}$/.test(p) ? Number(p) : NaN;
    if (!Number.isInteger(n) || n < 1) return `sessions: '${p}' is not a whole number ≥ 1`;
    if (n > max) return `sessions: ${n} is above the limit of ${max} connections per level`;
    if (levels.includes(n)) {
      if (typed) return `sessions: ${n} is given twice`;
      continue;
    }
    levels.push(n);
  }
  return levels;
}

/**
 * The server's user-connection limit: sys.configurations 'user connections' when set (value_in_use > 0), else
 * @@MAX_CONNECTIONS (32,767 by default). Learn: "Server configuration: user connections" (0 = the maximum, 32,767;
 * read it with sp_configure or sys.configurations) and "@@MAX_CONNECTIONS (Transact-SQL)". Both are readable by
 * any login (sys.configurations: public role). And how many are in use now: user sessions in sys.dm_exec_sessions
 * (is_user_process = 1; one per connection unless MARS is used) — a login without VIEW SERVER STATE (2022+: VIEW
 * SERVER PERFORMANCE STATE) sees only its own session there, so the count is taken only when it sees them all
 * (Learn: sys-dm-exec-sessions-transact-sql, Permissions; HAS_PERMS_BY_NAME returns NULL for a permission name the
 * version does not know).
 */
export const CONNECTION_LIMIT_SQL = `SELECT @@MAX_CONNECTIONS AS max_connections,
  (SELECT CONVERT(int, value_in_use) FROM sys.configurations WHERE name = N'user connections') AS user_connections,
  CASE WHEN HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER STATE') = 1 OR HAS_PERMS_BY_NAME(NULL, NULL, 'VIEW SERVER PERFORMANCE STATE') = 1 THEN 1 ELSE 0 END AS sees_all_sessions,
  (SELECT COUNT(*) FROM sys.dm_exec_sessions WHERE is_user_process = 1) AS user_sessions;`;

export interface ConnectionLimit {
  /** null when it could not be read (then the sweep goes on and says so). */
  limit: number | null;
  source: 'user connections' | '@@MAX_CONNECTIONS' | null;
  /** Why the limit is unknown. */
  error?: string;
  /** User connections open now, ours included; absent when this login cannot see other sessions. */
  inUse?: number;
}

export async function readConnectionLimit(monitor: SqlClient): Promise<ConnectionLimit> {
  try {
    const row = (await monitor.query(CONNECTION_LIMIT_SQL))[0] ?? {};
    const inUse = num(row.sees_all_sessions) === 1 ? num(row.user_sessions) : null;
    const withUse = (limit: ConnectionLimit): ConnectionLimit => (inUse !== null && inUse > 0 ? { ...limit, inUse } : limit);
    const configured = num(row.user_connections);
    if (configured !== null && configured > 0) return withUse({ limit: configured, source: 'user connections' });
    const max = num(row.max_connections);
    return max !== null && max > 0 ? withUse({ limit: max, source: '@@MAX_CONNECTIONS' }) : { limit: null, source: null, error: 'the server returned no limit' };
  } catch (err) {
    return { limit: null, source: null, error: (err as Error).message };
  }
}

/**
 * A refusal text when a level does not fit: the connections in use now (ours included) plus the level's new ones
 * must stay within the limit (issue 25 N12: connections in use were ignored). When the login cannot see who else is
 * connected, only ours are counted (the workload and monitor connections) and the text says so. Null when it fits.
 */
export function connectionLimitProblem(limit: ConnectionLimit, largestLevel: number, ownConnections = 2): string | null {
  if (limit.limit === null) return null;
  if (limit.inUse !== undefined) {
    const needed = limit.inUse + largestLevel;
    if (needed <= limit.limit) return null;
    return `A level of ${largestLevel} sessions opens ${largestLevel} more connections, but ${limit.inUse} user connections are in use now (this comparison's included) and the server allows ${limit.limit} (${limit.source}): ${needed} would not fit. Nothing was changed; use fewer sessions, wait for other connections to close, or raise 'user connections' (sp_configure, needs ALTER SETTINGS and a restart).`;
  }
  const needed = largestLevel + ownConnections;
  if (needed <= limit.limit) return null;
  return `A level of ${largestLevel} sessions needs ${needed} connections (plus the workload and monitor connections), but the server allows ${limit.limit} user connections (${limit.source}); connections of other sessions were not counted (this login cannot see them: VIEW SERVER STATE). Nothing was changed; use fewer sessions, or raise 'user connections' (sp_configure, needs ALTER SETTINGS and a restart).`;
}

/**
 * Opens `count` workload connections at once. All or nothing: when one fails (or the signal fires), those already
 * open are closed before the error is thrown, so a failed level leaves no connection behind.
 */
export async function openWorkloadSessions(open: (signal?: AbortSignal) => Promise<SqlSession>, count: number, signal?: AbortSignal): Promise<SqlSession[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, () => open(signal)));
  const opened = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed || signal?.aborted) {
    await closeSessions(opened);
    throw failed ? failed.reason : Object.assign(new Error('The connections were cancelled.'), { name: 'AbortError' });
  }
  return opened;
}

export async function closeSessions(sessions: readonly SqlSession[]): Promise<void> {
  await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
}

/** The session parameter and connections of one concurrency run (RunContext.concurrent). */
export interface ConcurrentSessions {
  sessions: readonly SqlSession[];
  /** The session-param marker's variable ('@session'), or null. */
  parameter: string | null;
}

export interface ConcurrentOutcome {
  /** Per batch index: elapsed = the slowest session's, counts summed over the sessions. */
  batches: BatchOutcome[];
  errors: RunError[];
  messages: WorkloadMessage[];
  messageCount: number;
  cancelled: boolean;
  connectionLost: boolean;
  concurrency: RunConcurrency;
}

interface OneSession {
  outcome: SessionOutcome;
  batches: BatchOutcome[];
  messages: WorkloadMessage[];
  messageCount: number;
  connectionLost: boolean;
}

/**
 * Runs `batches` on every session at once. Every session is connected before this is called; each waits on one
 * barrier, released after all have been set up, so none starts before the others are ready (no stagger). A session
 * stops at its own ending error or a cancel; the others carry on. The sessions' WRITELOG is read from the monitor
 * before the release and after the last session finished.
 */
export async function runConcurrent(
  monitor: SqlClient,
  group: ConcurrentSessions,
  batches: readonly WorkloadBatch[],
  executor: WorkloadExecutor,
  options: {
    signal: AbortSignal;
    /** The monitor's version, edition and login: it decides whether other sessions' waits are visible (D1). */
    grantContext: GrantContext;
    onMessage?: (m: WorkloadMessage) => void;
    onStart?: (session: number) => void;
  },
): Promise<ConcurrentOutcome> {
  const before = await sessionWritelog(monitor, group.sessions, options.grantContext);
  let release!: () => void;
  const barrier = new Promise<void>((resolve) => (release = resolve));
  let releasedAt = 0;
  const tasks = group.sessions.map(async (session, i): Promise<OneSession> => {
    await barrier;
    options.onStart?.(i + 1);
    return runOneSession(session, i + 1, withSessionParam(batches, group.parameter, i + 1), executor, options);
  });
  releasedAt = performance.now();
  release();
  const results = await Promise.all(tasks);
  const wallMs = performance.now() - releasedAt;
  const after = await sessionWritelog(monitor, group.sessions, options.grantContext);
  const writelog = before.value && after.value ? { waits: after.value.waits - before.value.waits, waitTimeMs: after.value.waitTimeMs - before.value.waitTimeMs } : null;
  const notMeasured = before.error ?? after.error;
  return {
    batches: mergeBatches(results.map((r) => r.batches)),
    errors: results.flatMap((r) => r.outcome.errors),
    messages: results.flatMap((r) => r.messages).slice(0, 100),
    messageCount: results.reduce((n, r) => n + r.messageCount, 0),
    cancelled: results.some((r) => r.outcome.cancelled),
    connectionLost: results.some((r) => r.connectionLost),
    concurrency: {
      sessions: group.sessions.length,
      wallMs,
      parameter: group.parameter,
      perSession: results.map((r) => r.outcome),
      writelog,
      writelogNotMeasured: writelog === null && notMeasured ? notMeasured : undefined,
    },
  };
}

async function runOneSession(session: SqlSession, n: number, batches: readonly WorkloadBatch[], executor: WorkloadExecutor, options: { signal: AbortSignal; onMessage?: (m: WorkloadMessage) => void }): Promise<OneSession> {
  const outcome: SessionOutcome = { session: n, spid: session.spid, elapsedMs: 0, statements: 0, rowsAffected: null, iterationsCompleted: 0, errors: [], cancelled: false };
  const result: OneSession = { outcome, batches: [], messages: [], messageCount: 0, connectionLost: false };
  for (const [index, batch] of batches.entries()) {
    if (options.signal.aborted) {
      outcome.cancelled = true;
      break;
    }
    const report = await executor.run(session, batch, { signal: options.signal, onMessage: options.onMessage }).done;
    result.batches.push({ batchIndex: index, firstLine: batch.firstLine, repeat: batch.repeat, elapsedMs: report.elapsedMs, iterationsCompleted: report.iterationsCompleted, statements: report.statements, rowsAffected: report.rowsAffected, rowsReturned: report.rowsReturned });
    outcome.elapsedMs += report.elapsedMs;
    outcome.statements += report.statements;
    outcome.rowsAffected = addCounts(outcome.rowsAffected, report.rowsAffected);
    outcome.iterationsCompleted += report.iterationsCompleted;
    result.messageCount += report.messageCount;
    result.messages.push(...report.messages.slice(0, 20));
    if (report.connectionLost) result.connectionLost = true;
    if (report.cancelled) {
      outcome.cancelled = true;
      break;
    }
    for (const e of report.statementErrors ?? []) outcome.errors.push({ number: e.number, message: `Session ${n}: ${e.message}`, documentLine: e.documentLine, batchIndex: index, endedRun: false });
    if (report.error) {
      outcome.errors.push({ number: report.error.number, message: `Session ${n}: ${report.error.message}`, documentLine: report.error.documentLine, batchIndex: index, endedRun: true });
      break;
    }
  }
  return result;
}

/** Row counts the server reported, summed; null only when none was reported (SET NOCOUNT ON everywhere). */
function addCounts(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : a + b;
}

function mergeBatches(perSession: readonly BatchOutcome[][]): BatchOutcome[] {
  const merged = new Map<number, BatchOutcome>();
  for (const list of perSession) {
    for (const b of list) {
      const m = merged.get(b.batchIndex);
      if (!m) merged.set(b.batchIndex, { ...b });
      else {
        m.elapsedMs = Math.max(m.elapsedMs, b.elapsedMs);
        m.iterationsCompleted += b.iterationsCompleted;
        m.statements += b.statements;
        m.rowsAffected = addCounts(m.rowsAffected, b.rowsAffected);
        m.rowsReturned += b.rowsReturned;
      }
    }
  }
  return [...merged.values()].sort((a, b) => a.batchIndex - b.batchIndex);
}

/**
 * WRITELOG of every session, summed, through the sessionWaits probe — which checks visibility whenever a session shows
 * no row: without the server-state permission another session's rows are filtered out silently, and that is "not
 * measured" with the GRANT, never a measured 0 (issue 33 D1). One session not measured makes the sum not measured.
 */
async function sessionWritelog(monitor: SqlClient, sessions: readonly SqlSession[], ctx: GrantContext): Promise<{ value: { waits: number; waitTimeMs: number } | null; error?: string }> {
  let waits = 0;
  let waitTimeMs = 0;
  for (const s of sessions) {
    const m = await captureSessionWaits(monitor, s.spid, ctx);
    if (m.status !== 'ok') return { value: null, error: `The workload sessions' WRITELOG is not measured (session ${s.spid}): ${notMeasuredText(m)}` };
    const w = m.value.find((r) => r.waitType.toUpperCase() === 'WRITELOG');
    waits += Number(w?.waitingTasks ?? 0);
    waitTimeMs += Number(w?.waitTimeMs ?? 0);
  }
  return { value: { waits, waitTimeMs } };
}
