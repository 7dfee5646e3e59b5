-- S2: what a test suite runs between test groups (TRUNCATE/DELETE + identity reseed), then the
-- 5,000-row micro-benchmark that exposed WRITELOG as the suite's main wait. (Scenario S2; SQL Server 2014+.)
-- Footprint: 5,000 rows of 2 KB; about 20 MB of log per run; about 3 s per run on a real server (0.5 ms per log flush).
SET NOCOUNT ON;
GO

-- Setup: the tables the tests use (created once; the reset below empties them).
IF OBJECT_ID(N'dbo.Customer', N'U') IS NULL
    CREATE TABLE dbo.Customer (id int IDENTITY(1, 1) PRIMARY KEY, name nvarchar(100) NOT NULL);
IF OBJECT_ID(N'dbo.AuditEntry', N'U') IS NULL
    CREATE TABLE dbo.AuditEntry (id bigint IDENTITY(1, 1) PRIMARY KEY, entry nvarchar(400) NOT NULL);
GO

-- Reset between test groups: TRUNCATE where nothing references the table,
-- DELETE plus a reseed where a foreign key would block TRUNCATE.
TRUNCATE TABLE dbo.AuditEntry;
DELETE FROM dbo.Customer;
DBCC CHECKIDENT (N'dbo.Customer', RESEED, 0) WITH NO_INFOMSGS;
GO

-- durability-lens: setup-end  (micro-benchmark setup: a fresh table with a 2,000-character column)
IF OBJECT_ID(N'dbo.WriteLogProbe', N'U') IS NOT NULL
    DROP TABLE dbo.WriteLogProbe;
CREATE TABLE dbo.WriteLogProbe (id int IDENTITY(1, 1) PRIMARY KEY, filler char(2000) NOT NULL);
GO

-- Micro-benchmark: 5,000 single-row inserts, each committed (and flushed) on its own.
DECLARE @i int = 1;
WHILE @i <= 5000
BEGIN
    INSERT INTO dbo.WriteLogProbe (filler) VALUES (REPLICATE('a', 2000));
    SET @i += 1;
END
GO
