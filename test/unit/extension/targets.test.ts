import * as assert from 'node:assert/strict';
import { isRoutineBody, resolveEditorTarget as resolveAny, resolveLensTarget as resolveLensAny, targetText, type WorkloadTarget } from '../../../src/extension/profiling/targets';

/** The workload a target resolves to (these scripts hold no routine: a RoutineBody answer fails the test). */
function workload<T>(t: T): Exclude<T, { kind: 'routine-body' }> {
  assert.ok(t === null || !isRoutineBody(t as never), 'resolved to a routine body');
  return t as Exclude<T, { kind: 'routine-body' }>;
}
const resolveEditorTarget = (...args: Parameters<typeof resolveAny>): WorkloadTarget | null => workload(resolveAny(...args));
const resolveLensTarget = (...args: Parameters<typeof resolveLensAny>): WorkloadTarget | null => workload(resolveLensAny(...args));

const SCRIPT = [
  'CREATE TABLE dbo.t (id int);', // 0
  'GO', // 1
  'DECLARE @i int = 0;', // 2
  'WHILE @i < 10', // 3
  'BEGIN', // 4
  '  INSERT dbo.t VALUES (@i);', // 5
  '  SET @i += 1;', // 6
  'END', // 7
  'GO 3', // 8
  'BEGIN TRAN;', // 9
  'INSERT dbo.t VALUES (1);', // 10
  'COMMIT WITH (DELAYED_DURABILITY = ON);', // 11
].join('\n');

const offsetOfLine = (text: string, line: number) => text.split('\n').slice(0, line).join('\n').length + (line > 0 ? 1 : 0);

describe('extension/targets', () => {
  it('profiles a selection on its own, with document lines', () => {
    const start = offsetOfLine(SCRIPT, 5);
    const end = offsetOfLine(SCRIPT, 7);
    const t = resolveEditorTarget(SCRIPT, { start, end }, start)!;
    assert.equal(t.kind, 'selection');
    assert.equal(t.batches.length, 1);
    assert.equal(t.batches[0]!.text.trimEnd(), '  INSERT dbo.t VALUES (@i);\n  SET @i += 1;');
    assert.equal(t.batches[0]!.firstLine, 5);
    assert.equal(t.description, 'the selection (lines 6–8)');
    assert.equal(t.hasDelayedCommits, false);
  });

  it('a selection spanning a GO keeps both batches and the GO count', () => {
    const t = resolveEditorTarget(SCRIPT, { start: offsetOfLine(SCRIPT, 2), end: offsetOfLine(SCRIPT, 10) }, 0)!;
    assert.equal(t.kind, 'selection');
    const nonEmpty = t.batches.filter((b) => !b.empty);
    assert.equal(nonEmpty[0]!.repeat, 3);
    assert.equal(nonEmpty[0]!.firstLine, 2);
    assert.equal(nonEmpty[1]!.firstLine, 9);
  });

  it('with nothing selected runs the whole document wherever the cursor is (docs/selection.md)', () => {
    for (const cursor of [0, offsetOfLine(SCRIPT, 6) + 3, offsetOfLine(SCRIPT, 8) + 2, SCRIPT.length]) {
      const t = resolveEditorTarget(SCRIPT, null, cursor)!;
      assert.equal(t.kind, 'document');
      assert.deepEqual(t.batches.map((b) => [b.firstLine, b.repeat]), [[0, 1], [2, 3], [9, 1]]);
      assert.equal(t.description, 'the whole document (lines 1–12)');
      assert.equal(t.setupDescription, null);
      assert.equal(t.hasDelayedCommits, true);
    }
  });

  it('a single-batch document is profiled whole; a whitespace selection counts as nothing selected', () => {
    const one = 'INSERT dbo.t VALUES (1);\nINSERT dbo.t VALUES (2);\n';
    const t = resolveEditorTarget(one, { start: one.length - 1, end: one.length }, 0)!;
    assert.equal(t.kind, 'document');
    assert.equal(t.description, 'the whole document (lines 1–2)');
    assert.equal(resolveEditorTarget('-- nothing here\n', null, 0), null);
  });

  it('a lens target re-finds its batch by line when the document changed', () => {
    const target = { batchIndex: 2, version: 1, batchRange: { start: { line: 9 } } };
    assert.equal(resolveLensTarget(SCRIPT, target, 1)!.batches[0]!.firstLine, 9);
    const edited = 'PRINT 1;\nGO\n' + SCRIPT; // one more batch above: the index moved, the line moved by 2
    const moved = resolveLensTarget(edited, { ...target, batchRange: { start: { line: 11 } } }, 2)!;
    assert.equal(moved.batches[0]!.firstLine, 11);
    assert.match(moved.batches[0]!.text, /^BEGIN TRAN;/);
  });
});

describe('extension/targets with setup markers (README demo steps 2 and 3)', () => {
  const S1 = require('node:fs').readFileSync(require('node:path').join(__dirname, '../../../samples/s1-single-row-inserts.sql'), 'utf8') as string;
  const lines = S1.split('\n');
  const loopLine = lines.findIndex((l) => /^WHILE\b/.test(l));
  const declareLine = lines.findIndex((l) => /^DECLARE @i/.test(l));

  it('Compare/Profile with the cursor at line 1 and no selection runs the setup, then the measured loop, and says so', () => {
    const t = resolveEditorTarget(S1, null, 0)!;
    assert.equal(t.kind, 'document');
    const texts = t.batches.map((b) => b.text.trim());
    assert.equal(t.batches.length, 3);
    assert.match(texts[0]!, /^SET NOCOUNT ON;$/m);
    assert.match(texts[1]!, /CREATE TABLE dbo\.SingleRowInsert/);
    assert.match(texts[2]!, /WHILE @i < 10000/);
    // Batch ranges start at the line after the previous GO (comments and blank lines belong to the batch).
    const secondGo = lines.findIndex((l, i) => i > 5 && /^GO\s*$/.test(l));
    assert.equal(t.setupDescription, `setup batches 1–2 (lines 1–${secondGo})`);
    assert.equal(t.description, `the whole document: measured batch 3 (lines ${secondGo + 2}–${lines.findIndex((l) => /^END\b/.test(l)) + 1})`);
    assert.match(targetText(t), /^the whole document: measured batch 3 .*, after setup batches 1–2/);
  });

  it('the Profile batch lens on the loop runs the setup batches before the loop', () => {
    const lens = { batchIndex: 2, version: 1, batchRange: { start: { line: declareLine } } };
    const t = resolveLensTarget(S1, lens, 1)!;
    assert.deepEqual(t.batches.map((b) => b.index), [0, 1, 2]);
    assert.ok(t.batches[2]!.firstLine < declareLine && t.batches[2]!.text.includes('WHILE @i < 10000'));
    assert.ok(loopLine > declareLine);
    assert.match(t.setupDescription!, /^setup batches 1–2/);
  });

  it('line markers: the setup section runs first, a lens batch after it keeps its own text', () => {
    const text = ['-- durability-lens: setup', 'CREATE TABLE dbo.t (id int);', '-- durability-lens: measure', 'GO', 'INSERT dbo.t VALUES (1);', 'GO', 'INSERT dbo.t VALUES (2);'].join('\n');
    const lens = resolveLensTarget(text, { batchIndex: 2, version: 1, batchRange: { start: { line: 6 } } }, 1)!;
    assert.deepEqual(lens.batches.map((b) => b.index), [0, 2]);
    const none = resolveEditorTarget(text, null, 0)!;
    assert.deepEqual(none.batches.map((b) => b.index), [0, 1, 2]);
    assert.equal(none.description, 'the whole document: measured batches 2–3 (lines 5–7)');
  });

  describe('routine bodies: never their CREATE/ALTER', () => {
    const PROC = [
      'SET NOCOUNT ON;', // 0
      'GO',
      'CREATE OR ALTER PROCEDURE dbo.p @n int = 3', // 2
      'AS',
      'BEGIN',
      '  DECLARE @i int = 0;', // 5
      '  WHILE @i < @n',
      '  BEGIN',
      '    INSERT dbo.t VALUES (@i);', // 8
      '    SET @i += 1;',
      '  END',
      'END', // 11
      'GO',
      'EXEC dbo.p;', // 13
    ].join('\n');

    it('the cursor in a procedure body: a RoutineBody, not the batch', () => {
      const t = resolveAny(PROC, null, offsetOfLine(PROC, 8) + 4);
      assert.ok(t && isRoutineBody(t), JSON.stringify(t));
      assert.deepEqual(t.routine, { kind: 'PROCEDURE', name: 'dbo.p', number: null, line: 2 });
    });

    it('a lens target on the procedure\'s batch: a RoutineBody', () => {
      const t = resolveLensAny(PROC, { batchIndex: 1, version: 1, batchRange: { start: { line: 2 } } }, 1);
      assert.ok(t && isRoutineBody(t));
    });

    it('a document that is one CREATE PROCEDURE: a RoutineBody wherever the cursor is', () => {
      const only = 'CREATE PROCEDURE dbo.q AS\n  DELETE FROM dbo.t;\n';
      const t = resolveAny(only, null, 0);
      assert.ok(t && isRoutineBody(t));
      assert.equal(t.routine.name, 'dbo.q');
    });

    it('a selection inside the body runs on its own and names the procedure it lies in', () => {
      const t = resolveEditorTarget(PROC, { start: offsetOfLine(PROC, 5), end: offsetOfLine(PROC, 11) }, 0)!;
      assert.equal(t.kind, 'selection');
      assert.equal(t.adHocIn, 'procedure dbo.p');
      assert.ok(!t.batches.some((b) => /CREATE/.test(b.text)));
      const outside = resolveEditorTarget(PROC, { start: offsetOfLine(PROC, 13), end: PROC.length }, 0)!;
      assert.equal(outside.adHocIn, null);
    });

    it('nothing selected in a document that defines a routine: nothing runs, wherever the cursor is', () => {
      const onExec = resolveAny(PROC, null, offsetOfLine(PROC, 13) + 2);
      assert.ok(onExec && isRoutineBody(onExec), JSON.stringify(onExec));
      assert.equal(onExec.scope, 'document');
      assert.equal(onExec.atCursor, false);
      assert.equal(onExec.routine.name, 'dbo.p');
      const inBody = resolveAny(PROC, null, offsetOfLine(PROC, 8) + 4);
      assert.ok(inBody && isRoutineBody(inBody) && inBody.atCursor === true);
      // A selection runs exactly as selected: the EXEC alone.
      const exec = resolveEditorTarget(PROC, { start: offsetOfLine(PROC, 13), end: PROC.length }, 0)!;
      assert.deepEqual(exec.batches.map((b) => b.text), ['EXEC dbo.p;']);
    });
  });

  it('one batch split by line markers runs once: its setup part, then its measured part (no batch twice)', () => {
    const text = ['SET NOCOUNT ON;', '-- durability-lens: setup', 'CREATE TABLE dbo.t (id int);', '-- durability-lens: measure', 'INSERT dbo.t VALUES (1);'].join('\n');
    const t = resolveEditorTarget(text, null, 0)!;
    assert.deepEqual(t.batches.map((b) => b.index), [0]);
    assert.equal(t.description, 'the whole document: measured batch 1 (lines 1–5)');
    assert.equal(t.setupDescription, 'setup batch 1 (lines 1–5)');
  });
});
