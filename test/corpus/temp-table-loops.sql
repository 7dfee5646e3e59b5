-- Builds a calendar and a number table in tempdb objects, row by row, then writes the result once.
SET NOCOUNT ON;
DECLARE @d date = '2020-01-01';
DECLARE @days TABLE (d date PRIMARY KEY, is_weekend bit);
CREATE TABLE #numbers (n int PRIMARY KEY);
CREATE TABLE ##shared_progress (step int, at datetime2);

WHILE @d < '2031-01-01'
BEGIN
    INSERT @days (d, is_weekend) VALUES (@d, CASE WHEN DATENAME(weekday, @d) IN ('Saturday', 'Sunday') THEN 1 ELSE 0 END);
    SET @d = DATEADD(day, 1, @d);
END

DECLARE @i int = 1;
WHILE @i <= 100000
BEGIN
    INSERT INTO #numbers (n) VALUES (@i);
    IF @i % 10000 = 0 INSERT ##shared_progress (step, at) VALUES (@i, SYSDATETIME());
    SET @i += 1;
END

-- Mark holidays one by one through an alias.
DECLARE @h date;
DECLARE holidays CURSOR LOCAL FOR SELECT holiday FROM ref.Holiday;
OPEN holidays;
FETCH NEXT FROM holidays INTO @h;
WHILE @@FETCH_STATUS = 0
BEGIN
    UPDATE cal SET is_weekend = 1 FROM @days AS cal WHERE cal.d = @h;
    DELETE n FROM #numbers n WHERE n.n = DAY(@h);
    FETCH NEXT FROM holidays INTO @h;
END
CLOSE holidays;
DEALLOCATE holidays;

SELECT d, is_weekend INTO #calendar FROM @days;
INSERT dbo.Calendar (d, is_weekend) SELECT d, is_weekend FROM #calendar;
GO
