// What a Query Store read means for the user (issue 30, item 4): one outcome per state — readable, read-only, off, in
// error, no permission, failed — each with what happened, what it means (nothing was changed: the read is read-only)
// and the exact statement that fixes it with what that costs. Statements are built with quoted names only.
import { quoteName } from '../db/quote';
import { inComment, type GrantContext } from './permissions';
import type { QueryStoreHistory, QueryStoreOptionsRow } from './queryStore';

export type QueryStoreOutcomeKind = 'ready' | 'read-only' | 'off' | 'error' | 'no-permission' | 'failed';

export interface QueryStoreFix {
  /** The T-SQL to run (never run by Durability Lens: shown and copied only). */
  statement: string;
  /** What running it costs or changes, in one or two sentences. */
  cost: string;
}

export interface QueryStoreOutcome {
  kind: QueryStoreOutcomeKind;
  /** Whether rows can be shown (ready, read-only). */
  readable: boolean;
  /** One paragraph: what happened and what it means. Always says nothing was changed. */
  message: string;
  fix: QueryStoreFix | null;
  /** Further notices (wait statistics off, SQL Server 2016, the platform). */
  notices: string[];
}

const NOTHING_CHANGED = 'Nothing was changed: Durability Lens only reads Query Store.';

/**
 * readonly_reason bits (sys.database_query_store_options,
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql).
 */
const READONLY_REASONS: ReadonlyArray<[number, string]> = [
  [1, 'the database is read-only'],
  [2, 'the database is in single-user mode'],
  [4, 'the database is in emergency mode'],
  [8, 'the database is a secondary replica'],
  [65536, 'Query Store reached MAX_STORAGE_SIZE_MB'],
  [131072, 'the number of different statements reached the internal memory limit'],
  [262144, 'in-memory items waiting to be persisted reached the internal memory limit (temporary)'],
  [524288, 'the database reached its disk size limit'],
];

export function readonlyReasons(bits: number | null): string[] {
  if (!bits) return [];
  return READONLY_REASONS.filter(([bit]) => (bits & bit) !== 0).map(([, text]) => text);
}

/** The platform, as the fixes need it: Azure SQL Database cannot turn Query Store off, MI and 2022 have granular permissions. */
function platformOf(ctx: GrantContext): 'sql-server' | 'azure-sql-database' | 'azure-sql-managed-instance' {
  return ctx.engineEdition === 5 ? 'azure-sql-database' : ctx.engineEdition === 8 ? 'azure-sql-managed-instance' : 'sql-server';
}

/**
 * Turning Query Store on (ALTER DATABASE SET options, https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options)
 * and what it costs ("Manage the Query Store", https://learn.microsoft.com/sql/relational-databases/performance/manage-the-query-store):
 * it keeps its data inside this database up to MAX_STORAGE_SIZE_MB (100 MB by default before SQL Server 2019, 1,000 MB
 * from 2019), writes it asynchronously every DATA_FLUSH_INTERVAL_SECONDS (900 by default), and "Many ALTER DATABASE
 * operations invalidate the plan cache for the affected database" — the next executions recompile.
 */
export function enableQueryStoreFix(ctx: GrantContext): QueryStoreFix {
  const size = ctx.majorVersion >= 15 || ctx.engineEdition === 5 || ctx.engineEdition === 8 ? '1,000 MB' : '100 MB';
  return {
    statement: `ALTER DATABASE ${quoteName(ctx.databaseName)} SET QUERY_STORE = ON (OPERATION_MODE = READ_WRITE);`,
    cost: `Needs ALTER on the database. Query Store then keeps plans and runtime statistics inside ${inComment(ctx.databaseName)} (up to MAX_STORAGE_SIZE_MB, ${size} by default here), writes them asynchronously every 15 minutes (DATA_FLUSH_INTERVAL_SECONDS 900), and the ALTER DATABASE clears this database's plan cache, so the next executions recompile. History starts then: the first figures appear once queries have run.`,
  };
}

/** Back to READ_WRITE (same page); when the size limit is the reason, more room first. */
function readWriteFix(ctx: GrantContext, options: QueryStoreOptionsRow): QueryStoreFix {
  const full = ((options.readonlyReason ?? 0) & 65536) !== 0;
  const db = quoteName(ctx.databaseName);
  if (full) {
    const next = Math.max(1000, (options.maxStorageSizeMb ?? 100) * 2);
    return {
      statement: `ALTER DATABASE ${db} SET QUERY_STORE (OPERATION_MODE = READ_WRITE, MAX_STORAGE_SIZE_MB = ${next});`,
      cost: `Needs ALTER on the database. Lets Query Store use up to ${next} MB inside the database (now ${options.currentStorageSizeMb ?? '?'} MB of ${options.maxStorageSizeMb ?? '?'} MB) and record again; SIZE_BASED_CLEANUP_MODE = AUTO keeps it below that by removing the oldest, cheapest queries.`,
    };
  }
  return {
    statement: `ALTER DATABASE ${db} SET QUERY_STORE (OPERATION_MODE = READ_WRITE);`,
    cost: 'Needs ALTER on the database. Query Store records again from then on; what it kept so far stays readable.',
  };
}

/** WAIT_STATS_CAPTURE_MODE ("Applies to: SQL Server 2017 (14.x) and later"). */
export function waitCaptureFix(ctx: GrantContext): QueryStoreFix {
  return {
    statement: `ALTER DATABASE ${quoteName(ctx.databaseName)} SET QUERY_STORE (WAIT_STATS_CAPTURE_MODE = ON);`,
    cost: 'Needs ALTER on the database. Query Store then also keeps each query\'s waits by category (a few rows per plan and interval in the same storage); waits before that stay unknown.',
  };
}

/**
 * ERROR: "Starting with SQL Server 2017, … Query Store can be recovered by executing the sp_query_store_consistency_check
 * stored procedure in the affected database. If running sp_query_store_consistency_check doesn't work, or if you are
 * using SQL Server 2016, you will need to clear the data by running ALTER DATABASE … SET QUERY_STORE CLEAR ALL"
 * (sys.database_query_store_options page).
 */
function errorFix(ctx: GrantContext): QueryStoreFix {
  const db = quoteName(ctx.databaseName);
  if (ctx.majorVersion === 13 && ctx.engineEdition !== 5 && ctx.engineEdition !== 8) {
    return { statement: `ALTER DATABASE ${db} SET QUERY_STORE CLEAR ALL;`, cost: 'Needs ALTER on the database. Deletes every query, plan and statistic Query Store kept: the history starts again empty.' };
  }
  return {
    statement: `USE ${db};\nEXEC sys.sp_query_store_consistency_check;`,
    cost: 'Checks and repairs Query Store\'s data in this database. If it does not help, ALTER DATABASE … SET QUERY_STORE CLEAR ALL deletes the history so it can start again.',
  };
}

/** The outcome of one read, from the history's parts (pure). */
export function queryStoreOutcome(h: QueryStoreHistory): QueryStoreOutcome {
  const ctx = h.ctx;
  const db = inComment(ctx.databaseName);
  const platform = platformOf(ctx);
  const notices: string[] = [];
  if (h.access.status !== 'ok') {
    const m = h.access;
    if (m.cause === 'permission') {
      return {
        kind: 'no-permission', readable: false, fix: m.grant ? { statement: m.grant, cost: `A read permission on ${db} only: it shows the database's performance state (Query Store, database DMVs), no data and no right to change anything.` } : null,
        message: `${m.reason} ${NOTHING_CHANGED}`, notices,
      };
    }
    return { kind: 'failed', readable: false, fix: null, message: `Query Store of ${db} could not be read: ${m.reason} ${NOTHING_CHANGED}`, notices };
  }
  if (h.options.status !== 'ok') {
    const m = h.options;
    if (m.cause === 'permission') return { kind: 'no-permission', readable: false, fix: m.grant ? { statement: m.grant, cost: `A read permission on ${db} only.` } : null, message: `${m.reason} ${NOTHING_CHANGED}`, notices };
    return { kind: 'failed', readable: false, fix: null, message: `Query Store of ${db} could not be read: ${m.reason} ${NOTHING_CHANGED}`, notices };
  }
  const o = h.options.value;
  if (!h.capabilities.waits) notices.push('SQL Server 2016: Query Store keeps no wait statistics (sys.query_store_wait_stats arrived with SQL Server 2017) and no log bytes per query (avg_log_bytes_used): the rows are ranked by executions, and log and wait figures read "not measured". Upgrading is the only fix.');
  else if ((o.waitStatsCaptureMode ?? '').toUpperCase() === 'OFF') {
    const fix = waitCaptureFix(ctx);
    notices.push(`Wait statistics are not captured here (WAIT_STATS_CAPTURE_MODE = OFF): log-IO wait figures read "not measured". To capture them: ${fix.statement} (${fix.cost})`);
  }
  if (platform === 'azure-sql-database') notices.push('Azure SQL Database: Query Store is always on in single databases and elastic pools (it cannot be turned off); the permission is VIEW DATABASE STATE.');
  if (platform === 'azure-sql-managed-instance') notices.push('Azure SQL Managed Instance: Query Store works as on SQL Server 2022 (VIEW DATABASE PERFORMANCE STATE is enough to read it); the instance reports version 12, which says nothing about its engine.');
  switch (o.actualState.toUpperCase()) {
    case 'READ_WRITE':
    case 'READ_CAPTURE_SECONDARY':
      return { kind: 'ready', readable: true, fix: null, message: `Query Store of ${db} is recording (READ_WRITE). ${NOTHING_CHANGED}`, notices };
    case 'READ_ONLY': {
      const reasons = readonlyReasons(o.readonlyReason);
      const why = o.desiredState.toUpperCase() === 'READ_WRITE'
        ? `it was asked to record but is read-only because ${reasons.length > 0 ? reasons.join(' and ') : `of reason code ${o.readonlyReason ?? 'unknown'}`}`
        : 'it was set to READ_ONLY';
      return {
        kind: 'read-only', readable: true, fix: readWriteFix(ctx, o),
        message: `Query Store of ${db} is READ_ONLY: ${why}. It keeps what it recorded, so the figures below stop at the moment it stopped recording and miss everything since. ${NOTHING_CHANGED}`,
        notices,
      };
    }
    case 'OFF': {
      // "You cannot enable the query store for the master or tempdb database" (Monitor performance by using the Query
      // Store, https://learn.microsoft.com/sql/relational-databases/performance/monitoring-performance-by-using-the-query-store):
      // an ALTER there only fails. DB_NAME() gives the system names in lower case whatever the collation.
      if (ctx.databaseName === 'master' || ctx.databaseName === 'tempdb') {
        return { kind: 'off', readable: false, fix: null, message: `Query Store is OFF for ${db} and cannot be turned on there (Learn: "You cannot enable the query store for the master or tempdb database"). Connect to the user database whose workload you want to rank. ${NOTHING_CHANGED}`, notices };
      }
      const fix = enableQueryStoreFix(ctx);
      const azure = platform === 'azure-sql-database' ? ' (Azure SQL Database keeps it on in single databases and elastic pools: ask the administrator why it is off)' : '';
      return { kind: 'off', readable: false, fix, message: `Query Store is OFF for ${db}${azure}: there is no production history to rank. ${NOTHING_CHANGED}`, notices };
    }
    case 'ERROR':
      return { kind: 'error', readable: false, fix: errorFix(ctx), message: `Query Store of ${db} is in the ERROR state (an internal error stopped it): its history cannot be trusted or read. ${NOTHING_CHANGED}`, notices };
    default:
      return { kind: 'failed', readable: false, fix: null, message: `Query Store of ${db} reports the state "${inComment(o.actualState)}", which Durability Lens does not know. ${NOTHING_CHANGED}`, notices };
  }
}
