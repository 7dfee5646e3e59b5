// Finding a Query Store row's routine in a workspace file (issue 30, item 2): CREATE / ALTER / CREATE OR ALTER of
// schema.name in any spelling, the statement's line by its text, and no false match on a mention or another schema.
import { strict as assert } from 'node:assert';
import { findRoutine, findStatement, sameRoutine } from '../../../src/extension/topLog/locate';

const FILE = `-- dbo.load_rows writes one row per call (this comment names it: not a definition)
SELECT 'dbo.load_rows';
GO
CREATE OR ALTER PROCEDURE [dbo].[load_rows] @rows int
AS
BEGIN
  DECLARE @i int = 0;
  WHILE @i < @rows
  BEGIN
    INSERT   INTO dbo.t (v)
      VALUES (@i);
    SET @i += 1;
  END
END
GO
CREATE PROCEDURE audit.load_rows AS SELECT 1;
GO
ALTER PROCEDURE load_rows AS
  INSERT INTO dbo.t (v) VALUES (0);
`;

const lineOf = (pattern: RegExp) => FILE.split('\n').findIndex((l) => pattern.test(l));

describe('Heaviest Log Writers: locating a routine in the workspace', () => {
  it('finds every CREATE/ALTER of dbo.load_rows (bracketed or schema-less), not audit.load_rows nor the mentions', () => {
    const found = findRoutine(FILE, 'dbo', 'load_rows', 'INSERT INTO dbo.t (v) VALUES (@i)');
    assert.deepEqual(found.map((f) => f.headerLine), [lineOf(/^CREATE OR ALTER PROCEDURE/), lineOf(/^ALTER PROCEDURE load_rows/)]);
    assert.equal(found[0]!.statementLine, lineOf(/^\s+INSERT\s+INTO dbo\.t/), 'the statement by its text, whatever the whitespace');
    assert.equal(found[1]!.statementLine, null, 'a different statement text is not claimed');
    assert.deepEqual(findRoutine(FILE, 'audit', 'load_rows').map((f) => f.headerLine), [lineOf(/^CREATE PROCEDURE audit/)]);
    assert.deepEqual(findRoutine(FILE, 'dbo', 'LOAD_ROWS').length, 2, 'names compare case-insensitively');
    assert.deepEqual(findRoutine(FILE, 'dbo', 'other'), []);
  });

  it('compares name parts: schema-less means dbo, server and database parts are ignored, numbered procedures share a name', () => {
    assert.ok(sameRoutine(['load'], null, 'load'));
    assert.ok(sameRoutine(['load'], 'dbo', 'load'));
    assert.ok(!sameRoutine(['load'], 'etl', 'load'));
    assert.ok(sameRoutine(['srv', 'db', 'etl', 'load'], 'ETL', 'load'));
    assert.ok(sameRoutine(['db', '', 'load'], 'dbo', 'load'));
    assert.ok(sameRoutine(['etl', 'load;2'], 'etl', 'load'));
  });

  it('finds a statement only inside the routine and never builds a pattern from its text', () => {
    assert.equal(findStatement('SELECT (a+b)*[c] FROM t', 'SELECT (a+b)*[c]   FROM t'), 0);
    assert.equal(findStatement('x\nINSERT INTO t VALUES (1)', 'insert into T values (1)'), 2);
    assert.equal(findStatement('INSERT INTO t VALUES (1)', 'INSERT INTO t VALUES (1)', 5), null, 'not before `from`');
    assert.equal(findStatement('abc', '   '), null);
  });
});
