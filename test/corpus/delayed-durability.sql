-- Trying delayed durability on the staging database for the bulk load window.
USE StagingDb;
GO
ALTER DATABASE StagingDb SET DELAYED_DURABILITY = ALLOWED WITH NO_WAIT;
GO
CREATE OR ALTER PROCEDURE etl.LoadEvents @Count int
AS
BEGIN
    DECLARE @i int = 0;
    WHILE @i < @Count
    BEGIN
        BEGIN TRAN;
        INSERT etl.Event (id, payload) VALUES (@i, REPLICATE('x', 200));
        COMMIT TRAN WITH (DELAYED_DURABILITY = ON); --! delayed-commit-needs-allowed tp: only honoured when the database is ALLOWED (then no commit in the loop waits for a flush, so no commit-in-loop)
        SET @i += 1;
    END
    EXEC sys.sp_flush_log;
END
GO
-- Natively compiled version of the same load.
CREATE PROCEDURE etl.LoadEventsNative @Count int
WITH NATIVE_COMPILATION, SCHEMABINDING
AS
BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'us_english', DELAYED_DURABILITY = ON) --! delayed-commit-needs-allowed tp: atomic block option needs ALLOWED too
    DECLARE @i int = 0;
    WHILE @i < @Count
    BEGIN
        INSERT etl.EventInMem (id, payload) VALUES (@i, N'x');
        SET @i += 1;
    END
END
GO
-- The DBA's shortcut during the migration weekend. Every commit in the database becomes delayed.
ALTER DATABASE StagingDb SET DELAYED_DURABILITY = FORCED WITH ROLLBACK IMMEDIATE; --! forced-durability-data-loss tp: FORCED on a database
GO
ALTER DATABASE CURRENT SET DELAYED_DURABILITY = FORCED; --! forced-durability-data-loss tp: FORCED on the current database
GO
BEGIN TRAN;
UPDATE etl.LoadState SET finished = 1;
COMMIT WITH (DELAYED_DURABILITY = OFF);
GO
-- The end-of-load marker may be lost on a crash: the next run re-checks it anyway.
BEGIN TRANSACTION load_marker;
INSERT etl.LoadMarker (at) VALUES (SYSUTCDATETIME());
COMMIT TRANSACTION load_marker WITH (DELAYED_DURABILITY = ON); --! delayed-commit-needs-allowed tp: depends on the database setting, which this script changes twice
GO
ALTER DATABASE StagingDb SET DELAYED_DURABILITY = DISABLED;
GO
