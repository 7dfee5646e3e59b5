// The session-param marker is a line comment that stands in code (docs/cli.md "Concurrency sweep"): the same text
// inside a block comment or a string literal is text, not a marker, as with the setup markers (setupMarkers.ts).
import { strict as assert } from 'node:assert';
import type { WorkloadBatch } from '../../../src/db/types';
import { sessionParamOf, withSessionParam } from '../../../src/profile/sessionParam';

const batch = (text: string, firstLine = 0): WorkloadBatch => ({ text, repeat: 1, firstLine });

describe('session-param marker: only a line comment in code', () => {
  it('counts the marker written as a -- line comment, alone on its line or indented', () => {
    assert.equal(sessionParamOf([batch('-- durability-lens: session-param @session\nINSERT t VALUES (@session);')]), '@session');
    assert.equal(sessionParamOf([batch('SELECT 1;\r\n    --durability-lens: session-param @k\r\nINSERT t VALUES (@k);')]), '@k');
  });

  it('ignores the marker inside a /* */ comment (nested too), which commented-out code must not switch on', () => {
    assert.equal(sessionParamOf([batch('/*\n-- durability-lens: session-param @session\n*/\nDECLARE @session int = 1;')]), null);
    assert.equal(sessionParamOf([batch('/* outer /* inner */\n-- durability-lens: session-param @session\n*/\nSELECT 1;')]), null);
  });

  it('ignores the marker inside an N\'…\' or \'…\' string literal spanning lines', () => {
    assert.equal(sessionParamOf([batch("EXEC sys.sp_executesql N'SELECT 1\n-- durability-lens: session-param @session\n';")]), null);
    assert.equal(sessionParamOf([batch("PRINT '\n  -- durability-lens: session-param @x\n';")]), null);
    // A malformed marker inside a string is no marker either: nothing to reject.
    assert.doesNotThrow(() => sessionParamOf([batch("SELECT N'\n-- durability-lens: session-param not-a-variable\n';")]));
  });

  it('a marker text after code on a line, or inside a quoted identifier, is no marker', () => {
    assert.equal(sessionParamOf([batch('SELECT 1; -- durability-lens: session-param @session')]), null);
    assert.equal(sessionParamOf([batch('SELECT 1 AS [x\n-- durability-lens: session-param @session\n];')]), null);
  });

  it('the real marker still counts when a commented-out one names another variable', () => {
    const batches = [batch('/*\n-- durability-lens: session-param @old\n*/\n-- durability-lens: session-param @session\nINSERT t VALUES (@session);', 4)];
    assert.equal(sessionParamOf(batches), '@session');
    assert.deepEqual(withSessionParam(batches, '@session', 2)[0]!.parameters, [{ name: 'session', type: 'int', value: 2 }]);
  });

  it('a batch that names the variable only in a comment or a string stays a plain batch (its #temp table carries on)', () => {
    const batches = [batch('CREATE TABLE #t (k int); -- each session fills @k below'), batch("PRINT N'uses @k';"), batch('/* @k */ INSERT #t VALUES (@k);')];
    assert.deepEqual(withSessionParam(batches, '@k', 3).map((b) => b.parameters?.length ?? 0), [0, 0, 1]);
  });
});
