// The simulated instance: options, databases, logins, sessions, server-wide waits, event sessions, and
// the permission rules (2019 vs 2022 names) every DMV and statement checks against.
import { errors } from './errors';
import {
  type Database, type Login, type Session, type StandinOptions, type WaitStat,
  makeDatabase, makeLogin,
} from './state';
import type { EventSession, XeFileStore } from './xe';

export type Product = 'sqlserver' | 'mi' | 'azure-sqldb';

export interface ResolvedOptions {
  major: 13 | 14 | 15 | 16 | 17;
  /** Cumulative update level of the simulated build. */
  cu: number;
  /** The product the model plays; `azure` stays true for 'azure-sqldb' (older call sites key on it). */
  product: Product;
  serviceObjective: string;
  databaseSessionsSeeLogFlushes: boolean;
  platform: 'Linux' | 'Windows';
  serverName: string;
  speedFactor: number;
  logWriteLatencyMs: number;
  dataWriteLatencyMs: number;
  dataReadLatencyMs: number;
  dataReadMBps: number;
  logSectorBytes: number;
  userConnections: number;
  azure: boolean;
  traceFlags: number[];
}

/**
 * Major version per simulated release. 2016 and 2017 (issue 30: Query Store without wait statistics / log bytes) follow
 * the 2019 permission rules (VIEW SERVER STATE); their CU numbers are the model's (SP3 / CU31 are NOT CONFIRMED as builds).
 */
const MAJOR_BY_VERSION = { 2016: 13, 2017: 14, 2019: 15, 2022: 16, 2025: 17 } as const;
const DEFAULT_CU = { 2016: 0, 2017: 31, 2019: 32, 2022: 20, 2025: 0 } as const;
const YEAR_BY_MAJOR = { 13: 2016, 14: 2017, 15: 2019, 16: 2022, 17: 2025 } as const;

export const SERVER_PERMISSIONS_2019 = [
  'VIEW SERVER STATE', 'ALTER ANY EVENT SESSION', 'ALTER ANY DATABASE', 'VIEW ANY DEFINITION', 'CREATE ANY DATABASE', 'CONTROL SERVER', 'VIEW ANY DATABASE',
  // KILL needs it (kill-transact-sql, Permissions); processadmin carries it (server-level-roles).
  'ALTER ANY CONNECTION',
];
/** 2022 added the granular permissions (reference §0, §4.2). */
export const SERVER_PERMISSIONS_2022 = [
  ...SERVER_PERMISSIONS_2019,
  'VIEW SERVER PERFORMANCE STATE', 'VIEW SERVER SECURITY STATE', 'CREATE ANY EVENT SESSION', 'DROP ANY EVENT SESSION',
  'ALTER ANY EVENT SESSION ENABLE', 'ALTER ANY EVENT SESSION DISABLE', 'ALTER ANY EVENT SESSION ADD EVENT', 'ALTER ANY EVENT SESSION DROP EVENT',
  'ALTER ANY EVENT SESSION ADD TARGET', 'ALTER ANY EVENT SESSION DROP TARGET', 'ALTER ANY EVENT SESSION OPTION',
];
export const DATABASE_PERMISSIONS = ['CONNECT', 'SELECT', 'INSERT', 'UPDATE', 'DELETE', 'ALTER', 'CREATE TABLE', 'VIEW DATABASE STATE', 'VIEW DATABASE PERFORMANCE STATE', 'CONTROL'];

/**
 * Fixed server roles and the permissions they carry ("Server-level roles", https://learn.microsoft.com/sql/relational-databases/security/authentication-access/server-level-roles:
 * ##MS_ServerStateReader## = VIEW SERVER STATE (+ PERFORMANCE / SECURITY STATE), ##MS_ServerPerformanceStateReader##
 * = VIEW SERVER PERFORMANCE STATE, ##MS_DefinitionReader## = VIEW ANY DATABASE, VIEW ANY DEFINITION ...). Other
 * roles are recorded but carry nothing in the model.
 */
export const SERVER_ROLE_PERMISSIONS: Record<string, string[]> = {
  '##ms_serverstatereader##': ['VIEW SERVER STATE', 'VIEW SERVER PERFORMANCE STATE', 'VIEW SERVER SECURITY STATE'],
  '##ms_serverperformancestatereader##': ['VIEW SERVER PERFORMANCE STATE'],
  '##ms_definitionreader##': ['VIEW ANY DATABASE', 'VIEW ANY DEFINITION'],
  dbcreator: ['CREATE ANY DATABASE'],
  processadmin: ['ALTER ANY CONNECTION'],
};

/** Covering permissions (modelling choice, from the 2022 permission hierarchy: VIEW SERVER STATE covers the split ones). */
const SERVER_IMPLIED_BY: Record<string, string[]> = {
  'VIEW SERVER PERFORMANCE STATE': ['VIEW SERVER STATE'],
  'VIEW SERVER SECURITY STATE': ['VIEW SERVER STATE'],
  'CREATE ANY EVENT SESSION': ['ALTER ANY EVENT SESSION'],
  'DROP ANY EVENT SESSION': ['ALTER ANY EVENT SESSION'],
  'ALTER ANY EVENT SESSION ENABLE': ['ALTER ANY EVENT SESSION'],
  'ALTER ANY EVENT SESSION DISABLE': ['ALTER ANY EVENT SESSION'],
};

/** A stable GUID-shaped physical name per database id (the model's stand-in for MI's physical_database_name). */
function guidFor(id: number): string {
  const hex = (id * 2654435761 >>> 0).toString(16).padStart(8, '0');
  return `${hex}-5d1a-4c3e-9b7f-${id.toString(16).padStart(12, '0')}`;
}

export class Server {
  options: ResolvedOptions;
  startTime = new Date();
  startPerf = performance.now();
  /**
   * The model's wall clock in ms since 1970 (UTC): what SYSDATETIME and its kin answer and what Query Store's intervals
   * are aligned to. A test that must not depend on when it runs (an interval ending mid-test) sets a fixed or offset one.
   */
  clock: () => number = Date.now;
  /**
   * The offset of the server machine's time zone from UTC, in minutes (default 0: a server in UTC, as Azure SQL Database
   * always is). SYSDATETIME, GETDATE and CURRENT_TIMESTAMP answer the machine's local time and SYSDATETIMEOFFSET carries
   * this offset (Learn: getdate-transact-sql, sysdatetimeoffset-transact-sql); so do the DMV datetime columns the product
   * reads (login_time, connect_time, sqlserver_start_time: MODEL.md, NOT CONFIRMED by their pages). A test sets it.
   */
  utcOffsetMinutes = 0;
  databases = new Map<number, Database>();
  logins = new Map<string, Login>();
  sessions = new Map<number, Session>();
  waits = new Map<string, WaitStat>();
  eventSessions = new Map<string, EventSession>();
  /** Database users made by CREATE USER: database id → user name (lower-case) → login name (lower-case). */
  dbUsers = new Map<number, Map<string, string>>();
  xeFiles: XeFileStore = new Map();
  missingXeEvents = new Set<string>();
  nextSpid = 51;
  /** User object ids start high, like SQL Server's, so they never collide with the synthetic system objects. */
  nextObjectId = 1_000_000;
  nextTranId = 1000;
  private nextDbId = 5;

  constructor(opts: StandinOptions = {}) {
    this.options = {
      major: MAJOR_BY_VERSION[opts.version ?? 2022],
      cu: opts.cumulativeUpdate ?? DEFAULT_CU[opts.version ?? 2022],
      product: opts.product ?? (opts.azure ? 'azure-sqldb' : 'sqlserver'),
      serviceObjective: opts.serviceObjective ?? '',
      databaseSessionsSeeLogFlushes: opts.databaseSessionsSeeLogFlushes ?? true,
      platform: opts.platform ?? 'Linux',
      serverName: opts.serverName ?? 'standin',
      speedFactor: opts.speedFactor ?? 1,
      logWriteLatencyMs: opts.logWriteLatencyMs ?? 0.2,
      dataWriteLatencyMs: opts.dataWriteLatencyMs ?? 0.2,
      dataReadLatencyMs: opts.dataReadLatencyMs ?? 0.2,
      dataReadMBps: opts.dataReadMBps ?? 200,
      logSectorBytes: opts.logSectorBytes ?? 4096,
      userConnections: opts.userConnections ?? 0,
      azure: !!opts.azure || opts.product === 'azure-sqldb',
      traceFlags: opts.traceFlags ?? [],
    };
    this.missingXeEvents = new Set((opts.missingXeEvents ?? []).map((e) => e.toLowerCase()));
    const vlfs = this.vlfsPerGrowth(8 * 1024 * 1024);
    ['master', 'tempdb', 'model', 'msdb'].forEach((name, i) => this.databases.set(i + 1, makeDatabase(i + 1, { name }, true, this.options.platform, vlfs)));
    this.addDatabase({ name: 'lab' });
    for (const d of opts.databases ?? []) this.addDatabase(d);
    this.addLogin({ name: 'sa', password: 'StandIn-1', sysadmin: true });
    for (const l of opts.logins ?? []) this.addLogin(l);
  }

  addDatabase(spec: Parameters<typeof makeDatabase>[1]): Database {
    const db = makeDatabase(this.nextDbId++, spec, false, this.options.platform, this.vlfsPerGrowth(8 * 1024 * 1024));
    // MI (and Azure SQL DB) show user databases by a GUID: sys.databases.physical_database_name, which performance
    // counters, XE and error messages use ("GUID values shown instead of database names", Known issues,
    // https://learn.microsoft.com/azure/azure-sql/managed-instance/doc-changes-updates-known-issues). Deterministic here.
    if (this.options.product !== 'sqlserver') db.physicalName = guidFor(db.id);
    this.databases.set(db.id, db);
    return db;
  }

  /** How counters and XE name a database: its name on SQL Server, physical_database_name (a GUID) on MI / Azure. */
  counterName(db: Database): string {
    return db.system ? db.name : db.physicalName;
  }

  /** SERVERPROPERTY('EngineEdition'): 3 Enterprise/Developer, 5 Azure SQL Database, 8 Managed Instance (SERVERPROPERTY page). */
  engineEdition(): number {
    return this.options.product === 'mi' ? 8 : this.options.product === 'azure-sqldb' ? 5 : 3;
  }

  /** Azure SQL Database on Basic / S0 / S1 or in an elastic pool: several DMVs need server admin, Entra admin or
   *  ##MS_ServerStateReader## there; VIEW DATABASE STATE is not enough (the DMV pages' Permissions sections). */
  smallAzureTier(): boolean {
    return this.options.product === 'azure-sqldb' && /^(basic|s0|s1|elasticpool|pool)$/i.test(this.options.serviceObjective);
  }

  addLogin(spec: Parameters<typeof makeLogin>[0]): Login {
    const l = makeLogin(spec);
    this.logins.set(spec.name.toLowerCase(), l);
    return l;
  }

  /** VLFs created per log growth (simplified from the documented 2022 formula: ≤64 MB → 1 VLF on 2022, 4 before). */
  vlfsPerGrowth(bytes: number): number {
    const mb = bytes / (1024 * 1024);
    if (mb <= 64) return this.options.major >= 16 && mb > 8 ? 1 : 4;
    return mb <= 1024 ? 8 : 16;
  }

  dbByName(name: string): Database | undefined {
    const n = name.toLowerCase();
    for (const d of this.databases.values()) if (d.name.toLowerCase() === n) return d;
    return undefined;
  }

  versionString(): string {
    const v = this.productVersion();
    if (this.options.product === 'azure-sqldb') return `Durability Lens stand-in (simulates Microsoft SQL Azure (RTM) - ${v}) - not a real Azure SQL Database`;
    if (this.options.product === 'mi') return `Durability Lens stand-in (simulates Microsoft SQL Azure Managed Instance ${v}) - not a real Managed Instance`;
    const year = YEAR_BY_MAJOR[this.options.major];
    const os = this.options.platform === 'Linux' ? 'Linux (Durability Lens simulated host)' : 'Windows (Durability Lens simulated host)';
    return `Durability Lens stand-in (simulates Microsoft SQL Server ${year} ${v}) - not a real SQL Server build\n\tDeveloper Edition (64-bit) on ${os}`;
  }

  /**
   * Build number of the simulated cumulative update: 4000 + 10 × CU. Real CUs have their own builds (listed on Learn's
   * "latest updates" pages); this only keeps the build rising with the CU so a version check sees a different build per
   * CU. NOT CONFIRMED as any real build number (MODEL.md).
   */
  productBuild(): number {
    return 4000 + 10 * this.options.cu;
  }

  /**
   * The major version the server reports. Managed Instance and Azure SQL Database report 12 whatever their engine
   * ("version 12 of Azure SQL Database is newer than version 16 of SQL Server", @@VERSION page; the MI overview: "does
   * not indicate SQL engine version 12"), while their permission rules are the current ones (`options.major`, 2022 by
   * default) — so a client keying permissions on the reported version gets them wrong (issue 33 D4).
   */
  reportedMajor(): number {
    return this.options.product === 'sqlserver' ? this.options.major : 12;
  }

  productVersion(): string {
    return `${this.reportedMajor()}.0.${this.productBuild()}.1`;
  }

  /** Name of the permission a server-scoped performance DMV needs on this version (reference §8). */
  serverStatePermission(): string {
    return this.options.major >= 16 ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE';
  }

  hasServerPermission(login: Login, perm: string): boolean {
    if (login.sysadmin) return true;
    const p = perm.toUpperCase();
    // DENY overrides any GRANT, the implied ones included ("DENY Server Permissions"); sysadmin is never checked.
    if (login.deniedServer.has(p) || (SERVER_IMPLIED_BY[p] ?? []).some((q) => login.deniedServer.has(q))) return false;
    const held = (q: string): boolean => login.serverPermissions.has(q) || [...login.serverRoles].some((r) => SERVER_ROLE_PERMISSIONS[r]?.includes(q));
    if (held('CONTROL SERVER') || held(p)) return true;
    return (SERVER_IMPLIED_BY[p] ?? []).some(held);
  }

  hasDatabasePermission(login: Login, db: Database, perm: string): boolean {
    if (login.sysadmin || this.hasServerPermission(login, 'CONTROL SERVER')) return true;
    const set = login.databasePermissions.get(db.name.toLowerCase());
    const p = perm.toUpperCase();
    if (login.deniedDatabase.get(db.name.toLowerCase())?.has(p)) return false;
    if (p === 'ALTER' && login.serverPermissions.has('ALTER ANY DATABASE')) return true;
    if ((p === 'VIEW DATABASE STATE' || p === 'VIEW DATABASE PERFORMANCE STATE') && this.hasServerPermission(login, 'VIEW SERVER STATE')) return true;
    if (p === 'CONNECT' && this.canOpen(login, db)) return true;
    if (!set) return false;
    return set.has(p) || set.has('CONTROL') || (p === 'VIEW DATABASE PERFORMANCE STATE' && set.has('VIEW DATABASE STATE'));
  }

  canOpen(login: Login, db: Database): boolean {
    if (login.sysadmin) return true;
    if (db.name === 'master' || db.name === 'tempdb') return true;
    return login.databases === 'all' || login.databases.has(db.name.toLowerCase());
  }

  requireServerState(session: Session, line: number): void {
    if (this.options.product === 'azure-sqldb') {
      // Azure SQL Database (the DMV pages' Permissions sections, e.g. sys-dm-os-performance-counters-transact-sql):
      // "On SQL Database Basic, S0, and S1 service objectives, and for databases in elastic pools, the server admin
      // account, the Microsoft Entra admin account, or membership in the ##MS_ServerStateReader## server role is
      // required. On all other SQL Database service objectives, either the VIEW DATABASE STATE permission on the
      // database, or membership in the ##MS_ServerStateReader## server role is required."
      const login = session.login;
      const reader = login.sysadmin || this.hasServerPermission(login, 'VIEW SERVER STATE');
      const ok = reader || (!this.smallAzureTier() && this.hasDatabasePermission(login, session.db, 'VIEW DATABASE STATE'));
      if (!ok) throw errors.viewDatabasePermission(session.db.name, line);
      return;
    }
    const perm = this.serverStatePermission();
    if (!this.hasServerPermission(session.login, perm)) throw errors.viewPermission(perm, line);
  }

  /** Real milliseconds a simulated wait of `ms` takes. */
  realMs(ms: number): number {
    return ms * this.options.speedFactor;
  }

  /** The model's wall clock now (see `clock`). */
  now(): Date {
    return new Date(this.clock());
  }

  /**
   * An instant as the server machine's local wall-clock time, the form a datetime without an offset carries: a Date
   * whose UTC fields are the local time (what tedious, useUTC, and the TDS datetime encoder read from it).
   */
  localTime(instant: Date): Date {
    return new Date(instant.getTime() + this.utcOffsetMinutes * 60_000);
  }

  /** Milliseconds since the simulated machine started (sample_ms, ms_ticks). */
  uptimeMs(): number {
    return Math.floor(performance.now() - this.startPerf) + 3_600_000;
  }
}
