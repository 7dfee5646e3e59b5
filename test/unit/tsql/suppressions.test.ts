// Suppression comments (`-- durability-lens: ignore <code>` for a line, `ignore-file` for the file) and the rule that a
// COMMIT WITH (DELAYED_DURABILITY = ON) in a loop is not a commit-in-loop finding unless the database is DISABLED.
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { lex } from '../../../src/tsql/lexer';
import { LineIndex } from '../../../src/tsql/lines';
import { readSuppressions } from '../../../src/tsql/suppressions';
import { script } from './helpers';

const LOOP = ['DECLARE @i int = 0;', 'WHILE @i < 1000', 'BEGIN', '  INSERT dbo.t (a) VALUES (@i);', '  SET @i += 1;', 'END'];
const codes = (text: string): string[] => analyze(text).diagnostics.map((d) => `${d.range.start.line}:${d.code}`);

describe('tsql suppression comments', () => {
  it('reports the unsuppressed loop (the baseline the other cases change)', () => {
    assert.deepEqual(codes(script(...LOOP)), ['3:autocommit-dml-in-loop']);
  });

  it('honours a directive at the end of the flagged line, and one alone on the line before it', () => {
    const trailing = [...LOOP];
    trailing[3] += ' -- durability-lens: ignore autocommit-dml-in-loop';
    assert.deepEqual(codes(script(...trailing)), []);
    const before = [...LOOP.slice(0, 3), '  -- durability-lens: ignore autocommit-dml-in-loop', ...LOOP.slice(3)];
    assert.deepEqual(codes(script(...before)), []);
  });

  it('lets a directive alone on its line skip blank and comment lines, so directives can be stacked', () => {
    const text = script(
      ...LOOP.slice(0, 3),
      '  -- durability-lens: ignore autocommit-dml-in-loop -- a staging table, rebuilt nightly',
      '  -- durability-lens: ignore commit-in-loop',
      '',
      '  /* the insert */',
      ...LOOP.slice(3),
    );
    assert.deepEqual(codes(text), []);
  });

  it('covers only the named codes, only the covered line, and only findings that start there', () => {
    const wrongCode = [...LOOP];
    wrongCode[3] += ' -- durability-lens: ignore commit-in-loop';
    assert.deepEqual(codes(script(...wrongCode)), ['3:autocommit-dml-in-loop']);
    const wrongLine = [...LOOP];
    wrongLine[4] += ' -- durability-lens: ignore autocommit-dml-in-loop';
    assert.deepEqual(codes(script(...wrongLine)), ['3:autocommit-dml-in-loop']);
    // Trailing on the last line of a two-line INSERT: the finding starts on the line above.
    const split = [...LOOP.slice(0, 3), '  INSERT dbo.t (a)', '  VALUES (@i); -- durability-lens: ignore autocommit-dml-in-loop', ...LOOP.slice(4)];
    assert.deepEqual(codes(script(...split)), ['3:autocommit-dml-in-loop']);
  });

  it('honours ignore-file anywhere in the file, for every batch, and a list of codes', () => {
    const text = script(...LOOP, 'GO', 'BEGIN TRAN', 'GO', ...LOOP, '-- Durability-Lens: Ignore-File unbalanced-transaction, autocommit-dml-in-loop');
    assert.deepEqual(codes(text), []);
    assert.deepEqual(codes(script(...LOOP, 'GO', 'BEGIN TRAN')), ['3:autocommit-dml-in-loop', '7:unbalanced-transaction']);
  });

  it('ignores look-alikes: a directive in a string or a block comment, a misspelt verb, no code, prose before it', () => {
    for (const line of [
      "  SELECT '-- durability-lens: ignore autocommit-dml-in-loop';",
      '  /* durability-lens: ignore autocommit-dml-in-loop */',
      '  -- durability-lens: ignored autocommit-dml-in-loop',
      '  -- durability-lens: ignore',
      '  -- note: durability-lens: ignore autocommit-dml-in-loop',
      '  -- durability-lens ignore autocommit-dml-in-loop',
    ]) {
      assert.deepEqual(codes(script(...LOOP.slice(0, 3), line, ...LOOP.slice(3))), ['4:autocommit-dml-in-loop'], line);
    }
  });

  it('reads directives with what they cover, CRLF included', () => {
    const text = ['SELECT 1 -- durability-lens: ignore commit-in-loop', '-- durability-lens: ignore a-b, c -- why', '', 'SELECT 2', '-- durability-lens: ignore x'].join('\r\n');
    const found = readSuppressions(lex(text), new LineIndex(text)).map((d) => [d.kind, d.codes, d.coveredLine]);
    assert.deepEqual(found, [['line', ['commit-in-loop'], 0], ['line', ['a-b', 'c'], 3], ['line', ['x'], -1]]);
  });
});

describe('tsql commit-in-loop with a delayed durable COMMIT', () => {
  const text = script('DECLARE @i int = 0;', 'WHILE @i < 1000', 'BEGIN', '  BEGIN TRAN;', '  INSERT dbo.t (a) VALUES (@i);',
    '  COMMIT TRAN WITH (DELAYED_DURABILITY = ON);', '  SET @i += 1;', 'END');

  it('reports no commit-in-loop (no flush wait) unless the connected database is DISABLED; the hint says which applies', () => {
    // promoteSure: the severity a sure finding gets once its measured precision allows a squiggle (diagnose.ts SURE).
    const plain = (o: Parameters<typeof analyze>[1]): string[] => analyze(text, { ...o, promoteSure: true }).diagnostics.map((d) => `${d.code}/${d.severity}`);
    assert.deepEqual(plain({}), ['delayed-commit-needs-allowed/hint']);
    assert.deepEqual(plain({ database: { database: 'lab', delayedDurability: 'ALLOWED' } }), ['delayed-commit-needs-allowed/hint']);
    assert.deepEqual(plain({ database: { database: 'lab', delayedDurability: 'DISABLED' } }), ['commit-in-loop/information', 'delayed-commit-needs-allowed/hint']);
    const fully = text.replace(' WITH (DELAYED_DURABILITY = ON)', '');
    assert.deepEqual(analyze(fully, { promoteSure: true }).diagnostics.map((d) => `${d.code}/${d.severity}`), ['commit-in-loop/information']);
  });
});
