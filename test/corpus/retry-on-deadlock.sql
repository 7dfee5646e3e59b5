-- Transfers stock between warehouses, retrying on deadlock (error 1205) up to three times.
CREATE PROCEDURE inventory.TransferStock
    @ProductId int,
    @FromWarehouse int,
    @ToWarehouse int,
    @Quantity int
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @retries int = 3;

    WHILE @retries > 0
    BEGIN
        BEGIN TRY
            BEGIN TRANSACTION;
            UPDATE inventory.Stock SET quantity -= @Quantity WHERE product_id = @ProductId AND warehouse_id = @FromWarehouse;
            UPDATE inventory.Stock SET quantity += @Quantity WHERE product_id = @ProductId AND warehouse_id = @ToWarehouse;
            INSERT inventory.Movement (product_id, from_wh, to_wh, qty) VALUES (@ProductId, @FromWarehouse, @ToWarehouse, @Quantity);
            COMMIT TRANSACTION;
            BREAK;
        END TRY
        BEGIN CATCH
            IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
            IF ERROR_NUMBER() <> 1205 OR @retries = 1 THROW;
            SET @retries -= 1;
            WAITFOR DELAY '00:00:00.050';
        END CATCH
    END
END
GO
-- Same pattern, leaving with RETURN.
CREATE PROCEDURE inventory.ReserveStock @ProductId int, @Quantity int
AS
    DECLARE @attempt int = 0;
    WHILE @attempt < 5
    BEGIN
        SET @attempt += 1;
        BEGIN TRY
            BEGIN TRAN;
            UPDATE inventory.Stock SET reserved += @Quantity WHERE product_id = @ProductId;
            COMMIT;
            RETURN 0;
        END TRY
        BEGIN CATCH
            WHILE @@TRANCOUNT > 0 ROLLBACK;
        END CATCH
    END
    RETURN 1;
GO
