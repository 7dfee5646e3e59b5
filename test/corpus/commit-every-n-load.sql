-- Copies order history into the archive database in transactions of 10,000 rows.
CREATE OR ALTER PROCEDURE archive.CopyOrderHistory
    @FromDate date,
    @ToDate date
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @id bigint, @copied int = 0;

    DECLARE c CURSOR LOCAL FAST_FORWARD FOR
        SELECT order_id FROM dbo.OrderHistory WHERE order_date >= @FromDate AND order_date < @ToDate ORDER BY order_id;

    BEGIN TRAN;
    OPEN c;
    FETCH NEXT FROM c INTO @id;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        INSERT INTO ArchiveDb.dbo.OrderHistory (order_id, customer_id, order_date, total)
        SELECT order_id, customer_id, order_date, total FROM dbo.OrderHistory WHERE order_id = @id;
        SET @copied += 1;

        IF @@TRANCOUNT > 0 AND @copied % 10000 = 0
        BEGIN
            COMMIT; --! commit-in-loop tp: the hint is right, one flush per 10000 rows
            BEGIN TRAN;
        END
        FETCH NEXT FROM c INTO @id;
    END
    CLOSE c;
    DEALLOCATE c;
    IF @@TRANCOUNT > 0 COMMIT;
END
GO
-- The same load for the line items, counting with a batch counter instead of a modulo.
DECLARE @batch int = 0, @n int = 0;
BEGIN TRANSACTION;
WHILE @n < 1000000
BEGIN
    INSERT INTO ArchiveDb.dbo.OrderLine (line_id, order_id, qty)
    SELECT line_id, order_id, qty FROM dbo.OrderLine WHERE line_id = @n;
    SET @n += 1;
    SET @batch += 1;
    IF @batch >= 5000
    BEGIN
        COMMIT TRANSACTION; --! commit-in-loop tp: hint for a commit every 5000 rows is right
        BEGIN TRANSACTION;
        SET @batch = 0;
    END
END
COMMIT TRANSACTION;
GO
