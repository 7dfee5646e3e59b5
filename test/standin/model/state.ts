// The simulated server's state: options, logins, databases (files, tables, log), sessions and cumulative
// counters. Everything DMVs report is read from here; the durability model and XE write into it.
import type { SessionHandle, SqlValue } from '../engine';
import type { ColumnDef } from './ast';

export interface StandinOptions {
  /** Simulated major version: 2016 (13.x) and 2017 (14.x) for Query Store's version rules, 2019 (15.x), 2022 (16.x, default) or 2025 (17.x). */
  version?: 2016 | 2017 | 2019 | 2022 | 2025;
  /** Cumulative update level (default: a current one, 2019 CU32 / 2022 CU20 / 2025 CU0). Gates 22892 (2019 CU20+, 2022 CU2+). */
  cumulativeUpdate?: number;
  /**
   * Which product the model plays (`npm run standin -- --platform`): SQL Server (default), Azure SQL Managed Instance
   * (EngineEdition 8, GUID database names in counters and XE, blob-only event files) or Azure SQL Database
   * (EngineEdition 5, database-scoped sessions, the Basic/S0/S1/elastic-pool DMV permission rule). `azure: true`
   * is the older spelling of 'azure-sqldb'.
   */
  product?: 'sqlserver' | 'mi' | 'azure-sqldb';
  /** Azure SQL Database service objective (default: not reported — DATABASEPROPERTYEX gives NULL and DMVs follow the
   *  larger-tier rule). Basic, S0, S1 and elastic pools need ##MS_ServerStateReader## for several DMVs. */
  serviceObjective?: string;
  /**
   * Whether database-scoped event sessions (Azure SQL Database) receive the log writer's flush events. Azure documents
   * only that "an event must occur in the context of a user database to be included"; whether log flushes do is NOT
   * CONFIRMED, so both are modelled: true (default) delivers them, false leaves such a trace empty (issue #11 finding 6).
   */
  databaseSessionsSeeLogFlushes?: boolean;
  platform?: 'Linux' | 'Windows';
  serverName?: string;
  /** 1 = waits really take their simulated time, 0 = accounting only (tests), 0.01 = 100x faster. */
  speedFactor?: number;
  /** Log device write latency in ms (SSD-like 0.2 by default; HDD-like 4). */
  logWriteLatencyMs?: number;
  dataWriteLatencyMs?: number;
  /** Data device read latency per read in ms (default 0.2) and sequential read bandwidth in MB/s (default 200):
   *  what paces CHECKDB and BACKUP reads (stmt-io.ts). Modelling choice, SSD-like. */
  dataReadLatencyMs?: number;
  dataReadMBps?: number;
  /** Bytes a log write is rounded up to (4 KB-sector device by default). */
  logSectorBytes?: number;
  /** sys.configurations 'user connections' value_in_use (default 0 = the maximum, 32,767); reported only, not enforced. */
  userConnections?: number;
  /** Simulate Azure SQL Database (EngineEdition 5, ON DATABASE event sessions). */
  azure?: boolean;
  /** Extra logins besides sa. */
  logins?: LoginSpec[];
  /** Extra user databases besides lab. */
  databases?: DatabaseSpec[];
  /** XE events this simulated server lacks (no per-version list is sourced, so versions share one list by default). */
  missingXeEvents?: string[];
  /** Global trace flags reported by DBCC TRACESTATUS(-1). */
  traceFlags?: number[];
}

export interface LoginSpec {
  name: string;
  password: string;
  sysadmin?: boolean;
  /** Server permissions, e.g. 'VIEW SERVER STATE', 'ALTER ANY EVENT SESSION'. */
  serverPermissions?: string[];
  /** Databases this login may open (default: all user databases and master/tempdb). */
  databases?: string[];
  /** Per-database permissions, e.g. { lab: ['ALTER'] }. */
  databasePermissions?: Record<string, string[]>;
  defaultDatabase?: string;
  /** Fixed server roles, e.g. '##MS_ServerStateReader##' (Azure SQL DB Basic/S0/S1/pool DMV access). */
  serverRoles?: string[];
}

export interface DatabaseSpec {
  name: string;
  delayedDurability?: 'DISABLED' | 'ALLOWED' | 'FORCED';
  recoveryModel?: 'FULL' | 'SIMPLE' | 'BULK_LOGGED';
  cdc?: boolean;
  changeTracking?: boolean;
  published?: boolean;
  /** Member of an availability group (group_database_id / replica_id are set). */
  availabilityGroup?: boolean;
  readOnly?: boolean;
  /** Data files (default 1). File 1 is the .mdf, the log is file 2, further data files are 3, 4, ... (.ndf),
   *  each on its own volume (S5: eight files on eight LUNs). */
  dataFiles?: number;
  /** Size of each data file in MB (default 8). CHECKDB and BACKUP read every page of every data file. */
  sizeMb?: number;
}

export interface Login {
  name: string;
  password: string;
  sysadmin: boolean;
  serverPermissions: Set<string>;
  databases: Set<string> | 'all';
  databasePermissions: Map<string, Set<string>>;
  defaultDatabase: string;
  /** DENY wins over GRANT (not for sysadmin): server permissions and, per database (lower-case name), database ones. */
  deniedServer: Set<string>;
  deniedDatabase: Map<string, Set<string>>;
  /** Fixed server roles besides sysadmin (e.g. ##MS_ServerStateReader##, lower-case), from ALTER SERVER ROLE. */
  serverRoles: Set<string>;
}

export interface FileIo {
  reads: number;
  bytesRead: number;
  stallReadUs: number;
  writes: number;
  bytesWritten: number;
  stallWriteUs: number;
}

export interface DbFile {
  fileId: number;
  type: 0 | 1;
  name: string;
  physicalName: string;
  sizePages: number;
  growthPages: number;
  io: FileIo;
  /** Volume number for sys.dm_os_volume_stats (0 = the default data/log volume). */
  volume: number;
}

export interface Vlf {
  sequence: number;
  offset: number;
  sizeBytes: number;
  status: 0 | 2;
  createLsn: number;
}

export interface LogState {
  /** Bytes in the current (unflushed) log block. */
  bufferBytes: number;
  bufferRecords: number;
  /** Log end (bytes since creation) and what is hardened. */
  endLsn: number;
  flushedLsn: number;
  /** Active log bytes (not truncated). */
  usedBytes: number;
  sinceCheckpointBytes: number;
  sinceBackupBytes: number;
  checkpointLsn: number;
  vlfs: Vlf[];
  nextVlfSequence: number;
  nextBlockId: number;
}

export interface DbCounters {
  logFlushes: number;
  logBytesFlushed: number;
  logFlushWaits: number;
  logFlushWaitTimeUs: number;
  lastFlushWriteUs: number;
  transactions: number;
  writeTransactions: number;
  logGrowths: number;
  logTruncations: number;
}

export interface Table {
  objectId: number;
  name: string;
  columns: ColumnDef[];
  rows: SqlValue[][];
  nextIdentity: number;
  rowBytes: number;
}

export interface Database {
  id: number;
  name: string;
  system: boolean;
  recoveryModel: 'FULL' | 'SIMPLE' | 'BULK_LOGGED';
  delayedDurability: 0 | 1 | 2;
  isCdcEnabled: boolean;
  changeTracking: boolean;
  isPublished: boolean;
  agGroupId: string | null;
  agReplicaId: string | null;
  readOnly: boolean;
  /** sys.databases.physical_database_name: the name on SQL Server, a GUID on MI / Azure SQL DB (what counters and XE show there). */
  physicalName: string;
  createDate: Date;
  files: DbFile[];
  tables: Map<string, Table>;
  log: LogState;
  counters: DbCounters;
  dirtyPages: number;
  /** Bytes written into the current data page (rows fill pages before a new page is dirtied). */
  pageFillBytes: number;
}

export interface WaitStat {
  count: number;
  timeUs: number;
  maxUs: number;
  signalUs: number;
}

export interface InFlightWait {
  type: string;
  startedAt: number;
  resource: string;
}

export interface Transaction {
  id: number;
  db: Database;
  begin: Date;
  logBytes: number;
  logRecords: number;
  /** Undo actions, run newest first on ROLLBACK. */
  undo: Array<() => void>;
  savepoints: Map<string, number>;
  explicit: boolean;
}

export interface Session extends SessionHandle {
  readonly spid: number;
  login: Login;
  db: Database;
  appName: string;
  hostName: string;
  clientPid: number;
  encrypted: boolean;
  loginTime: Date;
  waits: Map<string, WaitStat>;
  nocount: boolean;
  /** SET XACT_ABORT: a run-time error rolls back the transaction and ends the batch (interpreter.ts). */
  xactAbort: boolean;
  lockTimeout: number;
  deadlockPriority: string;
  trancount: number;
  tran: Transaction | null;
  currentWait: InFlightWait | null;
  /** Real ms of simulated waiting not yet slept (see Durability.wait). */
  waitDebtMs: number;
  /** Simulated CPU of the session's completed statements, µs (sys.dm_exec_sessions.cpu_time in ms; xe-statements.ts). */
  cpuUs: number;
  request: { start: Date; command: string; statement: string } | null;
  /** Text of the innermost statement executing while a statement event is wanted (sqlserver.query_hash action, xe.ts). */
  xeStatement?: string | null;
  lastRequestStart: Date;
  lastRequestEnd: Date;
  alive: boolean;
  requestCount: number;
  /** #temp tables, private to the session. */
  temp: Map<string, Table>;
}

export function emptyIo(): FileIo {
  return { reads: 0, bytesRead: 0, stallReadUs: 0, writes: 0, bytesWritten: 0, stallWriteUs: 0 };
}

export function emptyCounters(): DbCounters {
  return { logFlushes: 0, logBytesFlushed: 0, logFlushWaits: 0, logFlushWaitTimeUs: 0, lastFlushWriteUs: 0, transactions: 0, writeTransactions: 0, logGrowths: 0, logTruncations: 0 };
}

export function addWait(map: Map<string, WaitStat>, type: string, us: number): void {
  const w = map.get(type) ?? { count: 0, timeUs: 0, maxUs: 0, signalUs: 0 };
  w.count++;
  w.timeUs += us;
  w.maxUs = Math.max(w.maxUs, us);
  map.set(type, w);
}

export const MB = 1024 * 1024;

export function makeDatabase(id: number, spec: DatabaseSpec, system: boolean, platform: 'Linux' | 'Windows', vlfsPerGrowth: number): Database {
  const dir = platform === 'Linux' ? '/var/opt/mssql/data/' : 'C:\\Program Files\\Microsoft SQL Server\\MSSQL16.MSSQLSERVER\\MSSQL\\DATA\\';
  const dataName = spec.name === 'master' ? 'master' : spec.name === 'tempdb' ? 'tempdev' : spec.name === 'model' ? 'modeldev' : spec.name === 'msdb' ? 'MSDBData' : spec.name;
  const logName = spec.name === 'master' ? 'mastlog' : spec.name === 'tempdb' ? 'templog' : spec.name === 'model' ? 'modellog' : spec.name === 'msdb' ? 'MSDBLog' : `${spec.name}_log`;
  const logSize = 8 * MB;
  const vlfSize = logSize / vlfsPerGrowth;
  const vlfs: Vlf[] = [];
  for (let i = 0; i < vlfsPerGrowth; i++) vlfs.push({ sequence: i === 0 ? 1 : 0, offset: 8192 + i * vlfSize, sizeBytes: vlfSize, status: i === 0 ? 2 : 0, createLsn: 0 });
  const dd = { DISABLED: 0, ALLOWED: 1, FORCED: 2 } as const;
  return {
    id,
    name: spec.name,
    system,
    recoveryModel: spec.recoveryModel ?? (spec.name === 'tempdb' || spec.name === 'master' ? 'SIMPLE' : 'FULL'),
    delayedDurability: dd[spec.delayedDurability ?? 'DISABLED'],
    isCdcEnabled: !!spec.cdc,
    changeTracking: !!spec.changeTracking,
    isPublished: !!spec.published,
    agGroupId: spec.availabilityGroup ? '6f1d7a52-0c55-4b5e-9d1e-7a0b3c2d4e5f' : null,
    agReplicaId: spec.availabilityGroup ? '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d' : null,
    readOnly: !!spec.readOnly,
    physicalName: spec.name,
    createDate: new Date(),
    files: makeFiles(spec, dir, dataName, logName, logSize),
    tables: new Map(),
    log: { bufferBytes: 0, bufferRecords: 0, endLsn: 0, flushedLsn: 0, usedBytes: 0, sinceCheckpointBytes: 0, sinceBackupBytes: 0, checkpointLsn: 0, vlfs, nextVlfSequence: 2, nextBlockId: 1 },
    counters: emptyCounters(),
    dirtyPages: 0,
    pageFillBytes: 0,
  };
}

function makeFiles(spec: DatabaseSpec, dir: string, dataName: string, logName: string, logSize: number): DbFile[] {
  const base = spec.name === 'tempdb' ? 'tempdb' : spec.name;
  const dataPages = Math.max(1, Math.round((spec.sizeMb ?? 8) * 128));
  const n = Math.max(1, Math.trunc(spec.dataFiles ?? 1));
  const files: DbFile[] = [
    { fileId: 1, type: 0, name: dataName, physicalName: `${dir}${base}.mdf`, sizePages: dataPages, growthPages: 8192, io: emptyIo(), volume: 0 },
    { fileId: 2, type: 1, name: logName, physicalName: `${dir}${spec.name === 'tempdb' ? 'templog' : spec.name + '_log'}.ldf`, sizePages: logSize / 8192, growthPages: 8192, io: emptyIo(), volume: 0 },
  ];
  // Extra data files go on volumes 1..n-1: a directory per volume (Linux mount points / Windows drive letters).
  const linux = dir.startsWith('/');
  for (let i = 1; i < n; i++) {
    const vdir = linux ? `/var/opt/mssql/data${i}/` : `${String.fromCharCode(68 + i)}:\\MSSQL\\DATA\\`;
    files.push({ fileId: i + 2, type: 0, name: `${dataName}_${i + 1}`, physicalName: `${vdir}${base}_${i + 1}.ndf`, sizePages: dataPages, growthPages: 8192, io: emptyIo(), volume: i });
  }
  return files;
}

export function makeLogin(spec: LoginSpec): Login {
  const dbPerms = new Map<string, Set<string>>();
  for (const [db, perms] of Object.entries(spec.databasePermissions ?? {})) dbPerms.set(db.toLowerCase(), new Set(perms.map((p) => p.toUpperCase())));
  return {
    name: spec.name,
    password: spec.password,
    sysadmin: !!spec.sysadmin,
    serverPermissions: new Set((spec.serverPermissions ?? []).map((p) => p.toUpperCase())),
    databases: spec.databases ? new Set(spec.databases.map((d) => d.toLowerCase())) : 'all',
    databasePermissions: dbPerms,
    defaultDatabase: spec.defaultDatabase ?? 'master',
    deniedServer: new Set(),
    deniedDatabase: new Map(),
    serverRoles: new Set((spec.serverRoles ?? []).map((r) => r.toLowerCase())),
  };
}
