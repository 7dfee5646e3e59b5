-- S4: insert loops followed by CHECKPOINT, printing per-iteration timings as "INS: <ms> - CHKPT: <ms>"
-- (the output Durability Lens turns into a time series). Scenario S4; SQL Server 2017+ on Linux or Windows.
-- Scenario A writes about 20 MB per iteration (about 5 GB over 251 iterations): lower @iterations to try it.
SET NOCOUNT ON;
GO
-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.FlushPath', N'U') IS NOT NULL
    DROP TABLE dbo.FlushPath;
CREATE TABLE dbo.FlushPath (id int IDENTITY(1, 1) PRIMARY KEY, filler char(2000) NOT NULL);
GO

-- Scenario A: per iteration, 10,000 inserts in one transaction, then CHECKPOINT.
DECLARE @iterations int = 251, @iteration int = 0, @i int, @t0 datetime2, @t1 datetime2;
WHILE @iteration < @iterations
BEGIN
    SET @t0 = SYSDATETIME();
    BEGIN TRANSACTION;
    SET @i = 0;
    WHILE @i < 10000
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
