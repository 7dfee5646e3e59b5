// Structure: transactions and their nesting, loops, IF/ELSE, TRY/CATCH, cursors, atomic blocks, DML context.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { rangeOf, script } from './helpers';

describe('tsql structure', () => {
  it('finds no COMMIT in strings, comments or [COMMIT] identifiers', () => {
    const text = script(
      "PRINT 'COMMIT'", '-- COMMIT', '/* COMMIT TRAN */', 'SELECT [COMMIT], "COMMIT" FROM t', "SELECT N'COMMIT'",
    );
    const a = analyze(text);
    assert.equal(a.commits.length, 0);
    assert.equal(a.diagnostics.length, 0);
  });

  it('reads every COMMIT form with its name and DELAYED_DURABILITY option', () => {
    const text = script(
      'BEGIN TRAN t1', 'COMMIT TRAN t1 WITH (DELAYED_DURABILITY = ON)',
      'BEGIN TRANSACTION @name WITH MARK \'m\'', 'COMMIT TRANSACTION @name',
      'BEGIN TRAN', 'COMMIT WORK',
      'BEGIN TRAN', 'COMMIT WITH (DELAYED_DURABILITY = OFF);',
    );
    const a = analyze(text);
    assert.deepEqual(a.commits.map((c) => [c.form, c.transactionName, c.delayedDurability]), [
      ['COMMIT TRAN', 't1', 'ON'], ['COMMIT TRANSACTION', '@name', null], ['COMMIT WORK', null, null], ['COMMIT', null, 'OFF'],
    ]);
    assert.deepEqual(a.commits[0]!.keywordRange, rangeOf(text, 'COMMIT'));
    assert.deepEqual(a.commits[0]!.range, rangeOf(text, 'COMMIT TRAN t1 WITH (DELAYED_DURABILITY = ON)'));
    assert.deepEqual(a.commits[0]!.beginRange, rangeOf(text, 'BEGIN TRAN t1'));
    assert.equal(a.diagnostics.filter((d) => d.code === 'unbalanced-transaction').length, 0);
  });

  it('pairs nested transactions innermost first', () => {
    const text = script('BEGIN TRAN outer_t', '  BEGIN TRAN inner_t', '  INSERT t VALUES (1)', '  COMMIT', 'COMMIT');
    const a = analyze(text);
    assert.deepEqual(a.commits.map((c) => c.beginRange), [rangeOf(text, 'BEGIN TRAN inner_t'), rangeOf(text, 'BEGIN TRAN outer_t')]);
    assert.equal(a.dml[0]!.inExplicitTransaction, true);
    assert.equal(a.dml[0]!.autocommit, false);
  });

  it('tells BEGIN blocks from BEGIN TRAN, TRY, CATCH, DISTRIBUTED TRAN and ATOMIC', () => {
    const text = script(
      'BEGIN', '  SELECT 1', 'END',
      'BEGIN DISTRIBUTED TRANSACTION', 'COMMIT',
      'BEGIN TRY', '  SELECT 1/0', 'END TRY', 'BEGIN CATCH', '  PRINT ERROR_MESSAGE()', 'END CATCH',
    );
    const a = analyze(text);
    const kinds = (a.statements ?? []).map((s) => s.kind);
    assert.ok(kinds.includes('block'));
    assert.ok(kinds.includes('try-catch'));
    assert.equal(kinds.filter((k) => k === 'begin-transaction').length, 1);
    assert.equal(a.commits[0]!.beginRange?.start.line, 3);
  });

  it('runs a WHILE loop over a BEGIN...END block', () => {
    const text = script('DECLARE @i int = 0', 'WHILE @i < 10', 'BEGIN', '  INSERT t DEFAULT VALUES', '  SET @i += 1', 'END', 'SELECT 1');
    const a = analyze(text);
    assert.equal(a.loops.length, 1);
    assert.deepEqual([a.loops[0]!.kind, a.loops[0]!.block], ['WHILE', true]);
    assert.deepEqual([a.loops[0]!.range.start.line, a.loops[0]!.range.end.line], [1, 5]);
    assert.deepEqual(a.dml.map((d) => [d.kind, d.inLoop, d.autocommit]), [['INSERT', true, true]]);
  });

  it('runs a WHILE loop over a single statement without BEGIN', () => {
    const text = script('WHILE (SELECT COUNT(*) FROM t) < 100', '  INSERT INTO t SELECT TOP (1) a FROM s', 'DELETE FROM u');
    const a = analyze(text);
    assert.deepEqual([a.loops[0]!.block, a.loops[0]!.range.end.line], [false, 1]);
    assert.deepEqual(a.dml.map((d) => [d.kind, d.inLoop]), [['INSERT', true], ['DELETE', false]]);
  });

  it('treats a WHILE on @@FETCH_STATUS as a cursor loop', () => {
    const text = script(
      'DECLARE c CURSOR LOCAL FAST_FORWARD FOR SELECT id FROM src FOR READ ONLY', 'OPEN c',
      'FETCH NEXT FROM c INTO @id', 'WHILE @@FETCH_STATUS = 0', 'BEGIN',
      '  UPDATE dst SET done = 1 WHERE id = @id', '  FETCH NEXT FROM c INTO @id', 'END', 'CLOSE c', 'DEALLOCATE c',
    );
    const a = analyze(text);
    assert.deepEqual(a.loops.map((l) => l.kind), ['CURSOR']);
    assert.deepEqual(a.dml.map((d) => [d.kind, d.inLoop, d.autocommit]), [['UPDATE', true, true]]);
  });

  it('counts a transaction opened and committed inside a loop body as commit in loop', () => {
    const text = script('WHILE @i < 10', 'BEGIN', '  BEGIN TRAN', '  INSERT t VALUES (@i)', '  COMMIT', '  SET @i += 1', 'END');
    const a = analyze(text);
    assert.equal(a.commits[0]!.inLoop, true);
    assert.deepEqual(a.dml.map((d) => [d.inLoop, d.inExplicitTransaction, d.autocommit]), [[true, true, false]]);
  });

  it('keeps DML inside one transaction around the loop out of autocommit', () => {
    const text = script('BEGIN TRAN', 'WHILE @i < 10', 'BEGIN', '  INSERT t VALUES (@i)', '  SET @i += 1', 'END', 'COMMIT');
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => d.autocommit), [false]);
    assert.equal(a.commits[0]!.inLoop, false);
  });

  it('finds every DML kind, SELECT INTO and BULK INSERT included, and ignores plain SELECT and UPDATE STATISTICS', () => {
    const text = script(
      'INSERT INTO t (a) VALUES (1)', 'UPDATE t SET a = 2 WHERE a = 1', 'DELETE t WHERE a = 2',
      'MERGE t USING s ON t.a = s.a WHEN MATCHED THEN UPDATE SET a = s.a WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a);',
      'SELECT a INTO #copy FROM t', "BULK INSERT t FROM 'c:\\data.csv'", 'SELECT a FROM t', 'UPDATE STATISTICS t',
      'WITH cte AS (SELECT a FROM t) DELETE FROM cte',
    );
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => [d.kind, d.range.start.line]), [
      ['INSERT', 0], ['UPDATE', 1], ['DELETE', 2], ['MERGE', 3], ['SELECT INTO', 4], ['BULK INSERT', 5], ['DELETE', 8],
    ]);
  });

  it('ends statements without semicolons where the next statement starts', () => {
    const text = script('INSERT t SELECT 1 UNION ALL SELECT 2', 'SELECT 3', 'UPDATE t SET a = 1', 'SET @x = 1', "INSERT t EXEC ('SELECT 1')");
    const a = analyze(text);
    const lines = (a.statements ?? []).map((s) => [s.kind, s.range.start.line, s.range.end.line]);
    assert.deepEqual(lines, [['dml', 0, 0], ['other', 1, 1], ['dml', 2, 2], ['other', 3, 3], ['dml', 4, 4]]);
  });

  it('does not end an IF branch at the END of a CASE expression', () => {
    const text = script('IF @x = 1', '  UPDATE t SET a = CASE WHEN b = 1 THEN 2 ELSE 3 END', 'ELSE', '  DELETE FROM t');
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => [d.kind, d.range.start.line, d.range.end.line]), [['UPDATE', 1, 1], ['DELETE', 3, 3]]);
    assert.equal((a.statements ?? []).filter((s) => s.kind === 'if').length, 1);
  });

  it('reads ALTER DATABASE ... SET DELAYED_DURABILITY for CURRENT and [quoted] names', () => {
    const text = script(
      'ALTER DATABASE CURRENT SET DELAYED_DURABILITY = ALLOWED', 'ALTER DATABASE [Sales]]DB] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT',
      'ALTER DATABASE tempdb SET RECOVERY SIMPLE',
    );
    const a = analyze(text);
    assert.deepEqual(a.durabilitySettings.map((s) => [s.database, s.value, s.range.start.line]), [[null, 'ALLOWED', 0], ['Sales]DB', 'FORCED', 1]]);
  });

  it('finds sp_flush_log calls in every spelling, and CHECKPOINT', () => {
    const text = script('EXEC sys.sp_flush_log', 'EXECUTE sp_flush_log;', 'EXEC @rc = [sys].[sp_flush_log]', 'EXEC dbo.sp_flush_logs', 'CHECKPOINT', 'CHECKPOINT 10');
    const a = analyze(text);
    assert.deepEqual(a.flushLogCalls.map((r) => r.start.line), [0, 1, 2]);
    assert.deepEqual(a.checkpoints.map((r) => r.start.line), [4, 5]);
  });

  it('reads a procedure body after AS, past parameters written @p AS type', () => {
    const text = script(
      'CREATE OR ALTER PROCEDURE [dbo].[usp_load] @n AS int = 10, @label nvarchar(20) OUTPUT',
      'WITH EXECUTE AS OWNER',
      'AS',
      'BEGIN', '  WHILE @n > 0', '  BEGIN', '    INSERT dbo.t DEFAULT VALUES', '    SET @n -= 1', '  END', 'END',
    );
    const a = analyze(text);
    assert.deepEqual(a.routines?.map((r) => [r.kind, r.name]), [['PROCEDURE', 'dbo.usp_load']]);
    assert.deepEqual(a.dml.map((d) => [d.range.start.line, d.inLoop, d.autocommit]), [[6, true, true]]);
  });

  it('treats DML inside BEGIN ATOMIC as part of the atomic transaction', () => {
    const text = script(
      'CREATE PROCEDURE dbo.p WITH NATIVE_COMPILATION, SCHEMABINDING AS',
      "BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'English', DELAYED_DURABILITY = ON)",
      '  DECLARE @i int = 0', '  WHILE @i < 10', '  BEGIN', '    INSERT dbo.t (a) VALUES (@i)', '    SET @i += 1', '  END', 'END',
    );
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => [d.inLoop, d.autocommit]), [[true, false]]);
    assert.equal(a.diagnostics.filter((d) => d.code === 'autocommit-dml-in-loop').length, 0);
  });

  it('treats SET IMPLICIT_TRANSACTIONS ON as opening transactions for later DML', () => {
    const text = script('SET IMPLICIT_TRANSACTIONS ON', 'WHILE @i < 3 INSERT t VALUES (1)', 'COMMIT', 'SET IMPLICIT_TRANSACTIONS OFF', 'WHILE @i < 3 INSERT t VALUES (1)');
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => d.autocommit), [false, true]);
  });

  it('marks every statement of a GO n batch as repeated, and lists the batch for profiling', () => {
    const text = script('CREATE TABLE t (a int)', 'GO', 'INSERT t VALUES (1)', 'GO 100');
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => [d.batchIndex, d.inLoop, d.autocommit]), [[1, true, true]]);
    assert.deepEqual(a.batchesWithDmlInLoop, [1]);
  });

  it('survives unterminated input and stray END/ELSE without losing later statements', () => {
    const a = analyze(script('END', 'ELSE', 'BEGIN', 'BEGIN TRY', 'INSERT t VALUES (1)'));
    assert.deepEqual(a.dml.map((d) => d.kind), ['INSERT']);
    const b = analyze("INSERT t VALUES ('abc");
    assert.deepEqual(b.dml.map((d) => d.kind), ['INSERT']);
  });
});
