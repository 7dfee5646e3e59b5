-- S3: four workload shapes to count log flushes with an Extended Events session on each.
-- Part 2's COMMIT option only takes effect when the database is ALLOWED. (Scenario S3; SQL Server 2014+.)
-- Footprint: 25,000 rows inserted and 15,000 updated; about 30 MB of log per run; about 5 s per run on a real server
-- (0.5 ms per log flush). The scenario's full size is a parameter, not the default: @rows = 100000 in every part
-- writes twenty times as much.
SET NOCOUNT ON;
GO
-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.FlushTest', N'U') IS NOT NULL
    DROP TABLE dbo.FlushTest;
CREATE TABLE dbo.FlushTest
(
    id   int IDENTITY(1, 1) PRIMARY KEY,
    val  int       NOT NULL,
    note char(100) NOT NULL CONSTRAINT DF_FlushTest_note DEFAULT ('inserted')
);
GO

-- 1. @rows single-row inserts, each an autocommit transaction.
DECLARE @rows int = 5000, @i int = 0;
WHILE @i < @rows
BEGIN
    INSERT INTO dbo.FlushTest (val) VALUES (@i);
    SET @i += 1;
END
GO

-- 2. The same rows, each in its own transaction committed with delayed durability.
DECLARE @rows int = 5000, @i int = 0;
WHILE @i < @rows
BEGIN
    BEGIN TRANSACTION;
    INSERT INTO dbo.FlushTest (val) VALUES (@i);
    COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON);
    SET @i += 1;
END
-- Harden what the delayed commits left in the log buffer before measuring anything else.
EXEC sys.sp_flush_log;
GO

-- 3. One INSERT ... SELECT of 3 × @rows rows: a single transaction whatever the setting.
DECLARE @rows int = 5000;
INSERT INTO dbo.FlushTest (val)
SELECT TOP (3 * @rows) ROW_NUMBER() OVER (ORDER BY (SELECT NULL))
FROM sys.all_columns AS a
CROSS JOIN sys.all_columns AS b;
GO

-- 4. One UPDATE of the rows part 3 added (parts 1 and 2 added the first 2 × @rows ids).
DECLARE @rows int = 5000;
UPDATE dbo.FlushTest
SET note = 'updated'
WHERE id > 2 * @rows;
GO
