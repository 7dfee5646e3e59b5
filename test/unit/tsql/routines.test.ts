// Routines: every CREATE/ALTER PROCEDURE/FUNCTION/TRIGGER header ends at its name and AS, and the body is analysed.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { positionOf, rangeOf, script } from './helpers';

const BODY = ['BEGIN', '  DECLARE @i int = 0;', '  WHILE @i < 1000', '  BEGIN', '    INSERT dbo.t (a) VALUES (@i);', '    SET @i += 1;', '  END', 'END'];

/** Header forms with the name each must report; the body above follows every one of them. */
const HEADERS: [string, string, 'PROCEDURE' | 'FUNCTION' | 'TRIGGER'][] = [
  ['CREATE PROCEDURE dbo.p AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROC p AS', 'p', 'PROCEDURE'],
  ['ALTER PROCEDURE [dbo].[Load Rows] AS', 'dbo.Load Rows', 'PROCEDURE'],
  ['CREATE OR ALTER PROCEDURE "dbo"."p" AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p @a int, @b varchar(10) = \'AS\' OUTPUT AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p (@a int = 5, @t dbo.TableType READONLY, @c AS int OUT) AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p WITH EXECUTE AS OWNER AS', 'dbo.p', 'PROCEDURE'],
  ["CREATE PROCEDURE dbo.p @a int WITH EXECUTE AS 'loader', RECOMPILE AS", 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p WITH RECOMPILE AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p FOR REPLICATION AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p WITH NATIVE_COMPILATION, SCHEMABINDING, EXECUTE AS OWNER AS', 'dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE srv.db.dbo.p AS', 'srv.db.dbo.p', 'PROCEDURE'],
  ['CREATE PROCEDURE #tmp_load AS', '#tmp_load', 'PROCEDURE'],
  ['CREATE PROCEDURE dbo.p\r\n  @a int\r\nAS', 'dbo.p', 'PROCEDURE'],
  ['CREATE FUNCTION dbo.f() RETURNS int WITH SCHEMABINDING AS', 'dbo.f', 'FUNCTION'],
  ['CREATE FUNCTION dbo.f(@a int) RETURNS @r TABLE (id int, note varchar(20)) AS', 'dbo.f', 'FUNCTION'],
  ['CREATE TRIGGER dbo.trg ON dbo.t AFTER INSERT, UPDATE AS', 'dbo.trg', 'TRIGGER'],
  ['CREATE TRIGGER trg ON dbo.t INSTEAD OF DELETE AS', 'trg', 'TRIGGER'],
  ['CREATE TRIGGER trg ON dbo.t WITH EXECUTE AS CALLER FOR INSERT NOT FOR REPLICATION AS', 'trg', 'TRIGGER'],
  ['CREATE TRIGGER ddl_guard ON DATABASE FOR DROP_TABLE, ALTER_TABLE AS', 'ddl_guard', 'TRIGGER'],
  ['CREATE TRIGGER logon_guard ON ALL SERVER WITH EXECUTE AS \'sa\' FOR LOGON AS', 'logon_guard', 'TRIGGER'],
];

describe('tsql routines', () => {
  it('gives a parameterless procedure with a WHILE loop of autocommit INSERTs its loop, DML and diagnostic', () => {
    const text = script('CREATE PROCEDURE dbo.load_rows AS', ...BODY);
    const a = analyze(text);
    assert.deepEqual(a.routines?.map((r) => [r.kind, r.name]), [['PROCEDURE', 'dbo.load_rows']]);
    assert.deepEqual(a.routines![0]!.bodyRange.start, positionOf(text, 'BEGIN'));
    assert.equal(a.loops.length, 1);
    assert.deepEqual(a.dml.map((d) => [d.kind, d.inLoop, d.autocommit]), [['INSERT', true, true]]);
    assert.deepEqual(a.diagnostics.map((d) => [d.code, d.range]), [['autocommit-dml-in-loop', rangeOf(text, 'INSERT dbo.t (a) VALUES (@i);')]]);
    assert.match(a.diagnostics[0]!.message, /called with no transaction open/);
    assert.deepEqual(a.batchesWithDmlInLoop, [0]);
  });

  for (const [header, name, kind] of HEADERS) {
    it(`reads the header «${header.replace(/\r\n/g, ' ')}» as ${kind} ${name} and analyses the body`, () => {
      const text = script(header, ...BODY);
      const a = analyze(text);
      assert.deepEqual(a.routines?.map((r) => [r.kind, r.name]), [[kind, name]]);
      assert.deepEqual(a.routines![0]!.bodyRange.start, positionOf(text, 'BEGIN'));
      assert.deepEqual(a.dml.map((d) => [d.kind, d.inLoop]), [['INSERT', true]]);
      assert.equal(a.loops.length, 1);
      // A trigger runs inside the firing statement's transaction: its DML is never autocommit.
      const codes = a.diagnostics.map((d) => d.code);
      assert.deepEqual(codes, kind === 'TRIGGER' ? [] : ['autocommit-dml-in-loop']);
    });
  }

  it('reads numbered procedures (;N) and keeps the number apart from the name', () => {
    const a = analyze(script('CREATE PROCEDURE dbo.p;2 @a int AS', 'SELECT @a', 'GO'));
    assert.deepEqual(a.routines?.map((r) => [r.name, r.number]), [['dbo.p', 2]]);
  });

  it('marks AS EXTERNAL NAME routines as external (no T-SQL body)', () => {
    const a = analyze('CREATE PROCEDURE dbo.clr_p @a int AS EXTERNAL NAME Asm.[Ns.Cls].Method');
    assert.deepEqual(a.routines?.map((r) => [r.name, r.external]), [['dbo.clr_p', true]]);
    assert.equal(a.diagnostics.length, 0);
  });

  it('does not let a routine body change the transaction state of the batches around it', () => {
    const text = script(
      'BEGIN TRAN', 'GO',
      'CREATE PROCEDURE dbo.p AS', 'BEGIN', '  COMMIT', 'END', 'GO',
      'WHILE 1 = 1 INSERT dbo.t VALUES (1)', 'COMMIT',
    );
    const a = analyze(text);
    // The procedure's COMMIT has nothing of its own to close (its caller's, maybe); the script's BEGIN TRAN stays
    // open until the last COMMIT, so the loop's INSERT is inside it.
    assert.deepEqual(a.dml.map((d) => d.autocommit), [false]);
    const unbalanced = a.diagnostics.filter((d) => d.code === 'unbalanced-transaction');
    assert.deepEqual(unbalanced.map((d) => d.range), [rangeOf(text, 'COMMIT')]);
    assert.match(unbalanced[0]!.message, /in this procedure.*its caller has a transaction open/);
  });

  it('accepts COMMIT and ROLLBACK inside a trigger (it always runs in a transaction)', () => {
    const text = script(
      'CREATE TRIGGER dbo.trg_guard ON dbo.orders AFTER DELETE AS',
      'BEGIN',
      '  IF EXISTS (SELECT 1 FROM deleted WHERE locked = 1)',
      '  BEGIN',
      "    RAISERROR('locked', 16, 1);",
      '    ROLLBACK TRANSACTION;',
      '    RETURN;',
      '  END',
      'END',
    );
    const a = analyze(text);
    assert.equal(a.diagnostics.length, 0);
    assert.equal(a.transactions?.length, 1);
  });
});
