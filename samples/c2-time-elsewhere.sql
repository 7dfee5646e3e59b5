-- C2 (causes): a throttled load job — 20 batches of 250 rows, each batch one transaction, with a pause between
-- batches so the job does not hog the server. Its commits are few; its time goes to the pauses. Profile it: the
-- verdict's first line says the time went elsewhere (WAITFOR) and that delayed durability is not the lever.
-- Compare DISABLED vs FORCED: FORCED saves next to nothing. (Issue 29's cause model; SQL Server 2014 and later.)
-- Footprint: 5,000 rows of 200 bytes; about 2 MB of log per run; about 3 s per run on a real server (2 s of it pauses).
SET NOCOUNT ON;
GO

-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.ThrottledLoad', N'U') IS NOT NULL
    DROP TABLE dbo.ThrottledLoad;
CREATE TABLE dbo.ThrottledLoad
(
    id       int IDENTITY(1, 1) NOT NULL PRIMARY KEY,
    batch_no int       NOT NULL,
    payload  char(200) NOT NULL
);
GO

-- Workload: 250 rows per transaction, then a 100 ms pause.
DECLARE @batch int = 0, @i int;
WHILE @batch < 20
BEGIN
    BEGIN TRANSACTION;
    SET @i = 0;
    WHILE @i < 250
    BEGIN
        INSERT INTO dbo.ThrottledLoad (batch_no, payload) VALUES (@batch, REPLICATE('x', 200));
        SET @i += 1;
    END
    COMMIT TRANSACTION;
    WAITFOR DELAY '00:00:00.100';
    SET @batch += 1;
END
GO
