-- Helper functions of the reporting schema.
CREATE FUNCTION report.FiscalYear (@d date)
RETURNS int
WITH SCHEMABINDING, RETURNS NULL ON NULL INPUT
AS
BEGIN
    RETURN CASE WHEN MONTH(@d) >= 7 THEN YEAR(@d) + 1 ELSE YEAR(@d) END;
END
GO
CREATE OR ALTER FUNCTION report.OrdersOfCustomer (@customer int)
RETURNS TABLE
AS
RETURN (SELECT order_id, order_date, total FROM dbo.Orders WHERE customer_id = @customer);
GO
-- Multi-statement function: fills its result table variable row by row.
CREATE FUNCTION report.MonthsBetween (@from date, @to date)
RETURNS @months TABLE (month_start date PRIMARY KEY, label char(7))
AS
BEGIN
    DECLARE @m date = DATEFROMPARTS(YEAR(@from), MONTH(@from), 1);
    WHILE @m <= @to
    BEGIN
        INSERT @months (month_start, label) VALUES (@m, CONVERT(char(7), @m, 126));
        SET @m = DATEADD(month, 1, @m);
    END
    RETURN;
END
GO
ALTER FUNCTION [report].[Split] (@list nvarchar(max), @sep nchar(1) = N',')
RETURNS @items TABLE (pos int IDENTITY, item nvarchar(4000))
WITH EXECUTE AS CALLER
AS
BEGIN
    DECLARE @at int = CHARINDEX(@sep, @list);
    WHILE @at > 0
    BEGIN
        INSERT INTO @items (item) VALUES (LEFT(@list, @at - 1));
        SET @list = SUBSTRING(@list, @at + 1, LEN(@list));
        SET @at = CHARINDEX(@sep, @list);
    END
    INSERT INTO @items (item) VALUES (@list);
    RETURN;
END
GO
CREATE FUNCTION report.ClrRegexMatch (@input nvarchar(max), @pattern nvarchar(4000))
RETURNS bit
AS EXTERNAL NAME ReportingClr.[Reporting.Regex].IsMatch;
GO
CREATE PROCEDURE report.LegacyNumbered;1 @year int
AS
    SELECT * FROM dbo.Orders WHERE YEAR(order_date) = @year;
GO
CREATE PROCEDURE report.LegacyNumbered;2 @year int, @month int
AS
    SELECT * FROM dbo.Orders WHERE YEAR(order_date) = @year AND MONTH(order_date) = @month;
GO
