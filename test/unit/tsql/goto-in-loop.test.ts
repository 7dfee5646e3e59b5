// A GOTO inside a loop: to a label past the loop it leaves (the COMMIT or DML before it runs once), to a label inside
// the loop it continues it (what precedes it runs on every iteration that takes that path). The mark a GOTO sets is
// undone at the end of the loop it was written in when the label is there, COMMITs included (they once kept it: a
// missed commit-in-loop finding). Severity read with promoteSure: `information` is a sure finding.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import type { DiagnosticCode } from '../../../src/tsql/types';
import { script } from './helpers';

/** `[line, severity]` of each finding of `code` (1-based lines). */
function where(text: string, code: DiagnosticCode): [number, string][] {
  return analyze(text, { promoteSure: true }).diagnostics.filter((d) => d.code === code).map((d) => [d.range.start.line + 1, d.severity]);
}

const cursorLoop = (...body: string[]): string[] =>
  ['WHILE @@FETCH_STATUS = 0', 'BEGIN', ...body, '  FETCH NEXT FROM c INTO @id;', 'END'];

describe('tsql diagnostics: commit-in-loop and DML before a GOTO in a loop', () => {
  it('reports a per-row COMMIT followed by GOTO to a label at the end of the loop', () => {
    const text = script(...cursorLoop(
      '  BEGIN TRAN;',
      '  INSERT INTO dbo.Target (id) VALUES (@id);',
      '  COMMIT;',
      '  GOTO next_row;',
      "  PRINT 'skipped';",
      '  next_row:'));
    assert.deepEqual(where(text, 'commit-in-loop'), [[5, 'information']]);
  });

  it('reports the success path of IF @@ERROR = 0 BEGIN COMMIT; GOTO next END ELSE BEGIN ROLLBACK; GOTO next END', () => {
    const text = script(...cursorLoop(
      '  BEGIN TRAN;',
      '  INSERT INTO dbo.Target (id) VALUES (@id);',
      '  IF @@ERROR = 0 BEGIN COMMIT; GOTO next_row; END',
      '  ELSE BEGIN ROLLBACK; GOTO next_row; END',
      '  next_row:'));
    assert.deepEqual(where(text, 'commit-in-loop'), [[5, 'information']]);
  });

  it('still leaves out a COMMIT followed by GOTO past the loop, or under another condition before a GOTO inside it', () => {
    const past = script(...cursorLoop('  BEGIN TRAN;', '  INSERT INTO dbo.Target (id) VALUES (@id);', '  COMMIT;', '  GOTO done;'), 'done:');
    assert.deepEqual(where(past, 'commit-in-loop'), []);
    // COMMIT on some iterations only: the GOTO's mark undone gives back 'conditional', not 'per-iteration'.
    const conditional = script(...cursorLoop(
      '  BEGIN TRAN;',
      '  INSERT INTO dbo.Target (id) VALUES (@id);',
      "  IF @kind = 'A' BEGIN COMMIT; GOTO next_row; END",
      '  ROLLBACK;',
      '  next_row:'));
    assert.deepEqual(where(conditional, 'commit-in-loop'), []);
  });

  it('keeps what the assignment ending the loop marked when a GOTO inside the loop follows it', () => {
    // SET @found = 1 ends `WHILE @found = 0` at the next test: the COMMIT and the INSERT run once, GOTO or not.
    const text = script(
      'DECLARE @found bit = 0;',
      'WHILE @found = 0',
      'BEGIN',
      '  BEGIN TRAN;',
      '  INSERT INTO dbo.Slots (id) VALUES (@id);',
      '  COMMIT;',
      '  INSERT INTO dbo.Audit (id) VALUES (@id);',
      '  SET @found = 1;',
      '  GOTO next_try;',
      '  next_try:',
      '  SET @id += 1;',
      'END');
    assert.deepEqual(where(text, 'commit-in-loop'), []);
    assert.deepEqual(where(text, 'autocommit-dml-in-loop'), []);
  });

  describe('nested loops: the GOTO counts in the loop it is written in', () => {
    it('reports the COMMIT of an inner loop whose GOTO goes to a label in that inner loop', () => {
      const text = script(...cursorLoop(
        '  SET @line = 1;',
        '  WHILE @line <= @lines',
        '  BEGIN',
        '    BEGIN TRAN;',
        '    INSERT INTO dbo.OrderLine (order_id, line) VALUES (@id, @line);',
        '    COMMIT;',
        '    GOTO next_line;',
        "    PRINT 'skipped';",
        '    next_line:',
        '    SET @line += 1;',
        '  END'));
      assert.deepEqual(where(text, 'commit-in-loop'), [[8, 'information']]);
    });

    it('leaves out the COMMIT of an inner loop whose GOTO goes to a label in the outer loop, as it does before a BREAK', () => {
      const inner = (leave: string): string[] => [
        '  SET @attempt = 1;',
        '  WHILE @attempt <= @attempts',
        '  BEGIN',
        '    BEGIN TRAN;',
        '    INSERT INTO dbo.OrderLine (order_id, line) VALUES (@id, @attempt);',
        '    COMMIT;',
        `    ${leave};`,
        '  END'];
      // The COMMIT leaves the inner loop once: one per run of it, not one per iteration of it.
      assert.deepEqual(where(script(...cursorLoop(...inner('GOTO next_order'), '  next_order:')), 'commit-in-loop'), []);
      assert.deepEqual(where(script(...cursorLoop(...inner('BREAK'))), 'commit-in-loop'), []);
    });

    it('reports a COMMIT of the outer loop whose GOTO goes to a label inside a loop nested in it', () => {
      const text = script(...cursorLoop(
        '  WHILE @n <= @lines',
        '  BEGIN',
        '    again:',
        '    SET @n += 1;',
        '  END',
        '  BEGIN TRAN;',
        '  INSERT INTO dbo.OrderLine (order_id, line) VALUES (@id, @n);',
        '  COMMIT;',
        '  GOTO again;'));
      assert.deepEqual(where(text, 'commit-in-loop'), [[10, 'information']]);
    });
  });
});
