-- C1 (causes): an order-intake loop that commits every row — 2,000 autocommit inserts, one log flush each.
-- Profile it: the verdict's first line names the cause of the commit time ("every commit waits for its own small log
-- flush") and says delayed durability is the lever — or batching the commits. Compare DISABLED vs FORCED to see how
-- much FORCED saves. (Issue 29's cause model; SQL Server 2014 and later.)
-- Footprint: 2,000 rows; about 8 MB of log per run; about 1 s per run on a real server (0.5 ms per log flush).
SET NOCOUNT ON;
GO

-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.OrderIntake', N'U') IS NOT NULL
    DROP TABLE dbo.OrderIntake;
CREATE TABLE dbo.OrderIntake
(
    id          int IDENTITY(1, 1) NOT NULL PRIMARY KEY,
    customer_id int          NOT NULL,
    amount      decimal(9, 2) NOT NULL,
    note        varchar(40)  NOT NULL CONSTRAINT DF_OrderIntake_note DEFAULT ('web order')
);
GO

-- Workload: one row per iteration, no enclosing transaction, so every INSERT commits (and flushes) on its own.
DECLARE @i int = 0;
WHILE @i < 2000
BEGIN
    INSERT INTO dbo.OrderIntake (customer_id, amount) VALUES (@i % 97, 10.00 + @i % 50);
    SET @i += 1;
END
GO
