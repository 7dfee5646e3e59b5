// The Azure SQL views the cause model reads (issue 29): the log-rate cap of Azure SQL Database and Hyperscale's
// log-rate limits. Invalid objects (208) where the platform lacks them, as the pages' "applies to" say; figures from
// the commitCauses switches. Columns follow the Learn pages.
import { register, requireServerState } from './catalog';
import { commitCauses } from './commitCauses';
import type { BatchContext } from './eval';
import { errors } from './errors';

const MB = 1024 * 1024;
/** Hyperscale's documented log generation limit when nothing throttles it ("currently set to 100 MB/sec", Hyperscale performance diagnostics). */
const HYPERSCALE_LIMIT_BYTES = 100 * MB;
/** The cap reported when the switch is off: modelling choice (Learn: up to 96 MB/s with vCore), NOT CONFIRMED per objective. */
const DEFAULT_CAP_BYTES = 96 * MB;

function onlyOn(b: BatchContext, line: number, name: string, ok: boolean): void {
  if (!ok) throw errors.invalidObject(name, line);
  requireServerState(b, line);
}

export function registerCauseTables(): void {
  // https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-user-db-resource-governor-azure-sql-database
  // "Applies to: Azure SQL Database"; one row per database of the pool, the current one for a single database.
  register({
    name: 'sys.dm_user_db_resource_governance',
    check: (b, line) => onlyOn(b, line, 'sys.dm_user_db_resource_governance', b.server.options.product === 'azure-sqldb'),
    columns: 'database_id int, database_name nvarchar(128), slo_name nvarchar(128), primary_max_log_rate bigint, primary_min_log_rate bigint, primary_log_commit_fee int, instance_max_log_rate bigint',
    rows: (b) => {
      const c = commitCauses(b.server);
      const cap = c.logRateLimitMbps !== null && !c.hyperscale ? Math.round(c.logRateLimitMbps * MB) : DEFAULT_CAP_BYTES;
      return [{ database_id: b.session.db.id, database_name: b.session.db.name, slo_name: c.hyperscale ? 'HS_Gen5_2' : (b.server.options.serviceObjective || 'GP_Gen5_2'), primary_max_log_rate: BigInt(cap), primary_min_log_rate: 0n, primary_log_commit_fee: c.logCommitFeeBytes, instance_max_log_rate: BigInt(cap) }];
    },
  });
  // https://learn.microsoft.com/sql/relational-databases/system-functions/sys-dm-hs-database-log-rate — Hyperscale only;
  // a row for the component reducing the rate, else one for the primary with the maximum allowed rate. The column
  // names are the page's table's (its examples use *_bps names: which the server returns is NOT CONFIRMED).
  register({
    name: 'sys.dm_hs_database_log_rate',
    argCount: 1,
    check: (b, line) => onlyOn(b, line, 'sys.dm_hs_database_log_rate', b.server.options.product === 'azure-sqldb' && commitCauses(b.server).hyperscale),
    columns: 'database_id int, replica_id uniqueidentifier, file_id int, current_max_log_rate bigint, component_id uniqueidentifier, role smallint, role_desc nvarchar(60), catchup_rate bigint, catchup_bytes bigint, last_reported_time datetime',
    rows: (b) => {
      const c = commitCauses(b.server);
      const throttled = c.logRateLimitMbps !== null && c.logRateLimitMbps > 0;
      return [{
        database_id: b.session.db.id, replica_id: throttled ? null : '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', file_id: throttled ? 1 : null,
        current_max_log_rate: BigInt(throttled ? Math.round(c.logRateLimitMbps! * MB) : HYPERSCALE_LIMIT_BYTES),
        component_id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b', role: throttled ? 1 : 2, role_desc: throttled ? 'Storage' : 'Primary',
        catchup_rate: BigInt(throttled ? Math.round(c.logRateLimitMbps! * MB) : 0), catchup_bytes: throttled ? 64n * BigInt(MB) : 0n, last_reported_time: new Date(),
      }];
    },
  });
}
