// GO splitting: what sqlcmd/SSMS treat as a separator, repeat counts, ranges and the batch→document line map.
import * as assert from 'node:assert/strict';
import { documentLineOfBatchLine, splitBatches } from '../../../src/tsql/batches';
import { lex } from '../../../src/tsql/lexer';
import { LineIndex } from '../../../src/tsql/lines';
import type { Batch } from '../../../src/tsql/types';
import { script } from './helpers';

function batches(text: string): Batch[] {
  return splitBatches(lex(text), new LineIndex(text)).map((s) => s.batch);
}

describe('tsql GO batches', () => {
  it('splits on GO alone on its line, in any case, with the GO line excluded', () => {
    const text = script('SELECT 1', 'GO', 'SELECT 2', '  go  ', 'SELECT 3');
    const result = batches(text);
    assert.deepEqual(result.map((b) => b.text), ['SELECT 1', 'SELECT 2', 'SELECT 3']);
    assert.deepEqual(result.map((b) => [b.range.start.line, b.range.end.line]), [[0, 0], [2, 2], [4, 4]]);
    assert.deepEqual(result.map((b) => b.repeat), [1, 1, 1]);
    assert.deepEqual(result.map((b) => b.index), [0, 1, 2]);
  });

  it('reads a repeat count and allows a trailing -- comment', () => {
    const result = batches(script('INSERT t DEFAULT VALUES', 'GO 67 -- sixty-seven times', 'SELECT 1', 'GO -- done'));
    assert.deepEqual(result.map((b) => [b.text, b.repeat]), [['INSERT t DEFAULT VALUES', 67], ['SELECT 1', 1]]);
  });

  it('does not split on GO; or GO sharing its line with a statement', () => {
    for (const line of ['GO;', 'GO SELECT 1', 'SELECT 1 GO', 'GO 5 x', 'GO 67abc', 'GO 5 6', 'GO /* c */ x', '/* c */ GO', 'GO.x', 'GO 5.5']) {
      const result = batches(script('SELECT 0', line, 'SELECT 2'));
      assert.equal(result.length, 1, line);
    }
  });

  it('does not split on GO inside a block comment, a string or an identifier, nor on GOTO', () => {
    const cases = [
      script('SELECT 1', '/*', 'GO', '*/', 'SELECT 2'),
      script('SELECT 1', '/* GO */', 'SELECT 2'),
      script('SELECT 1', '/*', '  GO /* nested */', '*/', 'SELECT 2'),
      script("SELECT 'a", 'GO', "b'"),
      script("SELECT 'a", 'GO -- still in the string', "b'"),
      script('SELECT [a', 'GO', 'b]'),
      script('SELECT 1 AS', '[GO]'),
      script('SELECT 1 AS', 'GO_AWAY'),
      script('IF 1 = 1', 'GOTO done', 'done:', 'SELECT 1'),
      script('SELECT 1 AS', '"GO"'),
    ];
    for (const text of cases) assert.equal(batches(text).length, 1, text);
  });

  // Learn, GO: "A Transact-SQL statement cannot occupy the same line as a GO command. However, the line can contain comments."
  it('splits on a GO line with a trailing block comment, and the next statement is not glued to the batch before', () => {
    const text = script('CREATE PROCEDURE dbo.p AS', '  SELECT 1;', 'GO /* deploy p first */', 'DELETE FROM dbo.t;');
    const result = batches(text);
    assert.deepEqual(result.map((b) => b.text), ['CREATE PROCEDURE dbo.p AS\n  SELECT 1;', 'DELETE FROM dbo.t;']);
    assert.deepEqual(result.map((b) => b.repeat), [1, 1]);
    assert.equal(result[1]!.firstLine, 3);
  });

  it('reads GO lines with comments of either kind before or after the count', () => {
    const cases: [string, number][] = [
      ['GO -- c', 1], ['GO--c', 1], ['GO /* c */', 1], ['GO/*c*/', 1], ['  go /* a */ /* b */ -- c', 1],
      ['GO 3 -- run 3 times', 3], ['GO 3 /* c */', 3], ['GO /* c */ 3', 3], ['GO /* c */ 3 -- d', 3], ['GO 3/*c*/--d', 3],
      ['GO -- run 5 times', 1], ['GO /* 5 */', 1], ['GO /* a /* nested */ b */ 2', 2], ['GO /**/', 1],
    ];
    for (const [line, repeat] of cases) {
      const result = batches(script('INSERT t DEFAULT VALUES', line, 'SELECT 2'));
      assert.deepEqual(result.map((b) => [b.text, b.repeat]), [['INSERT t DEFAULT VALUES', repeat], ['SELECT 2', 1]], line);
    }
  });

  it('splits on a GO line whose block comment runs on past it, keeping the comment whole at the head of the next batch', () => {
    const text = script('SELECT 1', 'GO 2 /* the next batch', '   clears the table */ DELETE FROM dbo.t', 'SELECT 3');
    const result = batches(text);
    assert.deepEqual(result.map((b) => [b.text, b.repeat]), [
      ['SELECT 1', 2],
      ['/* the next batch\n   clears the table */ DELETE FROM dbo.t\nSELECT 3', 1],
    ]);
    // The next batch starts on the GO line: server line 2 of it is the DELETE's document line.
    assert.equal(result[1]!.firstLine, 1);
    assert.equal(text.split('\n')[documentLineOfBatchLine(result[1]!, 2)], '   clears the table */ DELETE FROM dbo.t');
    // A comment-only rest is an empty batch, not runnable text.
    assert.deepEqual(batches(script('SELECT 1', 'GO /* a', 'b */')).map((b) => [b.text, b.empty]), [['SELECT 1', false], ['/* a\nb */', true]]);
  });

  it('splits on a trailing-comment GO line at the end of the text or before CRLF and CR line ends', () => {
    assert.deepEqual(batches('SELECT 1\nGO /* c */').map((b) => b.text), ['SELECT 1']);
    assert.deepEqual(batches('SELECT 1\r\nGO /* c */\r\nSELECT 2').map((b) => b.text), ['SELECT 1', 'SELECT 2']);
    assert.deepEqual(batches('SELECT 1\rGO 2 /* c */\rSELECT 2').map((b) => [b.text, b.repeat]), [['SELECT 1', 2], ['SELECT 2', 1]]);
    assert.deepEqual(batches('SELECT 1\r\nGO /* a\r\nb */ SELECT 2').map((b) => b.text), ['SELECT 1', '/* a\r\nb */ SELECT 2']);
    // An unterminated comment on the last line: the separator holds, and nothing runnable follows.
    assert.deepEqual(batches('SELECT 1\nGO /* never closed').map((b) => b.text), ['SELECT 1']);
  });

  it('keeps CRLF scripts exact: text, offsets and lines', () => {
    const text = 'SELECT 1\r\nGO\r\nSELECT 2\r\nSELECT 3\r\n';
    const [a, b] = batches(text);
    assert.equal(a!.text, 'SELECT 1');
    assert.equal(b!.text, 'SELECT 2\r\nSELECT 3');
    assert.equal(text.slice(b!.startOffset, b!.endOffset), b!.text);
    assert.deepEqual(b!.range, { start: { line: 2, character: 0 }, end: { line: 3, character: 8 } });
    assert.equal(b!.firstLine, 2);
  });

  it('recognises GO on the first line after a byte order mark', () => {
    const result = batches('\uFEFFGO\nSELECT 1');
    assert.deepEqual(result.map((b) => b.text), ['SELECT 1']);
  });

  it('returns no batches for an empty or blank file, and none for blank text after the last GO', () => {
    assert.deepEqual(batches(''), []);
    assert.deepEqual(batches('  \n\t\n'), []);
    assert.equal(batches(script('SELECT 1', 'GO', '', '  ')).length, 1);
    assert.equal(batches(script('GO', 'GO 3', 'SELECT 1')).length, 1);
  });

  it('marks batches holding only comments as empty', () => {
    const result = batches(script('-- nothing to run', 'GO', 'SELECT 1'));
    assert.deepEqual(result.map((b) => b.empty), [true, false]);
  });

  it('maps a server error line (1-based in the batch) to the document line', () => {
    const text = script('SELECT 1', 'GO', '', 'SELECT 2', 'SELECT oops');
    const second = batches(text)[1]!;
    assert.equal(second.firstLine, 2);
    assert.equal(documentLineOfBatchLine(second, 3), 4);
    assert.equal(text.split('\n')[documentLineOfBatchLine(second, 3)], 'SELECT oops');
    assert.equal(documentLineOfBatchLine(second, 0), 2, 'line 0 means not applicable: point at the batch start');
  });

  it('treats GO 0 as a separator that runs its batch once', () => {
    assert.deepEqual(batches(script('SELECT 1', 'GO 0')).map((b) => b.repeat), [1]);
  });
});
