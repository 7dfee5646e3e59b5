// The quick fixes' edits on many loop shapes, applied and re-analysed: the fixed finding is gone, nothing at
// information or warning is new, the script still reads the same way (loops, routines, batches, balanced
// transactions), and lines inside strings are left as they were. Language-server round trips: codeActions.test.ts.
import * as assert from 'node:assert/strict';
import { analyze, lex, tokenize, type Analysis, type AnalysisDiagnostic } from '../../src/tsql/index';
import {
  EVERY_N,
  FixContext,
  applyOffsetEdits,
  delayedCommitEdits,
  fileSuppressionEdits,
  lineSuppressionEdits,
  loopTransactionEdits,
  wrappableLoop,
  type LoopFix,
} from '../../src/server/quickFixEdits';

const key = (d: AnalysisDiagnostic): string => `${d.code}|${d.severity}|${d.message}`;

/** Asserts the fix's promise: `gone` findings disappear, nothing but `newHints` appears, the script reads the same. */
function assertFixed(before: Analysis, after: Analysis, gone: AnalysisDiagnostic[], newHints: string[] = []): void {
  const remaining = before.diagnostics.map(key);
  for (const g of gone) remaining.splice(remaining.indexOf(key(g)), 1);
  const added = after.diagnostics.map(key);
  for (const r of remaining) {
    const i = added.indexOf(r);
    assert.ok(i >= 0, `finding lost that the fix did not target: ${r}`);
    added.splice(i, 1);
  }
  assert.deepEqual(added.map((k) => k.split('|').slice(0, 2).join('/')), newHints.map((c) => `${c}/hint`), 'new findings');
  assert.equal(after.loops.length, before.loops.length, 'loops');
  assert.equal(after.routines?.length, before.routines?.length, 'routines');
  assert.equal(after.batches.length, before.batches.length, 'batches');
}

function loopFix(text: string, fix: LoopFix, n = '500'): { out: string; before: Analysis; gone: AnalysisDiagnostic[]; insertedBetweenTokens: boolean } | null {
  const before = analyze(text);
  const ctx = new FixContext(text, lex(text), before);
  const finding = before.diagnostics.find((d) => d.code === 'autocommit-dml-in-loop');
  assert.ok(finding, 'no autocommit-dml-in-loop finding to fix');
  const loop = wrappableLoop(ctx, finding);
  const edits = loop && loopTransactionEdits(ctx, loop, fix);
  if (!edits) return null;
  const out = applyOffsetEdits(text, edits).replaceAll(EVERY_N, n);
  const gone = before.diagnostics.filter((d) => d.code === 'autocommit-dml-in-loop' && loop.start <= ctx.offsetOf(d.range.start) && ctx.offsetOf(d.range.start) < loop.end);
  const insertedBetweenTokens = edits.every((e) => e.start === e.end && !ctx.insideToken(e.start));
  return { out, before, gone, insertedBetweenTokens };
}

const FIXES: LoopFix[] = ['transaction', 'transaction-try-catch', 'commit-every-n'];

/** Loop shapes every wrap fix must handle; `block` says whether commit-every-n applies (it needs BEGIN…END). */
const SHAPES: { name: string; text: string; block: boolean }[] = [
  { name: 'a script loop', block: true, text: ['DECLARE @i int = 0;', 'WHILE @i < 1000', 'BEGIN', '    INSERT dbo.t (a) VALUES (@i);', '    SET @i += 1;', 'END;', 'SELECT 1;'].join('\n') },
  {
    name: 'the lone body of an IF in a procedure, with a string over two lines and a trailing comment', block: true,
    text: ['CREATE PROCEDURE dbo.p @x int AS', 'BEGIN', '  DECLARE @i int = 0;', '  IF @x = 1', '    WHILE @i < 10', '    BEGIN',
      "      INSERT dbo.t (a) VALUES ('two", "line');", '      SET @i += 1;', '    END -- loop', '  ELSE', '    PRINT 1;', 'END'].join('\n'),
  },
  { name: 'IF and loop on one line', block: true, text: 'IF @x = 1 WHILE @i < 3 BEGIN INSERT dbo.t VALUES (1); SET @i += 1; END' },
  { name: 'a single-statement body', block: false, text: ['WHILE @i < 1000', '  INSERT dbo.t (a) VALUES (@i);'].join('\n') },
  {
    name: 'a cursor loop with tabs and CRLF', block: true,
    text: ['DECLARE c CURSOR LOCAL FAST_FORWARD FOR SELECT id FROM dbo.src;', 'OPEN c;', 'FETCH NEXT FROM c INTO @id;', 'WHILE @@FETCH_STATUS = 0',
      'BEGIN', '\tUPDATE dbo.dst SET seen = 1 WHERE id = @id;', '\tFETCH NEXT FROM c INTO @id;', 'END', 'CLOSE c;', 'DEALLOCATE c;'].join('\r\n'),
  },
  {
    name: 'nested loops (the outer one is wrapped)', block: true,
    text: ['WHILE @d < 10', 'BEGIN', '  WHILE @i < 10', '  BEGIN', '    INSERT dbo.t VALUES (@d, @i);', '    SET @i += 1;', '  END', '  SET @d += 1;', 'END'].join('\n'),
  },
  { name: 'a procedure whose whole body is the loop, header and loop on one line', block: true, text: ['CREATE PROCEDURE dbo.p AS WHILE @i < 3 BEGIN', '  INSERT dbo.t VALUES (1); SET @i += 1;', 'END', 'GO', 'EXEC dbo.p;'].join('\n') },
  { name: 'a statement after the loop on its line', block: true, text: ['WHILE @i < 3', 'BEGIN', '  INSERT dbo.t VALUES (1); SET @i += 1;', 'END; SELECT @i;'].join('\n') },
  {
    name: 'the ELSE branch, in a TRY block', block: true,
    text: ['BEGIN TRY', '  IF @x = 1 PRINT 1;', '  ELSE', '    WHILE @i < 3', '    BEGIN', '      UPDATE dbo.t SET a = @i WHERE id = @i;', '      SET @i += 1;', '    END', 'END TRY', 'BEGIN CATCH', '  PRINT 2;', 'END CATCH'].join('\n'),
  },
];

describe('quick fix edits: a loop of autocommit DML in one transaction', () => {
  for (const shape of SHAPES) {
    for (const fix of FIXES) {
      it(`${fix} on ${shape.name}: the finding is gone and nothing new is reported`, () => {
        const result = loopFix(shape.text, fix);
        if (fix === 'commit-every-n' && !shape.block) { assert.equal(result, null, 'commit-every-n needs a BEGIN…END body'); return; }
        assert.ok(result, 'the fix is offered');
        const after = analyze(result.out);
        // Commit every N is the pattern commit-in-loop describes as a hint, and says N.
        assertFixed(result.before, after, result.gone, fix === 'commit-every-n' ? ['commit-in-loop'] : []);
        if (fix === 'commit-every-n') assert.match(after.diagnostics.at(-1)!.message, /every 500 iterations/);
        assert.ok(result.gone.length >= 1);
        // Only insertions, each between tokens: strings and comments keep their text, every token is still there.
        assert.ok(result.insertedBetweenTokens);
        for (const token of tokenize(shape.text)) assert.ok(result.out.includes(token.text), `lost: ${token.text}`);
        assert.equal(result.out.includes('\r\n'), shape.text.includes('\r\n'), 'line ends kept');
        if (shape.text.includes('\r\n')) assert.doesNotMatch(result.out, /[^\r]\n/);
      });
    }
  }

  it('writes the plain and the safe form the way one would by hand', () => {
    assert.equal(loopFix(SHAPES[0]!.text, 'transaction')!.out, ['DECLARE @i int = 0;', 'BEGIN TRANSACTION;', 'WHILE @i < 1000', 'BEGIN',
      '    INSERT dbo.t (a) VALUES (@i);', '    SET @i += 1;', 'END;', 'COMMIT TRANSACTION;', 'SELECT 1;'].join('\n'));
    assert.equal(loopFix(SHAPES[1]!.text, 'transaction-try-catch')!.out, ['CREATE PROCEDURE dbo.p @x int AS', 'BEGIN', '  DECLARE @i int = 0;', '  IF @x = 1',
      '    BEGIN', '      SET XACT_ABORT ON;', '      BEGIN TRY', '        BEGIN TRANSACTION;', '        WHILE @i < 10', '        BEGIN',
      "          INSERT dbo.t (a) VALUES ('two", "line');", '          SET @i += 1;', '        END -- loop', '        COMMIT TRANSACTION;',
      '      END TRY', '      BEGIN CATCH', '        IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;', '        THROW;', '      END CATCH', '    END',
      '  ELSE', '    PRINT 1;', 'END'].join('\n'));
    assert.equal(loopFix(SHAPES[0]!.text, 'commit-every-n', '2000')!.out, ['DECLARE @i int = 0;', 'DECLARE @iterations_since_commit int = 0;',
      'BEGIN TRANSACTION;', 'WHILE @i < 1000', 'BEGIN', '    INSERT dbo.t (a) VALUES (@i);', '    SET @i += 1;', '    SET @iterations_since_commit += 1;',
      '    IF @iterations_since_commit % 2000 = 0', '    BEGIN', '        COMMIT TRANSACTION;', '        BEGIN TRANSACTION;', '    END', 'END;',
      'COMMIT TRANSACTION;', 'SELECT 1;'].join('\n'));
  });

  it('picks a counter name the script does not use', () => {
    const text = SHAPES[0]!.text.replace('SELECT 1;', 'SELECT @iterations_since_commit;');
    assert.match(loopFix(text, 'commit-every-n')!.out, /DECLARE @iterations_since_commit2 int = 0;/);
  });

  it('is not offered where wrapping is not mechanical: GO n batches, loops that already manage transactions, RETURN, GOTO', () => {
    const cases = [
      ['WHILE @i < 3', 'BEGIN', '  INSERT dbo.t VALUES (1);', '  SET @i += 1;', 'END', 'GO 5'],
      ['WHILE @i < 3', 'BEGIN', '  INSERT dbo.log VALUES (1);', '  BEGIN TRAN;', '  INSERT dbo.t VALUES (1);', '  COMMIT;', 'END'],
      ['CREATE PROCEDURE dbo.p AS', 'WHILE @i < 3', 'BEGIN', '  INSERT dbo.t VALUES (1);', '  IF @@ROWCOUNT = 0 RETURN;', 'END'],
      ['WHILE @i < 3', 'BEGIN', '  INSERT dbo.t VALUES (1);', '  IF @i > 1 GOTO done;', 'END', 'done:', 'PRINT 1;'],
      ['WHILE @i < 3', 'BEGIN', '  SAVE TRANSACTION s;', '  INSERT dbo.t VALUES (1);', 'END'],
    ];
    for (const lines of cases) for (const fix of FIXES) assert.equal(loopFix(lines.join('\n'), fix), null, `${fix}: ${lines.join(' ')}`);
  });
});

describe('quick fix edits: a delayed durable COMMIT', () => {
  const loop = (commit: string): string => ['WHILE @i < 10', 'BEGIN', '  BEGIN TRAN t1;', '  INSERT dbo.t VALUES (@i);', `  ${commit}`, '  SET @i += 1;', 'END'].join('\n');
  const cases: [string, string][] = [
    ['COMMIT TRAN;', 'COMMIT TRAN WITH (DELAYED_DURABILITY = ON);'],
    ['COMMIT', 'COMMIT WITH (DELAYED_DURABILITY = ON)'],
    ['COMMIT TRANSACTION t1 -- per row', 'COMMIT TRANSACTION t1 WITH (DELAYED_DURABILITY = ON) -- per row'],
    ['COMMIT WORK;', 'COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON);'],
    ['COMMIT TRAN @name ;', 'COMMIT TRAN @name WITH (DELAYED_DURABILITY = ON) ;'],
  ];
  for (const [commit, expected] of cases) {
    it(`turns «${commit}» into «${expected}»: commit-in-loop gone, only the hint that it needs ALLOWED`, () => {
      const text = loop(commit);
      const before = analyze(text);
      const finding = before.diagnostics.find((d) => d.code === 'commit-in-loop');
      assert.ok(finding);
      const edits = delayedCommitEdits(new FixContext(text, lex(text), before), finding);
      assert.ok(edits);
      const out = applyOffsetEdits(text, edits);
      assert.equal(out, loop(expected));
      assertFixed(before, analyze(out), [finding], ['delayed-commit-needs-allowed']);
    });
  }

  it('is not offered on a COMMIT that already names its durability', () => {
    const text = loop('COMMIT TRAN WITH (DELAYED_DURABILITY = OFF);');
    const a = analyze(text);
    const finding = a.diagnostics.find((d) => d.code === 'commit-in-loop')!;
    assert.equal(delayedCommitEdits(new FixContext(text, lex(text), a), finding), null);
  });
});

describe('quick fix edits: suppression comments', () => {
  const scripts = [
    ['DECLARE @i int = 0;', 'WHILE @i < 10', 'BEGIN', '  INSERT dbo.t VALUES (@i);', '  BEGIN TRAN;', '  COMMIT;', '  SET @i += 1;', 'END', 'GO', 'COMMIT;', 'ALTER DATABASE CURRENT SET DELAYED_DURABILITY = FORCED;'].join('\n'),
    // The INSERT's line starts inside a string: the directive goes at the end of that line instead.
    ["SELECT 'a", "b'; WHILE 1 = 1 INSERT dbo.t VALUES (1)"].join('\r\n'),
  ];
  for (const [i, text] of scripts.entries()) {
    it(`hides each finding of script ${i + 1} for its line, and each code for the file, and nothing else`, () => {
      const before = analyze(text);
      assert.ok(before.diagnostics.length >= (i === 0 ? 4 : 1));
      for (const finding of before.diagnostics) {
        const ctx = new FixContext(text, lex(text), before);
        const line = lineSuppressionEdits(ctx, finding);
        assert.ok(line, `${finding.code}: line fix offered`);
        const sameLine = before.diagnostics.filter((d) => d.code === finding.code && d.range.start.line === finding.range.start.line);
        assertFixed(before, analyze(applyOffsetEdits(text, line)), sameLine);
        const file = applyOffsetEdits(text, fileSuppressionEdits(ctx, finding));
        assertFixed(before, analyze(file), before.diagnostics.filter((d) => d.code === finding.code));
      }
    });
  }

  it('writes the line directive above the line at its indentation, or at the end of a line that starts inside a string', () => {
    const text = scripts[1]!;
    const a = analyze(text);
    const edits = lineSuppressionEdits(new FixContext(text, lex(text), a), a.diagnostics[0]!)!;
    assert.equal(applyOffsetEdits(text, edits), ["SELECT 'a", "b'; WHILE 1 = 1 INSERT dbo.t VALUES (1) -- durability-lens: ignore autocommit-dml-in-loop"].join('\r\n'));
    const plain = ['WHILE 1 = 1', '\tINSERT dbo.t VALUES (1)'].join('\n');
    const p = analyze(plain);
    assert.equal(applyOffsetEdits(plain, lineSuppressionEdits(new FixContext(plain, lex(plain), p), p.diagnostics[0]!)!),
      ['WHILE 1 = 1', '\t-- durability-lens: ignore autocommit-dml-in-loop', '\tINSERT dbo.t VALUES (1)'].join('\n'));
  });
});
