-- S1, many sessions: the open question of the S1 experiment ("concurrency: many sessions inserting").
-- Each session inserts 1,000 single-row autocommit transactions at the same time as the others. With several
-- sessions SQL Server's log writer shares a flush between the commits waiting for it (group commit), so flushes
-- per commit fall below 1 even under DELAYED_DURABILITY = DISABLED, and FORCED has less left to save.
-- Run it as a concurrency sweep: the durabilityLens.compare.sessions setting (e.g. [1, 8]) and
-- Compare durability, or `durability-lens compare --file samples/s1-many-sessions.sql --sessions 1,8`. Each session
-- count runs the loop 7 times (a warm-up and 3 per mode): [1, 2, 4, 8] runs it 28 times, about 2 minutes in the demo.
-- Footprint: 1,000 rows per session (8,000 at 8 sessions); about 4 MB of log per session and run; about 0.5 s per
-- run on a real server (0.5 ms per log flush), less where group commit shares flushes.
-- durability-lens: session-param @session

-- durability-lens: setup-end  (this batch and the ones above are setup: re-run before every measured run)
IF OBJECT_ID(N'dbo.ManySessionsInsert', N'U') IS NOT NULL
    DROP TABLE dbo.ManySessionsInsert;
CREATE TABLE dbo.ManySessionsInsert
(
    id         int IDENTITY(1, 1) NOT NULL,
    session_no int          NOT NULL,
    payload    varchar(100) NOT NULL CONSTRAINT DF_ManySessionsInsert_payload DEFAULT ('abcd')
);
GO

-- Workload: every session runs this loop; @session is 1..N (a typed parameter, one value per session). The batch
-- runs through sp_executesql, so SET NOCOUNT ON belongs inside it (a SET in a batch of its own would not carry over).
SET NOCOUNT ON;
DECLARE @i int = 0;
WHILE @i < 1000
BEGIN
    INSERT INTO dbo.ManySessionsInsert (session_no) VALUES (@session);
    SET @i += 1;
END
GO
