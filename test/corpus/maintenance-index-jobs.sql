-- Nightly index maintenance for the reporting database.
-- Rebuilds fragmented indexes one by one and records each command in dbo.CommandLog.
USE ReportingDb;
GO
SET NOCOUNT ON;
GO
IF OBJECT_ID(N'dbo.CommandLog') IS NULL
    CREATE TABLE dbo.CommandLog (
        id int IDENTITY PRIMARY KEY,
        command nvarchar(max) NOT NULL,
        started datetime2 NOT NULL,
        finished datetime2 NULL,
        error_number int NULL
    );
GO
CREATE OR ALTER PROCEDURE dbo.IndexMaintenance
    @FragmentationLevel int = 30,
    @PageCountLevel int = 1000,
    @LogToTable bit = 1
WITH EXECUTE AS OWNER
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @sql nvarchar(max), @logId int, @started datetime2;

    DECLARE index_cursor CURSOR LOCAL FAST_FORWARD FOR
        SELECT N'ALTER INDEX ' + QUOTENAME(i.name) + N' ON ' + QUOTENAME(s.name) + N'.' + QUOTENAME(o.name) + N' REBUILD'
        FROM sys.dm_db_index_physical_stats(DB_ID(), NULL, NULL, NULL, 'LIMITED') AS ps
        JOIN sys.indexes AS i ON i.object_id = ps.object_id AND i.index_id = ps.index_id
        JOIN sys.objects AS o ON o.object_id = i.object_id
        JOIN sys.schemas AS s ON s.schema_id = o.schema_id
        WHERE ps.avg_fragmentation_in_percent > @FragmentationLevel AND ps.page_count > @PageCountLevel;

    OPEN index_cursor;
    FETCH NEXT FROM index_cursor INTO @sql;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        SET @started = SYSDATETIME();
        IF @LogToTable = 1
        BEGIN
            INSERT INTO dbo.CommandLog (command, started) VALUES (@sql, @started); --! autocommit-dml-in-loop tp: one autocommit log row per index, each waits for its flush
            SET @logId = SCOPE_IDENTITY();
        END
        BEGIN TRY
            EXEC sys.sp_executesql @sql;
        END TRY
        BEGIN CATCH
            UPDATE dbo.CommandLog SET error_number = ERROR_NUMBER() WHERE id = @logId; --! autocommit-dml-in-loop tp: autocommit update on a real table, per failing index
        END CATCH
        UPDATE dbo.CommandLog SET finished = SYSDATETIME() WHERE id = @logId; --! autocommit-dml-in-loop tp: second autocommit write per iteration
        FETCH NEXT FROM index_cursor INTO @sql;
    END
    CLOSE index_cursor;
    DEALLOCATE index_cursor;
END
GO
-- The log writes of the rebuild window do not need to survive a crash: the job reruns.
ALTER DATABASE [ReportingDb] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT; --! forced-durability-data-loss tp: every commit in the database, not only the job's, becomes delayed
GO
-- Statistics update needs the database to itself for a moment.
ALTER DATABASE ReportingDb SET SINGLE_USER WITH ROLLBACK IMMEDIATE;
GO
EXEC sp_updatestats;
GO
ALTER DATABASE ReportingDb SET MULTI_USER WITH ROLLBACK AFTER 30 SECONDS;
GO
ALTER DATABASE ReportingDb SET DELAYED_DURABILITY = DISABLED;
GO
-- Trim the command log: older than 30 days, in chunks so the log can be reused between them.
DECLARE @deleted int = 1;
WHILE @deleted > 0
BEGIN
    DELETE TOP (10000) FROM dbo.CommandLog WHERE started < DATEADD(day, -30, SYSDATETIME());
    SET @deleted = @@ROWCOUNT;
END
GO
