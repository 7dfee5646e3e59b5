// Per-statement figures in the editor (issue 16): ProfilingController profiles a selection (loop of single-row
// INSERTs, then one batched UPDATE) on the stand-in; the INSERT's document line carries the inline hint with ≥ 90 % of
// the session's WRITELOG, the hover has the full figures, the panel data can go to the line, and an edit clears the
// hints. Figures are the stand-in model's.
import * as assert from 'node:assert/strict';
import { connect } from '../../../src/db/connect';
import type { ProfilingController as ProfilingControllerType } from '../../../src/extension/profiling/profilingController';
import type { StatementHints as StatementHintsType } from '../../../src/extension/profiling/statementHints';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeDocument as sharedFakeDocument } from './support/controllerFlow';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const TEXT = [
  '-- a larger file: only the selection below runs',
  '-- (its lines are reported in this file\'s numbering)',
  'SELECT 1;',
  'GO',
  'DECLARE @i int = 0;',
  'WHILE @i < 300',
  'BEGIN',
  '  INSERT INTO dbo.hint_t (id) VALUES (@i);',
  '  SET @i += 1;',
  'END',
  'UPDATE dbo.hint_t SET id = id + 1;',
].join('\n');
const INSERT_LINE0 = 7;
const UPDATE_LINE0 = 10;

const fakeDocument = (text: string, uri = 'file:///w/hints.sql') => sharedFakeDocument(text, uri);

const fake = sharedFake;

describe('extension: statement hints after a profiled run (stand-in)', function () {
  this.timeout(60_000);
  let uninstall: () => void;
  let h: StandinHarness;
  let controller: ProfilingControllerType;
  let hints: StatementHintsType;
  const panels: PanelData[] = [];

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    const setup = await connect(h.profile, h.secret, { role: 'monitor' });
    await setup.execute('CREATE TABLE dbo.hint_t (id int NOT NULL);');
    await setup.close();
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { ProfilingController } = await import('../../../src/extension/profiling/profilingController');
    const { StatementHints } = await import('../../../src/extension/profiling/statementHints');
    fake.settings['durabilityLens.connections'] = [{ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    fake.secrets.clear();
    const lines: string[] = [];
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    const manager = new ConnectionManager(new ConnectionStore(fake.secretStorage() as never), fakeOutput(lines) as never, journal, async () => undefined);
    hints = new StatementHints();
    controller = new ProfilingController(fakeOutput(lines) as never, manager, { show: async (d: PanelData) => void panels.push(d) } as never, journal, undefined, undefined, hints);
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'standin'));
    fake.inputAnswers.push(h.secret);
    assert.equal(await manager.connect(), true);
  });

  after(async () => {
    hints?.dispose();
    uninstall?.();
    await h?.close();
  });

  it('puts the WRITELOG figures at the end of the INSERT line, with a hover, and the panel can open that line', async () => {
    const { Position, Range } = fake.module() as { Position: new (l: number, c: number) => unknown; Range: new (a: unknown, b: unknown) => unknown };
    const doc = fakeDocument(TEXT);
    await controller.profileText(doc as never, new Range(new Position(4, 0), new Position(UPDATE_LINE0, 34)) as never, 'profile');
    const data = panels.at(-1)!;
    assert.equal(data.documentUri, 'file:///w/hints.sql');
    const view = data.model.statements!;
    assert.equal(view.statements[0]!.line, INSERT_LINE0 + 1, 'the panel lists the INSERT first, in file lines');

    const provider = fake.inlayProviders[0] as StatementHintsType;
    const shown = provider.provideInlayHints(doc as never, new Range(new Position(0, 0), new Position(UPDATE_LINE0, 0)) as never) as unknown as { position: { line: number; character: number }; label: string }[];
    const insert = shown.find((x) => x.position.line === INSERT_LINE0)!;
    assert.equal(insert.position.character, TEXT.split('\n')[INSERT_LINE0]!.length, 'at the end of the line');
    assert.match(insert.label, /^300 × · [\d.]+ m?s WRITELOG \(stand-in\)$/);
    assert.ok(shown.some((x) => x.position.line === UPDATE_LINE0), 'the UPDATE commits once: a hint too');
    assert.ok(!shown.some((x) => x.position.line === 8), 'SET @i += 1 waited on nothing: no hint');

    const hover = (fake.hoverProviders[0] as StatementHintsType).provideHover(doc as never, new Position(INSERT_LINE0, 3) as never) as unknown as { contents: { value: string } };
    const share = /Share of the session's WRITELOG waits: (\d+) %/.exec(hover.contents.value);
    assert.ok(share && Number(share[1]) >= 90, hover.contents.value);
    assert.match(hover.contents.value, /Executions: 300/);
    assert.equal((fake.hoverProviders[0] as StatementHintsType).provideHover(doc as never, new Position(0, 0) as never), undefined);
  });

  it('clears the hints when the document is edited', () => {
    assert.ok(hints.hintsOf('file:///w/hints.sql').length > 0);
    for (const l of fake.changeListeners) l({ document: { uri: { toString: () => 'file:///w/other.sql' } }, contentChanges: [{}] });
    assert.ok(hints.hintsOf('file:///w/hints.sql').length > 0, 'another document\'s edit changes nothing');
    for (const l of fake.changeListeners) l({ document: { uri: { toString: () => 'file:///w/hints.sql' } }, contentChanges: [{}] });
    assert.deepEqual(hints.hintsOf('file:///w/hints.sql'), []);
  });
});
