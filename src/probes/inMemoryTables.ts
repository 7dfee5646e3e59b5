// Memory-optimized tables declared SCHEMA_ONLY in the measured database: their changes are not logged, so a workload
// writing to them commits without a log flush — the cause model counts them beside tempdb's lazily flushed log.
import type { SqlClient } from '../db/types';
import { measure, notApplicable, type Measurement } from './measurement';
import type { GrantContext } from './permissions';
import { num } from './values';

/**
 * sys.tables (SQL Server 2014+, Azure SQL Database): is_memory_optimized 1 = memory optimized; durability 0 =
 * SCHEMA_AND_DATA, 1 = SCHEMA_ONLY. Catalog views show only the tables the login may see (metadata visibility), so
 * the count is of visible tables — there is no GRANT that reveals the others.
 * https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-tables-transact-sql
 * "A SCHEMA_ONLY durability avoids transaction logging" (Defining Durability for Memory-Optimized Objects):
 * https://learn.microsoft.com/sql/relational-databases/in-memory-oltp/defining-durability-for-memory-optimized-objects
 */
export const SCHEMA_ONLY_TABLES_SQL = `SELECT COUNT(*) AS schema_only_tables
FROM sys.tables
WHERE is_memory_optimized = 1 AND durability = 1;`;

export interface InMemoryTables {
  /** SCHEMA_ONLY memory-optimized tables visible to this login in the measured database. */
  schemaOnlyTables: number;
}

/** sys.tables describes the current database only: read when the monitor connection sits in the measured one. */
export async function captureInMemoryTables(monitor: SqlClient, inTargetDb: boolean, ctx: GrantContext): Promise<Measurement<InMemoryTables>> {
  if (!inTargetDb) return notApplicable('inMemoryTables', `sys.tables describes the current database only; the monitor connection is not in "${ctx.databaseName}".`);
  return measure('inMemoryTables', ctx, async () => ({ schemaOnlyTables: num((await monitor.query(SCHEMA_ONLY_TABLES_SQL))[0]?.schema_only_tables) ?? 0 }));
}
