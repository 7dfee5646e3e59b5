// Azure SQL Database Hyperscale: which component (page server, replica, log service, long-term storage) holds the
// primary's log generation back and to what rate. Read only where the database is Hyperscale; elsewhere "not supported".
import type { SqlClient } from '../db/types';
import { measure, type Measurement } from './measurement';
import { AZURE_SQL_DATABASE, type GrantContext } from './permissions';
import { num, text } from './values';

/**
 * The service tier. DATABASEPROPERTYEX 'Edition' describes "the database edition or service tier" on Azure SQL
 * Database; Learn's value list names General Purpose, Business Critical, Basic, Standard, Premium — that it reads
 * "Hyperscale" for a Hyperscale database follows CREATE DATABASE's EDITION = 'Hyperscale' and is NOT CONFIRMED by the
 * property's page.
 * https://learn.microsoft.com/sql/t-sql/functions/databasepropertyex-transact-sql
 */
export const DATABASE_EDITION_SQL = `SELECT CAST(DATABASEPROPERTYEX(DB_NAME(), 'Edition') AS nvarchar(64)) AS edition;`;

/**
 * "Each row in the result set represents a component that controls (reduces) log generation rate"; when none reduces
 * it, one row for the primary compute replica with the maximum allowed rate. Rows only on the primary replica; needs
 * VIEW DATABASE PERFORMANCE STATE. The page's table names the rate columns current_max_log_rate / catchup_rate /
 * catchup_bytes while its examples select current_max_log_rate_bps / catchup_rate_bps / catchup_distance_bytes, so
 * the probe reads every column and the mapper takes either name.
 * https://learn.microsoft.com/sql/relational-databases/system-functions/sys-dm-hs-database-log-rate
 */
export const HYPERSCALE_LOG_RATE_SQL = `SELECT *
FROM sys.dm_hs_database_log_rate(DB_ID());`;

/** role → the wait a throttled primary shows for it (the same page: 1 RBIO_RG_STORAGE, 4 RBIO_RG_REPLICA, …). */
export const HYPERSCALE_ROLE_WAITS: Record<number, string> = {
  1: 'RBIO_RG_STORAGE',
  4: 'RBIO_RG_REPLICA',
  5: 'RBIO_RG_LOCALDESTAGE',
  6: 'RBIO_RG_DESTAGE',
  10: 'RBIO_RG_GEOREPLICA',
  12: 'RBIO_RG_STORAGE_CHECKPOINT',
  14: 'RBIO_RG_MIGRATION_TARGET',
};

export interface HyperscaleLogRateRow {
  role: number | null;
  /** Storage (page servers), Primary, Replica, LocalDestage (log service), Destage (long-term storage), GeoReplica, … */
  roleDesc: string | null;
  /** Bytes per second the primary may log now. */
  currentMaxLogRateBytesPerSec: number | null;
  /** Bytes per second the component catches up at; 0 when the rate is not reduced. */
  catchupRateBytesPerSec: number | null;
  /** Log the component still has to apply; 0 when caught up. */
  catchupBytes: number | null;
}

export interface HyperscaleLogRate {
  edition: string | null;
  rows: HyperscaleLogRateRow[];
}

export function mapHyperscaleLogRateRow(r: Record<string, unknown>): HyperscaleLogRateRow {
  const first = (...names: string[]) => names.map((n) => num(r[n])).find((v) => v !== null) ?? null;
  return {
    role: num(r.role),
    roleDesc: text(r.role_desc),
    currentMaxLogRateBytesPerSec: first('current_max_log_rate', 'current_max_log_rate_bps'),
    catchupRateBytesPerSec: first('catchup_rate', 'catchup_rate_bps'),
    catchupBytes: first('catchup_bytes', 'catchup_distance_bytes'),
  };
}

export function isHyperscaleEdition(edition: string | null): boolean {
  return edition !== null && /^hyperscale$/i.test(edition.trim());
}

/** On Azure SQL Database: the edition, then (Hyperscale only) the DMF. Elsewhere "not supported" without a query. */
export async function captureHyperscaleLogRate(monitor: SqlClient, ctx: GrantContext): Promise<Measurement<HyperscaleLogRate>> {
  if (ctx.engineEdition !== AZURE_SQL_DATABASE) {
    return {
      status: 'unavailable',
      measurement: 'hyperscaleLogRate',
      cause: 'not-supported',
      reason: 'No Hyperscale log-rate figures: sys.dm_hs_database_log_rate applies to Azure SQL Database Hyperscale only.',
      grant: null,
      errorNumber: null,
    };
  }
  const edition = await measure('hyperscaleLogRate', ctx, async () => text((await monitor.query(DATABASE_EDITION_SQL))[0]?.edition));
  if (edition.status !== 'ok') return edition;
  if (!isHyperscaleEdition(edition.value)) {
    return {
      status: 'unavailable',
      measurement: 'hyperscaleLogRate',
      cause: 'not-supported',
      reason: `No Hyperscale log-rate figures: the database's service tier is ${edition.value ?? 'not reported'}, not Hyperscale (sys.dm_hs_database_log_rate applies to Hyperscale only).`,
      grant: null,
      errorNumber: null,
    };
  }
  return measure('hyperscaleLogRate', ctx, async () => ({ edition: edition.value, rows: (await monitor.query(HYPERSCALE_LOG_RATE_SQL)).map(mapHyperscaleLogRateRow) }));
}
