-- S3: four workload shapes to count log flushes with an Extended Events session on each.
-- Part 2's COMMIT option only takes effect when the database is ALLOWED. (Scenario S3; SQL Server 2014+.)
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

-- 1. 100,000 single-row inserts, each an autocommit transaction.
DECLARE @i int = 0;
WHILE @i < 100000
BEGIN
    INSERT INTO dbo.FlushTest (val) VALUES (@i);
    SET @i += 1;
END
GO

-- 2. The same rows, each in its own transaction committed with delayed durability.
DECLARE @i int = 0;
WHILE @i < 100000
BEGIN
    BEGIN TRANSACTION;
    INSERT INTO dbo.FlushTest (val) VALUES (@i);
    COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON);
    SET @i += 1;
END
-- Harden what the delayed commits left in the log buffer before measuring anything else.
EXEC sys.sp_flush_log;
GO

-- 3. One INSERT ... SELECT of 300,000 rows: a single transaction whatever the setting.
INSERT INTO dbo.FlushTest (val)
SELECT TOP (300000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL))
FROM sys.all_columns AS a
CROSS JOIN sys.all_columns AS b;
GO

-- 4. One UPDATE of the 300,000 rows part 3 added.
UPDATE dbo.FlushTest
SET note = 'updated'
WHERE id > 200000;
GO
