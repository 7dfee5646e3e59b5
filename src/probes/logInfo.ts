// The target database's transaction log before/after: log statistics, space used and VLF count.
import type { SqlClient } from '../db/types';
import { isMissingObjectError, isPermissionError, sqlErrorsOf } from '../db/errors';
import { measure, NoDocumentedGrantError, type Measurement } from './measurement';
import type { GrantContext } from './permissions';
import { counter, delta, num, text } from './values';

/** 2016 SP2+, Azure SQL DB, MI (reference §3.2, sys-dm-db-log-stats-transact-sql). */
export const LOG_STATS_SQL = `SELECT
  recovery_model,
  total_vlf_count,
  active_vlf_count,
  total_log_size_mb,
  active_log_size_mb,
  log_truncation_holdup_reason,
  log_since_last_checkpoint_mb,
  log_since_last_log_backup_mb
FROM sys.dm_db_log_stats(@database_id);`;

/** Current database only (reference §3.3, sys-dm-db-log-space-usage-transact-sql). */
export const LOG_SPACE_SQL = `SELECT
  database_id,
  total_log_size_in_bytes,
  used_log_space_in_bytes,
  used_log_space_in_percent
FROM sys.dm_db_log_space_usage;`;

/** One row per VLF; 2016 SP2+ (reference §3.4, sys-dm-db-log-info-transact-sql). */
export const VLF_SQL = `SELECT
  COUNT(*) AS vlf_count,
  SUM(CASE WHEN vlf_active = 1 THEN 1 ELSE 0 END) AS active_vlf_count
FROM sys.dm_db_log_info(@database_id);`;

/**
 * What dm_db_log_info replaced (reference §3.4); current database only, one row per VLF, Status 2 = active. DBCC
 * LOGINFO has no Learn page ("The sys.dm_db_log_info dynamic management function replaces the DBCC LOGINFO
 * statement", sys-dm-db-log-info-transact-sql), so the permission it needs is not documented either.
 */
export const VLF_FALLBACK_SQL = `DBCC LOGINFO WITH NO_INFOMSGS;`;

export interface LogStats {
  recoveryModel: string | null;
  totalVlfCount: number | null;
  activeVlfCount: number | null;
  totalLogSizeMb: number | null;
  activeLogSizeMb: number | null;
  truncationHoldupReason: string | null;
  sinceLastCheckpointMb: number | null;
  sinceLastLogBackupMb: number | null;
}

export interface LogSpace {
  totalBytes: string | null;
  usedBytes: string | null;
  usedPercent: number | null;
}

export interface VlfCount {
  count: number;
  active: number | null;
  source: 'sys.dm_db_log_info' | 'DBCC LOGINFO';
}

export function mapLogStats(r: Record<string, unknown> | undefined): LogStats {
  return {
    recoveryModel: text(r?.recovery_model),
    totalVlfCount: num(r?.total_vlf_count),
    activeVlfCount: num(r?.active_vlf_count),
    totalLogSizeMb: num(r?.total_log_size_mb),
    activeLogSizeMb: num(r?.active_log_size_mb),
    truncationHoldupReason: text(r?.log_truncation_holdup_reason),
    sinceLastCheckpointMb: num(r?.log_since_last_checkpoint_mb),
    sinceLastLogBackupMb: num(r?.log_since_last_log_backup_mb),
  };
}

export function mapLogSpace(r: Record<string, unknown> | undefined): LogSpace {
  return { totalBytes: counter(r?.total_log_size_in_bytes), usedBytes: counter(r?.used_log_space_in_bytes), usedPercent: num(r?.used_log_space_in_percent) };
}

/** DBCC LOGINFO rows: one per VLF; Status 2 means active. */
export function vlfsFromLogInfo(rows: readonly Record<string, unknown>[]): VlfCount {
  return { count: rows.length, active: rows.filter((r) => num(r.Status) === 2).length, source: 'DBCC LOGINFO' };
}

export async function captureLogStats(monitor: SqlClient, databaseId: number, ctx: GrantContext): Promise<Measurement<LogStats>> {
  return measure('logStats', ctx, async () => mapLogStats((await monitor.query(LOG_STATS_SQL, [{ name: 'database_id', type: 'int', value: databaseId }]))[0]));
}

export async function captureLogSpace(monitor: SqlClient, ctx: GrantContext): Promise<Measurement<LogSpace>> {
  return measure('logSpace', ctx, async () => mapLogSpace((await monitor.query(LOG_SPACE_SQL))[0]));
}

/** The text of a refused DBCC LOGINFO: no documented permission, so no GRANT is offered (issue 33 D10). */
export const LOGINFO_REFUSED =
  'sys.dm_db_log_info does not exist on this server (before SQL Server 2016 SP2) and the fallback DBCC LOGINFO was refused. DBCC LOGINFO is undocumented, and so is the permission it needs: no GRANT can be named. The VLF count is available from SQL Server 2016 SP2 (sys.dm_db_log_info, sys.dm_db_log_stats).';

async function readVlfCount(monitor: SqlClient, databaseId: number, monitorInTargetDb: boolean): Promise<VlfCount> {
  try {
    const r = (await monitor.query(VLF_SQL, [{ name: 'database_id', type: 'int', value: databaseId }]))[0];
    return { count: num(r?.vlf_count) ?? 0, active: num(r?.active_vlf_count), source: 'sys.dm_db_log_info' };
  } catch (err) {
    // Before 2016 SP2 the function does not exist; DBCC LOGINFO only describes the current database.
    if (!monitorInTargetDb || !isMissingObjectError(err)) throw err;
    try {
      return vlfsFromLogInfo(await monitor.query(VLF_FALLBACK_SQL));
    } catch (fallback) {
      if (isPermissionError(fallback) || isDbccRefusal(fallback)) throw new NoDocumentedGrantError(LOGINFO_REFUSED);
      throw fallback;
    }
  }
}

/**
 * 2571 "User '…' does not have permission to run DBCC …" (the message as sys.messages holds it; no Learn page lists
 * DBCC LOGINFO's permission — NOT CONFIRMED beyond the message text).
 */
function isDbccRefusal(err: unknown): boolean {
  return sqlErrorsOf(err).some((e) => e.number === 2571 || /does not have permission to run DBCC/i.test(e.message));
}

export async function captureVlfCount(monitor: SqlClient, databaseId: number, monitorInTargetDb: boolean, ctx: GrantContext): Promise<Measurement<VlfCount>> {
  return measure('vlfs', ctx, () => readVlfCount(monitor, databaseId, monitorInTargetDb));
}

export interface LogDiff {
  vlfCount: { before: number; after: number } | null;
  logSizeMb: { before: number; after: number } | null;
  usedBytes: { before: number; after: number; delta: number } | null;
  usedPercent: { before: number; after: number } | null;
}

export function diffLog(
  before: { stats: LogStats | null; space: LogSpace | null; vlfs: VlfCount | null },
  after: { stats: LogStats | null; space: LogSpace | null; vlfs: VlfCount | null },
): LogDiff {
  const vlfBefore = before.vlfs?.count ?? before.stats?.totalVlfCount ?? null;
  const vlfAfter = after.vlfs?.count ?? after.stats?.totalVlfCount ?? null;
  const sizeBefore = before.stats?.totalLogSizeMb ?? null;
  const sizeAfter = after.stats?.totalLogSizeMb ?? null;
  const usedBefore = before.space?.usedBytes ?? null;
  const usedAfter = after.space?.usedBytes ?? null;
  const pctBefore = before.space?.usedPercent ?? null;
  const pctAfter = after.space?.usedPercent ?? null;
  return {
    vlfCount: vlfBefore !== null && vlfAfter !== null ? { before: vlfBefore, after: vlfAfter } : null,
    logSizeMb: sizeBefore !== null && sizeAfter !== null ? { before: sizeBefore, after: sizeAfter } : null,
    usedBytes:
      usedBefore !== null && usedAfter !== null
        ? { before: Number(usedBefore), after: Number(usedAfter), delta: delta(usedBefore, usedAfter) }
        : null,
    usedPercent: pctBefore !== null && pctAfter !== null ? { before: pctBefore, after: pctAfter } : null,
  };
}
