// "Deploy This Version First" sends CREATE OR ALTER built from the procedure's range in the editor (procedureRun.ts:
// document.getText(target.range) → deployStatement). A GO line with a comment must end that range: once, a
// `GO /* … */` did not, and the DELETE after it was deployed inside the procedure (issue 26).
import * as assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { deployStatement } from '../../../src/profile/deployedDefinition';
import { procedureTargetOf } from '../../../src/shared/procedureTarget';
import { analyze } from '../../../src/tsql/analyze';

const PROCEDURE = [
  'CREATE PROCEDURE dbo.archive_orders @days int',
  'AS',
  'BEGIN',
  '  INSERT dbo.orders_archive SELECT * FROM dbo.orders WHERE placed < DATEADD(day, -@days, GETDATE());',
  'END',
];

/** The statement a deploy of the script's first procedure would send, as the extension builds it. */
function deployedFor(script: string): string {
  const document = TextDocument.create('file:///w/archive.sql', 'sql', 1, script);
  const routine = analyze(script).routines!.find((r) => r.kind === 'PROCEDURE')!;
  const target = procedureTargetOf(routine, document.uri, document.version);
  return deployStatement(document.getText(target.range));
}

describe('deploy of a procedure followed by a GO line with a comment', () => {
  // Each GO line, with the lines it runs on to (a block comment that closes later).
  const goLines: string[][] = [
    ['GO /* deploy the procedure first */'], ['GO -- then clean up'], ['GO 1 /* once */'], ['GO/*x*/--y'],
    ['GO /* runs on', '   past the GO line */'],
  ];
  for (const goLine of goLines) {
    it(`sends only the procedure when «${goLine.join(' ')}» separates it from a DELETE`, () => {
      for (const eol of ['\n', '\r\n']) {
        const script = [...PROCEDURE, ...goLine, 'DELETE FROM dbo.orders;', 'GO'].join(eol);
        const statement = deployedFor(script);
        assert.equal(statement, ['CREATE OR ALTER PROCEDURE dbo.archive_orders @days int', ...PROCEDURE.slice(1)].join(eol));
        assert.doesNotMatch(statement, /DELETE/);
        // The DELETE is a batch of its own, outside every routine.
        const a = analyze(script);
        assert.deepEqual(a.batches.map((b) => /DELETE/.test(b.text)), [false, true]);
        assert.deepEqual(a.dml.filter((d) => d.kind === 'DELETE').map((d) => d.batchIndex), [1]);
      }
    });
  }

  it('keeps a GO inside a block comment in the procedure (not a separator), so its text is the whole body', () => {
    const script = [...PROCEDURE.slice(0, 3), '  /*', 'GO', '  */', ...PROCEDURE.slice(3)].join('\n');
    assert.match(deployedFor(script), /\/\*\nGO\n {2}\*\/\n {2}INSERT/);
  });
});
