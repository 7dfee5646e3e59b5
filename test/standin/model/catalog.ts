// Registry of virtual tables (catalog views, DMVs, table-valued functions) with column types as the Learn
// pages give them, plus the catalog views of databases, files and objects. DMVs live in catalog-*.ts.
import type { Column, SqlValue } from '../engine';
import type { BatchContext } from './eval';
import { tokenize } from './lexer';
import { Cursor, parseType } from './parse-expr';
import { registerDmvTables } from './catalog-dmv';
import { registerXeTables } from './catalog-xe';
import { registerAppLockTables } from './applock';
import { registerExtendedPropertyTables } from './extprops';
import { registerCauseTables } from './catalog-causes';
import { registerQueryStoreTables } from './queryStoreCatalog';
import { DATABASE_PERMISSIONS as dbPermissionNames, type Server, SERVER_PERMISSIONS_2019 as serverPermissionNames2019, SERVER_PERMISSIONS_2022 as serverPermissionNames2022 } from './server';
import type { Database } from './state';

export type VRow = Record<string, SqlValue>;

export interface VirtualTable {
  name: string;
  columns: Column[];
  /** Table-valued function: number of arguments. */
  argCount?: number;
  /** Permission check before any row is read (throws the SQL error). */
  check?(b: BatchContext, line: number): void;
  rows(b: BatchContext, args: SqlValue[], line: number): Iterable<VRow>;
}

const registry = new Map<string, VirtualTable>();

/** Columns written like a CREATE TABLE list: "database_id smallint, name sysname". nchar(n) values are padded by the table. */
export function columns(spec: string): Column[] {
  return spec.split(',').map((part) => {
    const c = new Cursor(tokenize(part.trim()), part.trim());
    const name = c.name();
    const { type } = parseType(c);
    const notNull = c.acceptKw('NOT');
    return { name, type, nullable: !notNull };
  });
}

export function register(t: Omit<VirtualTable, 'columns'> & { columns: string }): void {
  registry.set(t.name.toLowerCase(), { ...t, columns: columns(t.columns) });
}

export function findVirtualTable(parts: string[], server: Server): VirtualTable | undefined {
  ensureLoaded();
  const name = parts[parts.length - 1]!.toLowerCase();
  const schema = parts.length > 1 ? parts[parts.length - 2]!.toLowerCase() : '';
  if (schema !== 'sys' && !(schema === '' && name.startsWith('fn_'))) return undefined;
  const t = registry.get('sys.' + name);
  if (!t) return undefined;
  if (t.name.startsWith('sys.dm_xe_database') || t.name === 'sys.database_event_sessions' || t.name === 'sys.dm_db_wait_stats') return server.options.azure ? t : undefined;
  if (server.options.azure && NOT_ON_AZURE.has(t.name)) return undefined;
  return t;
}

/** Objects the reference says Azure SQL Database lacks (§1 master_files / volume stats, §6 host info). */
const NOT_ON_AZURE = new Set(['sys.master_files', 'sys.dm_os_volume_stats', 'sys.dm_os_host_info']);

export function padNchar(s: string, n = 128): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

let loaded = false;
function ensureLoaded(): void {
  if (loaded) return;
  loaded = true;
  registerCatalogViews();
  registerDmvTables();
  registerXeTables();
  registerAppLockTables();
  registerExtendedPropertyTables();
  registerCauseTables();
  registerQueryStoreTables();
}

export function requireServerState(b: BatchContext, line: number): void {
  b.server.requireServerState(b.session, line);
}

export function dbArg(b: BatchContext, v: SqlValue): Database | undefined {
  if (v === null) return b.session.db;
  return b.server.databases.get(Number(v));
}

const STATE_DESC = 'ONLINE';
const AG_GROUP = '3c1e9a44-5b6d-4e7f-8a9b-0c1d2e3f4a5b';

function registerCatalogViews(): void {
  // sys.databases — https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-databases-transact-sql
  register({
    name: 'sys.databases',
    columns: 'name sysname, database_id int, source_database_id int, create_date datetime, compatibility_level tinyint, collation_name sysname, ' +
      'user_access tinyint, user_access_desc nvarchar(60), is_read_only bit, state tinyint, state_desc nvarchar(60), recovery_model tinyint, ' +
      'recovery_model_desc nvarchar(60), log_reuse_wait tinyint, log_reuse_wait_desc nvarchar(60), is_cdc_enabled bit, is_published bit, ' +
      'is_subscribed bit, is_merge_published bit, is_distributor bit, is_sync_with_backup bit, group_database_id uniqueidentifier, ' +
      'replica_id uniqueidentifier, delayed_durability int, delayed_durability_desc nvarchar(60), is_accelerated_database_recovery_on bit, ' +
      'physical_database_name nvarchar(128)',
    rows: (b) => [...b.server.databases.values()].map((d) => ({
      name: d.name, database_id: d.id, source_database_id: null, create_date: d.createDate, compatibility_level: b.server.options.major * 10,
      collation_name: 'SQL_Latin1_General_CP1_CI_AS', user_access: 0, user_access_desc: 'MULTI_USER', is_read_only: d.readOnly, state: 0,
      state_desc: STATE_DESC, recovery_model: { FULL: 1, BULK_LOGGED: 2, SIMPLE: 3 }[d.recoveryModel], recovery_model_desc: d.recoveryModel,
      log_reuse_wait: d.recoveryModel === 'FULL' && !d.system ? 2 : 0, log_reuse_wait_desc: d.recoveryModel === 'FULL' && !d.system ? 'LOG_BACKUP' : 'NOTHING',
      is_cdc_enabled: d.isCdcEnabled, is_published: d.isPublished, is_subscribed: false, is_merge_published: false, is_distributor: false,
      is_sync_with_backup: false, group_database_id: d.agGroupId, replica_id: d.agReplicaId, delayed_durability: d.delayedDurability,
      delayed_durability_desc: ['DISABLED', 'ALLOWED', 'FORCED'][d.delayedDurability]!, is_accelerated_database_recovery_on: false,
      physical_database_name: d.physicalName,
    })),
  });
  // sys.configurations, 'user connections' only ("Server configuration: user connections": 0 = the maximum, 32,767).
  // value / value_in_use are sql_variant on SQL Server; int here (NOT CONFIRMED how tedious reads the variant).
  register({
    name: 'sys.configurations',
    columns: 'configuration_id int, name nvarchar(35), value int, minimum int, maximum int, value_in_use int, description nvarchar(255), is_dynamic bit, is_advanced bit',
    rows: (b) => [{
      configuration_id: 103, name: 'user connections', value: b.server.options.userConnections, minimum: 0, maximum: 32767,
      value_in_use: b.server.options.userConnections, description: 'Number of user connections allowed', is_dynamic: false, is_advanced: true,
    }],
  });
  register({
    name: 'sys.change_tracking_databases',
    columns: 'database_id int, is_auto_cleanup_on tinyint, retention_period int, retention_period_units int, retention_period_units_desc nvarchar(60), max_cleanup_version bigint',
    rows: (b) => [...b.server.databases.values()].filter((d) => d.changeTracking).map((d) => ({
      database_id: d.id, is_auto_cleanup_on: 1, retention_period: 2, retention_period_units: 3, retention_period_units_desc: 'DAYS', max_cleanup_version: 0n,
    })),
  });
  const fileCols = 'file_id int, file_guid uniqueidentifier, type tinyint, type_desc nvarchar(60), data_space_id int, name sysname, physical_name nvarchar(260), ' +
    'state tinyint, state_desc nvarchar(60), size int, max_size int, growth int, is_media_read_only bit, is_read_only bit, is_sparse bit, is_percent_growth bit';
  const fileRow = (d: Database, f: Database['files'][number]): VRow => ({
    database_id: d.id, file_id: f.fileId, file_guid: null, type: f.type, type_desc: f.type === 0 ? 'ROWS' : 'LOG', data_space_id: f.type === 0 ? 1 : 0,
    name: f.name, physical_name: f.physicalName, state: 0, state_desc: 'ONLINE', size: f.sizePages, max_size: f.type === 0 ? -1 : 268435456,
    growth: f.growthPages, is_media_read_only: false, is_read_only: d.readOnly, is_sparse: false, is_percent_growth: false,
  });
  // sys.master_files — https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-master-files-transact-sql
  // Permissions: "The minimum permissions that are required to see the corresponding row are CREATE DATABASE, ALTER ANY
  // DATABASE, or VIEW ANY DEFINITION." Without them the view answers with no rows, not an error. CREATE DATABASE is
  // the database permission in master; CREATE ANY DATABASE (server, dbcreator) covers it.
  register({
    name: 'sys.master_files',
    columns: 'database_id int, ' + fileCols,
    rows: (b) => {
      const l = b.session.login;
      const master = b.server.dbByName('master')!;
      const ok = ['CREATE ANY DATABASE', 'ALTER ANY DATABASE', 'VIEW ANY DEFINITION'].some((p) => b.server.hasServerPermission(l, p))
        || b.server.hasDatabasePermission(l, master, 'CREATE DATABASE');
      if (!ok) return [];
      return [...b.server.databases.values()].flatMap((d) => d.files.map((f) => fileRow(d, f)));
    },
  });
  // sys.database_files: the current database's files; "Requires membership in the public role" (its Permissions
  // section, https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-files-transact-sql).
  register({ name: 'sys.database_files', columns: fileCols, rows: (b) => b.session.db.files.map((f) => fileRow(b.session.db, f)) });
  // sys.all_objects: system objects (a fixed synthetic set, used by workloads as a row source) plus user tables.
  const objCols = 'object_id int, name sysname, schema_id int, type varchar(2), type_desc nvarchar(60), create_date datetime, is_ms_shipped bit';
  register({
    name: 'sys.all_objects',
    columns: objCols,
    *rows(b) {
      const created = b.server.startTime;
      for (let i = 1; i <= 2000; i++) yield { object_id: -1000 - i, name: `system_object_${i}`, schema_id: 4, type: 'V', type_desc: 'VIEW', create_date: created, is_ms_shipped: true };
      for (const t of b.session.db.tables.values()) yield { object_id: t.objectId, name: t.name, schema_id: 1, type: 'U', type_desc: 'USER_TABLE', create_date: created, is_ms_shipped: false };
    },
  });
  // sys.all_columns: a fixed synthetic set of system columns (a common row source: CROSS JOIN for numbers).
  register({
    name: 'sys.all_columns',
    columns: 'object_id int, name sysname, column_id int, system_type_id tinyint, max_length smallint, is_nullable bit',
    *rows() {
      for (let i = 0; i < 6000; i++) yield { object_id: -1000 - Math.floor(i / 3), name: `column_${i}`, column_id: (i % 3) + 1, system_type_id: 56, max_length: 4, is_nullable: false };
    },
  });
  // Availability groups: one synchronous-commit primary per AG database (databases created with availabilityGroup).
  register({
    name: 'sys.dm_hadr_database_replica_states', check: requireServerState,
    columns: 'database_id int, group_id uniqueidentifier, replica_id uniqueidentifier, group_database_id uniqueidentifier, is_local bit, is_primary_replica bit, ' +
      'synchronization_state tinyint, synchronization_state_desc nvarchar(60), is_commit_participant bit, synchronization_health tinyint, synchronization_health_desc nvarchar(60)',
    rows: (b) => [...b.server.databases.values()].filter((d) => d.agGroupId).map((d) => ({
      database_id: d.id, group_id: AG_GROUP, replica_id: d.agReplicaId, group_database_id: d.agGroupId, is_local: true, is_primary_replica: true,
      synchronization_state: 2, synchronization_state_desc: 'SYNCHRONIZED', is_commit_participant: true, synchronization_health: 2, synchronization_health_desc: 'HEALTHY',
    })),
  });
  register({
    name: 'sys.availability_replicas',
    columns: 'replica_id uniqueidentifier, group_id uniqueidentifier, replica_server_name nvarchar(256), endpoint_url nvarchar(128), availability_mode tinyint, ' +
      'availability_mode_desc nvarchar(60), failover_mode tinyint, failover_mode_desc nvarchar(60)',
    rows: (b) => {
      const ids = new Set([...b.server.databases.values()].map((d) => d.agReplicaId).filter((x): x is string => !!x));
      return [...ids].map((id) => ({ replica_id: id, group_id: AG_GROUP, replica_server_name: b.server.options.serverName, endpoint_url: 'TCP://standin:5022', availability_mode: 1, availability_mode_desc: 'SYNCHRONOUS_COMMIT', failover_mode: 0, failover_mode_desc: 'AUTOMATIC' }));
    },
  });
  const userTables = (b: BatchContext) => [...b.session.db.tables.values()].map((t) => ({ object_id: t.objectId, name: t.name, schema_id: 1, type: 'U', type_desc: 'USER_TABLE', create_date: b.server.startTime, is_ms_shipped: false }));
  register({ name: 'sys.objects', columns: objCols, rows: userTables });
  // sys.tables adds is_memory_optimized / durability (0 SCHEMA_AND_DATA, 1 SCHEMA_ONLY; sys-tables-transact-sql): the
  // model has no memory-optimized tables, so every table reads 0 / SCHEMA_AND_DATA.
  register({
    name: 'sys.tables',
    columns: `${objCols}, is_memory_optimized bit, durability tinyint, durability_desc nvarchar(60)`,
    rows: (b) => userTables(b).map((t) => ({ ...t, is_memory_optimized: false, durability: 0, durability_desc: 'SCHEMA_AND_DATA' })),
  });
  // sys.fn_my_permissions(securable, class)
  register({
    name: 'sys.fn_my_permissions',
    columns: 'entity_name sysname, subentity_name sysname, permission_name nvarchar(60)',
    argCount: 2,
    rows: (b, args) => {
      const cls = String(args[1] ?? '').toUpperCase();
      if (cls === 'SERVER') {
        const names = b.server.options.major >= 16 ? serverPermissionNames2022 : serverPermissionNames2019;
        return names.filter((p) => b.server.hasServerPermission(b.session.login, p)).map((p) => ({ entity_name: 'server', subentity_name: '', permission_name: p }));
      }
      if (cls === 'DATABASE') {
        const db = args[0] === null ? b.session.db : b.server.dbByName(String(args[0]));
        if (!db) return [];
        return dbPermissionNames.filter((p) => b.server.hasDatabasePermission(b.session.login, db, p)).map((p) => ({ entity_name: 'database', subentity_name: '', permission_name: p }));
      }
      return [];
    },
  });
}
