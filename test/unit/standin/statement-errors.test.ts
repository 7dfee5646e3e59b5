// Statement- versus batch-level error semantics of the stand-in, as the Learn pages describe them, and the DONE
// error flag of the statement that raised (what python-tds raises on; issue #11 finding 10).
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, rows } from './harness';

describe('stand-in model: statement and batch errors', () => {
  const s = createStandin({ speedFactor: 0 });

  // MS-TDS 2.2.7.6 DONE: "DONE_ERROR 0x2: An error occurred on the current SQL statement. A preceding ERROR token
  // SHOULD be sent when this bit is set." https://learn.microsoft.com/openspecs/windows_protocols/ms-tds/3c06f110-98bd-4d5b-b836-b1ba66452cb7
  it('ends the statement of RAISERROR(…, 16, …) with a DONE that carries the error flag, after the earlier results', async () => {
    const h = await connect(s);
    const r = await exec(s, h, "SELECT 1 AS a SELECT 2 AS b RAISERROR(N'boom', 16, 1)");
    assert.deepEqual(r.resultSets.map((x) => x.rows), [[[1]], [[2]]]);
    assert.deepEqual(r.errors.map((e) => [e.number, e.class, e.message]), [[50000, 16, 'boom']]);
    assert.deepEqual(r.dones.map((d) => !!d.error), [false, false, true]);
    assert.equal(r.outputs.at(-1)!.kind, 'done', 'the error DONE is the last token of the batch');
  });

  // Database engine error severities (https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-error-severities):
  // 11–16 are errors the user can correct; SET XACT_ABORT OFF (https://learn.microsoft.com/sql/t-sql/statements/set-xact-abort-transact-sql):
  // "only the Transact-SQL statement that raised the error is rolled back and the transaction continues processing".
  it('lets the batch go on after 8134, 2627 and RAISERROR 16, undoing only the failing statement', async () => {
    const h = await connect(s);
    const r = await exec(s, h, `CREATE TABLE #k (id int PRIMARY KEY, v int);
BEGIN TRAN;
INSERT INTO #k VALUES (1, 1);
SELECT 1 / 0 AS boom;
INSERT INTO #k VALUES (2, 2), (1, 9);
RAISERROR(N'still going', 16, 1);
INSERT INTO #k VALUES (3, 3);
COMMIT;
SELECT id FROM #k ORDER BY id;`);
    assert.deepEqual(r.errors.map((e) => e.number), [8134, 2627, 50000]);
    assert.equal(r.errors[1]!.class, 14);
    assert.match(r.errors[1]!.message, /^Violation of PRIMARY KEY constraint '[^']+'\. Cannot insert duplicate key in object 'dbo\.#k'\. The duplicate key value is \(1\)\.$/);
    assert.ok(r.infos.some((i) => i.number === 3621 && i.message === 'The statement has been terminated.'));
    assert.deepEqual(r.resultSets.at(-1)!.rows, [[1], [3]], 'row 2 went with its failed statement; 1 and 3 were committed');
    assert.equal(r.dones.filter((d) => d.error).length, 3);
  });

  it('with SET XACT_ABORT ON, a run-time error rolls back the whole transaction and ends the batch', async () => {
    const h = await connect(s);
    await exec(s, h, 'CREATE TABLE #x (id int PRIMARY KEY)');
    const r = await exec(s, h, `SET XACT_ABORT ON;
BEGIN TRAN;
INSERT INTO #x VALUES (4);
INSERT INTO #x VALUES (5), (5);
INSERT INTO #x VALUES (6);
COMMIT;
PRINT 'not reached';`);
    assert.deepEqual(r.errors.map((e) => e.number), [2627]);
    assert.ok(!r.infos.some((i) => i.message === 'not reached'));
    assert.ok(r.outputs.some((o) => o.kind === 'envChange' && o.change.type === 'rollbackTransaction'));
    const [after] = await rows(s, h, 'SELECT COUNT(*) AS n, @@TRANCOUNT AS tc FROM #x');
    assert.deepEqual(after, { n: 0, tc: 0 });
    // RAISERROR does not honor XACT_ABORT (the page's note): the batch continues.
    const r2 = await exec(s, h, "SET XACT_ABORT ON; RAISERROR(N'x', 16, 1); PRINT 'after raiserror';");
    assert.ok(r2.infos.some((i) => i.message === 'after raiserror'));
    await exec(s, h, 'SET XACT_ABORT OFF');
  });

  it('ends a result set at the row that raised 8134, sends the error and DONE_ERROR, and runs the rest of the batch', async () => {
    const h = await connect(s);
    const r = await exec(s, h, "SELECT 6 / (column_id - 2) AS q FROM sys.all_columns; PRINT 'after';");
    assert.deepEqual(r.resultSets.map((x) => x.rows), [[[-6]]], 'the row before the failing one was sent');
    assert.deepEqual(r.errors.map((e) => [e.number, e.lineNumber]), [[8134, 1]]);
    assert.deepEqual(r.infos.map((i) => i.message), ['after']);
    assert.equal(r.dones[0]!.error, true);
  });

  it('stops the whole batch before anything runs on a syntax error (compile errors are not affected by XACT_ABORT)', async () => {
    const h = await connect(s);
    const r = await exec(s, h, "PRINT 'first'; SELEC 2;");
    assert.deepEqual(r.errors.map((e) => e.number), [102]);
    assert.deepEqual(r.infos, []);
    assert.deepEqual(r.dones.map((d) => !!d.error), [true]);
  });

  // TRY...CATCH page, "Errors unaffected by a TRY...CATCH construct": name resolution errors at statement
  // recompilation "are returned to the level that ran the batch" — the rest of the batch does not run.
  it('abandons the rest of the batch after 208 (object name resolution)', async () => {
    const h = await connect(s);
    const r = await exec(s, h, "PRINT 'before'; SELECT * FROM dbo.missing_table; PRINT 'after';");
    assert.deepEqual(r.errors.map((e) => e.number), [208]);
    assert.deepEqual(r.infos.map((i) => i.message), ['before']);
  });
});
