-- Triggers of the order schema: auditing, a guard against deleting locked orders, and a DDL guard.
CREATE TRIGGER dbo.trg_Orders_Audit
ON dbo.Orders
AFTER INSERT, UPDATE, DELETE
AS
BEGIN
    SET NOCOUNT ON;
    IF @@ROWCOUNT = 0 RETURN;
    INSERT dbo.OrdersAudit (order_id, action, changed_at, changed_by)
    SELECT COALESCE(i.order_id, d.order_id),
           CASE WHEN i.order_id IS NULL THEN 'D' WHEN d.order_id IS NULL THEN 'I' ELSE 'U' END,
           SYSUTCDATETIME(), ORIGINAL_LOGIN()
    FROM inserted AS i FULL JOIN deleted AS d ON d.order_id = i.order_id;
END
GO
CREATE TRIGGER [dbo].[trg_Orders_NoDeleteLocked] ON [dbo].[Orders]
INSTEAD OF DELETE
AS
BEGIN
    IF EXISTS (SELECT 1 FROM deleted WHERE locked = 1)
    BEGIN
        RAISERROR(N'Locked orders cannot be deleted.', 16, 1);
        ROLLBACK TRANSACTION;
        RETURN;
    END
    DELETE o FROM dbo.Orders AS o JOIN deleted AS d ON d.order_id = o.order_id;
END
GO
-- Recalculates stock row by row for multi-row inserts (a cursor in a trigger: slow, but inside one transaction).
CREATE TRIGGER dbo.trg_OrderLine_Stock ON dbo.OrderLine FOR INSERT NOT FOR REPLICATION
AS
    DECLARE @product int, @qty int;
    DECLARE lines CURSOR LOCAL FAST_FORWARD FOR SELECT product_id, qty FROM inserted;
    OPEN lines;
    FETCH NEXT FROM lines INTO @product, @qty;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        UPDATE inventory.Stock SET quantity -= @qty WHERE product_id = @product;
        IF @@ROWCOUNT = 0
        BEGIN
            ROLLBACK;
            THROW 50001, 'Unknown product in order line.', 1;
        END
        FETCH NEXT FROM lines INTO @product, @qty;
    END
    CLOSE lines;
    DEALLOCATE lines;
GO
CREATE TRIGGER ddl_NoDropTable ON DATABASE
FOR DROP_TABLE, ALTER_TABLE
AS
    PRINT 'Disable ddl_NoDropTable before changing tables.';
    ROLLBACK;
GO
CREATE TRIGGER logon_LimitSessions ON ALL SERVER WITH EXECUTE AS 'login_auditor'
FOR LOGON
AS
BEGIN
    IF ORIGINAL_LOGIN() = 'report_reader' AND (SELECT COUNT(*) FROM sys.dm_exec_sessions WHERE original_login_name = 'report_reader') > 10
        ROLLBACK;
END
GO
