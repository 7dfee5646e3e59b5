// Server identity (version, edition, platform), start time for restart detection, and global trace flags.
import type { SqlClient } from '../db/types';
import { measure, notApplicable, type Measurement } from './measurement';
import { AZURE_SQL_DATABASE, type GrantContext } from './permissions';
import { bool, isoOrNull, num, text } from './values';

/**
 * Public functions only, so this probe works for every login.
 * SERVERPROPERTY: https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql
 */
export const SERVER_IDENTITY_SQL = `SELECT
  @@VERSION AS version_text,
  @@SERVERNAME AS server_name,
  CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS product_version,
  CAST(SERVERPROPERTY('ProductMajorVersion') AS nvarchar(128)) AS product_major_version,
  CAST(SERVERPROPERTY('ProductUpdateLevel') AS nvarchar(128)) AS product_update_level,
  CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS edition,
  CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition,
  SUSER_SNAME() AS login_name,
  USER_NAME() AS user_name,
  DB_NAME() AS current_database;`;

/** Counters start over at engine start (reference §0): compare this between snapshots. sys.dm_os_sys_info Learn page. */
export const START_TIME_SQL = `SELECT sqlserver_start_time FROM sys.dm_os_sys_info;`;

/** SQL Server 2017+ and MI, not Azure SQL DB (reference §6, sys-dm-os-host-info-transact-sql). */
export const HOST_INFO_SQL = `SELECT host_platform, host_distribution, host_release FROM sys.dm_os_host_info;`;

/** Columns TraceFlag, Status, Global, Session (reference §6, dbcc-tracestatus-transact-sql). */
export const TRACE_STATUS_SQL = `DBCC TRACESTATUS(-1) WITH NO_INFOMSGS;`;

/**
 * Where the engine runs, from SERVERPROPERTY('EngineEdition') (5 = Azure SQL Database, 8 = Azure SQL Managed
 * Instance; serverproperty-transact-sql). The rules that differ by platform key on this, never on session scope:
 * - MI (and Azure SQL Database): performance counters and XEvents name databases by a GUID, which is
 *   sys.databases.physical_database_name ("GUID values shown instead of database names", MI known issues:
 *   https://learn.microsoft.com/azure/azure-sql/managed-instance/doc-changes-updates-known-issues).
 * - MI and Azure SQL Database: event_file targets live in Azure Blob Storage (https URL), and
 *   sys.fn_xe_file_target_read_file with a wildcard or a local path fails with 40538 ("Extended Events in Azure SQL",
 *   https://learn.microsoft.com/azure/azure-sql/database/xevent-db-diff-from-svr).
 * - Azure SQL Database: database-scoped event sessions only see events "in the context of a user database" (same page).
 */
export type ServerPlatform = 'sql-server' | 'azure-sql-database' | 'azure-sql-managed-instance';

export const AZURE_SQL_MANAGED_INSTANCE = 8;

export function platformOf(engineEdition: number): ServerPlatform {
  if (engineEdition === AZURE_SQL_DATABASE) return 'azure-sql-database';
  if (engineEdition === AZURE_SQL_MANAGED_INSTANCE) return 'azure-sql-managed-instance';
  return 'sql-server';
}

/** What a platform means for the probes and the log-flush trace (src/xe reads these instead of guessing from scope). */
export interface PlatformRules {
  /** Counters and XE name the database by sys.databases.physical_database_name, not by its name. */
  databaseNamesAreGuids: boolean;
  /** event_file needs an https Azure Blob Storage URL; local paths and wildcards in fn_xe_file_target_read_file fail (40538). */
  eventFileNeedsBlobUrl: boolean;
  /** Event sessions are database-scoped (CREATE EVENT SESSION … ON DATABASE); flushes may never arrive there. */
  databaseScopedSessions: boolean;
}

export function platformRules(platform: ServerPlatform): PlatformRules {
  return {
    databaseNamesAreGuids: platform !== 'sql-server',
    eventFileNeedsBlobUrl: platform !== 'sql-server',
    databaseScopedSessions: platform === 'azure-sql-database',
  };
}

export const PLATFORM_LABELS: Record<ServerPlatform, string> = {
  'sql-server': 'SQL Server',
  'azure-sql-database': 'Azure SQL Database',
  'azure-sql-managed-instance': 'Azure SQL Managed Instance',
};

export interface ServerIdentity {
  versionText: string;
  serverName: string | null;
  productVersion: string;
  /** SERVERPROPERTY('ProductUpdateLevel'): "CU20" on a cumulative update, null where not applicable. */
  productUpdateLevel?: string | null;
  majorVersion: number;
  edition: string;
  engineEdition: number;
  platform: ServerPlatform;
  isAzureSqlDatabase: boolean;
  loginName: string;
  userName: string;
  currentDatabase: string;
}

export interface HostInfo {
  platform: string | null;
  distribution: string | null;
  /** Empty string on Linux per the doc table, but the doc's sample shows "22.04": both kept as given. */
  release: string | null;
}

export interface TraceFlag {
  flag: number;
  status: boolean;
  global: boolean;
  session: boolean;
}

export interface ServerInfo {
  identity: ServerIdentity;
  /** ISO text of sqlserver_start_time. */
  startTime: Measurement<string>;
  host: Measurement<HostInfo>;
  traceFlags: Measurement<TraceFlag[]>;
}

export function mapServerIdentity(row: Record<string, unknown>): ServerIdentity {
  const productVersion = text(row.product_version) ?? '';
  // ProductMajorVersion is NULL on old builds; the first part of ProductVersion is the same number.
  const majorVersion = num(row.product_major_version) ?? (Number(productVersion.split('.')[0]) || 0);
  const engineEdition = num(row.engine_edition) ?? 0;
  return {
    versionText: text(row.version_text) ?? '',
    serverName: text(row.server_name),
    productVersion,
    productUpdateLevel: text(row.product_update_level),
    majorVersion,
    edition: text(row.edition) ?? '',
    engineEdition,
    platform: platformOf(engineEdition),
    isAzureSqlDatabase: engineEdition === AZURE_SQL_DATABASE,
    loginName: text(row.login_name) ?? '',
    userName: text(row.user_name) ?? '',
    currentDatabase: text(row.current_database) ?? '',
  };
}

export function mapHostInfo(row: Record<string, unknown> | undefined): HostInfo {
  return { platform: text(row?.host_platform), distribution: text(row?.host_distribution), release: text(row?.host_release) };
}

export function mapTraceFlags(rows: readonly Record<string, unknown>[]): TraceFlag[] {
  return rows
    .map((r) => ({ flag: num(r.TraceFlag) ?? -1, status: bool(r.Status) ?? false, global: bool(r.Global) ?? false, session: bool(r.Session) ?? false }))
    .filter((t) => t.flag >= 0)
    .sort((a, b) => a.flag - b.flag);
}

export async function captureServerIdentity(monitor: SqlClient): Promise<ServerIdentity> {
  const rows = await monitor.query(SERVER_IDENTITY_SQL);
  return mapServerIdentity(rows[0] ?? {});
}

/** What the GRANT text for `databaseName` needs from the server identity (version, edition, login and user). */
export function grantContextOf(identity: ServerIdentity, databaseName: string): GrantContext {
  return {
    majorVersion: identity.majorVersion,
    engineEdition: identity.engineEdition,
    loginName: identity.loginName,
    userName: identity.userName,
    databaseName,
    monitorInTargetDb: identity.currentDatabase === databaseName,
  };
}

export async function captureServerInfo(monitor: SqlClient, identity: ServerIdentity, ctx: GrantContext): Promise<ServerInfo> {
  const startTime = await measure('startTime', ctx, async () => {
    const rows = await monitor.query(START_TIME_SQL);
    const iso = isoOrNull(rows[0]?.sqlserver_start_time);
    if (!iso) throw new Error('sys.dm_os_sys_info returned no start time');
    return iso;
  });
  const host = identity.isAzureSqlDatabase
    ? notApplicable<HostInfo>('hostInfo', 'sys.dm_os_host_info does not exist on Azure SQL Database.')
    : await measure('hostInfo', ctx, async () => mapHostInfo((await monitor.query(HOST_INFO_SQL))[0]));
  const traceFlags = identity.isAzureSqlDatabase
    ? notApplicable<TraceFlag[]>('traceFlags', 'DBCC TRACESTATUS is not confirmed on Azure SQL Database; not attempted.')
    : await measure('traceFlags', ctx, async () => mapTraceFlags(await monitor.query(TRACE_STATUS_SQL)));
  return { identity, startTime, host, traceFlags };
}

/** Trace flags that matter for S4 (Linux forced flush vs FUA, reference §6). */
export const FLUSH_TRACE_FLAGS = [3979, 3982] as const;

/** Linux from sys.dm_os_host_info.host_platform, or from @@VERSION ("… on Linux (…)") where the DMV is not readable. */
export function isLinuxHost(server: Pick<ServerInfo, 'identity' | 'host'>): boolean | null {
  const platform = server.host.status === 'ok' ? server.host.value.platform : null;
  if (platform) return /linux/i.test(platform);
  if (/\bon Linux\b/i.test(server.identity.versionText)) return true;
  if (/\bon Windows\b/i.test(server.identity.versionText)) return false;
  return null;
}

export type FlushTraceFlagState = 'on' | 'off' | 'linux-default' | 'unknown';

/**
 * How to read one flush trace flag. TF 3982 is the default behaviour of SQL Server on Linux ("Use TF 3982 as a
 * startup flag. This is the default on Linux", "Configure persistent memory (PMEM) for SQL Server on Linux",
 * https://learn.microsoft.com/sql/linux/configure/persistent-memory); whether DBCC TRACESTATUS lists it when nobody
 * set it is NOT CONFIRMED, so on Linux an unlisted 3982 reads "not set (Linux default behaviour applies)", never "off".
 */
export function flushTraceFlagState(server: Pick<ServerInfo, 'identity' | 'host' | 'traceFlags'>, flag: number): { state: FlushTraceFlagState; text: string } {
  if (server.traceFlags.status !== 'ok') return { state: 'unknown', text: 'unknown (not readable)' };
  const f = server.traceFlags.value.find((t) => t.flag === flag && t.status);
  if (f) {
    const scope = [f.global ? 'global' : null, f.session ? 'session' : null].filter((x) => x).join(', ');
    return { state: 'on', text: `on${scope ? ` (${scope})` : ''}` };
  }
  if (flag === 3982 && isLinuxHost(server) === true) return { state: 'linux-default', text: 'not set (Linux default behaviour applies)' };
  return { state: 'off', text: 'off' };
}
