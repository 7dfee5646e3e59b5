-- Purge of expired sessions and audit rows, run by an Agent job every night.
-- Each chunk is its own transaction so blocking stays short and the log can truncate between chunks.
SET NOCOUNT ON;
SET XACT_ABORT ON;
GO
CREATE PROCEDURE dbo.PurgeExpiredSessions
    @BatchSize int = 5000,
    @KeepDays int = 14
AS
BEGIN
    DECLARE @cutoff datetime2 = DATEADD(day, -@KeepDays, SYSUTCDATETIME());
    DECLARE @rows int;

    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
            DELETE TOP (@BatchSize) s
            FROM dbo.Sessions AS s
            WHERE s.expires_at < @cutoff;
            SET @rows = @@ROWCOUNT;
        COMMIT TRANSACTION;

        IF @rows < @BatchSize BREAK;
        WAITFOR DELAY '00:00:00.200';
    END
END
GO
-- The audit table has no useful index on the date: walk the key instead.
DECLARE @lastId bigint = 0, @maxId bigint;
SELECT @maxId = MAX(audit_id) FROM dbo.AuditTrail WHERE logged_at < DATEADD(month, -6, SYSUTCDATETIME());

WHILE @lastId < @maxId
BEGIN
    -- Key-range chunks without TOP: batching (one flush per 50,000 rows), not reported.
    DELETE FROM dbo.AuditTrail
    WHERE audit_id > @lastId AND audit_id <= @lastId + 50000 AND audit_id <= @maxId;
    SET @lastId += 50000;
END
GO
-- Old-style chunking with SET ROWCOUNT.
SET ROWCOUNT 2000;
WHILE EXISTS (SELECT 1 FROM dbo.ImportStaging WHERE processed = 1)
    DELETE FROM dbo.ImportStaging WHERE processed = 1; --! autocommit-dml-in-loop fp: chunked by SET ROWCOUNT (batching, which the analyzer does not follow), only a hint since `processed = 1` may be a key or a flag
SET ROWCOUNT 0;
GO
