// Performance DMVs: file IO, volumes, waits (server, session, in flight), requests, sessions, connections,
// perf counters, log stats/space/VLFs, sys/host info, transactions. Columns follow the Learn pages (reference §1–§3, §6).
import { dbArg, padNchar, register, requireServerState, type VRow } from './catalog';
import { consistencyFaults } from './consistencyFaults';
import type { BatchContext } from './eval';
import type { Database, Session, WaitStat } from './state';

/** Wait types always listed (zero until used), so probes see the durability-relevant rows on a fresh server. */
export const KNOWN_WAITS = ['WRITELOG', 'LOGBUFFER', 'PAGEIOLATCH_SH', 'PAGEIOLATCH_EX', 'PAGEIOLATCH_UP', 'IO_COMPLETION', 'WAITFOR', 'LCK_M_X', 'LOGMGR_QUEUE', 'HADR_SYNC_COMMIT', 'PREEMPTIVE_OS_FLUSHFILEBUFFERS', 'SOS_SCHEDULER_YIELD'];

const waitCols = 'wait_type nvarchar(60), waiting_tasks_count bigint, wait_time_ms bigint, max_wait_time_ms bigint, signal_wait_time_ms bigint';
const waitRow = (type: string, w: WaitStat | undefined): VRow => ({
  wait_type: type,
  waiting_tasks_count: BigInt(w?.count ?? 0),
  wait_time_ms: BigInt(Math.floor((w?.timeUs ?? 0) / 1000)),
  max_wait_time_ms: BigInt(Math.floor((w?.maxUs ?? 0) / 1000)),
  signal_wait_time_ms: BigInt(Math.floor((w?.signalUs ?? 0) / 1000)),
});

function visibleSessions(b: BatchContext): Session[] {
  const all = [...b.server.sessions.values()].filter((s) => s.alive);
  return b.server.hasServerPermission(b.session.login, b.server.serverStatePermission()) ? all : all.filter((s) => s.spid === b.session.spid);
}

export function registerDmvTables(): void {
  register({
    name: 'sys.dm_io_virtual_file_stats',
    argCount: 2,
    check: requireServerState,
    columns: 'database_id smallint, file_id smallint, sample_ms bigint, num_of_reads bigint, num_of_bytes_read bigint, io_stall_read_ms bigint, ' +
      'num_of_writes bigint, num_of_bytes_written bigint, io_stall_write_ms bigint, io_stall bigint, size_on_disk_bytes bigint, file_handle nvarchar(18), ' +
      'io_stall_queued_read_ms bigint, io_stall_queued_write_ms bigint',
    rows: (b, [dbId, fileId]) => {
      const dbs = dbId === null ? [...b.server.databases.values()] : [b.server.databases.get(Number(dbId))].filter((d): d is Database => !!d);
      const sample = BigInt(b.server.uptimeMs());
      return dbs.flatMap((d) => d.files.filter((f) => fileId === null || f.fileId === Number(fileId)).map((f) => ({
        database_id: d.id, file_id: f.fileId, sample_ms: sample,
        num_of_reads: BigInt(f.io.reads), num_of_bytes_read: BigInt(f.io.bytesRead), io_stall_read_ms: BigInt(Math.floor(f.io.stallReadUs / 1000)),
        num_of_writes: BigInt(f.io.writes), num_of_bytes_written: BigInt(f.io.bytesWritten), io_stall_write_ms: BigInt(Math.floor(f.io.stallWriteUs / 1000)),
        io_stall: BigInt(Math.floor((f.io.stallReadUs + f.io.stallWriteUs) / 1000)), size_on_disk_bytes: BigInt(f.sizePages * 8192),
        file_handle: '0x' + (0x1000 + d.id * 16 + f.fileId).toString(16).padStart(16, '0'), io_stall_queued_read_ms: 0n, io_stall_queued_write_ms: 0n,
      })));
    },
  });
  register({
    name: 'sys.dm_os_volume_stats',
    argCount: 2,
    check: requireServerState,
    columns: 'database_id int, file_id int, volume_mount_point nvarchar(512), volume_id nvarchar(512), logical_volume_name nvarchar(512), file_system_type nvarchar(512), ' +
      'total_bytes bigint, available_bytes bigint, supports_compression tinyint, supports_alternate_streams tinyint, supports_sparse_files tinyint, ' +
      'is_read_only tinyint, is_compressed tinyint, incurs_seek_penalty tinyint',
    rows: (b, [dbId, fileId]) => {
      const d = b.server.databases.get(Number(dbId));
      const f = d?.files.find((x) => x.fileId === Number(fileId));
      if (!d || !f) return [];
      const linux = b.server.options.platform === 'Linux';
      // On Linux the volume names and file system type are NULL (reference §1).
      return [{
        // Each extra data file has its own volume (state.ts makeFiles): E:\, F:\, ... on Windows.
        database_id: d.id, file_id: f.fileId, volume_mount_point: linux ? null : f.volume ? `${String.fromCharCode(68 + f.volume)}:\\` : 'C:\\',
        volume_id: linux ? null : `\\\\?\\Volume{standin-${f.volume}}\\`,
        logical_volume_name: linux ? null : f.volume ? `DATA${f.volume}` : 'OS', file_system_type: linux ? null : 'NTFS', total_bytes: 512n * 1024n ** 3n, available_bytes: 300n * 1024n ** 3n,
        supports_compression: linux ? null : 1, supports_alternate_streams: linux ? null : 1, supports_sparse_files: 1, is_read_only: 0, is_compressed: 0,
        incurs_seek_penalty: linux ? null : b.server.options.logWriteLatencyMs >= 2 ? 1 : 0,
      }];
    },
  });
  register({
    name: 'sys.dm_os_wait_stats', check: requireServerState, columns: waitCols,
    rows: (b) => {
      const types = new Set([...KNOWN_WAITS, ...b.server.waits.keys()]);
      return [...types].map((t) => waitRow(t, b.server.waits.get(t)));
    },
  });
  register({
    name: 'sys.dm_db_wait_stats', check: requireServerState, columns: waitCols,
    rows: (b) => [...b.server.waits.entries()].map(([t, w]) => waitRow(t, w)),
  });
  // Without the permission a session sees only its own rows (reference §2.2).
  register({
    name: 'sys.dm_exec_session_wait_stats', columns: 'session_id smallint, ' + waitCols,
    rows: (b) => {
      const faults = consistencyFaults(b.server); // test switch: withheld rows (consistencyFaults.ts)
      return visibleSessions(b).flatMap((s) => [...s.waits.entries()].filter(([t]) => !faults.withholds(t)).map(([t, w]) => ({ session_id: s.spid, ...waitRow(t, w) })));
    },
  });
  register({
    name: 'sys.dm_os_waiting_tasks', check: requireServerState,
    columns: 'waiting_task_address nvarchar(18), session_id smallint, exec_context_id int, wait_duration_ms bigint, wait_type nvarchar(60), resource_address nvarchar(18), ' +
      'blocking_task_address nvarchar(18), blocking_session_id smallint, blocking_exec_context_id int, resource_description nvarchar(3072)',
    rows: (b) => [...b.server.sessions.values()].filter((s) => s.alive && s.currentWait).map((s) => ({
      waiting_task_address: '0x' + (0x5000 + s.spid).toString(16).padStart(16, '0'), session_id: s.spid, exec_context_id: 0,
      wait_duration_ms: BigInt(Math.floor(simulatedElapsed(b, s.currentWait!.startedAt))), wait_type: s.currentWait!.type, resource_address: null,
      blocking_task_address: null, blocking_session_id: null, blocking_exec_context_id: null, resource_description: s.currentWait!.resource,
    })),
  });
  register({
    name: 'sys.dm_exec_requests',
    columns: 'session_id smallint, request_id int, start_time datetime, status nvarchar(30), command nvarchar(32), database_id smallint, user_id int, ' +
      'blocking_session_id smallint, wait_type nvarchar(60), wait_time int, last_wait_type nvarchar(60), wait_resource nvarchar(256), open_transaction_count int, ' +
      'transaction_id bigint, cpu_time int, total_elapsed_time int, reads bigint, writes bigint, logical_reads bigint, row_count bigint',
    rows: (b) => visibleSessions(b).filter((s) => s.request).map((s) => ({
      session_id: s.spid, request_id: 0, start_time: s.request!.start, status: s.currentWait ? 'suspended' : s.spid === b.session.spid ? 'running' : 'runnable',
      command: s.request!.command, database_id: s.db.id, user_id: 1, blocking_session_id: 0, wait_type: s.currentWait?.type ?? null,
      wait_time: s.currentWait ? Math.floor(simulatedElapsed(b, s.currentWait.startedAt)) : 0, last_wait_type: s.currentWait?.type ?? 'MISCELLANEOUS',
      wait_resource: s.currentWait?.resource ?? '', open_transaction_count: s.trancount, transaction_id: BigInt(s.tran?.id ?? 0), cpu_time: 0,
      total_elapsed_time: Date.now() - s.request!.start.getTime(), reads: 0n, writes: 0n, logical_reads: 0n, row_count: 0n,
    })),
  });
  register({
    name: 'sys.dm_exec_sessions',
    columns: 'session_id smallint, login_time datetime, host_name nvarchar(128), program_name nvarchar(128), host_process_id int, client_interface_name nvarchar(32), ' +
      'login_name nvarchar(128), status nvarchar(30), cpu_time int, memory_usage int, total_elapsed_time int, last_request_start_time datetime, ' +
      'last_request_end_time datetime, reads bigint, writes bigint, logical_reads bigint, is_user_process bit, transaction_isolation_level smallint, ' +
      'lock_timeout int, deadlock_priority int, row_count bigint, database_id smallint, open_transaction_count int',
    rows: (b) => visibleSessions(b).map((s) => ({
      session_id: s.spid, login_time: b.server.localTime(s.loginTime), host_name: s.hostName, program_name: s.appName, host_process_id: s.clientPid,
      client_interface_name: 'ODBC', login_name: s.login.name, status: s.request ? 'running' : 'sleeping', cpu_time: Math.floor(s.cpuUs / 1000), memory_usage: 2,
      total_elapsed_time: 0, last_request_start_time: s.lastRequestStart, last_request_end_time: s.lastRequestEnd, reads: 0n, writes: 0n,
      logical_reads: 0n, is_user_process: true, transaction_isolation_level: 2, lock_timeout: s.lockTimeout,
      deadlock_priority: s.deadlockPriority === 'LOW' ? -5 : s.deadlockPriority === 'HIGH' ? 5 : 0, row_count: 0n, database_id: s.db.id, open_transaction_count: s.trancount,
    })),
  });
  register({
    name: 'sys.dm_exec_connections', check: requireServerState,
    columns: 'session_id int, most_recent_session_id int, connect_time datetime, net_transport nvarchar(40), protocol_type nvarchar(40), protocol_version int, ' +
      'encrypt_option nvarchar(40), auth_scheme nvarchar(40), num_reads int, num_writes int, last_read datetime, last_write datetime, net_packet_size int, ' +
      'client_net_address varchar(48), client_tcp_port int, local_net_address varchar(48), local_tcp_port int, connection_id uniqueidentifier',
    rows: (b) => [...b.server.sessions.values()].filter((s) => s.alive).map((s) => ({
      session_id: s.spid, most_recent_session_id: s.spid, connect_time: b.server.localTime(s.loginTime), net_transport: 'TCP', protocol_type: 'TSQL', protocol_version: 1946157060,
      encrypt_option: s.encrypted ? 'TRUE' : 'FALSE', auth_scheme: 'SQL', num_reads: s.requestCount, num_writes: s.requestCount, last_read: s.lastRequestStart,
      last_write: s.lastRequestEnd, net_packet_size: 4096, client_net_address: '127.0.0.1', client_tcp_port: 50000 + s.spid, local_net_address: '127.0.0.1',
      local_tcp_port: 1433, connection_id: `00000000-0000-4000-8000-${s.spid.toString(16).padStart(12, '0')}`,
    })),
  });
  register({
    name: 'sys.dm_os_performance_counters', check: requireServerState,
    columns: 'object_name nchar(128), counter_name nchar(128), instance_name nchar(128), cntr_value bigint, cntr_type int',
    rows: (b) => perfCounterRows(b),
  });
  register({
    name: 'sys.dm_db_log_stats', argCount: 1, check: requireServerState,
    columns: 'database_id int, recovery_model nvarchar(60), log_min_lsn nvarchar(24), log_end_lsn nvarchar(24), current_vlf_sequence_number bigint, ' +
      'current_vlf_size_mb float, total_vlf_count bigint, total_log_size_mb float, active_vlf_count bigint, active_log_size_mb float, ' +
      'log_truncation_holdup_reason nvarchar(60), log_backup_time datetime, log_backup_lsn nvarchar(24), log_since_last_log_backup_mb float, ' +
      'log_checkpoint_lsn nvarchar(24), log_since_last_checkpoint_mb float, log_recovery_lsn nvarchar(24), log_recovery_size_mb float, recovery_vlf_count bigint',
    rows: (b, [id]) => {
      const d = dbArg(b, id);
      if (!d) return [];
      const v = vlfView(d);
      const cur = v.filter((x) => x.status === 2).at(-1) ?? v[0]!;
      // MB cut to six decimals, as a real row shows them (1.992187 for 2,088,960 bytes, 0.128906 for 135,168 — not
      // rounded; one sample, test/fixtures/real-server/dmv/beats-transaction-log-master.json).
      const mb = (n: number) => Math.floor((n / (1024 * 1024)) * 1e6) / 1e6;
      return [{
        database_id: d.id, recovery_model: d.recoveryModel, log_min_lsn: lsn(0), log_end_lsn: lsn(d.log.endLsn),
        current_vlf_sequence_number: BigInt(cur.sequence), current_vlf_size_mb: mb(cur.sizeBytes), total_vlf_count: BigInt(v.length),
        total_log_size_mb: mb(reportedLogBytes(d)), active_vlf_count: BigInt(v.filter((x) => x.status === 2).length),
        active_log_size_mb: mb(d.log.usedBytes), log_truncation_holdup_reason: d.recoveryModel === 'FULL' && !d.system ? 'LOG_BACKUP' : 'NOTHING',
        // No log backup is modelled: a real log never backed up shows 1900-01-01 and NULL here (beats sample, MODEL.md).
        log_backup_time: new Date(Date.UTC(1900, 0, 1)), log_backup_lsn: lsn(0), log_since_last_log_backup_mb: null, log_checkpoint_lsn: lsn(d.log.checkpointLsn),
        log_since_last_checkpoint_mb: mb(d.log.sinceCheckpointBytes), log_recovery_lsn: lsn(d.log.checkpointLsn), log_recovery_size_mb: mb(d.log.sinceCheckpointBytes),
        recovery_vlf_count: 1n,
      }];
    },
  });
  register({
    name: 'sys.dm_db_log_space_usage', check: requireServerState,
    columns: 'database_id smallint, total_log_size_in_bytes bigint, used_log_space_in_bytes bigint, used_log_space_in_percent real, log_space_in_bytes_since_last_backup bigint',
    rows: (b) => {
      const d = b.session.db;
      const total = reportedLogBytes(d);
      return [{ database_id: d.id, total_log_size_in_bytes: BigInt(total), used_log_space_in_bytes: BigInt(d.log.usedBytes), used_log_space_in_percent: (100 * d.log.usedBytes) / total, log_space_in_bytes_since_last_backup: BigInt(d.log.sinceBackupBytes) }];
    },
  });
  register({
    name: 'sys.dm_db_log_info', argCount: 1,
    // 2022+: VIEW DATABASE PERFORMANCE STATE (or the server permission). Up to 2019 the server permission only: the
    // current Learn page says "VIEW SERVER STATE permission in the database", an early revision VIEW DATABASE STATE
    // (MODEL.md NOT CONFIRMED; issue 33 D7) — the stricter reading, so a GRANT that works here works under both.
    check: (b, line) => {
      if (b.server.options.major >= 16 && b.server.hasDatabasePermission(b.session.login, b.session.db, 'VIEW DATABASE PERFORMANCE STATE')) return;
      b.server.requireServerState(b.session, line);
    },
    columns: 'database_id int, file_id smallint, vlf_begin_offset bigint, vlf_size_mb float, vlf_sequence_number bigint, vlf_active bit, vlf_status int, ' +
      'vlf_parity tinyint, vlf_first_lsn nvarchar(48), vlf_create_lsn nvarchar(48)',
    rows: (b, [id]) => {
      const d = dbArg(b, id);
      if (!d) return [];
      return vlfView(d).map((v) => ({
        database_id: d.id, file_id: 2, vlf_begin_offset: BigInt(v.offset), vlf_size_mb: v.sizeBytes / (1024 * 1024), vlf_sequence_number: BigInt(v.sequence),
        vlf_active: v.status === 2, vlf_status: v.status, vlf_parity: v.sequence ? 64 : 0, vlf_first_lsn: v.sequence ? `${String(v.sequence).padStart(8, '0')}:00000010:0001` : '00000000:00000000:0000',
        vlf_create_lsn: v.createLsn ? lsn(v.createLsn) : '00000000:00000000:0000',
      }));
    },
  });
  register({
    name: 'sys.dm_os_sys_info', check: requireServerState,
    columns: 'cpu_ticks bigint, ms_ticks bigint, cpu_count int, hyperthread_ratio int, physical_memory_kb bigint, sqlserver_start_time_ms_ticks bigint, ' +
      'sqlserver_start_time datetime, scheduler_count int, max_workers_count int',
    rows: (b) => [{
      cpu_ticks: BigInt(b.server.uptimeMs()) * 2_000_000n, ms_ticks: BigInt(b.server.uptimeMs()), cpu_count: 4, hyperthread_ratio: 1, physical_memory_kb: 8n * 1024n * 1024n,
      sqlserver_start_time_ms_ticks: 3_600_000n, sqlserver_start_time: b.server.localTime(b.server.startTime), scheduler_count: 4, max_workers_count: 512,
    }],
  });
  register({
    name: 'sys.dm_os_host_info',
    check: (b, line) => { if (b.server.options.major >= 16) requireServerState(b, line); },
    columns: 'host_platform nvarchar(256), host_distribution nvarchar(256), host_release nvarchar(256), host_service_pack_level nvarchar(256), host_sku int, os_language_version int',
    rows: (b) => [b.server.options.platform === 'Linux'
      ? { host_platform: 'Linux', host_distribution: 'Ubuntu', host_release: '22.04', host_service_pack_level: '', host_sku: null, os_language_version: 0 }
      : { host_platform: 'Windows', host_distribution: 'Windows Server 2022 Datacenter', host_release: '10.0', host_service_pack_level: '', host_sku: 8, os_language_version: 1033 }],
  });
  register({
    name: 'sys.dm_tran_database_transactions', check: requireServerState,
    columns: 'transaction_id bigint, database_id int, database_transaction_begin_time datetime, database_transaction_type int, database_transaction_state int, ' +
      'database_transaction_log_record_count bigint, database_transaction_log_bytes_used bigint, database_transaction_log_bytes_reserved bigint',
    rows: (b) => [...b.server.sessions.values()].filter((s) => s.alive && s.tran).map((s) => ({
      transaction_id: BigInt(s.tran!.id), database_id: s.tran!.db.id, database_transaction_begin_time: s.tran!.begin, database_transaction_type: 1,
      database_transaction_state: s.tran!.logBytes > 0 ? 4 : 3, database_transaction_log_record_count: BigInt(s.tran!.logRecords),
      database_transaction_log_bytes_used: BigInt(s.tran!.logBytes), database_transaction_log_bytes_reserved: BigInt(s.tran!.logBytes * 2),
    })),
  });
}

/** Real ms since `startedAt`, reported in simulated ms (divided by speedFactor). */
function simulatedElapsed(b: BatchContext, startedAt: number): number {
  const f = b.server.options.speedFactor;
  return f > 0 ? (performance.now() - startedAt) / f : 0;
}

/** An LSN-shaped label for a log byte offset (VLF:block:slot); the model has no real LSNs. */
export function lsn(bytes: number): string {
  const vlf = Math.floor(bytes / (512 * 1024)) + 1;
  const block = Math.floor((bytes % (512 * 1024)) / 512);
  return `${String(vlf).padStart(8, '0')}:${String(block).padStart(8, '0')}:0001`.slice(0, 24);
}

/**
 * An LSN in the numeric form DBCC LOGINFO's CreateLSN uses: the VLF number in decimal, then the block offset padded to
 * 10 digits and the slot to 5 (a real sample, test/fixtures/real-server/dmv: 2094000000027200481 = VLF 2094, block 272,
 * slot 481). Same VLF/block arithmetic as lsn().
 */
export function lsnNumeric(bytes: number): string {
  const vlf = Math.floor(bytes / (512 * 1024)) + 1;
  const block = Math.floor((bytes % (512 * 1024)) / 512);
  return `${vlf}${String(block).padStart(10, '0')}00001`;
}

/**
 * The log size the DMVs and DBCC report: the file less 8 KB (its first page; the first VLF starts at offset 8192).
 * Real rows show it in DBCC SQLPERF(LOGSPACE) (3.99219 MB), sys.dm_db_log_space_usage (2,088,960 bytes for a 2 MB log),
 * sys.dm_db_log_stats (1.992187 MB) and the Log File(s) Size (KB) counter (2040 / 8184 KB) — test/fixtures/real-server/dmv.
 * That the 8 KB is the first page is NOT CONFIRMED by a Microsoft page.
 */
export function reportedLogBytes(d: Database): number {
  return d.files.find((f) => f.type === 1)!.sizePages * 8192 - 8192;
}

/** VLF statuses: the active part of the log covers used bytes from the first VLF on (simplified; MODEL.md). */
export function vlfView(d: Database): Array<{ offset: number; sizeBytes: number; sequence: number; status: 0 | 2; createLsn: number }> {
  let remaining = Math.max(1, d.log.usedBytes);
  let seq = 0;
  return d.log.vlfs.map((v) => {
    const active = remaining > 0;
    remaining -= v.sizeBytes;
    if (active) seq++;
    return { offset: v.offset, sizeBytes: v.sizeBytes, createLsn: v.createLsn, sequence: active ? 30 + seq : 0, status: active ? 2 : 0 };
  });
}

const BULK = 272696576;
const RAW = 65792;

function perfCounterRows(b: BatchContext): VRow[] {
  const rows: VRow[] = [];
  const obj = padNchar('SQLServer:Databases');
  const add = (object: string, counter: string, instance: string, value: number, type: number) =>
    rows.push({ object_name: object, counter_name: padNchar(counter), instance_name: padNchar(instance), cntr_value: BigInt(Math.floor(value)), cntr_type: type });
  const perDb = (d: Database): Array<[string, number, number]> => {
    const logBytes = reportedLogBytes(d);
    return [
      ['Log Flushes/sec', d.counters.logFlushes, BULK],
      ['Log Bytes Flushed/sec', d.counters.logBytesFlushed, BULK],
      ['Log Flush Waits/sec', d.counters.logFlushWaits, BULK],
      ['Log Flush Wait Time', d.counters.logFlushWaitTimeUs / 1000, BULK],
      ['Log Flush Write Time (ms)', d.counters.lastFlushWriteUs / 1000, RAW],
      ['Transactions/sec', d.counters.transactions, BULK],
      ['Write Transactions/sec', d.counters.writeTransactions, BULK],
      ['Log Growths', d.counters.logGrowths, RAW],
      ['Log Shrinks', 0, RAW],
      ['Log Truncations', d.counters.logTruncations, RAW],
      ['Log File(s) Size (KB)', logBytes / 1024, RAW],
      ['Log File(s) Used Size (KB)', d.log.usedBytes / 1024, RAW],
      ['Percent Log Used', (100 * d.log.usedBytes) / logBytes, RAW],
      ['Data File(s) Size (KB)', d.files.filter((f) => f.type === 0).reduce((n, f) => n + f.sizePages * 8, 0), RAW],
      ['Active Transactions', [...b.server.sessions.values()].filter((s) => s.alive && s.tran?.db === d).length, RAW],
    ];
  };
  const totals = new Map<string, [number, number]>();
  const faults = consistencyFaults(b.server); // test switches: scaled counters, a suffixed instance (consistencyFaults.ts)
  for (const d of b.server.databases.values()) {
    const instance = b.server.counterName(d);
    const suffixed = faults.counterInstanceSuffix !== null && instance !== d.name ? `${instance}${faults.counterInstanceSuffix}` : instance;
    for (const [name, v, t] of perDb(d)) {
      add(obj, name, suffixed, faults.counterValue(name, v), t); // a GUID (physical_database_name) on MI / Azure, state.ts
      const cur = totals.get(name);
      totals.set(name, [(cur?.[0] ?? 0) + Math.floor(v), t]); // the sum of the values as each row shows them
    }
  }
  // A real _Total row of Percent Log Used is the share of the summed sizes, truncated like each database's (6124 of
  // 24264 KB → 25), not a sum (test/fixtures/real-server/dmv, otel-perf-counters-databases.json).
  const sum = (name: string) => totals.get(name)?.[0] ?? 0;
  for (const [name, [v, t]] of totals) add(obj, name, '_Total', name === 'Percent Log Used' ? (100 * sum('Log File(s) Used Size (KB)')) / sum('Log File(s) Size (KB)') : v, t);
  add(padNchar('SQLServer:General Statistics'), 'User Connections', '', [...b.server.sessions.values()].filter((s) => s.alive).length, RAW);
  return rows;
}

