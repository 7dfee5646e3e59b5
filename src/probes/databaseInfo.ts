// The target database's settings that decide what delayed durability can do: DELAYED_DURABILITY itself,
// recovery model, CDC / replication / change tracking (which keep commits fully durable), AG membership.
import type { SqlClient } from '../db/types';
import { measure, notApplicable, type Measurement } from './measurement';
import { AZURE_SQL_DATABASE, type GrantContext } from './permissions';
import { bool, num, text } from './values';

/**
 * delayed_durability 0/1/2 = DISABLED/ALLOWED/FORCED (reference §5). group_database_id is non-NULL for AG members on
 * SQL Server — and on Azure SQL Database and Managed Instance for every database the platform replicates internally
 * (the column "applies to: SQL Server, Azure SQL Database"; reference §8b), so it means "user availability group" on
 * SQL Server only (issue 33 D3).
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-databases-transact-sql
 */
export const DATABASE_SQL = `SELECT
  d.database_id,
  d.name,
  d.state_desc,
  d.recovery_model_desc,
  d.delayed_durability,
  d.delayed_durability_desc,
  d.is_cdc_enabled,
  d.is_published,
  d.is_merge_published,
  d.log_reuse_wait_desc,
  CAST(d.group_database_id AS nvarchar(36)) AS group_database_id
FROM sys.databases AS d
WHERE d.database_id = @database_id;`;

/** One row per database with change tracking on. https://learn.microsoft.com/sql/relational-databases/system-catalog-views/change-tracking-catalog-views-sys-change-tracking-databases */
export const CHANGE_TRACKING_SQL = `SELECT COUNT(*) AS tracked
FROM sys.change_tracking_databases
WHERE database_id = @database_id;`;

/**
 * SQL Server only: replicas of this database's availability group and their commit mode (synchronous commit →
 * HADR_SYNC_COMMIT). The sys.dm_hadr_* views "apply to: SQL Server".
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-hadr-database-replica-states-transact-sql
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-availability-replicas-transact-sql
 */
export const AG_REPLICAS_SQL = `SELECT
  ar.replica_server_name,
  ar.availability_mode_desc,
  rs.is_local,
  rs.synchronization_state_desc
FROM sys.dm_hadr_database_replica_states AS rs
JOIN sys.availability_replicas AS ar ON ar.replica_id = rs.replica_id
WHERE rs.database_id = @database_id;`;

/**
 * Azure SQL Database and Managed Instance: the platform's replicas of this database (primary, secondaries, geo
 * replicas). No server names or availability mode are exposed there; is_primary_replica tells the roles.
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-database-replica-states-azure-sql-database
 */
export const PAAS_REPLICAS_SQL = `SELECT
  rs.is_local,
  rs.is_primary_replica,
  rs.synchronization_state_desc
FROM sys.dm_database_replica_states AS rs
WHERE rs.database_id = @database_id;`;

export type DelayedDurability = 'DISABLED' | 'ALLOWED' | 'FORCED';

export interface AgReplica {
  serverName: string;
  availabilityMode: string;
  isLocal: boolean;
  synchronizationState: string;
}

export interface DatabaseInfo {
  databaseId: number;
  name: string;
  state: string;
  recoveryModel: string;
  delayedDurability: DelayedDurability;
  cdcEnabled: boolean;
  /** Transactional or snapshot publication (sys.databases.is_published). */
  published: boolean;
  /** Merge publication (sys.databases.is_merge_published). */
  mergePublished?: boolean;
  logReuseWait: string | null;
  /** A user availability group on SQL Server (group_database_id set); false on Azure SQL Database / Managed Instance. */
  inAvailabilityGroup: boolean;
  /**
   * Azure SQL Database / Managed Instance: the platform replicates this database (group_database_id set there too,
   * e.g. Business Critical and Premium replicas). Not a user availability group; absent in older results.
   */
  platformReplicated?: boolean;
  changeTracking: Measurement<boolean>;
  agReplicas: Measurement<AgReplica[]>;
}

const DURABILITY_BY_CODE: Record<number, DelayedDurability> = { 0: 'DISABLED', 1: 'ALLOWED', 2: 'FORCED' };

/** sys.databases.delayed_durability_desc as the setting it names; null for anything else (NULL, a hidden row). */
export function durabilityOfDesc(value: unknown): DelayedDurability | null {
  const desc = text(value)?.toUpperCase();
  return desc === 'DISABLED' || desc === 'ALLOWED' || desc === 'FORCED' ? desc : null;
}

/** `engineEdition` (SERVERPROPERTY): group_database_id means a user AG on SQL Server only (5 SQL Database, 8 MI). */
export function mapDatabaseRow(row: Record<string, unknown>, engineEdition: number | null = null): Omit<DatabaseInfo, 'changeTracking' | 'agReplicas'> {
  const delayedDurability = durabilityOfDesc(row.delayed_durability_desc) ?? DURABILITY_BY_CODE[num(row.delayed_durability) ?? 0] ?? 'DISABLED';
  return {
    databaseId: num(row.database_id) ?? 0,
    name: text(row.name) ?? '',
    state: text(row.state_desc) ?? '',
    recoveryModel: text(row.recovery_model_desc) ?? '',
    delayedDurability,
    cdcEnabled: bool(row.is_cdc_enabled) ?? false,
    published: bool(row.is_published) ?? false,
    mergePublished: bool(row.is_merge_published) ?? false,
    logReuseWait: text(row.log_reuse_wait_desc),
    inAvailabilityGroup: text(row.group_database_id) !== null && !isPaas(engineEdition),
    platformReplicated: text(row.group_database_id) !== null && isPaas(engineEdition),
  };
}

/** Azure SQL Database (5) and Managed Instance (8): SERVERPROPERTY('EngineEdition'), serverproperty-transact-sql. */
function isPaas(engineEdition: number | null): boolean {
  return engineEdition === AZURE_SQL_DATABASE || engineEdition === 8;
}

/** PaaS replica rows: no server name or commit mode is exposed, so they read as the replica's role. */
export function mapPaasReplicas(rows: readonly Record<string, unknown>[]): AgReplica[] {
  return rows.map((r) => ({
    serverName: bool(r.is_local) ? '(this replica)' : bool(r.is_primary_replica) ? '(primary replica)' : '(platform replica)',
    availabilityMode: 'not exposed (platform replica)',
    isLocal: bool(r.is_local) ?? false,
    synchronizationState: text(r.synchronization_state_desc) ?? '',
  }));
}

export function mapAgReplicas(rows: readonly Record<string, unknown>[]): AgReplica[] {
  return rows.map((r) => ({
    serverName: text(r.replica_server_name) ?? '',
    availabilityMode: text(r.availability_mode_desc) ?? '',
    isLocal: bool(r.is_local) ?? false,
    synchronizationState: text(r.synchronization_state_desc) ?? '',
  }));
}

async function readDatabaseInfo(monitor: SqlClient, databaseId: number, ctx: GrantContext): Promise<DatabaseInfo> {
  const param = [{ name: 'database_id', type: 'int' as const, value: databaseId }];
  const rows = await monitor.query(DATABASE_SQL, param);
  if (!rows[0]) throw new Error(`Database id ${databaseId} is not visible to this login (sys.databases returned no row).`);
  const base = mapDatabaseRow(rows[0], ctx.engineEdition);
  const changeTracking = await measure('changeTracking', ctx, async () => (num((await monitor.query(CHANGE_TRACKING_SQL, param))[0]?.tracked) ?? 0) > 0);
  const agReplicas = base.inAvailabilityGroup
    ? await measure('availabilityGroup', ctx, async () => mapAgReplicas(await monitor.query(AG_REPLICAS_SQL, param)))
    : base.platformReplicated
      ? await measure('availabilityGroup', ctx, async () => mapPaasReplicas(await monitor.query(PAAS_REPLICAS_SQL, param)))
      : notApplicable<AgReplica[]>('availabilityGroup', 'The database is not in an availability group (sys.databases.group_database_id is NULL).');
  return { ...base, changeTracking, agReplicas };
}

/** The database's settings as a measurement: a database this login cannot see is "not measured", with the reason. */
export async function captureDatabaseInfo(monitor: SqlClient, databaseId: number, ctx: GrantContext): Promise<Measurement<DatabaseInfo>> {
  return measure('databaseInfo', ctx, () => readDatabaseInfo(monitor, databaseId, ctx));
}

/**
 * DELAYED_DURABILITY alone, for the after-snapshot: a script may change it (ALTER DATABASE), and a profile says so
 * (profile/workloadDurability.ts). Learn (sys-databases): the database the caller is connected to is always visible;
 * another one may be hidden from a login without VIEW ANY DATABASE, and then the answer is null (unknown, not "same").
 */
export const DURABILITY_NOW_SQL = `SELECT delayed_durability_desc FROM sys.databases WHERE database_id = @database_id;`;

/** The setting now, or null when it could not be read (hidden row, refused, failed). */
export async function readDurabilityNow(monitor: SqlClient, databaseId: number): Promise<DelayedDurability | null> {
  try {
    return durabilityOfDesc((await monitor.query(DURABILITY_NOW_SQL, [{ name: 'database_id', type: 'int', value: databaseId }]))[0]?.delayed_durability_desc);
  } catch {
    return null;
  }
}
