-- S1: 10,000 single-row inserts with default values, each its own autocommit transaction. Profile it with
-- DELAYED_DURABILITY DISABLED and FORCED: same rows, very different log writes. (Scenario S1; SQL Server 2014+.)
-- Footprint: 10,000 rows; about 40 MB of log per run; about 5 s per run on a real server (0.5 ms per log flush).
SET NOCOUNT ON;
GO

-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.SingleRowInsert', N'U') IS NOT NULL
    DROP TABLE dbo.SingleRowInsert;
CREATE TABLE dbo.SingleRowInsert
(
    id   int IDENTITY(1, 1) NOT NULL,
    col1 int          NOT NULL CONSTRAINT DF_SingleRowInsert_col1 DEFAULT (100),
    col2 varchar(100) NOT NULL CONSTRAINT DF_SingleRowInsert_col2 DEFAULT ('abcd')
);
GO

-- Workload: one row per iteration, no enclosing transaction.
DECLARE @i int = 0;
WHILE @i < 10000
BEGIN
    INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;
    SET @i += 1;
END
GO
