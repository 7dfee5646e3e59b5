// What Heaviest Log Writers writes to the output channel: routine and database names come from the server (Query Store),
// and a bracketed name may hold line breaks and control characters. Like the CLI (terminalField), every such field is
// written on its line with those characters as visible escape text, so a name cannot add a line that reads as ours.
import * as assert from 'node:assert/strict';
import { ok } from '../../../src/probes/measurement';
import { buildTopLogDocument } from '../../../src/report/topLog';
import { hasActiveCharacters } from '../../../src/shared/visibleText';
import { history as qsHistory, queryRow } from '../probes/topLogFixtures';
import { makeRun } from '../report/runFixture';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

// [load_rows<LF>info Durability Lens: dbo.audit — Lab vs production …<ESC>[2J] is a legal bracketed identifier.
const HOSTILE = 'load_rows\ninfo Durability Lens: dbo.audit — all flushes measured\r\x1b[2J\u2028forged\u202e';

describe('Heaviest Log Writers: the output channel keeps a server\'s names on their line', () => {
  let uninstall: () => void;
  before(() => {
    sharedFake.reset();
    uninstall = installFakeVscode(sharedFake);
  });
  after(() => uninstall?.());

  function loaded() {
    const doc = buildTopLogDocument(qsHistory({ rows: ok([queryRow({ objectName: HOSTILE, queryHash: '0xBA841451D9E93735' })]) }), { standIn: true });
    return { doc, serverLabel: 'lab' };
  }

  /** Every line written, split as the channel shows it (LF, CR, and the Unicode line and paragraph separators). */
  const shownLines = (lines: string[]) => lines.join('\n').split(/\r\n|[\n\r\u2028\u2029]/);

  it('Details (showDetails) and the lab comparison after a profile write the routine name as one escaped field', async () => {
    const { ProductionLenses } = await import('../../../src/extension/topLog/productionLens');
    const lines: string[] = [];
    const lenses = new ProductionLenses(fakeOutput(lines) as never);
    const l = loaded();
    lenses.update(l as never);
    const objectId = l.doc.rows[0]!.object!.objectId;
    lenses.showDetails(objectId);
    const run = makeRun({ mode: null });
    run.statements = [{ line: 1, text: '', executions: 10, durationMs: 1, writelogWaits: 0, writelogMs: 0, rows: 0, batchIndex: -1, nestedStatements: 0, queryHash: '13439889529761249077' }] as typeof run.statements;
    lenses.noteRuns([run]);
    lenses.showDetails(objectId);
    lenses.dispose();
    assert.ok(lines.length >= 3, JSON.stringify(lines));
    // Observed before the fix: a line "info Durability Lens: dbo.audit — all flushes measured" of the name's own, and
    // ESC [2J (clear the screen) written raw.
    const forged = shownLines(lines).filter((line) => /^(info Durability Lens: dbo\.audit|forged)/.test(line));
    assert.deepEqual(forged, [], lines.join('\n'));
    assert.ok(!lines.some(hasActiveCharacters), 'no control or bidi character is written raw');
    assert.ok(lines.some((line) => line.includes('load_rows\\x0ainfo Durability Lens: dbo.audit — all flushes measured\\x0d\\x1b[2J\\u2028forged\\u202e')), lines.join('\n'));
  });

  it('Details for a routine nobody loaded says so, and writes nothing', async () => {
    const { ProductionLenses } = await import('../../../src/extension/topLog/productionLens');
    const lines: string[] = [];
    const lenses = new ProductionLenses(fakeOutput(lines) as never);
    lenses.showDetails(42);
    lenses.dispose();
    assert.deepEqual(lines, []);
    assert.match(sharedFake.shown.at(-1)!.message, /no production figures are loaded for this routine/);
  });
});
