-- A small unit-test framework: each test runs inside a transaction that is rolled back, so tests leave no trace.
CREATE SCHEMA unit;
GO
CREATE TABLE unit.TestResult (
    id int IDENTITY PRIMARY KEY,
    test_name sysname NOT NULL,
    result varchar(10) NOT NULL,
    msg nvarchar(max) NULL
);
GO
CREATE PROCEDURE unit.RunTest
    @TestName sysname
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @tran char(32) = REPLACE(CAST(NEWID() AS char(36)), '-', '');
    DECLARE @result varchar(10) = 'Success', @msg nvarchar(max) = NULL;

    BEGIN TRAN;
    SAVE TRAN @tran;
    BEGIN TRY
        EXEC @TestName;
    END TRY
    BEGIN CATCH
        SELECT @result = CASE WHEN ERROR_MESSAGE() LIKE 'unit.Fail%' THEN 'Failure' ELSE 'Error' END,
               @msg = ERROR_MESSAGE();
    END CATCH
    IF XACT_STATE() = 1 ROLLBACK TRAN @tran;
    IF @@TRANCOUNT > 0 ROLLBACK TRAN;

    INSERT unit.TestResult (test_name, result, msg) VALUES (@TestName, @result, @msg);
END
GO
CREATE PROCEDURE unit.RunAll
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @name sysname;
    DECLARE @tests TABLE (name sysname PRIMARY KEY);

    INSERT @tests (name)
    SELECT QUOTENAME(SCHEMA_NAME(schema_id)) + '.' + QUOTENAME(name) FROM sys.procedures WHERE name LIKE 'test%';

    WHILE EXISTS (SELECT 1 FROM @tests)
    BEGIN
        SELECT TOP (1) @name = name FROM @tests ORDER BY name;
        EXEC unit.RunTest @TestName = @name;
        DELETE FROM @tests WHERE name = @name;
    END

    SELECT result, COUNT(*) AS tests FROM unit.TestResult GROUP BY result;
END
GO
CREATE PROCEDURE unit.Fail @Message nvarchar(max)
AS
    RAISERROR('unit.Fail: %s', 16, 10, @Message);
GO
CREATE PROCEDURE unit.AssertEquals @Expected sql_variant, @Actual sql_variant
AS
BEGIN
    IF (@Expected = @Actual) OR (@Expected IS NULL AND @Actual IS NULL) RETURN 0;
    DECLARE @m nvarchar(max) = N'Expected <' + ISNULL(CAST(@Expected AS nvarchar(max)), 'NULL') + N'> but was <' + ISNULL(CAST(@Actual AS nvarchar(max)), 'NULL') + N'>';
    EXEC unit.Fail @m;
END
GO
CREATE PROCEDURE dbo.[test order total includes tax]
AS
BEGIN
    DECLARE @expected money = 107.00, @actual money;
    INSERT dbo.Orders (order_id, net, tax_rate) VALUES (-1, 100, 0.07);
    SELECT @actual = total FROM dbo.OrderTotals WHERE order_id = -1;
    EXEC unit.AssertEquals @expected, @actual;
END
GO
-- Results for the CI log, collected in a temp table first.
CREATE TABLE #summary (result varchar(10), tests int);
DECLARE @r varchar(10);
DECLARE results CURSOR LOCAL FOR SELECT DISTINCT result FROM unit.TestResult;
OPEN results;
FETCH NEXT FROM results INTO @r;
WHILE @@FETCH_STATUS = 0
BEGIN
    INSERT #summary (result, tests) SELECT @r, COUNT(*) FROM unit.TestResult WHERE result = @r;
    FETCH NEXT FROM results INTO @r;
END
CLOSE results;
DEALLOCATE results;
SELECT * FROM #summary;
GO
