// The pages each cause rule follows (looked up on Learn for issue 29), and the facts taken from them, quoted where a
// sentence decides a rule. A rule that goes beyond a page says so beside it.

/** "Control Transaction Durability": what delayed durability removes, and what it does in availability groups. */
export const LEARN_DELAYED_DURABILITY = 'https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability';

/**
 * "Troubleshoot slow SQL Server performance caused by I/O issues": WRITELOG's common causes — transaction log disk
 * latency, too many VLFs, too many small transactions ("1,000 inserts in a loop … 1,000 transaction flushes"), log
 * writer scheduling — and "If these waits exceed 10-15 milliseconds consistently, I/O is considered a bottleneck"; its
 * latency query grades < 2 ms Excellent, 2–5 ms Very good, 6–15 ms Good, 16–100 ms Poor.
 */
export const LEARN_SLOW_IO = 'https://learn.microsoft.com/troubleshoot/sql/database-engine/performance/troubleshoot-sql-io-performance#writelog';

/** sys.dm_os_wait_stats: WRITELOG, LOGBUFFER ("the log devices cannot keep up"), HADR_SYNC_COMMIT, LOG_RATE_GOVERNOR. */
export const LEARN_WAIT_TYPES = 'https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-os-wait-stats-transact-sql';

/**
 * Azure SQL Database resource limits, "Transaction log rate governance": the cap is MB/s of log generated; "The delays
 * aren't added when the log records are flushed to storage, rather log rate governance is applied during log rate
 * generation itself"; the waits LOG_RATE_GOVERNOR (database), POOL_LOG_RATE_GOVERNOR (pool), INSTANCE_LOG_RATE_GOVERNOR
 * (instance), HADR_THROTTLE_LOG_RATE_* (feedback control); remedies: a higher service level or tier, tempdb for
 * transient data, clustered columnstore.
 */
export const LEARN_LOG_RATE_GOVERNANCE = 'https://learn.microsoft.com/azure/azure-sql/database/resource-limits-logical-server#transaction-log-rate-governance';

/** sys.dm_user_db_resource_governance: primary_max_log_rate (bytes/s) and primary_log_commit_fee (bytes per log IO). */
export const LEARN_RESOURCE_GOVERNANCE_DMV = 'https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-user-db-resource-governor-azure-sql-database';

/**
 * Hyperscale performance diagnostics, "Log rate throttling waits": RBIO_RG_STORAGE / DESTAGE / REPLICA / LOCALDESTAGE —
 * the primary's log generation is throttled while page servers, long-term storage, replicas or the log service lag.
 */
export const LEARN_HYPERSCALE_DIAGNOSTICS = 'https://learn.microsoft.com/azure/azure-sql/database/hyperscale-performance-diagnostics#log-rate-throttling-waits';

/** sys.dm_hs_database_log_rate: which component reduces the log generation rate, to what, and how far behind it is. */
export const LEARN_HYPERSCALE_LOG_RATE = 'https://learn.microsoft.com/sql/relational-databases/system-functions/sys-dm-hs-database-log-rate';

/**
 * tempdb: Learn's Azure resource-limits page calls tempdb "minimally logged"; that its log is flushed lazily at commit
 * (it behaves as delayed durable though sys.databases says DISABLED) is Microsoft's SQL Server Blog, "I/O optimizations
 * for tempdb in SQL Server and Azure SQL" (2023-08-08) — not a Learn page (team reference sqlserver.md §5).
 */
export const LEARN_TEMPDB = 'https://learn.microsoft.com/sql/relational-databases/databases/tempdb-database';

/** "A SCHEMA_ONLY durability avoids transaction logging" (Defining Durability for Memory-Optimized Objects). */
export const LEARN_SCHEMA_ONLY = 'https://learn.microsoft.com/sql/relational-databases/in-memory-oltp/defining-durability-for-memory-optimized-objects';
