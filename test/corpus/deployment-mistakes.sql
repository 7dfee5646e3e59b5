-- Release 4.2 data script, as it was committed to the repository (with its mistakes).
SET NOCOUNT ON;
GO
-- Left over from a manual run in SSMS: nothing is open when the script starts.
ROLLBACK; --! unbalanced-transaction tp: no transaction is open at this point, the server raises an error
GO
-- Processing loop written as a one-shot block: WHILE 1 = 1 ... BREAK runs once.
WHILE 1 = 1
BEGIN
    INSERT dbo.ImportRun (started_at) VALUES (SYSUTCDATETIME());
    BREAK;
END
GO
BEGIN TRANSACTION; --! unbalanced-transaction tp: nothing later in the script commits or rolls back
UPDATE dbo.Setting SET value = N'4.2' WHERE name = N'schema_version';
INSERT dbo.Setting (name, value) VALUES (N'feature_x', N'on');
GO
-- A second script appended later assumes a clean session.
PRINT 'cleanup';
GO
CREATE PROCEDURE dbo.FinishImport
AS
BEGIN
    UPDATE dbo.ImportRun SET finished_at = SYSUTCDATETIME() WHERE finished_at IS NULL;
    COMMIT; --! unbalanced-transaction tp: nothing in the procedure opened a transaction, it only works if the caller did
END
GO
CREATE PROCEDURE dbo.AbortImport
AS
    ROLLBACK TRANSACTION; --! unbalanced-transaction tp: same, a caller must have a transaction open or this fails
GO
-- Well-formed error handling: stays quiet.
CREATE PROCEDURE dbo.SafeImport
AS
BEGIN
    SET XACT_ABORT ON;
    BEGIN TRY
        BEGIN TRAN;
        EXEC dbo.ImportStep1;
        EXEC dbo.ImportStep2;
        COMMIT;
    END TRY
    BEGIN CATCH
        IF @@TRANCOUNT > 0 ROLLBACK;
        THROW;
    END CATCH
END
GO
-- Nested transactions: only the outer COMMIT makes the work durable.
BEGIN TRAN outer_tran;
    BEGIN TRAN inner_tran;
        DELETE dbo.Queue WHERE done = 1;
    COMMIT TRAN inner_tran;
COMMIT TRAN outer_tran;
GO
