// The rows the probes read from dynamic management views and catalog views: each row type, and the table that says
// which result column each field comes from and how its value is converted (columns.ts). The SQL texts stay with their
// probes (fileStats.ts, waitStats.ts, perfCounters.ts, queryStoreSql.ts), which re-export these; a test holds every
// table to its SQL text (test/unit/probes/columns.test.ts). Kept in one file so that the shape of everything read from
// the server can be checked against Learn in one place, and so that adding a column is one edit here and one in the SQL.
import { counter, counterOrZero, num, text } from './values';
import { intOrZero, rowMapper, textOrEmpty, type ColumnTable } from './columns';

// ── sys.dm_io_virtual_file_stats joined to sys.database_files / sys.master_files; sys.dm_os_volume_stats ──
// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-io-virtual-file-stats-transact-sql
// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-volume-stats-transact-sql

export type FileKind = 'data' | 'log' | 'filestream' | 'other';

export interface FileStatsRow {
  fileId: number;
  kind: FileKind;
  typeDesc: string;
  logicalName: string;
  physicalName: string;
  /** Cumulative counters as exact decimal strings. */
  sampleMs: string;
  reads: string;
  bytesRead: string;
  readStallMs: string;
  writes: string;
  bytesWritten: string;
  writeStallMs: string;
  ioStallMs: string;
  sizeOnDiskBytes: string | null;
}

export interface VolumeRow {
  fileId: number;
  mountPoint: string | null;
  logicalVolumeName: string | null;
  fileSystemType: string | null;
  totalBytes: string | null;
  availableBytes: string | null;
}

export function fileKind(type: number | null): FileKind {
  switch (type) {
    case 0:
      return 'data';
    case 1:
      return 'log';
    case 2:
      return 'filestream';
    default:
      return 'other';
  }
}

/** The columns of FILE_STATS_SQL / FILE_STATS_CURRENT_DB_SQL (fileStats.ts). */
export const FILE_STATS_COLUMNS: ColumnTable<FileStatsRow> = {
  fileId: ['file_id', intOrZero],
  kind: ['type', (value) => fileKind(num(value))],
  typeDesc: ['type_desc', textOrEmpty],
  logicalName: ['logical_name', textOrEmpty],
  physicalName: ['physical_name', textOrEmpty],
  sampleMs: ['sample_ms', counterOrZero],
  reads: ['num_of_reads', counterOrZero],
  bytesRead: ['num_of_bytes_read', counterOrZero],
  readStallMs: ['io_stall_read_ms', counterOrZero],
  writes: ['num_of_writes', counterOrZero],
  bytesWritten: ['num_of_bytes_written', counterOrZero],
  writeStallMs: ['io_stall_write_ms', counterOrZero],
  ioStallMs: ['io_stall', counterOrZero],
  sizeOnDiskBytes: ['size_on_disk_bytes', counter],
};
export const mapFileStatsRow = rowMapper(FILE_STATS_COLUMNS);

/** The columns of VOLUME_SQL / VOLUME_CURRENT_DB_SQL (fileStats.ts). */
export const VOLUME_COLUMNS: ColumnTable<VolumeRow> = {
  fileId: ['file_id', intOrZero],
  mountPoint: ['volume_mount_point', text],
  logicalVolumeName: ['logical_volume_name', text],
  fileSystemType: ['file_system_type', text],
  totalBytes: ['total_bytes', counter],
  availableBytes: ['available_bytes', counter],
};
export const mapVolumeRow = rowMapper(VOLUME_COLUMNS);

// ── sys.dm_os_wait_stats and sys.dm_exec_session_wait_stats (same columns); sys.dm_exec_requests with sys.dm_os_waiting_tasks ──
// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-wait-stats-transact-sql
// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-requests-transact-sql

export interface WaitRow {
  waitType: string;
  /** Cumulative, exact decimal strings. */
  waitingTasks: string;
  waitTimeMs: string;
  maxWaitTimeMs: string;
  signalWaitTimeMs: string;
}

export interface InFlightWait {
  sessionId: number;
  status: string | null;
  command: string | null;
  waitType: string | null;
  waitTimeMs: number | null;
  lastWaitType: string | null;
  blockingSessionId: number | null;
  taskWaitType: string | null;
  taskWaitDurationMs: number | null;
  resourceDescription: string | null;
}

/** The columns of SERVER_WAITS_SQL / SESSION_WAITS_SQL (waitStats.ts). */
export const WAIT_COLUMNS: ColumnTable<WaitRow> = {
  waitType: ['wait_type', textOrEmpty],
  waitingTasks: ['waiting_tasks_count', counterOrZero],
  waitTimeMs: ['wait_time_ms', counterOrZero],
  maxWaitTimeMs: ['max_wait_time_ms', counterOrZero],
  signalWaitTimeMs: ['signal_wait_time_ms', counterOrZero],
};
export const mapWaitRow = rowMapper(WAIT_COLUMNS);

/** The columns of IN_FLIGHT_WAITS_SQL (waitStats.ts). */
export const IN_FLIGHT_WAIT_COLUMNS: ColumnTable<InFlightWait> = {
  sessionId: ['session_id', intOrZero],
  status: ['status', text],
  command: ['command', text],
  waitType: ['wait_type', text],
  waitTimeMs: ['wait_time_ms', num],
  lastWaitType: ['last_wait_type', text],
  blockingSessionId: ['blocking_session_id', num],
  taskWaitType: ['task_wait_type', text],
  taskWaitDurationMs: ['task_wait_duration_ms', num],
  resourceDescription: ['resource_description', text],
};
export const mapInFlightWait = rowMapper(IN_FLIGHT_WAIT_COLUMNS);

// ── sys.dm_os_performance_counters ──
// https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-performance-counters-transact-sql

export interface CounterRow {
  objectName: string;
  counterName: string;
  instanceName: string;
  value: string;
  type: number;
}

/** The columns of LOG_COUNTERS_SQL (perfCounters.ts). */
export const COUNTER_COLUMNS: ColumnTable<CounterRow> = {
  objectName: ['object_name', textOrEmpty],
  counterName: ['counter_name', textOrEmpty],
  instanceName: ['instance_name', textOrEmpty],
  value: ['cntr_value', counterOrZero],
  type: ['cntr_type', intOrZero],
};
export const mapCounterRow = rowMapper(COUNTER_COLUMNS);

// ── sys.database_query_store_options ──
// https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql

export interface QueryStoreOptionsRow {
  /** OFF, READ_ONLY, READ_WRITE (desired: what was set). */
  desiredState: string;
  /** What Query Store does now: OFF, READ_ONLY, READ_WRITE, ERROR (or READ_CAPTURE_SECONDARY). */
  actualState: string;
  /** Bit map of why it is read-only although READ_WRITE was asked (null when not reported). */
  readonlyReason: number | null;
  currentStorageSizeMb: number | null;
  maxStorageSizeMb: number | null;
  intervalLengthMinutes: number | null;
  flushIntervalSeconds: number | null;
  staleQueryThresholdDays: number | null;
  queryCaptureMode: string | null;
  /** ON / OFF; null on SQL Server 2016, which has no such option. */
  waitStatsCaptureMode: string | null;
}

/** A state as sys.database_query_store_options spells it; 'UNKNOWN' when NULL. */
const stateDesc = (value: unknown): string => text(value) ?? 'UNKNOWN';

/** The columns of queryStoreOptionsSql() (queryStoreSql.ts). */
export const QUERY_STORE_OPTIONS_COLUMNS: ColumnTable<QueryStoreOptionsRow> = {
  desiredState: ['desired_state_desc', stateDesc],
  actualState: ['actual_state_desc', stateDesc],
  readonlyReason: ['readonly_reason', num],
  currentStorageSizeMb: ['current_storage_size_mb', num],
  maxStorageSizeMb: ['max_storage_size_mb', num],
  intervalLengthMinutes: ['interval_length_minutes', num],
  flushIntervalSeconds: ['flush_interval_seconds', num],
  staleQueryThresholdDays: ['stale_query_threshold_days', num],
  queryCaptureMode: ['query_capture_mode_desc', text],
  waitStatsCaptureMode: ['wait_stats_capture_mode_desc', text],
};
export const mapQueryStoreOptions = rowMapper(QUERY_STORE_OPTIONS_COLUMNS);
