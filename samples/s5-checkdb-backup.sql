-- S5: integrity check and backup as a read-throughput profile of the current database's data files.
-- Profile it with sampling on: the per-file read bytes over time show how each file (and volume) is read.
-- (Scenario S5 of the team's scenarios reference. N'NUL' is the Windows null device: nothing is written;
-- COPY_ONLY keeps the backup out of the differential base and log chain.)
-- Footprint: 0 rows; under 1 MB of log per run; reads the whole database twice, so its time on a real server grows
-- with the database: about 10 s per GB at 200 MB/s of reads.
DBCC CHECKDB WITH PHYSICAL_ONLY;
GO

DECLARE @db sysname = DB_NAME();
BACKUP DATABASE @db TO DISK = N'NUL' WITH COPY_ONLY;
GO
