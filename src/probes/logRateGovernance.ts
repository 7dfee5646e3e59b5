// The log-generation cap Azure SQL Database puts on this database ("transaction log rate governance"): the bytes per
// second the user workload may log, and the commit fee each log IO is charged for. It is what LOG_RATE_GOVERNOR waits
// are measured against; elsewhere it does not exist and reads "not supported", never a zero cap.
import type { SqlClient } from '../db/types';
import { measure, type Measurement } from './measurement';
import { AZURE_SQL_DATABASE, type GrantContext } from './permissions';
import { num, text } from './values';

/**
 * One row per database of the current database's elastic pool (one for a single database), so it is filtered to the
 * current one. primary_max_log_rate: "Maximum log rate in bytes per second at user workload group level"; primary_log_
 * commit_fee: "A commit fee increases the size of each log IO by a fixed value for the purposes of log rate accounting
 * only"; instance_max_log_rate: the instance-wide limit, tempdb included. Requires VIEW DATABASE STATE.
 * https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-user-db-resource-governor-azure-sql-database
 */
export const LOG_RATE_GOVERNANCE_SQL = `SELECT TOP (1)
  slo_name,
  primary_max_log_rate,
  primary_log_commit_fee,
  instance_max_log_rate
FROM sys.dm_user_db_resource_governance
WHERE database_id = DB_ID();`;

export interface LogRateGovernance {
  /** Service level objective with hardware generation (slo_name), as the platform names it. */
  serviceObjective: string | null;
  /** Bytes per second the user workload may generate; null when the row had none. */
  maxLogRateBytesPerSec: number | null;
  /** Bytes added to each log IO for rate accounting only (the actual IO is not bigger). */
  commitFeeBytes: number | null;
  instanceMaxLogRateBytesPerSec: number | null;
}

export function mapLogRateGovernance(row: Record<string, unknown> | undefined): LogRateGovernance | null {
  if (!row) return null;
  return {
    serviceObjective: text(row.slo_name),
    maxLogRateBytesPerSec: num(row.primary_max_log_rate),
    commitFeeBytes: num(row.primary_log_commit_fee),
    instanceMaxLogRateBytesPerSec: num(row.instance_max_log_rate),
  };
}

/** Asked only on Azure SQL Database (EngineEdition 5); elsewhere the view does not exist: "not supported", no query. */
export function logRateGovernanceApplies(ctx: Pick<GrantContext, 'engineEdition'>): boolean {
  return ctx.engineEdition === AZURE_SQL_DATABASE;
}

export async function captureLogRateGovernance(monitor: SqlClient, ctx: GrantContext): Promise<Measurement<LogRateGovernance | null>> {
  if (!logRateGovernanceApplies(ctx)) {
    return {
      status: 'unavailable',
      measurement: 'logRateGovernance',
      cause: 'not-supported',
      reason: 'No log-rate cap to read: sys.dm_user_db_resource_governance exists on Azure SQL Database only (SQL Server does not govern log generation; Managed Instance reports its limits in another view, not read here).',
      grant: null,
      errorNumber: null,
    };
  }
  return measure('logRateGovernance', ctx, async () => mapLogRateGovernance((await monitor.query(LOG_RATE_GOVERNANCE_SQL))[0]));
}
