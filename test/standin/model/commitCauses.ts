// Switches that give a commit a cause besides the log disk (issue 29), so each cause of the product's cause model can be
// made dominant in a test: a synchronous availability-group secondary (HADR_SYNC_COMMIT), Azure SQL log-rate
// governance (LOG_RATE_GOVERNOR), Hyperscale's log service throttling (RBIO_RG_STORAGE) and a log writer with a limit
// on the writes it has outstanding. Kept per stand-in server in a WeakMap (the model's state needs no new field), set
// through `commitCauses(standin.state)` or `npm run standin -- --ag-sync-commit-ms N …`. Each rule cites the Learn page
// it follows; MODEL.md lists what is NOT CONFIRMED.
import type { Durability } from './durability';
import type { Server } from './server';
import type { Database, Session } from './state';

export class CommitCauses {
  /**
   * HADR_SYNC_COMMIT per fully durable commit in an availability-group database, in ms (null: off). "Waiting for
   * transaction commit processing for the synchronized secondary databases to harden the log … the time to send,
   * write, and acknowledge log" (sys.dm_os_wait_stats). Delayed durable commits do not wait: "control is returned to
   * the client before any acknowledgment is received from any synchronous secondary" (Control Transaction Durability).
   */
  agSyncCommitMs: number | null = null;
  /**
   * Log generation cap in MB/s (null: off), on Azure SQL Database / Managed Instance only: "log rate governance is
   * applied during log rate generation itself", visible as LOG_RATE_GOVERNOR — so delayed durable commits wait too
   * (resource-limits-logical-server, "Transaction log rate governance"). With `hyperscale` the cap models a page server
   * behind on the log (RBIO_RG_STORAGE; Hyperscale performance diagnostics) instead. NOT CONFIRMED: the token-bucket
   * timing (below) and that the wait is taken at the commit.
   */
  logRateLimitMbps: number | null = null;
  /** Plays Azure SQL Database Hyperscale (with product 'azure-sqldb'): DATABASEPROPERTYEX Edition, sys.dm_hs_database_log_rate. */
  hyperscale = false;
  /** primary_log_commit_fee reported by sys.dm_user_db_resource_governance, bytes (reported only; not charged). */
  logCommitFeeBytes = 0;
  /**
   * Log writes the log writer may have outstanding (null: the group-commit model's default, one flush in flight and a
   * group behind it). With a limit, a commit queued behind more waiting commits than the limit waits its turn: half the
   * write in flight plus ⌈(waiting + 1) ÷ limit⌉ writes. The limit's existence follows the SQLCAT article archived on Learn
   * ("Diagnosing Transaction Log Performance Issues and Limits of the Log Manager", SQL Server 2005/2008: outstanding
   * log I/O is capped per database; https://learn.microsoft.com/archive/blogs/sqlcat/diagnosing-transaction-log-performance-issues-and-limits-of-the-log-manager);
   * current versions' limits and the queue arithmetic are NOT CONFIRMED.
   */
  logWriterOutstandingLimit: number | null = null;

  reset(): void {
    this.agSyncCommitMs = null;
    this.logRateLimitMbps = null;
    this.hyperscale = false;
    this.logCommitFeeBytes = 0;
    this.logWriterOutstandingLimit = null;
  }
}

const byServer = new WeakMap<Server, CommitCauses>();

/** The switches of one stand-in server (created, all off, on first use). */
export function commitCauses(server: Server): CommitCauses {
  let c = byServer.get(server);
  if (!c) {
    c = new CommitCauses();
    byServer.set(server, c);
  }
  return c;
}

/** Log bytes a session generated since its last governed commit, and the governor's clock per database. */
const generated = new WeakMap<Session, number>();
const governorClock = new WeakMap<Database, { lastRealMs: number; debtMs: number }>();
/** Commits waiting on a database's log writer right now (for the outstanding-write limit). */
const waiting = new WeakMap<Database, number>();

/** Called by Durability.appendLog: the session generated `bytes` of log. */
export function noteLogGenerated(session: Session | null, bytes: number): void {
  if (session) generated.set(session, (generated.get(session) ?? 0) + bytes);
}

/** Whether the log-rate cap applies here: Azure SQL Database or Managed Instance (SQL Server has no log governance). */
export function governsLogRate(server: Server): boolean {
  const c = commitCauses(server);
  return c.logRateLimitMbps !== null && c.logRateLimitMbps > 0 && server.options.product !== 'sqlserver';
}

/**
 * The log-rate governor, at a commit (delayed or not): the log the session generated since its last commit costs
 * bytes ÷ cap of simulated time; the time since the database's previous charge (simulated: real ms ÷ speedFactor) is
 * credit. The shortfall is a LOG_RATE_GOVERNOR wait (RBIO_RG_STORAGE on Hyperscale) of the session.
 */
export async function governLogRate(d: Durability, server: Server, session: Session, db: Database, signal: AbortSignal): Promise<void> {
  const bytes = generated.get(session) ?? 0;
  generated.set(session, 0);
  if (!governsLogRate(server) || bytes <= 0) return;
  const c = commitCauses(server);
  const costMs = (bytes / (c.logRateLimitMbps! * 1024 * 1024)) * 1000;
  const now = performance.now();
  const clock = governorClock.get(db) ?? { lastRealMs: now, debtMs: 0 };
  const f = server.options.speedFactor;
  const creditMs = f > 0 ? (now - clock.lastRealMs) / f : 0;
  clock.debtMs = Math.max(0, clock.debtMs - creditMs) + costMs;
  clock.lastRealMs = now;
  governorClock.set(db, clock);
  const waitMs = clock.debtMs;
  clock.debtMs = 0;
  if (waitMs <= 0) return;
  const type = c.hyperscale ? 'RBIO_RG_STORAGE' : 'LOG_RATE_GOVERNOR';
  await d.wait(session, type, Math.round(waitMs * 1000), `${db.id}:2`, signal);
}

/** Whether a fully durable commit in `db` waits for a synchronous secondary. */
export function hardensOnSecondary(server: Server, db: Database): boolean {
  const ms = commitCauses(server).agSyncCommitMs;
  return ms !== null && ms > 0 && !!db.agGroupId;
}

/** After a fully durable commit's flush: the synchronous secondary hardens the log (HADR_SYNC_COMMIT). */
export async function hardenOnSecondary(d: Durability, server: Server, session: Session, db: Database, signal: AbortSignal): Promise<void> {
  const ms = commitCauses(server).agSyncCommitMs;
  if (ms === null || ms <= 0 || !db.agGroupId) return;
  await d.wait(session, 'HADR_SYNC_COMMIT', Math.round(ms * 1000), `${db.id}:${db.agReplicaId ?? ''}`, signal);
}

/** A commit joining the group behind a flush in flight: its wait in µs under the outstanding-write limit, or null (default model). */
export function queuedFlushWaitUs(server: Server, db: Database, writeUs: number): number | null {
  const limit = commitCauses(server).logWriterOutstandingLimit;
  if (limit === null || limit <= 0) return null;
  const ahead = waiting.get(db) ?? 0;
  return Math.round(writeUs * (0.5 + Math.ceil((ahead + 1) / limit)));
}

export function enterFlushWait(db: Database): void {
  waiting.set(db, (waiting.get(db) ?? 0) + 1);
}

export function leaveFlushWait(db: Database): void {
  waiting.set(db, Math.max(0, (waiting.get(db) ?? 0) - 1));
}

/** Makes `db` an availability-group member the way DatabaseSpec.availabilityGroup does (state.ts makeDatabase). */
export function joinAvailabilityGroup(db: Database): void {
  db.agGroupId ??= '6f1d7a52-0c55-4b5e-9d1e-7a0b3c2d4e5f';
  db.agReplicaId ??= '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
}

export interface CommitCauseSwitches {
  agSyncCommitMs?: number | null;
  logRateLimitMbps?: number | null;
  hyperscale?: boolean;
  logWriterOutstandingLimit?: number | null;
  logCommitFeeBytes?: number;
}

/**
 * Applies switches to a stand-in server; `agDatabase` (default lab) joins an availability group when agSyncCommitMs is
 * set, so `npm run standin -- --ag-sync-commit-ms 5` shows HADR_SYNC_COMMIT on the default database.
 */
export function applyCommitCauses(server: Server, switches: CommitCauseSwitches, agDatabase = 'lab'): CommitCauses {
  const c = commitCauses(server);
  if (switches.agSyncCommitMs !== undefined) c.agSyncCommitMs = switches.agSyncCommitMs;
  if (switches.logRateLimitMbps !== undefined) c.logRateLimitMbps = switches.logRateLimitMbps;
  if (switches.hyperscale !== undefined) c.hyperscale = switches.hyperscale;
  if (switches.logWriterOutstandingLimit !== undefined) c.logWriterOutstandingLimit = switches.logWriterOutstandingLimit;
  if (switches.logCommitFeeBytes !== undefined) c.logCommitFeeBytes = switches.logCommitFeeBytes;
  if (c.agSyncCommitMs !== null) {
    const db = server.dbByName(agDatabase);
    if (db) joinAvailabilityGroup(db);
  }
  return c;
}
