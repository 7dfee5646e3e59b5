// Which permission each measurement needs on which server version, the exact GRANT text (identifiers quoted),
// and the preflight that asks HAS_PERMS_BY_NAME before a run so the UI can say what will be missing.
import { quoteName } from '../db/quote';
import type { SqlClient } from '../db/types';
import { bool, text } from './values';

export type MeasurementName =
  | 'fileStats'
  | 'volumes'
  | 'waitStats'
  | 'sessionWaits'
  | 'inFlightWaits'
  | 'perfCounters'
  | 'logStats'
  | 'logSpace'
  | 'vlfs'
  | 'hostInfo'
  | 'startTime'
  | 'traceFlags'
  | 'databaseInfo'
  | 'changeTracking'
  | 'availabilityGroup'
  | 'extendedEvents'
  | 'durabilityToggle'
  | 'logRateGovernance'
  | 'hyperscaleLogRate'
  | 'inMemoryTables'
  | 'sessionCpu'
  | 'queryStore'
  | 'queryStoreWaits';

export const MEASUREMENT_LABELS: Record<MeasurementName, string> = {
  fileStats: 'per-file IO (sys.dm_io_virtual_file_stats)',
  volumes: 'volume of each file (sys.dm_os_volume_stats)',
  waitStats: 'server wait statistics (sys.dm_os_wait_stats)',
  sessionWaits: "the workload session's own waits (sys.dm_exec_session_wait_stats)",
  inFlightWaits: 'in-flight waits of the workload session (sys.dm_os_waiting_tasks)',
  perfCounters: 'log flush counters (sys.dm_os_performance_counters)',
  logStats: 'log statistics (sys.dm_db_log_stats)',
  logSpace: 'log space used (sys.dm_db_log_space_usage)',
  vlfs: 'VLF count (sys.dm_db_log_info)',
  hostInfo: 'host platform (sys.dm_os_host_info)',
  startTime: 'restart detection (sys.dm_os_sys_info.sqlserver_start_time)',
  traceFlags: 'global trace flags (DBCC TRACESTATUS)',
  databaseInfo: 'database settings (sys.databases)',
  changeTracking: 'change tracking state (sys.change_tracking_databases)',
  availabilityGroup: 'availability group replicas (sys.dm_hadr_database_replica_states)',
  extendedEvents: 'log-flush events (Extended Events session)',
  durabilityToggle: 'switching DELAYED_DURABILITY (ALTER DATABASE)',
  logRateGovernance: 'log-rate cap of the database (sys.dm_user_db_resource_governance)',
  hyperscaleLogRate: 'Hyperscale log-rate limits (sys.dm_hs_database_log_rate)',
  inMemoryTables: 'SCHEMA_ONLY memory-optimized tables (sys.tables)',
  sessionCpu: "the workload session's CPU time (sys.dm_exec_sessions)",
  queryStore: "production history of the database's queries (Query Store: sys.query_store_runtime_stats)",
  queryStoreWaits: 'Query Store wait statistics by category (sys.query_store_wait_stats)',
};

export interface GrantContext {
  /** SERVERPROPERTY('ProductMajorVersion'): 16 = SQL Server 2022. */
  majorVersion: number;
  /** SERVERPROPERTY('EngineEdition'): 5 = Azure SQL Database (database-scoped permissions only). */
  engineEdition: number;
  loginName: string;
  /** Database user of the login in the target database (USER_NAME()). */
  userName: string;
  databaseName: string;
  /**
   * Whether the monitor connection sits in the target database (it normally does). When it does not, file IO is read
   * through sys.master_files, whose rows need VIEW ANY DEFINITION; the preflight then checks that too.
   */
  monitorInTargetDb?: boolean;
}

export const AZURE_SQL_DATABASE = 5;
/** SERVERPROPERTY('EngineEdition') of Azure SQL Managed Instance (serverproperty-transact-sql). */
const MANAGED_INSTANCE = 8;

/**
 * Whether the server has SQL Server 2022's granular permissions (VIEW SERVER PERFORMANCE STATE, CREATE/DROP ANY EVENT
 * SESSION, ALTER ANY EVENT SESSION ENABLE/DISABLE …). Keyed on the engine edition first, because Managed Instance
 * reports ProductMajorVersion 12 although its engine is current ("version 12 of Azure SQL Database is newer than
 * version 16 of SQL Server", https://learn.microsoft.com/sql/t-sql/functions/version-transact-sql-configuration-functions;
 * the MI overview: "does not indicate SQL engine version 12") and the DMV pages name MI with 2022: "SQL Server 2022
 * (16.x) and later versions, and Azure SQL Managed Instance require VIEW SERVER PERFORMANCE STATE permission"
 * (https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-log-space-usage-transact-sql).
 * Azure SQL Database has its own database-scoped names and is answered elsewhere (issue 33 D4).
 */
export function hasGranularPermissions(ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): boolean {
  if (ctx.engineEdition === AZURE_SQL_DATABASE) return false;
  return ctx.engineEdition === MANAGED_INSTANCE || ctx.majorVersion >= 16;
}

/**
 * Azure SQL Database Basic, S0, S1 and elastic-pool databases: several DMV pages (sys.dm_os_wait_stats,
 * sys.dm_os_performance_counters, sys.dm_os_sys_info, sys.dm_db_log_space_usage) require the server admin, the
 * Microsoft Entra admin or membership in ##MS_ServerStateReader##; VIEW DATABASE STATE is not enough (reference §0, §8).
 */
export const AZURE_SERVER_STATE_READER = '##MS_ServerStateReader##';
export const AZURE_LOW_TIER_OBJECTIVES = ['BASIC', 'S0', 'S1', 'ELASTICPOOL'];
const AZURE_LOW_TIER_MEASUREMENTS: MeasurementName[] = ['waitStats', 'perfCounters', 'logSpace', 'startTime'];

/**
 * The permission a DMV read needs: VIEW SERVER STATE up to 2019, VIEW SERVER PERFORMANCE STATE from 2022 and on
 * Managed Instance (reference §0 and §8, per-DMV Learn pages; hasGranularPermissions); on Azure SQL Database VIEW
 * DATABASE STATE (reference §0).
 */
export function serverStatePermission(ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): string {
  if (ctx.engineEdition === AZURE_SQL_DATABASE) return 'VIEW DATABASE STATE';
  return hasGranularPermissions(ctx) ? 'VIEW SERVER PERFORMANCE STATE' : 'VIEW SERVER STATE';
}

/**
 * sys.dm_db_log_info. 2022+ (and MI): VIEW DATABASE PERFORMANCE STATE on the database. Up to 2019 Learn's revisions
 * disagree — an early one says "Requires the VIEW DATABASE STATE permission in the database", the current one "VIEW
 * SERVER STATE permission in the database" (sic; reference §3.4) — and the server permission is the one every revision
 * accepts, so that is what is asked and granted (issue 33 D7).
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-log-info-transact-sql
 */
function logInfoPermission(ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): { permission: string; scope: 'server' | 'database' } {
  if (ctx.engineEdition === AZURE_SQL_DATABASE) return { permission: 'VIEW DATABASE STATE', scope: 'database' };
  return hasGranularPermissions(ctx) ? { permission: 'VIEW DATABASE PERFORMANCE STATE', scope: 'database' } : { permission: 'VIEW SERVER STATE', scope: 'server' };
}

export interface RequiredPermission {
  permission: string;
  /** 'server-role': membership in a fixed server role (Azure SQL Database's ##MS_ServerStateReader##). */
  scope: 'server' | 'database' | 'server-role';
}

export function requiredPermission(measurement: MeasurementName, ctx: Pick<GrantContext, 'majorVersion' | 'engineEdition'>): RequiredPermission | null {
  const serverState: RequiredPermission = {
    permission: serverStatePermission(ctx),
    scope: ctx.engineEdition === AZURE_SQL_DATABASE ? 'database' : 'server',
  };
  switch (measurement) {
    case 'vlfs':
      return logInfoPermission(ctx);
    case 'hostInfo':
      // Public up to 2019 (reference §6).
      return hasGranularPermissions(ctx) ? serverState : null;
    case 'traceFlags':
      // DBCC TRACESTATUS: public (reference §6, §8).
      return null;
    case 'databaseInfo':
    case 'changeTracking':
      // Same checks as sys.databases (change-tracking catalog view Learn page): visible if the database is.
      return null;
    case 'durabilityToggle':
      return { permission: 'ALTER', scope: 'database' };
    case 'logRateGovernance':
    case 'hyperscaleLogRate':
      // Azure SQL Database only (other platforms never ask): VIEW DATABASE STATE, which the 2022 permission hierarchy
      // makes cover VIEW DATABASE PERFORMANCE STATE (the Hyperscale DMF's page names the latter). Elsewhere: nothing to grant.
      // https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-user-db-resource-governor-azure-sql-database
      // https://learn.microsoft.com/sql/relational-databases/system-functions/sys-dm-hs-database-log-rate
      return ctx.engineEdition === AZURE_SQL_DATABASE ? serverState : null;
    case 'inMemoryTables':
      // sys.tables: catalog metadata visibility, no GRANT that a DMV read would need (sys-tables-transact-sql).
      return null;
    case 'queryStore':
    case 'queryStoreWaits':
      // The Query Store catalog views: "Requires the VIEW DATABASE STATE permission"; "Permissions for SQL Server 2022
      // and later: Requires the VIEW DATABASE PERFORMANCE STATE permission on the database"
      // (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-interval-transact-sql).
      return { permission: ctx.engineEdition !== AZURE_SQL_DATABASE && hasGranularPermissions(ctx) ? 'VIEW DATABASE PERFORMANCE STATE' : 'VIEW DATABASE STATE', scope: 'database' };
    case 'extendedEvents':
      // ALTER ANY EVENT SESSION covers create/start/stop/drop on every version (reference §4.2, §8).
      return ctx.engineEdition === AZURE_SQL_DATABASE
        ? { permission: 'ALTER ANY DATABASE EVENT SESSION', scope: 'database' }
        : { permission: 'ALTER ANY EVENT SESSION', scope: 'server' };
    default:
      return serverState;
  }
}

/**
 * The GRANT a DBA runs. Server-scope grants are written after USE [master] (works on every version);
 * database-scope grants go to the database user, after USE [db].
 */
export function grantStatement(required: RequiredPermission, ctx: GrantContext): string {
  if (required.scope === 'server-role') {
    // Azure SQL Database server roles are managed from the logical server's master database (ALTER SERVER ROLE page).
    return `-- run while connected to the master database of the logical server\nALTER SERVER ROLE ${quoteName(required.permission)} ADD MEMBER ${quoteName(ctx.loginName)};`;
  }
  if (required.scope === 'server') {
    return `USE [master];\nGRANT ${required.permission} TO ${quoteName(ctx.loginName)};`;
  }
  const on = required.permission === 'ALTER' ? ` ON DATABASE::${quoteName(ctx.databaseName)}` : '';
  const grant = `GRANT ${required.permission}${on} TO ${quoteName(ctx.userName)};`;
  // Azure SQL Database: the DBA connects to the database itself (no switching databases with USE there).
  if (ctx.engineEdition === AZURE_SQL_DATABASE) return `-- run while connected to ${inComment(quoteName(ctx.databaseName))}\n${grant}`;
  return `USE ${quoteName(ctx.databaseName)};\n${grant}`;
}

/**
 * Text safe inside a `--` comment: a line break in a name would end the comment and turn the rest of the name into
 * T-SQL the DBA runs. Control characters (CR, LF, VT, FF, NEL...) and the Unicode line/paragraph separators, which
 * editors also show as line breaks, become a visible `\uXXXX`.
 */
export function inComment(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

export function grantFor(measurement: MeasurementName, ctx: GrantContext): string | null {
  const required = requiredPermission(measurement, ctx);
  return required ? grantStatement(required, ctx) : null;
}

// ---- Preflight ----

/**
 * HAS_PERMS_BY_NAME returns 1 / 0, or NULL when the permission name does not exist on this version
 * (e.g. VIEW SERVER PERFORMANCE STATE before 2022).
 * https://learn.microsoft.com/sql/t-sql/functions/has-perms-by-name-transact-sql
 */
export const PREFLIGHT_SERVER_SQL = `SELECT
  SUSER_SNAME() AS login_name,
  USER_NAME() AS user_name,
  HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE') AS view_server_state,
  HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER PERFORMANCE STATE') AS view_server_performance_state,
  HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY EVENT SESSION') AS alter_any_event_session,
  HAS_PERMS_BY_NAME(NULL, NULL, N'CREATE ANY EVENT SESSION') AS create_any_event_session,
  HAS_PERMS_BY_NAME(NULL, NULL, N'DROP ANY EVENT SESSION') AS drop_any_event_session,
  HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY EVENT SESSION ENABLE') AS alter_any_event_session_enable,
  HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY EVENT SESSION DISABLE') AS alter_any_event_session_disable,
  HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW ANY DEFINITION') AS view_any_definition,
  HAS_PERMS_BY_NAME(NULL, NULL, N'ALTER ANY DATABASE') AS alter_any_database,
  HAS_PERMS_BY_NAME(@database_name, N'DATABASE', N'ALTER') AS alter_database,
  HAS_PERMS_BY_NAME(@database_name, N'DATABASE', N'VIEW DATABASE STATE') AS view_database_state,
  HAS_PERMS_BY_NAME(@database_name, N'DATABASE', N'VIEW DATABASE PERFORMANCE STATE') AS view_database_performance_state;`;

/** Azure SQL Database accepts only database-level securable classes (HAS_PERMS_BY_NAME Learn page). */
export const PREFLIGHT_AZURE_SQL = `SELECT
  SUSER_SNAME() AS login_name,
  USER_NAME() AS user_name,
  HAS_PERMS_BY_NAME(@database_name, N'DATABASE', N'ALTER') AS alter_database,
  HAS_PERMS_BY_NAME(@database_name, N'DATABASE', N'VIEW DATABASE STATE') AS view_database_state,
  HAS_PERMS_BY_NAME(@database_name, N'DATABASE', N'ALTER ANY DATABASE EVENT SESSION') AS alter_any_database_event_session;`;

/**
 * The service objective (Basic, S0, S1, …, ElasticPool) decides whether VIEW DATABASE STATE suffices for the DMVs.
 * DATABASEPROPERTYEX(db, 'ServiceObjective'): https://learn.microsoft.com/sql/t-sql/functions/databasepropertyex-transact-sql
 * Role membership itself cannot be read from a user database: IS_SRVROLEMEMBER "always returns 0" on Azure SQL
 * Database (https://learn.microsoft.com/sql/t-sql/functions/is-srvrolemember-transact-sql).
 */
export const AZURE_SERVICE_OBJECTIVE_SQL = `SELECT CAST(DATABASEPROPERTYEX(DB_NAME(), 'ServiceObjective') AS nvarchar(128)) AS service_objective;`;

export interface PermissionCheck {
  permission: string;
  scope: RequiredPermission['scope'];
  /** null: the server did not know the permission name (older version). */
  held: boolean | null;
  neededFor: MeasurementName[];
  grant: string;
}

export interface PreflightResult {
  loginName: string;
  userName: string;
  databaseName: string;
  checks: PermissionCheck[];
  /** Measurements that will be missing, with a readable label, the GRANT and the permission it asks for. */
  missing: { measurement: MeasurementName; label: string; grant: string; required?: RequiredPermission }[];
  /** Every GRANT needed, de-duplicated, ready to copy. */
  grantScript: string;
}

/** What a run measures (the preflight's list): Query Store is read by `top-log` only and checked there (probes/queryStore.ts). */
const ALL_MEASUREMENTS = (Object.keys(MEASUREMENT_LABELS) as MeasurementName[]).filter((m) => m !== 'queryStore' && m !== 'queryStoreWaits');

/** What the preflight learnt besides HAS_PERMS_BY_NAME: the Azure SQL Database service objective (null: unknown). */
export interface PreflightExtras {
  serviceObjective?: string | null;
}

/** Pure part of the preflight: turns the HAS_PERMS_BY_NAME row into checks, missing measurements and GRANTs. */
export function evaluatePreflight(row: Record<string, unknown>, ctx: Omit<GrantContext, 'loginName' | 'userName'>, extras: PreflightExtras = {}): PreflightResult {
  const full: GrantContext = { ...ctx, loginName: text(row.login_name) ?? '', userName: text(row.user_name) ?? '' };
  const held = (permission: string, scope: RequiredPermission['scope']): boolean | null => {
    const column = permission.toLowerCase().replace(/ /g, '_');
    const key = scope === 'database' && permission === 'ALTER' ? 'alter_database' : column;
    return bool(row[key]);
  };
  const byPermission = new Map<string, PermissionCheck>();
  for (const m of ALL_MEASUREMENTS) {
    const required = requiredPermission(m, ctx);
    if (!required) continue;
    const key = `${required.scope}:${required.permission}`;
    let check = byPermission.get(key);
    if (!check) {
      check = { ...required, held: held(required.permission, required.scope), neededFor: [], grant: grantStatement(required, full) };
      byPermission.set(key, check);
    }
    check.neededFor.push(m);
  }
  // 2022+ (and MI): the granular permissions replace ALTER ANY EVENT SESSION only together — CREATE ANY and DROP ANY
  // EVENT SESSION for create/drop, ALTER ANY EVENT SESSION ENABLE / DISABLE for ALTER EVENT SESSION … STATE = START /
  // STOP (CREATE EVENT SESSION and ALTER EVENT SESSION pages, "Permissions"; reference §8). A run starts and stops its
  // session, so CREATE + DROP alone is not enough (issue 33 D8).
  // https://learn.microsoft.com/sql/t-sql/statements/alter-event-session-transact-sql
  const xe = byPermission.get('server:ALTER ANY EVENT SESSION');
  const granular = ['create_any_event_session', 'drop_any_event_session', 'alter_any_event_session_enable', 'alter_any_event_session_disable'];
  if (xe && xe.held === false && granular.every((k) => bool(row[k]) === true)) {
    xe.held = true;
  }
  // Monitor outside the target database: files come from sys.master_files, visible with CREATE DATABASE, ALTER ANY
  // DATABASE or VIEW ANY DEFINITION (sys-master-files-transact-sql); the GRANT asks for the read-only one.
  if (ctx.monitorInTargetDb === false && ctx.engineEdition !== AZURE_SQL_DATABASE) {
    const required: RequiredPermission = { permission: 'VIEW ANY DEFINITION', scope: 'server' };
    const anyHeld = [row.view_any_definition, row.alter_any_database].some((v) => bool(v) === true);
    byPermission.set('server:VIEW ANY DEFINITION', { ...required, held: anyHeld ? true : bool(row.view_any_definition), neededFor: ['fileStats', 'volumes'], grant: grantStatement(required, full) });
  }
  // Azure SQL Database on Basic/S0/S1/elastic pools (or an unknown objective): the role is needed and cannot be
  // confirmed from here, so those measurements are listed as possibly missing — never "all held".
  const objective = extras.serviceObjective?.trim().toUpperCase() ?? null;
  if (ctx.engineEdition === AZURE_SQL_DATABASE && (objective === null || AZURE_LOW_TIER_OBJECTIVES.includes(objective))) {
    const required: RequiredPermission = { permission: AZURE_SERVER_STATE_READER, scope: 'server-role' };
    byPermission.set(`server-role:${AZURE_SERVER_STATE_READER}`, { ...required, held: null, neededFor: [...AZURE_LOW_TIER_MEASUREMENTS], grant: grantStatement(required, full) });
  }
  const checks = [...byPermission.values()];
  const missing = checks
    .filter((c) => c.held !== true)
    .flatMap((c) => c.neededFor.map((m) => ({ measurement: m, label: MEASUREMENT_LABELS[m], grant: c.grant, required: { permission: c.permission, scope: c.scope } })));
  const grantScript = [...new Set(checks.filter((c) => c.held !== true).map((c) => c.grant))].join('\n\n');
  return { loginName: full.loginName, userName: full.userName, databaseName: ctx.databaseName, checks, missing, grantScript };
}

export async function preflightPermissions(
  monitor: SqlClient,
  ctx: Omit<GrantContext, 'loginName' | 'userName'>,
): Promise<PreflightResult> {
  const azure = ctx.engineEdition === AZURE_SQL_DATABASE;
  const rows = await monitor.query(azure ? PREFLIGHT_AZURE_SQL : PREFLIGHT_SERVER_SQL, [{ name: 'database_name', type: 'nvarchar', value: ctx.databaseName }]);
  let serviceObjective: string | null = null;
  if (azure) {
    try {
      serviceObjective = text((await monitor.query(AZURE_SERVICE_OBJECTIVE_SQL))[0]?.service_objective);
    } catch {
      serviceObjective = null; // unknown: treated like the tiers that need the role
    }
  }
  return evaluatePreflight(rows[0] ?? {}, ctx, { serviceObjective });
}
