-- S4: insert loops followed by CHECKPOINT, printing per-iteration timings as "INS: <ms> - CHKPT: <ms>"
-- (the output Durability Lens turns into a time series). Scenario S4; SQL Server 2017+ on Linux or Windows.
-- Footprint: 26,700 rows; about 80 MB of log per run; about 15 s per run on a real server (0.5 ms per log flush).
-- The scenario's full size is a parameter, not the default: @iterations = 251 and @rows = 10,000 write about 5 GB of
-- log per run (and a comparison runs it 7 times) — only on a server whose disk can take it.
SET NOCOUNT ON;
GO
-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.FlushPath', N'U') IS NOT NULL
    DROP TABLE dbo.FlushPath;
CREATE TABLE dbo.FlushPath (id int IDENTITY(1, 1) PRIMARY KEY, filler char(2000) NOT NULL);
GO

-- Scenario A: per iteration, @rows inserts of 2 KB in one transaction, then CHECKPOINT.
DECLARE @iterations int = 20, @rows int = 1000, @iteration int = 0, @i int, @t0 datetime2, @t1 datetime2;
WHILE @iteration < @iterations
BEGIN
    SET @t0 = SYSDATETIME();
    BEGIN TRANSACTION;
    SET @i = 0;
    WHILE @i < @rows
    BEGIN
        INSERT INTO dbo.FlushPath (filler) VALUES (REPLICATE('a', 2000));
        SET @i += 1;
    END
    COMMIT TRANSACTION;
    SET @t1 = SYSDATETIME();
    CHECKPOINT;
    PRINT CONCAT('INS: ', DATEDIFF(millisecond, @t0, @t1), ' - CHKPT: ', DATEDIFF(millisecond, @t1, SYSDATETIME()));
    SET @iteration += 1;
END
GO

-- Scenario B: 100 single-row autocommit inserts, then CHECKPOINT; the client repeats the batch 67 times.
DECLARE @i int = 0, @t0 datetime2 = SYSDATETIME(), @t1 datetime2;
WHILE @i < 100
BEGIN
    INSERT INTO dbo.FlushPath (filler) VALUES (REPLICATE('b', 2000));
    SET @i += 1;
END
SET @t1 = SYSDATETIME();
CHECKPOINT;
PRINT CONCAT('INS: ', DATEDIFF(millisecond, @t0, @t1), ' - CHKPT: ', DATEDIFF(millisecond, @t1, SYSDATETIME()));
GO 67
