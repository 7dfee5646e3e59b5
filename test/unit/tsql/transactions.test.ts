// Session-level transactions and the diagnostics that depend on them: the cases that were false positives on real code.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { SURE } from '../../../src/tsql/diagnose';
import type { AnalysisDiagnostic } from '../../../src/tsql/types';
import { rangeOf, script } from './helpers';

const codes = (text: string): string[] => analyze(text).diagnostics.map((d) => d.code);
const of = (text: string, code: string): AnalysisDiagnostic[] => analyze(text).diagnostics.filter((d) => d.code === code);

describe('tsql session transactions', () => {
  it('keeps a transaction opened in batch 1 open through batch 2 until the COMMIT in batch 3', () => {
    const text = script(
      'BEGIN TRAN', 'GO',
      'DECLARE @i int = 0', 'WHILE @i < 100', 'BEGIN', '  INSERT dbo.t VALUES (@i)', '  SET @i += 1', 'END', 'GO',
      'COMMIT', 'GO',
    );
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => [d.batchIndex, d.inExplicitTransaction, d.autocommit]), [[1, true, false]]);
    assert.deepEqual(a.diagnostics, []);
    assert.deepEqual(a.transactions?.map((t) => [t.kind, t.batchIndex, t.depth]), [['BEGIN TRAN', 0, 0], ['COMMIT', 2, 1]]);
    // The lens's transaction range only spans a BEGIN TRAN of the same batch.
    assert.equal(a.commits[0]!.beginRange, null);
  });

  it('treats IF @@TRANCOUNT, IF XACT_STATE() and WHILE @@TRANCOUNT > 0 as guards', () => {
    for (const guard of [
      'IF @@TRANCOUNT > 0 ROLLBACK', 'IF XACT_STATE() <> 0 ROLLBACK TRAN', 'WHILE @@TRANCOUNT > 0 ROLLBACK',
      'WHILE @@TRANCOUNT > 0 COMMIT', 'IF (@@TRANCOUNT > 0) COMMIT TRANSACTION', 'IF XACT_STATE() = 1 COMMIT ELSE IF XACT_STATE() = -1 ROLLBACK',
    ]) {
      assert.deepEqual(codes(guard), [], guard);
    }
  });

  it('reads WHILE @@TRANCOUNT > 0 COMMIT as closing every open transaction, not as a COMMIT per iteration', () => {
    const text = script('BEGIN TRAN', 'BEGIN TRAN', 'UPDATE t SET a = 1', 'WHILE @@TRANCOUNT > 0 COMMIT', 'INSERT t VALUES (1)');
    const a = analyze(text);
    assert.deepEqual(a.diagnostics, []);
    assert.equal(a.loops.length, 0);
    assert.deepEqual(a.dml.map((d) => d.autocommit), [false, true]);
  });

  it('knows a guarded ROLLBACK in CATCH ends the TRY block transaction', () => {
    const text = script(
      'BEGIN TRY', '  BEGIN TRAN', '  UPDATE t SET a = 1', '  COMMIT', 'END TRY',
      'BEGIN CATCH', '  IF @@TRANCOUNT > 0 ROLLBACK;', '  THROW;', 'END CATCH',
      'WHILE 1 = 1 INSERT t VALUES (1)',
    );
    const a = analyze(text);
    assert.deepEqual(a.diagnostics.map((d) => d.code), ['autocommit-dml-in-loop']);
  });

  it('counts DML under SET IMPLICIT_TRANSACTIONS ON as transactional, across batches, and its COMMIT as balanced', () => {
    const text = script('SET IMPLICIT_TRANSACTIONS ON', 'GO', 'WHILE @i < 10 INSERT t VALUES (1)', 'COMMIT');
    const a = analyze(text);
    assert.deepEqual(a.dml.map((d) => d.autocommit), [false]);
    assert.deepEqual(a.diagnostics, []);
  });

  it('does not read ALTER DATABASE ... WITH ROLLBACK IMMEDIATE / ROLLBACK AFTER n as ROLLBACK statements', () => {
    const text = script(
      'ALTER DATABASE Sales SET SINGLE_USER WITH ROLLBACK IMMEDIATE;',
      'ALTER DATABASE [Sales] SET OFFLINE WITH ROLLBACK AFTER 30 SECONDS',
      'ALTER DATABASE CURRENT SET DELAYED_DURABILITY = ALLOWED WITH ROLLBACK IMMEDIATE',
    );
    const a = analyze(text);
    assert.deepEqual(a.diagnostics, []);
    assert.deepEqual(a.transactions, []);
    assert.deepEqual(a.durabilitySettings.map((s) => s.value), ['ALLOWED']);
  });
});

describe('tsql loop diagnostics on real patterns', () => {
  it('does not flag autocommit DML into #temp, ##temp, @table variables or their aliases (tempdb commits do not wait like that)', () => {
    for (const dml of [
      'INSERT #work (id) VALUES (@i)', 'INSERT INTO ##shared VALUES (@i)', 'INSERT @rows (id) SELECT @i',
      'UPDATE #work SET done = 1 WHERE id = @i', 'DELETE FROM @rows WHERE id = @i', 'UPDATE w SET done = 1 FROM #work AS w WHERE w.id = @i',
      'DELETE r FROM @rows r WHERE r.id = @i', 'MERGE INTO #work AS w USING src s ON w.id = s.id WHEN MATCHED THEN DELETE;',
      'SELECT @i AS id INTO #copy',
    ]) {
      const text = script('WHILE @i < 10', 'BEGIN', `  ${dml}`, '  SET @i += 1', 'END');
      assert.deepEqual(codes(text), [], dml);
      assert.equal(analyze(text).dml.length, 1, dml);
    }
    assert.deepEqual(codes(script('WHILE @i < 10', '  INSERT dbo.work (id) VALUES (@i)')), ['autocommit-dml-in-loop']);
  });

  it('does not flag chunked DELETE TOP (n) / UPDATE TOP (n) loops, nor their COMMIT per chunk', () => {
    const autocommit = script('WHILE 1 = 1', 'BEGIN', '  DELETE TOP (5000) FROM dbo.log WHERE at < @cutoff', '  IF @@ROWCOUNT < 5000 BREAK', 'END');
    assert.deepEqual(codes(autocommit), []);
    const explicit = script(
      'WHILE 1 = 1', 'BEGIN', '  BEGIN TRAN', '  UPDATE TOP (1000) dbo.t SET flag = 1 WHERE flag = 0', '  SET @n = @@ROWCOUNT', '  COMMIT',
      '  IF @n = 0 BREAK', 'END',
    );
    assert.deepEqual(codes(explicit), []);
  });

  it('says commit-every-N is the recommended pattern, as a hint with N, not a per-row commit', () => {
    const text = script(
      'BEGIN TRAN', 'WHILE @i < 1000000', 'BEGIN', '  INSERT dbo.t VALUES (@i)', '  SET @i += 1',
      '  IF @@TRANCOUNT > 0 AND @i % 10000 = 0', '  BEGIN', '    COMMIT', '    BEGIN TRAN', '  END', 'END', 'COMMIT',
    );
    const found = analyze(text).diagnostics;
    assert.deepEqual(found.map((d) => [d.code, d.severity, d.range]), [['commit-in-loop', 'hint', rangeOf(text, 'COMMIT')]]);
    assert.match(found[0]!.message, /every 10000 iterations/);
  });

  it('does not flag a retry loop whose COMMIT is followed by BREAK', () => {
    const text = script(
      'WHILE @retry > 0', 'BEGIN', '  BEGIN TRY', '    BEGIN TRAN', '    UPDATE dbo.acct SET bal -= 10 WHERE id = 1',
      '    COMMIT', '    BREAK', '  END TRY', '  BEGIN CATCH', '    IF XACT_STATE() <> 0 ROLLBACK', '    SET @retry -= 1',
      "    WAITFOR DELAY '00:00:01'", '  END CATCH', 'END',
    );
    assert.deepEqual(codes(text), []);
  });

  it('does not treat a WHILE whose body always leaves (BREAK, RETURN, THROW, no CONTINUE) as repeating anything', () => {
    const once = script('WHILE 1 = 1', 'BEGIN', '  INSERT dbo.run (at) VALUES (GETDATE())', '  BEGIN TRAN', '  UPDATE dbo.t SET a = 1', '  COMMIT', '  BREAK', 'END');
    const a = analyze(once);
    assert.deepEqual(a.diagnostics, []);
    assert.deepEqual(a.dml.map((d) => d.inLoop), [false, false]);
    assert.deepEqual(a.batchesWithDmlInLoop, []);
    // With a CONTINUE somewhere in the body it can repeat, and a loop nested in it still does.
    const repeats = script('WHILE 1 = 1', 'BEGIN', '  INSERT dbo.run (at) VALUES (GETDATE())', '  IF @x = 1 CONTINUE', '  BREAK', 'END');
    assert.deepEqual(codes(repeats), ['autocommit-dml-in-loop']);
    const nested = script('WHILE 1 = 1', 'BEGIN', '  WHILE @i < 9 INSERT dbo.t VALUES (@i)', '  RETURN', 'END');
    assert.deepEqual(codes(nested), ['autocommit-dml-in-loop']);
  });

  it('still flags a COMMIT that runs on every iteration and autocommit DML into a real table', () => {
    const text = script('WHILE @i < 10000', 'BEGIN', '  BEGIN TRAN', '  INSERT dbo.t VALUES (@i)', '  COMMIT', '  SET @i += 1', 'END', 'WHILE @j < 10000 UPDATE dbo.t SET a = @j WHERE id = @j');
    assert.deepEqual(of(text, 'commit-in-loop').map((d) => [d.severity, d.range]), [[SURE['commit-in-loop'], rangeOf(text, 'COMMIT')]]);
    assert.equal(of(text, 'autocommit-dml-in-loop').length, 1);
  });
});
