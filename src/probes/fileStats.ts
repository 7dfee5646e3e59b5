// Per-file IO of the target database (sys.dm_io_virtual_file_stats joined to file metadata), the volume each
// file lives on, and the per-file delta between two snapshots: IO counts, bytes, stalls, averages, data vs log.
import type { SqlClient } from '../db/types';
import type { PlannedQuery } from '../db/batch';
import { EmptySourceError, measure, type Measurement } from './measurement';
import type { GrantContext, RequiredPermission } from './permissions';
import { mapFileStatsRow, mapVolumeRow, type FileKind, type FileStatsRow, type VolumeRow } from './rows';
import { delta, ratio } from './values';

/**
 * The select list of both variants below; `meta` is the alias of the file-metadata view (sys.master_files or
 * sys.database_files), which share the columns read here.
 */
function fileStatsSelect(meta: 'mf' | 'df'): string {
  return `SELECT
  vfs.file_id,
  vfs.sample_ms,
  vfs.num_of_reads,
  vfs.num_of_bytes_read,
  vfs.io_stall_read_ms,
  vfs.num_of_writes,
  vfs.num_of_bytes_written,
  vfs.io_stall_write_ms,
  vfs.io_stall,
  vfs.size_on_disk_bytes,
  ${meta}.type,
  ${meta}.type_desc,
  ${meta}.name AS logical_name,
  ${meta}.physical_name`;
}

/**
 * The target database's own files, read from the monitor connection, which sits in that database: sys.database_files
 * is visible to any user of the database ("Requires membership in the public role",
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-files-transact-sql), so a
 * least-privileged login sees its rows. Same type scheme as sys.master_files (0 ROWS, 1 LOG, 2 FILESTREAM, 4 FULLTEXT).
 * sys.dm_io_virtual_file_stats: columns and sample_ms,
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-io-virtual-file-stats-transact-sql
 */
export const FILE_STATS_CURRENT_DB_SQL = `${fileStatsSelect('df')}
FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL) AS vfs
JOIN sys.database_files AS df ON df.file_id = vfs.file_id
ORDER BY vfs.file_id;`;

/**
 * Only when the monitor connection is not in the target database. sys.master_files shows a row only to a login with
 * CREATE DATABASE, ALTER ANY DATABASE or VIEW ANY DEFINITION
 * (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-master-files-transact-sql); without
 * them this join silently returns no rows, which captureFileStats reports as not measured, with the GRANT.
 */
export const FILE_STATS_SQL = `${fileStatsSelect('mf')}
FROM sys.dm_io_virtual_file_stats(@database_id, NULL) AS vfs
JOIN sys.master_files AS mf
  ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id
ORDER BY vfs.file_id;`;

/**
 * SQL Server only; NULL mount point / file system on Linux (reference §1,
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-volume-stats-transact-sql).
 * Over sys.database_files of the current database for the same visibility reason as the file stats.
 */
export const VOLUME_CURRENT_DB_SQL = `SELECT
  df.file_id,
  v.volume_mount_point,
  v.logical_volume_name,
  v.file_system_type,
  v.total_bytes,
  v.available_bytes
FROM sys.database_files AS df
CROSS APPLY sys.dm_os_volume_stats(DB_ID(), df.file_id) AS v;`;

/** The sys.master_files variant, when the monitor connection is not in the target database. */
export const VOLUME_SQL = `SELECT
  mf.file_id,
  v.volume_mount_point,
  v.logical_volume_name,
  v.file_system_type,
  v.total_bytes,
  v.available_bytes
FROM sys.master_files AS mf
CROSS APPLY sys.dm_os_volume_stats(mf.database_id, mf.file_id) AS v
WHERE mf.database_id = @database_id;`;

/** What lets a login see other databases' rows of sys.master_files (the cheapest of the three the page names). */
export const MASTER_FILES_PERMISSION: RequiredPermission = { permission: 'VIEW ANY DEFINITION', scope: 'server' };

export { fileKind, FILE_STATS_COLUMNS, mapFileStatsRow, mapVolumeRow, VOLUME_COLUMNS, type FileKind, type FileStatsRow, type VolumeRow } from './rows';

/**
 * Every database has at least a data and a log file, so no rows is never "no IO": it is a visibility filter
 * (sys.master_files for a login without VIEW ANY DEFINITION) and is thrown as not measured, with the GRANT.
 */
/** The query captureFileStats asks (for composing it into one round trip with others, db/batch.ts). */
export function fileStatsQuery(databaseId: number, monitorInTargetDb: boolean): PlannedQuery {
  return monitorInTargetDb ? { sql: FILE_STATS_CURRENT_DB_SQL } : { sql: FILE_STATS_SQL, parameters: [{ name: 'database_id', type: 'int', value: databaseId }] };
}

/** The query captureVolumes asks. */
export function volumesQuery(databaseId: number, monitorInTargetDb: boolean): PlannedQuery {
  return monitorInTargetDb ? { sql: VOLUME_CURRENT_DB_SQL } : { sql: VOLUME_SQL, parameters: [{ name: 'database_id', type: 'int', value: databaseId }] };
}

/** Per-file IO as a measurement: no rows, a denial or an error is "not measured" with why and the GRANT. */
export async function captureFileStats(monitor: SqlClient, databaseId: number, monitorInTargetDb: boolean, ctx: GrantContext): Promise<Measurement<FileStatsRow[]>> {
  return measure('fileStats', ctx, () => readFileStats(monitor, databaseId, monitorInTargetDb));
}

async function readFileStats(monitor: SqlClient, databaseId: number, monitorInTargetDb: boolean): Promise<FileStatsRow[]> {
  const query = fileStatsQuery(databaseId, monitorInTargetDb);
  if (monitorInTargetDb) {
    const rows = (await monitor.query(query.sql)).map(mapFileStatsRow);
    if (rows.length === 0) throw new EmptySourceError('sys.dm_io_virtual_file_stats joined to sys.database_files returned no files for the database.', null);
    return rows;
  }
  const rows = (await monitor.query(query.sql, query.parameters)).map(mapFileStatsRow);
  if (rows.length === 0) {
    throw new EmptySourceError(
      'sys.master_files shows this login no files of the database (its rows need CREATE DATABASE, ALTER ANY DATABASE or VIEW ANY DEFINITION), and the monitor connection is not in the database, so sys.database_files cannot be used.',
      MASTER_FILES_PERMISSION,
    );
  }
  return rows;
}

export async function captureVolumes(monitor: SqlClient, databaseId: number, monitorInTargetDb: boolean, ctx: GrantContext): Promise<Measurement<VolumeRow[]>> {
  return measure('volumes', ctx, () => readVolumes(monitor, databaseId, monitorInTargetDb));
}

async function readVolumes(monitor: SqlClient, databaseId: number, monitorInTargetDb: boolean): Promise<VolumeRow[]> {
  const query = volumesQuery(databaseId, monitorInTargetDb);
  const rows = query.parameters ? await monitor.query(query.sql, query.parameters) : await monitor.query(query.sql);
  if (rows.length === 0) {
    throw new EmptySourceError(
      monitorInTargetDb ? 'sys.dm_os_volume_stats returned no volumes for the database files.' : 'sys.master_files shows this login no files of the database (its rows need CREATE DATABASE, ALTER ANY DATABASE or VIEW ANY DEFINITION).',
      monitorInTargetDb ? null : MASTER_FILES_PERMISSION,
    );
  }
  return rows.map(mapVolumeRow);
}

// ---- Diff ----

export interface FileIoDelta {
  fileId: number;
  kind: FileKind;
  logicalName: string;
  physicalName: string;
  /** sample_ms delta; null when it went backwards (int wrap on 2014 and earlier, reference §1). */
  intervalMs: number | null;
  reads: number;
  bytesRead: number;
  readStallMs: number;
  writes: number;
  bytesWritten: number;
  writeStallMs: number;
  ioStallMs: number;
  /** null when there were no writes (no division by zero). */
  avgBytesPerWrite: number | null;
  msPerWrite: number | null;
  avgBytesPerRead: number | null;
  msPerRead: number | null;
}

export interface FileIoTotals {
  kind: FileKind;
  files: number;
  reads: number;
  bytesRead: number;
  writes: number;
  bytesWritten: number;
  writeStallMs: number;
  readStallMs: number;
  avgBytesPerWrite: number | null;
  msPerWrite: number | null;
}

export interface FileStatsDiff {
  files: FileIoDelta[];
  totals: FileIoTotals[];
  /** Files present in only one snapshot (added or dropped during the run). */
  unmatchedFileIds: number[];
}

export function diffFileStats(before: readonly FileStatsRow[], after: readonly FileStatsRow[]): FileStatsDiff {
  const beforeById = new Map(before.map((f) => [f.fileId, f]));
  const afterIds = new Set(after.map((f) => f.fileId));
  const unmatchedFileIds = [...before.filter((f) => !afterIds.has(f.fileId)).map((f) => f.fileId), ...after.filter((f) => !beforeById.has(f.fileId)).map((f) => f.fileId)];
  const files: FileIoDelta[] = [];
  for (const a of after) {
    const b = beforeById.get(a.fileId);
    if (!b) continue;
    const interval = delta(b.sampleMs, a.sampleMs);
    const d = {
      reads: delta(b.reads, a.reads),
      bytesRead: delta(b.bytesRead, a.bytesRead),
      readStallMs: delta(b.readStallMs, a.readStallMs),
      writes: delta(b.writes, a.writes),
      bytesWritten: delta(b.bytesWritten, a.bytesWritten),
      writeStallMs: delta(b.writeStallMs, a.writeStallMs),
      ioStallMs: delta(b.ioStallMs, a.ioStallMs),
    };
    files.push({
      fileId: a.fileId,
      kind: a.kind,
      logicalName: a.logicalName,
      physicalName: a.physicalName,
      intervalMs: interval >= 0 ? interval : null,
      ...d,
      avgBytesPerWrite: ratio(d.bytesWritten, d.writes),
      msPerWrite: ratio(d.writeStallMs, d.writes),
      avgBytesPerRead: ratio(d.bytesRead, d.reads),
      msPerRead: ratio(d.readStallMs, d.reads),
    });
  }
  const totals: FileIoTotals[] = [];
  for (const kind of ['data', 'log', 'filestream', 'other'] as FileKind[]) {
    const ofKind = files.filter((f) => f.kind === kind);
    if (ofKind.length === 0) continue;
    const sum = (k: 'reads' | 'bytesRead' | 'writes' | 'bytesWritten' | 'writeStallMs' | 'readStallMs') => ofKind.reduce((s, f) => s + f[k], 0);
    const writes = sum('writes');
    totals.push({
      kind,
      files: ofKind.length,
      reads: sum('reads'),
      bytesRead: sum('bytesRead'),
      writes,
      bytesWritten: sum('bytesWritten'),
      writeStallMs: sum('writeStallMs'),
      readStallMs: sum('readStallMs'),
      avgBytesPerWrite: ratio(sum('bytesWritten'), writes),
      msPerWrite: ratio(sum('writeStallMs'), writes),
    });
  }
  return { files, totals, unmatchedFileIds };
}
