// Per-statement attribution (issue 16): statement events mapped to file lines (selection start, several batches, GO)
// and WRITELOG waits folded into the statement whose completion follows them.
import { strict as assert } from 'node:assert';
import type { WorkloadBatch } from '../../../src/db/types';
import { locateStatement, StatementAccumulator, STATEMENTS_LISTED, toMs, writelogShareOfLine, notMeasuredAttribution } from '../../../src/profile/statementAttribution';
import type { XeEvent } from '../../../src/xe/reader';
import { analyze } from '../../../src/tsql';

function stmtEvent(batch: string, statement: string, opts: { line?: number; duration?: number; rows?: number; nested?: boolean; occurrence?: number } = {}): XeEvent {
  let at = -1;
  for (let k = 0; k <= (opts.occurrence ?? 0); k++) at = batch.indexOf(statement, at + 1);
  if (at < 0) throw new Error(`${statement} not in batch`);
  const line = opts.line ?? batch.slice(0, at).split('\n').length;
  return {
    name: opts.nested ? 'sp_statement_completed' : 'sql_statement_completed',
    package: 'sqlserver',
    timestamp: null,
    data: {
      line_number: { value: line }, offset: { value: at * 2 }, offset_end: { value: (at + statement.length - 1) * 2 }, statement: { value: statement },
      duration: { value: opts.duration ?? 100 }, row_count: { value: opts.rows ?? 0 },
    },
    actions: {},
  };
}
const wait = (duration: number): XeEvent => ({ name: 'wait_completed', package: 'sqlos', timestamp: null, data: { wait_type: { value: 180, text: 'WRITELOG' }, duration: { value: duration } }, actions: {} });

describe('profile: per-statement attribution', () => {
  const script = 'SET NOCOUNT ON;\nGO\nDECLARE @i int = 0;\nWHILE @i < 3\nBEGIN\n  INSERT INTO t VALUES (@i);\n  SET @i += 1;\nEND\nGO 2\nUPDATE t SET v = 1;';
  const batches: WorkloadBatch[] = analyze(script).batches.filter((b) => !b.empty).map((b) => ({ text: b.text, repeat: b.repeat, firstLine: b.firstLine }));

  it('maps a statement to its 1-based file line across GO batches, and shifts by the selection\'s start line', () => {
    assert.equal(batches.length, 3);
    const insert = locateStatement(batches, { line: 4, offset: batches[1]!.text.indexOf('INSERT') * 2, offsetEnd: null, statement: 'INSERT INTO t VALUES (@i)' })!;
    assert.deepEqual([insert.batchIndex, insert.line], [1, 6]);
    assert.equal(insert.text, 'INSERT INTO t VALUES (@i);\n  SET @i += 1;\nEND'.replace(/\s+/g, ' '), 'offset_end -1/absent runs to the end of the batch');
    const update = locateStatement(batches, { line: 1, offset: 0, offsetEnd: 34, statement: 'UPDATE t SET v = 1' })!;
    assert.deepEqual([update.batchIndex, update.line, update.text], [2, 10, 'UPDATE t SET v = 1']);
    // The same script selected from line 21 of a larger file: every batch starts 20 lines later.
    const shifted = batches.map((b) => ({ ...b, firstLine: b.firstLine + 20 }));
    assert.equal(locateStatement(shifted, { line: 1, offset: 0, offsetEnd: null, statement: 'UPDATE t SET v = 1' })!.line, 30);
  });

  it('without a statement text, picks the batch whose line at that offset is the event\'s line; unknown statements are null', () => {
    const at = batches[1]!.text.indexOf('SET @i') * 2;
    assert.equal(locateStatement(batches, { line: 5, offset: at, offsetEnd: null, statement: null })!.line, 7);
    assert.equal(locateStatement(batches, { line: 1, offset: 0, offsetEnd: null, statement: 'EXEC dbo.other' }), null);
  });

  it('gives each WRITELOG wait to the statement that completes next, folds nested statements into their caller, keeps trailing waits unattributed', () => {
    const b = batches[1]!.text;
    const acc = new StatementAccumulator({ batches, statementUnit: 'microseconds', waitUnit: 'microseconds' });
    for (let i = 0; i < 3; i++) {
      acc.add(wait(2000));
      acc.add(stmtEvent(b, 'INSERT INTO t VALUES (@i)', { duration: 2100, rows: 1 }));
      acc.add(stmtEvent(b, 'SET @i += 1', { duration: 5 }));
    }
    // A nested statement (dynamic SQL) waits; its caller's completion (the UPDATE) takes the wait.
    acc.add(wait(1000));
    acc.add(stmtEvent('SELECT 1', 'SELECT 1', { nested: true }));
    acc.add(stmtEvent(batches[2]!.text, 'UPDATE t SET v = 1', { duration: 1500, rows: 3 }));
    acc.add(wait(700));
    const figures = acc.finish();
    assert.deepEqual(figures.map((f) => [f.line, f.executions, f.writelogWaits, f.writelogMs, f.rows]), [
      [6, 3, 3, 6, 3],
      [10, 1, 1, 1, 3],
      [7, 3, 0, 0, 0],
    ]);
    assert.equal(figures[0]!.durationMs, 6.3);
    assert.equal(figures[1]!.nestedStatements, 1);
    assert.deepEqual([acc.attributedWaits, acc.unattributedWaits, acc.unattributedMs], [4, 1, 0.7]);
  });

  it('a generated script of many GO batches: each statement on its own line; beyond the listed limit only totals are kept', () => {
    const n = STATEMENTS_LISTED + 5;
    const text = Array.from({ length: n }, (_, i) => `INSERT INTO t VALUES (${i});\nGO`).join('\n');
    const many: WorkloadBatch[] = analyze(text).batches.filter((b) => !b.empty).map((b) => ({ text: b.text, repeat: b.repeat, firstLine: b.firstLine }));
    assert.equal(many.length, n);
    const acc = new StatementAccumulator({ batches: many, statementUnit: 'microseconds', waitUnit: 'microseconds' });
    for (let i = 0; i < n; i++) {
      acc.add(wait(i < 5 ? 100 : 1000));
      acc.add(stmtEvent(many[i]!.text, `INSERT INTO t VALUES (${i})`, { rows: 1 }));
    }
    const figures = acc.finish();
    assert.equal(figures.length, STATEMENTS_LISTED);
    assert.equal(figures[0]!.line, 11, 'batch 6 (the first 1 ms wait) starts on line 11');
    assert.deepEqual(acc.unlisted, { statements: 5, executions: 5, writelogWaits: 5, writelogMs: 0.5 });
    assert.equal(acc.attributedWaits, n);
  });

  it('statements of a procedure whose source is in the file land on its lines; another procedure\'s are its own rows on the calling line', () => {
    const definition = 'CREATE PROCEDURE dbo.usp_load AS\nBEGIN\n  INSERT INTO t VALUES (1);\nEND';
    const call = [{ text: 'EXEC dbo.usp_load;', repeat: 1, firstLine: 30 }];
    const acc = new StatementAccumulator({ batches: call, statementUnit: 'microseconds', waitUnit: 'microseconds', modules: [{ name: 'usp_load', firstLine: 9, text: definition }] });
    const inProc = (objectName: string): XeEvent => {
      const e = stmtEvent(definition, 'INSERT INTO t VALUES (1)', { nested: true, rows: 1 });
      e.data.object_name = { value: objectName };
      return e;
    };
    for (let i = 0; i < 2; i++) {
      acc.add(wait(1000));
      acc.add(inProc('USP_LOAD'));
      acc.add(stmtEvent(call[0]!.text, 'EXEC dbo.usp_load', { duration: 2000 }));
    }
    acc.add(wait(500));
    acc.add(inProc('other_proc'));
    acc.add(stmtEvent(call[0]!.text, 'EXEC dbo.usp_load', { duration: 600 }));
    const figures = acc.finish();
    const proc = figures.find((f) => f.module)!;
    assert.deepEqual([proc.line, proc.text, proc.executions, proc.writelogWaits, proc.batchIndex, proc.module], [12, 'INSERT INTO t VALUES (1)', 2, 2, -1, 'USP_LOAD']);
    const exec = figures.find((f) => !f.module)!;
    assert.deepEqual([exec.line, exec.executions, exec.writelogWaits, exec.nestedStatements], [31, 3, 0, 0]);
    // A procedure not in the file, named by its event: a row of its own under that name, on the calling line.
    const other = figures.find((f) => f.module === 'other_proc')!;
    assert.deepEqual([other.line, other.text, other.executions, other.writelogWaits, other.batchIndex], [31, 'INSERT INTO t VALUES (1)', 1, 1, -1]);
  });

  it('one batch: dynamic SQL whose text is not the batch\'s at its offset folds into its caller, never a line with the batch\'s text there', () => {
    const batch = 'SET NOCOUNT ON;\nDECLARE @i int = 0;\nEXEC (N\'INSERT INTO t VALUES (1)\');\nINSERT INTO t VALUES (2);';
    const call = [{ text: batch, repeat: 1, firstLine: 10 }];
    const acc = new StatementAccumulator({ batches: call, statementUnit: 'microseconds', waitUnit: 'microseconds' });
    // The dynamic batch's own statement: line 1, offset 0 of its text, object_name empty (not a procedure).
    const dynamic = stmtEvent('INSERT INTO t VALUES (1)', 'INSERT INTO t VALUES (1)', { nested: true, rows: 1 });
    dynamic.data.object_name = { value: '' };
    acc.add(stmtEvent(batch, 'SET NOCOUNT ON'));
    acc.add(stmtEvent(batch, 'DECLARE @i int = 0'));
    acc.add(wait(1000));
    acc.add(dynamic);
    acc.add(stmtEvent(batch, "EXEC (N'INSERT INTO t VALUES (1)')"));
    acc.add(wait(1000));
    acc.add(stmtEvent(batch, 'INSERT INTO t VALUES (2)', { rows: 1 }));
    const figures = acc.finish();
    assert.deepEqual(figures.map((f) => [f.line, f.text, f.writelogWaits, f.nestedStatements]).sort(), [
      [11, 'SET NOCOUNT ON', 0, 0],
      [12, 'DECLARE @i int = 0', 0, 0],
      [13, "EXEC (N'INSERT INTO t VALUES (1)')", 1, 1],
      [14, 'INSERT INTO t VALUES (2)', 1, 0],
    ]);
    // A batch sent through sp_executesql (its text is ours) still lands on its own lines.
    const swept = new StatementAccumulator({ batches: call, statementUnit: 'microseconds', waitUnit: 'microseconds' });
    swept.add(stmtEvent(batch, 'INSERT INTO t VALUES (2)', { nested: true }));
    assert.deepEqual(swept.finish().map((f) => [f.line, f.text]), [[14, 'INSERT INTO t VALUES (2)']]);
  });

  it('converts durations by the unit the server states; the share of a line is over the session total, null when unknown', () => {
    assert.equal(toMs(1500, 'microseconds'), 1.5);
    assert.equal(toMs(3, 'milliseconds'), 3);
    const statements = [{ line: 6, text: 'x', executions: 9, durationMs: 1, writelogWaits: 9, writelogMs: 1, rows: 9, batchIndex: 0, nestedStatements: 0 }];
    assert.equal(writelogShareOfLine(statements, { ...notMeasuredAttribution('x', null), sessionWritelogWaits: 10 }, 6), 0.9);
    assert.equal(writelogShareOfLine(statements, notMeasuredAttribution('x', null), 6), null);
  });
});
