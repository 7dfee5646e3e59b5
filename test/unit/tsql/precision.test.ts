// The false-positive patterns issue 26 found on public repositories, each as our own minimal reproduction, and the
// cases next to them the rules must still report. What a rule claims: a loop that commits per iteration cheaply and
// many times; a transaction left open, or closed without being opened, on the paths the script has.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { SURE } from '../../../src/tsql/diagnose';
import type { AnalysisDiagnostic, DiagnosticCode } from '../../../src/tsql/types';
import { script } from './helpers';

function found(text: string, code: DiagnosticCode): AnalysisDiagnostic[] {
  return analyze(text).diagnostics.filter((d) => d.code === code);
}

/** `[line, severity]` of each finding of `code` (1-based lines, as an editor shows them). */
function where(text: string, code: DiagnosticCode): [number, string][] {
  return found(text, code).map((d) => [d.range.start.line + 1, d.severity]);
}

/** Doubts a message states (messages.ts): a finding without one is what the rule claims, with certainty. */
const DOUBT = /cost the script does not show|looks short|compares a column with a literal|may be restoring|its caller has a transaction open|script alone cannot tell/;

/** Lines of the findings of `code` whose message states no doubt. */
function certain(text: string, code: DiagnosticCode): number[] {
  return found(text, code).filter((d) => !DOUBT.test(d.message)).map((d) => d.range.start.line + 1);
}

describe('tsql diagnostics precision: issue 26 patterns', () => {
  it('squiggles a sure finding only for a code that reached 90 % on the held-out set (commit-in-loop since round 2, autocommit-dml-in-loop since round 5; docs/analyze.md)', () => {
    assert.deepEqual(SURE, { 'autocommit-dml-in-loop': 'information', 'commit-in-loop': 'information', 'unbalanced-transaction': 'hint' });
    const autocommit = found(script('WHILE @i < 100000', 'BEGIN', '  INSERT dbo.t (n) VALUES (@i);', '  SET @i += 1;', 'END'), 'autocommit-dml-in-loop');
    assert.deepEqual(autocommit.map((d) => d.severity), ['information']);
    const sure = found(script('WHILE @i < 100000', 'BEGIN', '  BEGIN TRAN;', '  UPDATE dbo.t SET n = 1 WHERE id = @i;', '  COMMIT;', '  SET @i += 1;', 'END'), 'commit-in-loop');
    assert.deepEqual(sure.map((d) => d.severity), ['information']);
    const doubtful = found(script('WHILE @i < 100000', 'BEGIN', '  BEGIN TRAN;', '  EXEC dbo.p @i;', '  UPDATE dbo.t SET n = 1 WHERE id = @i;', '  COMMIT;', 'END'), 'commit-in-loop');
    assert.deepEqual(doubtful.map((d) => d.severity), ['hint']);
    const forced = found('ALTER DATABASE CURRENT SET DELAYED_DURABILITY = FORCED;', 'forced-durability-data-loss');
    assert.deepEqual(forced.map((d) => d.severity), ['warning']);
  });

  it('reports sure findings at information, doubtful ones still as hints, when the evaluation asks (promoteSure)', () => {
    const text = script(
      'WHILE @i < 100000', 'BEGIN', '  INSERT dbo.t (n) VALUES (@i);', '  SET @i += 1;', 'END',
      'GO',
      'WHILE @@FETCH_STATUS = 0', 'BEGIN', '  EXEC dbo.p @id;', '  INSERT dbo.log (id) VALUES (@id);', '  FETCH NEXT FROM c INTO @id;', 'END');
    const promoted = analyze(text, { promoteSure: true }).diagnostics.filter((d) => d.code === 'autocommit-dml-in-loop');
    assert.deepEqual(promoted.map((d) => [d.range.start.line + 1, d.severity]), [[3, 'information'], [10, 'hint']]);
    assert.deepEqual(where(text, 'autocommit-dml-in-loop'), [[3, SURE['autocommit-dml-in-loop']], [10, 'hint']]);
  });

  describe('1. batching loops are the cure, not the disease', () => {
    it('leaves out a loop that copies chunks with INSERT ... SELECT TOP (n) ... FROM', () => {
      const text = script(
        'WHILE 1 = 1',
        'BEGIN',
        '  INSERT dbo.OrderArchive (id, total)',
        '  SELECT TOP (10000) id, total FROM dbo.Orders WHERE id > @last ORDER BY id;',
        '  IF @@ROWCOUNT = 0 BREAK;',
        '  SELECT @last = MAX(id) FROM dbo.OrderArchive;',
        'END');
      assert.deepEqual(found(text, 'autocommit-dml-in-loop'), []);
    });

    it('leaves out a loop over key ranges', () => {
      const text = script(
        'WHILE @lo <= @maxId',
        'BEGIN',
        '  UPDATE dbo.Orders SET flag = 0 WHERE id >= @lo AND id < @lo + 10000;',
        '  SET @lo += 10000;',
        'END');
      assert.deepEqual(found(text, 'autocommit-dml-in-loop'), []);
    });

    it('leaves out one transaction per day, and its COMMIT', () => {
      const text = script(
        'WHILE @day < @end',
        'BEGIN',
        '  BEGIN TRAN;',
        '  DELETE dbo.DailyTotals WHERE day = @day;',
        '  INSERT dbo.DailyTotals (day, total)',
        '    SELECT @day, SUM(total) FROM dbo.Orders WHERE placed >= @day AND placed < DATEADD(day, 1, @day);',
        '  COMMIT;',
        '  SET @day = DATEADD(day, 1, @day);',
        'END');
      assert.deepEqual(found(text, 'commit-in-loop'), []);
      assert.deepEqual(found(text, 'autocommit-dml-in-loop'), []);
    });

    it('calls "commit every 2,000 rows" a hint that names N, never information', () => {
      const text = script(
        'BEGIN TRAN;',
        'WHILE @i < @rows',
        'BEGIN',
        '  INSERT dbo.Staging (n) VALUES (@i);',
        '  SET @i += 1;',
        '  IF @i % 2000 = 0 BEGIN COMMIT; BEGIN TRAN; END',
        'END',
        'COMMIT;');
      const commits = found(text, 'commit-in-loop');
      assert.deepEqual(commits.map((d) => [d.range.start.line + 1, d.severity]), [[6, 'hint']]);
      assert.match(commits[0]!.message, /every 2000 iterations/);
      assert.deepEqual(found(text, 'autocommit-dml-in-loop'), []);
    });

    it('calls a batch-size counter test a commit every N too', () => {
      const text = script(
        'BEGIN TRAN;',
        'WHILE @@FETCH_STATUS = 0',
        'BEGIN',
        '  UPDATE dbo.Accounts SET balance = 0 WHERE id = @id;',
        '  SET @done = @done + 1;',
        '  IF @done >= @batchSize BEGIN COMMIT; BEGIN TRAN; SET @done = 0; END',
        '  FETCH NEXT FROM accounts INTO @id;',
        'END',
        'COMMIT;');
      assert.deepEqual(where(text, 'commit-in-loop'), [[6, 'hint']]);
    });

    it('still reports a loop of single-row inserts into a real table, as sure', () => {
      const text = script(
        'WHILE @i < 100000',
        'BEGIN',
        '  INSERT INTO dbo.Readings (sensor, value) VALUES (@i, RAND());',
        '  SET @i += 1;',
        'END');
      assert.deepEqual(where(text, 'autocommit-dml-in-loop'), [[3, SURE['autocommit-dml-in-loop']]]);
      assert.deepEqual(certain(text, 'autocommit-dml-in-loop'), [3]);
    });

    it('still reports a cursor that updates one row per fetch, as sure', () => {
      const text = script(
        'DECLARE invoices CURSOR FOR SELECT id FROM dbo.Invoices WHERE open = 1;',
        'OPEN invoices;',
        'FETCH NEXT FROM invoices INTO @id;',
        'WHILE @@FETCH_STATUS = 0',
        'BEGIN',
        '  UPDATE dbo.Invoices SET reminded = 1 WHERE id = @id;',
        '  FETCH NEXT FROM invoices INTO @id;',
        'END');
      assert.deepEqual(where(text, 'autocommit-dml-in-loop'), [[6, SURE['autocommit-dml-in-loop']]]);
      assert.deepEqual(certain(text, 'autocommit-dml-in-loop'), [6]);
    });

    it('only hints when each iteration also calls a procedure or runs dynamic SQL (a cost the script does not show)', () => {
      const text = script(
        'WHILE @@FETCH_STATUS = 0',
        'BEGIN',
        '  EXEC sp_executesql @rebuild;',
        '  INSERT dbo.MaintenanceLog (command) VALUES (@rebuild);',
        '  FETCH NEXT FROM work INTO @rebuild;',
        'END');
      const [d] = found(text, 'autocommit-dml-in-loop');
      assert.equal(d!.severity, 'hint');
      assert.match(d!.message, /work whose cost the script does not show/);
    });

    it('only hints in a loop over catalog views (a handful of iterations)', () => {
      const text = script(
        'DECLARE dbs CURSOR FOR SELECT name FROM sys.databases WHERE state = 0;',
        'OPEN dbs;',
        'FETCH NEXT FROM dbs INTO @db;',
        'WHILE @@FETCH_STATUS = 0',
        'BEGIN',
        '  INSERT dbo.Checked (db) VALUES (@db);',
        '  FETCH NEXT FROM dbs INTO @db;',
        'END');
      const [d] = found(text, 'autocommit-dml-in-loop');
      assert.equal(d!.severity, 'hint');
      assert.match(d!.message, /handful/);
    });
  });

  describe('2. retry and search loops that leave right after their COMMIT', () => {
    it('leaves out a retry loop ended by SET @retry = 0 after the COMMIT', () => {
      const text = script(
        'WHILE @retry > 0',
        'BEGIN',
        '  BEGIN TRY',
        '    BEGIN TRAN;',
        '    UPDATE dbo.Stock SET qty = qty - 1 WHERE item = @item;',
        '    COMMIT;',
        '    SET @retry = 0;',
        '  END TRY',
        '  BEGIN CATCH',
        '    IF XACT_STATE() <> 0 ROLLBACK;',
        '    SET @retry -= 1;',
        '  END CATCH',
        'END');
      assert.deepEqual(found(text, 'commit-in-loop'), []);
      assert.deepEqual(found(text, 'unbalanced-transaction'), []);
    });

    it('leaves out a search loop that commits once it found its row', () => {
      const text = script(
        'WHILE @found = 0',
        'BEGIN',
        '  SELECT TOP (1) @id = id FROM dbo.Slots WHERE taken = 0 ORDER BY id;',
        '  BEGIN TRAN;',
        '  UPDATE dbo.Slots SET taken = 1 WHERE id = @id AND taken = 0;',
        '  IF @@ROWCOUNT = 1 BEGIN COMMIT; SET @found = 1; END',
        '  ELSE ROLLBACK;',
        'END');
      assert.deepEqual(found(text, 'commit-in-loop'), []);
    });

    it('leaves out the COMMIT a dequeue loop runs before BREAK, and only hints at the one per message', () => {
      const text = script(
        'WHILE 1 = 1',
        'BEGIN',
        '  BEGIN TRAN;',
        '  WAITFOR (RECEIVE TOP (1) @body = message_body FROM dbo.RequestQueue), TIMEOUT 5000;',
        '  IF @@ROWCOUNT = 0 BEGIN COMMIT; BREAK; END',
        '  INSERT dbo.Requests (body) VALUES (@body);',
        '  COMMIT;',
        'END');
      assert.deepEqual(where(text, 'commit-in-loop'), [[7, 'hint']]);
    });

    it('still reports a counter loop whose COMMIT is followed by its increment', () => {
      const text = script(
        'WHILE @i < @n',
        'BEGIN',
        '  BEGIN TRAN;',
        '  INSERT dbo.Audit (n) VALUES (@i);',
        '  COMMIT;',
        '  SET @i = @i + 1;',
        'END');
      assert.deepEqual(where(text, 'commit-in-loop'), [[5, SURE['commit-in-loop']]]);
      assert.deepEqual(certain(text, 'commit-in-loop'), [5]);
    });
  });

  describe('3. BEGIN TRAN and ROLLBACK guarded by a saved copy of @@TRANCOUNT', () => {
    for (const save of ['DECLARE @tc int = @@TRANCOUNT;', 'DECLARE @tc int; SET @tc = @@TRANCOUNT;', 'DECLARE @tc int; SELECT @tc = @@TRANCOUNT;']) {
      it(`reports nothing for the nested-transaction procedure pattern (${save})`, () => {
        const text = script(
          'CREATE PROCEDURE dbo.Transfer @from int, @to int AS',
          'BEGIN',
          `  ${save}`,
          '  IF @tc = 0 BEGIN TRAN; ELSE SAVE TRAN Transfer;',
          '  BEGIN TRY',
          '    UPDATE dbo.Accounts SET balance = balance - 1 WHERE id = @from;',
          '    UPDATE dbo.Accounts SET balance = balance + 1 WHERE id = @to;',
          '    IF @tc = 0 COMMIT;',
          '  END TRY',
          '  BEGIN CATCH',
          '    IF @tc = 0 ROLLBACK;',
          '    ELSE IF XACT_STATE() = 1 ROLLBACK TRAN Transfer;',
          '    THROW;',
          '  END CATCH',
          'END');
        assert.deepEqual(analyze(text).diagnostics, []);
      });
    }

    it('hints (no squiggle) at a procedure that re-opens the transaction count it found after rolling back', () => {
      const text = script(
        'CREATE PROCEDURE dbo.FailTest AS',
        'BEGIN',
        '  DECLARE @count int = @@TRANCOUNT;',
        '  ROLLBACK;',
        '  WHILE @count > 0',
        '  BEGIN',
        '    BEGIN TRAN;',
        '    SET @count -= 1;',
        '  END',
        'END');
      assert.deepEqual(where(text, 'unbalanced-transaction'), [[4, 'hint'], [7, 'hint']]);
    });

    it('still reports a script that opens a transaction and never ends it, as a doubtful hint (round 2: intended or not, the text cannot tell)', () => {
      const text = script('BEGIN TRAN;', 'UPDATE dbo.Accounts SET balance = 0 WHERE id = 1;');
      assert.deepEqual(where(text, 'unbalanced-transaction'), [[1, 'hint']]);
      // A hint whatever the code's measured severity: even when the evaluation promotes sure findings.
      assert.deepEqual(analyze(text, { promoteSure: true }).diagnostics.map((d) => [d.code, d.severity]), [['unbalanced-transaction', 'hint']]);
      assert.deepEqual(certain(text, 'unbalanced-transaction'), []);
    });

    it('still reports, as sure, a procedure that opens a transaction and forgets to end it', () => {
      const text = script('CREATE PROCEDURE dbo.Forgot AS', 'BEGIN', '  BEGIN TRAN;', '  UPDATE dbo.t SET a = 1 WHERE id = 1;', 'END');
      assert.deepEqual(where(text, 'unbalanced-transaction'), [[3, SURE['unbalanced-transaction']]]);
      assert.deepEqual(certain(text, 'unbalanced-transaction'), [3]);
    });

    it('calls a COMMIT or ROLLBACK of the caller\'s transaction in a procedure a hint (the caller contract)', () => {
      const text = script(
        'CREATE PROCEDURE dbo.Finish AS',
        'BEGIN',
        '  UPDATE dbo.Jobs SET done = 1 WHERE id = 1;',
        '  COMMIT;',
        'END',
        'GO',
        'COMMIT;');
      assert.deepEqual(where(text, 'unbalanced-transaction'), [[4, 'hint'], [7, SURE['unbalanced-transaction']]]);
      assert.deepEqual(certain(text, 'unbalanced-transaction'), [7], 'the procedure\'s COMMIT states the caller contract');
    });
  });

  describe('4. a BEGIN TRAN inside CATCH closed by a COMMIT after the TRY/CATCH', () => {
    it('reports nothing: on each path one COMMIT closes the transaction that path holds', () => {
      const text = script(
        'BEGIN TRAN;',
        'BEGIN TRY',
        '  INSERT dbo.Orders (id) VALUES (1);',
        'END TRY',
        'BEGIN CATCH',
        '  IF @@TRANCOUNT > 0 ROLLBACK;',
        '  BEGIN TRAN;',
        '  INSERT dbo.Errors (message) VALUES (ERROR_MESSAGE());',
        'END CATCH',
        'COMMIT;');
      assert.deepEqual(found(text, 'unbalanced-transaction'), []);
    });

    it('still reports a BEGIN TRAN in CATCH that nothing after it closes: sure in a procedure, a doubtful hint in a script', () => {
      const body = [
        'BEGIN TRY',
        '  INSERT dbo.Orders (id) VALUES (1);',
        'END TRY',
        'BEGIN CATCH',
        '  BEGIN TRAN;',
        '  INSERT dbo.Errors (message) VALUES (ERROR_MESSAGE());',
        'END CATCH'];
      const procedure = script('CREATE PROCEDURE dbo.Place AS', ...body);
      assert.deepEqual(where(procedure, 'unbalanced-transaction'), [[6, SURE['unbalanced-transaction']]]);
      assert.deepEqual(certain(procedure, 'unbalanced-transaction'), [6]);
      assert.match(found(procedure, 'unbalanced-transaction')[0]!.message, /error 266/);
      const text = script(...body);
      assert.deepEqual(where(text, 'unbalanced-transaction'), [[5, 'hint']]);
      assert.deepEqual(certain(text, 'unbalanced-transaction'), [], 'a script may leave it open on purpose');
    });
  });

  describe('4b. an error handler reached by GOTO', () => {
    it('reports nothing when the ROLLBACK after the label closes what the GOTO left open', () => {
      const text = script(
        'BEGIN TRAN;',
        'UPDATE dbo.Accounts SET balance = balance - 1 WHERE id = @from;',
        'IF @@ERROR <> 0 GOTO failed;',
        'UPDATE dbo.Accounts SET balance = balance + 1 WHERE id = @to;',
        'IF @@ERROR <> 0 GOTO failed;',
        'COMMIT;',
        'RETURN;',
        'failed:',
        'ROLLBACK;');
      assert.deepEqual(found(text, 'unbalanced-transaction'), []);
    });
  });

  describe('5. table variables and temp tables updated through a CTE', () => {
    it('leaves out a CTE over a table variable or a temp table named as the target in a loop', () => {
      for (const source of ['@work', '#work', '[#work]']) {
        const text = script(
          'WHILE @i < 100000',
          'BEGIN',
          `  WITH next AS (SELECT TOP (1) n FROM ${source} WHERE id = @i)`,
          '  UPDATE next SET n = n + 1;',
          '  SET @i += 1;',
          'END');
        assert.deepEqual(found(text, 'autocommit-dml-in-loop'), [], source);
      }
    });

    it('still reports a CTE over a permanent table updated one row per iteration', () => {
      const text = script(
        'WHILE @i < 100000',
        'BEGIN',
        '  WITH next AS (SELECT TOP (1) n FROM dbo.Work WHERE id = @i)',
        '  UPDATE next SET n = n + 1 WHERE id = @i;',
        '  SET @i += 1;',
        'END');
      assert.deepEqual(where(text, 'autocommit-dml-in-loop'), [[3, SURE['autocommit-dml-in-loop']]]);
      assert.deepEqual(certain(text, 'autocommit-dml-in-loop'), [3]);
    });

    it('treats bracketed temp names and tempdb objects as tempdb', () => {
      for (const target of ['[#staging]', '[##shared]', 'tempdb.dbo.staging', 'tempdb..staging', 'dbo.#staging', 'tempdb..#staging']) {
        const text = script('WHILE @i < 100000', 'BEGIN', `  INSERT ${target} (n) VALUES (@i);`, '  SET @i += 1;', 'END');
        assert.deepEqual(found(text, 'autocommit-dml-in-loop'), [], target);
      }
    });
  });

  describe('6. the commit-every-N hint does not fire on any COMMIT under an IF', () => {
    it('calls IF @@ERROR = 0 COMMIT ELSE ROLLBACK what it is: a commit on every iteration', () => {
      const text = script(
        'WHILE @@FETCH_STATUS = 0',
        'BEGIN',
        '  BEGIN TRAN;',
        '  DELETE dbo.Payments WHERE id = @id;',
        '  IF @@ERROR = 0',
        '    COMMIT;',
        '  ELSE',
        '    ROLLBACK;',
        '  FETCH NEXT FROM payments INTO @id;',
        'END');
      const [d, ...rest] = found(text, 'commit-in-loop');
      assert.equal(rest.length, 0);
      assert.deepEqual([d!.range.start.line + 1, d!.severity], [6, SURE['commit-in-loop']]);
      assert.deepEqual(certain(text, 'commit-in-loop'), [6]);
      assert.match(d!.message, /on every iteration/);
      assert.doesNotMatch(d!.message, /commit-in-batches/);
    });

    it('says nothing of a COMMIT under a condition that is not a counter', () => {
      const text = script(
        'BEGIN TRAN;',
        'WHILE @@FETCH_STATUS = 0',
        'BEGIN',
        '  UPDATE dbo.Jobs SET state = 2 WHERE id = @id;',
        '  IF @state = 3 BEGIN COMMIT; BEGIN TRAN; END',
        '  FETCH NEXT FROM jobs INTO @id, @state;',
        'END',
        'COMMIT;');
      assert.deepEqual(found(text, 'commit-in-loop'), []);
    });
  });
});
