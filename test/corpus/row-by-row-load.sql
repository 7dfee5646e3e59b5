-- The original nightly load: row by row, each statement its own transaction. Kept to measure what batching buys.
SET NOCOUNT ON;
GO
CREATE PROCEDURE etl.LoadCustomersRowByRow
AS
BEGIN
    DECLARE @id int, @name nvarchar(200), @email nvarchar(320);
    DECLARE src CURSOR LOCAL FAST_FORWARD FOR SELECT id, name, email FROM staging.Customer;
    OPEN src;
    FETCH NEXT FROM src INTO @id, @name, @email;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        IF EXISTS (SELECT 1 FROM dbo.Customer WHERE customer_id = @id)
            UPDATE dbo.Customer SET name = @name, email = @email WHERE customer_id = @id; --! autocommit-dml-in-loop tp: per-row autocommit update
        ELSE
            INSERT dbo.Customer (customer_id, name, email) VALUES (@id, @name, @email); --! autocommit-dml-in-loop tp: per-row autocommit insert
        UPDATE staging.Customer SET loaded_at = SYSUTCDATETIME() WHERE id = @id; --! autocommit-dml-in-loop tp: per-row autocommit update of staging
        FETCH NEXT FROM src INTO @id, @name, @email;
    END
    CLOSE src;
    DEALLOCATE src;
END
GO
-- Order lines: one explicit transaction per row, so the commit is per row too.
DECLARE @line int = 0;
WHILE @line < 20000
BEGIN
    BEGIN TRAN;
    INSERT INTO dbo.OrderLine (line_id, order_id, qty) VALUES (@line, @line / 10, 1);
    UPDATE dbo.OrderHeader SET line_count += 1 WHERE order_id = @line / 10;
    COMMIT TRAN; --! commit-in-loop tp: one fully durable commit per row
    SET @line += 1;
END
GO
-- Price history, written with a CTE per row.
DECLARE @p int = 1;
WHILE @p <= 5000
BEGIN
    WITH latest AS (SELECT TOP (1) price FROM dbo.PriceHistory WHERE product_id = @p ORDER BY valid_from DESC) --! autocommit-dml-in-loop tp: CTE insert, autocommit per product
    INSERT dbo.PriceHistory (product_id, price, valid_from) SELECT @p, price * 1.02, SYSUTCDATETIME() FROM latest;
    MERGE dbo.ProductPrice AS t --! autocommit-dml-in-loop tp: autocommit merge per product
    USING (SELECT @p AS product_id) AS s ON t.product_id = s.product_id
    WHEN MATCHED THEN UPDATE SET price = price * 1.02
    WHEN NOT MATCHED THEN INSERT (product_id, price) VALUES (s.product_id, 0);
    SET @p += 1;
END
GO
-- A smoke test the developers run from SSMS: insert one row, 500 times.
INSERT dbo.Heartbeat (at) VALUES (SYSUTCDATETIME()); --! autocommit-dml-in-loop tp: GO 500 runs this autocommit insert 500 times
GO 500
-- Per-row commit repeated by the client.
BEGIN TRAN;
UPDATE dbo.Counter SET n += 1 WHERE id = 1;
COMMIT; --! commit-in-loop tp: GO 200 repeats the batch, one commit per execution
GO 200
