// The production lens's output and notifications print routine names a server sends (sys.objects via Query Store). A
// line feed or an escape sequence in such a name must stay visible text on its line, never forge a line of ours.
import * as assert from 'node:assert/strict';
import { ok } from '../../../src/probes/measurement';
import { buildTopLogDocument } from '../../../src/report/topLog';
import { history as qsHistory, queryRow } from '../probes/topLogFixtures';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const fake = sharedFake;
const HOSTILE = 'load_rows\n  Others: C:\\forged.sql\u001b[2J\u202e';

describe('Heaviest Log Writers: server-provided routine names in the output channel and notifications', () => {
  let uninstall: () => void;
  before(() => {
    fake.reset();
    uninstall = installFakeVscode(fake);
  });
  after(() => uninstall?.());

  it('shows the details of a routine with a hostile name on one line, its controls as visible escapes', async () => {
    const { ProductionLenses } = await import('../../../src/extension/topLog/productionLens');
    const lines: string[] = [];
    const lenses = new ProductionLenses(fakeOutput(lines) as never);
    const doc = buildTopLogDocument(qsHistory({ rows: ok([queryRow({ objectName: HOSTILE })]) }), { standIn: true });
    lenses.update({ doc, serverLabel: 'srv' } as never);
    lenses.showDetails(1600000001);
    const printed = lines.join('\n').split('\n');
    assert.match(printed[0]!, /^info dbo\.load_rows\\x0a {2}Others: C:\\forged\.sql\\x1b\[2J\\u202e — /);
    assert.deepEqual(printed.filter((l) => /^\s*Others:/.test(l)), [], 'no line of the output starts with the forged text');
    for (const l of printed) assert.doesNotMatch(l, /[\u001b\u202e]/);
    // A routine nobody loaded: a message, never a crash.
    lenses.showDetails(42);
    assert.match(fake.shown.at(-1)!.message, /no production figures are loaded/);
    lenses.dispose();
  });
});
