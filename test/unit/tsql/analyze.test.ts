// Diagnostics: each code at its exact range, its wording with and without the database's setting, and switches.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { SURE } from '../../../src/tsql/diagnose';
import type { AnalysisDiagnostic, DiagnosticCode } from '../../../src/tsql/types';
import { rangeOf, script } from './helpers';

function only(diagnostics: AnalysisDiagnostic[], code: DiagnosticCode): AnalysisDiagnostic[] {
  return diagnostics.filter((d) => d.code === code);
}

describe('tsql analyze diagnostics', () => {
  it('flags autocommit DML in a loop on the whole statement', () => {
    const text = script('WHILE @i < 10000', 'BEGIN', '  INSERT INTO dbo.t DEFAULT VALUES;', '  SET @i += 1', 'END');
    const [d, ...rest] = analyze(text).diagnostics;
    assert.equal(rest.length, 0);
    assert.equal(d!.code, 'autocommit-dml-in-loop');
    assert.equal(d!.severity, SURE['autocommit-dml-in-loop']);
    assert.deepEqual(d!.range, rangeOf(text, 'INSERT INTO dbo.t DEFAULT VALUES;'));
    assert.match(d!.message, /^INSERT runs inside a loop with no transaction open/);
    assert.match(d!.message, /log flush/);
  });

  it('names the GO count when the client repeats a batch of autocommit DML', () => {
    const text = script('INSERT t DEFAULT VALUES', 'GO 5000');
    const [d] = analyze(text).diagnostics;
    assert.equal(d!.code, 'autocommit-dml-in-loop');
    assert.match(d!.message, /runs 5000 times \(GO 5000\)/);
  });

  it('flags COMMIT inside a loop on the COMMIT keyword', () => {
    const text = script('WHILE @i < 10000', 'BEGIN', '  BEGIN TRAN', '  UPDATE t SET a = @i WHERE id = @i', '  COMMIT TRAN', '  SET @i += 1', 'END');
    const found = only(analyze(text).diagnostics, 'commit-in-loop');
    assert.equal(found.length, 1);
    assert.deepEqual(found[0]!.range, rangeOf(text, 'COMMIT'));
    assert.match(found[0]!.message, /^COMMIT inside a loop/);
  });

  it('hints that COMMIT WITH (DELAYED_DURABILITY = ON) needs an ALLOWED database, on the option itself', () => {
    const text = script('BEGIN TRAN', 'INSERT t VALUES (1)', 'COMMIT TRAN WITH (DELAYED_DURABILITY = ON)');
    const [d] = only(analyze(text).diagnostics, 'delayed-commit-needs-allowed');
    assert.equal(d!.severity, 'hint');
    assert.deepEqual(d!.range, rangeOf(text, 'DELAYED_DURABILITY = ON'));
    assert.match(d!.message, /only takes effect when the database's DELAYED_DURABILITY is ALLOWED/);
  });

  it("words the delayed-commit hint from the connected database's setting", () => {
    const text = script('BEGIN TRAN', 'COMMIT WITH (DELAYED_DURABILITY = ON)');
    const message = (setting: 'DISABLED' | 'ALLOWED' | 'FORCED'): string =>
      only(analyze(text, { database: { database: 'Sales', delayedDurability: setting } }).diagnostics, 'delayed-commit-needs-allowed')[0]!.message;
    assert.match(message('DISABLED'), /^Ignored: database Sales is DISABLED/);
    assert.match(message('ALLOWED'), /^Honoured: database Sales is ALLOWED/);
    assert.match(message('FORCED'), /^Redundant: database Sales is FORCED/);
  });

  it('says DELAYED_DURABILITY = OFF is ignored on a FORCED database, and stays quiet otherwise', () => {
    const text = script('BEGIN TRAN', 'COMMIT WITH (DELAYED_DURABILITY = OFF)');
    const forced = analyze(text, { database: { database: 'Sales', delayedDurability: 'FORCED' } });
    assert.match(only(forced.diagnostics, 'delayed-commit-needs-allowed')[0]!.message, /^Ignored: database Sales is FORCED/);
    assert.equal(only(analyze(text).diagnostics, 'delayed-commit-needs-allowed').length, 0);
  });

  it('hints on BEGIN ATOMIC WITH (DELAYED_DURABILITY = ON) the same way', () => {
    const text = script('CREATE PROCEDURE p WITH NATIVE_COMPILATION, SCHEMABINDING AS', "BEGIN ATOMIC WITH (LANGUAGE = N'us_english', DELAYED_DURABILITY = ON)", '  SELECT 1', 'END');
    const [d] = analyze(text, { database: { database: 'Db', delayedDurability: 'DISABLED' } }).diagnostics;
    assert.equal(d!.code, 'delayed-commit-needs-allowed');
    assert.deepEqual(d!.range, rangeOf(text, 'DELAYED_DURABILITY = ON'));
    assert.match(d!.message, /BEGIN ATOMIC stays fully durable/);
  });

  it('warns that FORCED durability can lose committed transactions, naming the database', () => {
    const text = script('ALTER DATABASE [Test DB] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;', 'ALTER DATABASE CURRENT SET DELAYED_DURABILITY = FORCED');
    const found = only(analyze(text).diagnostics, 'forced-durability-data-loss');
    assert.deepEqual(found.map((d) => d.severity), ['warning', 'warning']);
    assert.deepEqual(found[0]!.range, rangeOf(text, 'ALTER DATABASE [Test DB] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;'));
    assert.match(found[0]!.message, /database Test DB delayed durable/);
    assert.match(found[1]!.message, /the current database/);
    assert.equal(only(analyze('ALTER DATABASE d SET DELAYED_DURABILITY = ALLOWED').diagnostics, 'forced-durability-data-loss').length, 0);
  });

  it('flags BEGIN TRAN left open at the end of the script and COMMIT with no BEGIN TRAN before it, on the keywords', () => {
    const text = script('COMMIT', 'GO', 'BEGIN TRAN', 'INSERT t VALUES (1)', 'GO');
    const found = only(analyze(text).diagnostics, 'unbalanced-transaction');
    assert.deepEqual(found.map((d) => d.range), [rangeOf(text, 'COMMIT'), rangeOf(text, 'BEGIN TRAN')]);
    assert.match(found[0]!.message, /^COMMIT has no BEGIN TRAN earlier in this script/);
    assert.match(found[1]!.message, /^BEGIN TRAN has no COMMIT or ROLLBACK after it in this script/);
  });

  it('accepts a CATCH block ROLLBACK after the TRY block BEGIN TRAN', () => {
    const text = script(
      'BEGIN TRY', '  BEGIN TRAN', '  INSERT t VALUES (1)', '  COMMIT', 'END TRY',
      'BEGIN CATCH', '  ROLLBACK', '  ;THROW', 'END CATCH',
    );
    assert.deepEqual(analyze(text).diagnostics, []);
  });

  it('accepts COMMIT and ROLLBACK on the two branches of an IF', () => {
    const text = script('BEGIN TRAN', 'UPDATE t SET a = 1', 'IF @@ERROR <> 0', '  ROLLBACK', 'ELSE', '  COMMIT');
    assert.deepEqual(analyze(text).diagnostics, []);
  });

  it('keeps the transaction open after an error branch that rolls back and returns', () => {
    const text = script('BEGIN TRAN', 'UPDATE t SET a = 1', 'IF @@ERROR <> 0', 'BEGIN', '  ROLLBACK', '  RETURN', 'END', 'DELETE t', 'COMMIT');
    const a = analyze(text);
    assert.deepEqual(a.diagnostics, []);
    assert.equal(a.commits[0]!.beginRange?.start.line, 0);
    assert.deepEqual(a.dml.map((d) => d.inExplicitTransaction), [true, true]);
  });

  it('does not flag ROLLBACK or COMMIT guarded by @@TRANCOUNT or XACT_STATE()', () => {
    const text = script('IF @@TRANCOUNT > 0 ROLLBACK TRAN', 'IF XACT_STATE() = 1 COMMIT');
    assert.deepEqual(analyze(text).diagnostics, []);
  });

  it('keeps a transaction open past ROLLBACK to a savepoint', () => {
    const text = script('BEGIN TRAN', 'SAVE TRAN before_delete', 'DELETE t', 'ROLLBACK TRAN before_delete', 'COMMIT');
    const a = analyze(text);
    assert.deepEqual(a.diagnostics, []);
    assert.equal(a.commits[0]!.beginRange?.start.line, 0);
  });

  it('switches off the codes listed in disabledCodes', () => {
    const text = script('WHILE 1 = 1', 'BEGIN', '  BEGIN TRAN', '  INSERT t VALUES (1)', '  COMMIT', 'END', 'INSERT t VALUES (1)', 'GO 2');
    const all = analyze(text).diagnostics.map((d) => d.code);
    assert.ok(all.includes('commit-in-loop') && all.includes('autocommit-dml-in-loop'));
    const some = analyze(text, { disabledCodes: new Set<DiagnosticCode>(['commit-in-loop']) }).diagnostics.map((d) => d.code);
    assert.deepEqual(some, ['autocommit-dml-in-loop']);
  });

  it('returns diagnostics in document order', () => {
    const text = script('ALTER DATABASE CURRENT SET DELAYED_DURABILITY = FORCED', 'WHILE 1 = 1 DELETE FROM t WHERE id = @id', 'COMMIT');
    const lines = analyze(text).diagnostics.map((d) => d.range.start.line);
    assert.deepEqual(lines, [...lines].sort((a, b) => a - b));
    assert.equal(lines.length, 3);
  });

  it('analyses an empty file to an empty result', () => {
    const a = analyze('');
    assert.deepEqual([a.batches, a.commits, a.dml, a.loops, a.diagnostics], [[], [], [], [], []]);
  });

  it('puts positions on the right columns in CRLF scripts with a byte order mark', () => {
    const text = '\uFEFFBEGIN TRAN\r\nWHILE 1 = 1\r\n  INSERT t VALUES (N\'é\')\r\n';
    const a = analyze(text);
    assert.deepEqual(a.dml[0]!.range, { start: { line: 2, character: 2 }, end: { line: 2, character: 24 } });
    assert.deepEqual(only(a.diagnostics, 'unbalanced-transaction')[0]!.range, { start: { line: 0, character: 1 }, end: { line: 0, character: 11 } });
  });
});
