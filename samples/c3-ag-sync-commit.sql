-- C3 (causes): the C1 loop on a database in an availability group with a synchronous-commit secondary. Each commit
-- waits for its own log flush AND for the secondary to harden the log (HADR_SYNC_COMMIT). Profile it on such a
-- database: the verdict's first line names synchronous availability-group commit and says delayed durability only
-- ends the wait by giving up the secondary's copy of each commit. In `npm run demo`, run it on the connection
-- "Stand-in (agdemo)": the stand-in's agdemo database plays an AG member whose secondary takes 5 ms per commit.
-- A comparison refuses AG databases unless allowed (`durability-lens compare --allow-availability-group`).
-- Footprint: 500 rows; about 2 MB of log per run; about 3 s per run on a real server (5 ms per commit to the secondary).
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

-- Workload: one autocommit insert per iteration (as C1), 500 of them.
DECLARE @i int = 0;
WHILE @i < 500
BEGIN
    INSERT INTO dbo.OrderIntake (customer_id, amount) VALUES (@i % 97, 10.00 + @i % 50);
    SET @i += 1;
END
GO
