// The stand-in's string semantics follow the Learn pages: Unicode LIKE keeps trailing blanks significant, nchar/char
// values come back blank-padded, and = ignores trailing blanks. These are the rules the perf-counter probe met on a
// real server (issue #11 finding 1); the old model ignored trailing blanks in every LIKE.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, rows } from './harness';

describe('stand-in model: documented string comparison and padding', () => {
  const s = createStandin({ speedFactor: 0 });

  // https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql ("Pattern matching by using LIKE"):
  // "When you use Unicode data (nchar or nvarchar data types) with LIKE, trailing blanks are significant" and its
  // NCHAR(30) example returns no rows for LIKE '% King' and one row for RTRIM(col1) LIKE '% King'.
  it("reproduces the LIKE page's CHAR / NCHAR 'Robert King' example", async () => {
    const h = await connect(s);
    const r = await exec(s, h, `CREATE TABLE #a (col1 CHAR(30)); INSERT INTO #a VALUES ('Robert King');
CREATE TABLE #u (col1 NCHAR(30)); INSERT INTO #u VALUES ('Robert King');
SELECT COUNT(*) AS n FROM #a WHERE col1 LIKE '% King';
SELECT COUNT(*) AS n FROM #u WHERE col1 LIKE '% King';
SELECT COUNT(*) AS n FROM #u WHERE RTRIM(col1) LIKE '% King';`);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.resultSets.map((set) => set.rows[0]![0]), [1, 0, 1]);
  });

  it('returns nchar(n) and char(n) values padded to n, and sends them as fixed-length types', async () => {
    const h = await connect(s);
    const r = await exec(s, h, `CREATE TABLE #p (u NCHAR(10), a CHAR(6), v NVARCHAR(10)); INSERT INTO #p VALUES (N'ab', 'xy', N'cd');
SELECT u, a, v, DATALENGTH(u) AS du, LEN(u) AS lu, CAST(N'q' AS NCHAR(3)) AS c FROM #p;`);
    assert.deepEqual(r.errors, []);
    const [row] = r.resultSets[0]!.objects;
    assert.equal(row!.u, 'ab        ');
    assert.equal(row!.a, 'xy    ');
    assert.equal(row!.v, 'cd');
    assert.equal(row!.du, 20, 'DATALENGTH counts the padding (2 bytes per nchar)');
    assert.equal(row!.lu, 2, 'LEN ignores trailing blanks');
    assert.equal(row!.c, 'q  ');
    const cols = r.resultSets[0]!.columns;
    assert.deepEqual(cols.map((c) => c.type), [
      { kind: 'nvarchar', length: 10, fixed: true }, { kind: 'varchar', length: 6, fixed: true }, { kind: 'nvarchar', length: 10 },
      { kind: 'int' }, { kind: 'int' }, { kind: 'nvarchar', length: 3, fixed: true },
    ]);
  });

  // https://learn.microsoft.com/sql/t-sql/language-elements/string-comparison-assignment: = pads both strings to
  // the same length (SQL-92 8.2), so 'abc' = 'abc '; LIKE is the exception.
  it("treats 'abc' and 'abc ' as equal for =, <> and IN but not for LIKE 'abc %'", async () => {
    const h = await connect(s);
    const [r] = await rows(s, h, `SELECT
  CASE WHEN N'abc' = N'abc   ' THEN 1 ELSE 0 END AS eq,
  CASE WHEN N'abc' <> N'abc ' THEN 1 ELSE 0 END AS ne,
  CASE WHEN N'abc ' IN (N'x', N'abc') THEN 1 ELSE 0 END AS inlist,
  CASE WHEN N'abc' LIKE N'abc %' THEN 1 ELSE 0 END AS like_space,
  CASE WHEN 'abc  ' LIKE 'abc' THEN 1 ELSE 0 END AS ascii_like,
  CASE WHEN N'abc  ' LIKE N'abc' THEN 1 ELSE 0 END AS unicode_like`);
    assert.deepEqual(r, { eq: 1, ne: 0, inlist: 1, like_space: 0, ascii_like: 1, unicode_like: 0 });
  });

  // Issue #11 "Done when": the query the reference sheet first printed finds nothing on SQL Server, and now here.
  it("finds no perf counter with object_name LIKE N'%:Databases' (nchar(128) padding) but finds them with RTRIM", async () => {
    const h = await connect(s);
    const [plain] = await rows(s, h, `SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE object_name LIKE N'%:Databases'`);
    const [trimmed] = await rows(s, h, `SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE RTRIM(object_name) LIKE N'%:Databases'`);
    const [padded] = await rows(s, h, `SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE object_name LIKE N'%:Databases%'`);
    const [equal] = await rows(s, h, `SELECT COUNT(*) AS n FROM sys.dm_os_performance_counters WHERE object_name = N'SQLServer:Databases' AND counter_name = N'Log Flushes/sec'`);
    assert.equal(plain!.n, 0);
    assert.ok(Number(trimmed!.n) > 0);
    assert.equal(padded!.n, trimmed!.n);
    assert.ok(Number(equal!.n) >= 5, 'one row per database plus _Total: = ignores the padding');
  });
});
