-- Deployment data fix, run from sqlcmd: one transaction across several batches, so a failure can roll back all of it.
:on error exit
SET XACT_ABORT ON;
GO
BEGIN TRANSACTION data_fix;
GO
DECLARE @id int = (SELECT MIN(customer_id) FROM dbo.Customer);
WHILE @id IS NOT NULL
BEGIN
    UPDATE dbo.Customer SET country_code = UPPER(country_code) WHERE customer_id = @id;
    SET @id = (SELECT MIN(customer_id) FROM dbo.Customer WHERE customer_id > @id);
END
GO
DECLARE @o int = 0;
WHILE @o < 500
BEGIN
    INSERT dbo.CustomerNote (customer_id, note) VALUES (@o, N'migrated');
    SET @o += 1;
END
GO
IF @@TRANCOUNT > 0
    COMMIT TRANSACTION data_fix;
GO
-- The legacy import runs with implicit transactions, like the ODBC client it was written for.
SET IMPLICIT_TRANSACTIONS ON;
GO
DECLARE @k int = 0;
WHILE @k < 1000
BEGIN
    INSERT dbo.LegacyImport (k) VALUES (@k);
    SET @k += 1;
END
COMMIT;
GO
SET IMPLICIT_TRANSACTIONS OFF;
GO
