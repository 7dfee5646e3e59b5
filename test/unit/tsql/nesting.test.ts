// Deep nesting: the structural scanner recurses per compound statement, so past MAX_NESTING levels it reads flat;
// analyze() must stay exact up to the cap and never throw (a few thousand levels used to overflow the stack).
import * as assert from 'node:assert/strict';
import { analyze } from '../../../src/tsql/analyze';
import { MAX_NESTING } from '../../../src/tsql/structure';
import { positionOf, rangeOf } from './helpers';

/** `depth` copies of `open`, then `body`, then `depth` copies of `close`, one per line. */
function nested(depth: number, open: string, body: string, close = 'END'): string {
  return [...Array<string>(depth).fill(open), body, ...Array<string>(depth).fill(close)].join('\n');
}

describe('tsql structure: deep nesting', () => {
  it('keeps every block exact up to MAX_NESTING levels', () => {
    const text = nested(MAX_NESTING, 'BEGIN', 'INSERT t VALUES (1)');
    const a = analyze(text);
    const blocks = (a.statements ?? []).filter((s) => s.kind === 'block');
    assert.equal(blocks.length, MAX_NESTING);
    // The outermost block spans the whole text: its END was matched across all levels.
    const last = text.split('\n').length - 1;
    assert.ok(blocks.some((b) => b.range.start.line === 0 && b.range.end.line === last && b.range.end.character === 3));
    assert.equal(a.dml.length, 1);
    assert.deepEqual(a.dml[0]!.range, rangeOf(text, 'INSERT t VALUES (1)'));
    assert.equal(a.diagnostics.length, 0);
  });

  // A chain of IF / WHILE with one-statement bodies closes itself when the flat head at the cap ends the innermost
  // body, so the next IF starts again at level 0: only every (MAX_NESTING + 1)th head is read flat.
  const chained = 10000 - Math.floor(10000 / (MAX_NESTING + 1));
  // [opening, closing, compound statements kept, loops kept]: `WHILE c BEGIN` is two levels (the loop and its block).
  const units = [
    ['BEGIN', 'END', MAX_NESTING, 0], ['WHILE @i < 10 BEGIN', 'END', MAX_NESTING, MAX_NESTING / 2], ['BEGIN TRY', 'END TRY', MAX_NESTING, 0],
    ['IF 1=1 BEGIN', 'END', MAX_NESTING, 0], ['IF @x = 1', '', chained, 0], ['WHILE 1=1', '', chained, chained],
  ] as const;
  for (const [open, close, kept, loops] of units) {
    it(`does not throw on 10,000 levels of ${open}, and still finds the DML inside with its exact range`, () => {
      const text = nested(10000, open, 'UPDATE t SET a = 1', close);
      const lines = text.split('\n').length;
      const a = analyze(text);
      assert.equal(a.batches.length, 1);
      assert.equal(a.dml.length, 1);
      assert.equal(a.dml[0]!.kind, 'UPDATE');
      assert.deepEqual(a.dml[0]!.range, rangeOf(text, 'UPDATE t SET a = 1'));
      // The loops that enclose it within the cap still count.
      assert.equal(a.dml[0]!.inLoop, open.startsWith('WHILE'));
      // Past the cap nothing is recorded as a block, loop or IF of its own.
      const structured = (a.statements ?? []).filter((s) => s.kind === 'block' || s.kind === 'while' || s.kind === 'if' || s.kind === 'try-catch');
      assert.equal(structured.length, kept);
      assert.equal(a.loops.length, loops);
      for (const s of a.statements ?? []) {
        assert.ok(s.range.start.line <= s.range.end.line && s.range.end.line < lines, JSON.stringify(s.range));
      }
    });
  }

  it('still pairs a transaction opened and committed past the cap', () => {
    const text = nested(3000, 'BEGIN', 'BEGIN TRAN\nDELETE t\nCOMMIT TRAN WITH (DELAYED_DURABILITY = ON)');
    const a = analyze(text);
    assert.equal(a.commits.length, 1);
    assert.deepEqual(a.commits[0]!.beginRange, rangeOf(text, 'BEGIN TRAN'));
    assert.equal(a.commits[0]!.delayedDurability, 'ON');
    assert.deepEqual(a.dml.map((d) => [d.kind, d.inExplicitTransaction, d.autocommit]), [['DELETE', true, false]]);
    assert.deepEqual(a.dml[0]!.range.start, positionOf(text, 'DELETE t'));
    assert.equal(a.diagnostics.filter((d) => d.code === 'unbalanced-transaction').length, 0);
  });

  it('does not throw on 10,000 nested procedure definitions', () => {
    const a = analyze(nested(10000, 'CREATE PROCEDURE p AS BEGIN', 'SELECT 1'));
    assert.equal(a.batches.length, 1);
  });
});
