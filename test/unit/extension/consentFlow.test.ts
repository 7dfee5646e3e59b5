// Nothing runs that the user didn't see (issue 25), through ProfilingController with the fake `vscode` against the
// stand-in: "Profile batch" at line 307 shows the setup DELETE of line 2 in the consent view and runs nothing until
// Run; a confirmation is remembered until the file changes; Restricted Mode runs (and asks) nothing; a lens or cursor
// in a procedure body never runs its CREATE/ALTER; a selection inside the body runs as an ad-hoc batch and says so.
import * as assert from 'node:assert/strict';
import { connect } from '../../../src/db/connect';
import type { ProfilingController as ProfilingControllerType } from '../../../src/extension/profiling/profilingController';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { Commands, type ProfileTarget } from '../../../src/shared/commands';
import { startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const CONSENT = /^Durability Lens: confirm what runs — /;

/** A setup that empties the table at line 2, 300 lines of notes, the workload at line 307. */
function script(): string {
  const notes = Array.from({ length: 302 }, (_, i) => `-- note ${i + 1}`);
  return [
    '-- durability-lens: setup',
    'DELETE FROM dbo.keep_rows;',
    '-- durability-lens: measure',
    'GO',
    ...notes,
    'DECLARE @i int = 0;',
    'WHILE @i < 5',
    'BEGIN',
    '  INSERT INTO dbo.loop_rows (id) VALUES (@i);',
    '  SET @i += 1;',
    'END',
    'GO',
    '',
  ].join('\n');
}

const PROC = [
  'CREATE OR ALTER PROCEDURE dbo.flow_load', // 0
  'AS',
  'BEGIN',
  '  DECLARE @i int = 0;',
  '  WHILE @i < 3', // 4
  '  BEGIN',
  '    INSERT INTO dbo.loop_rows (id) VALUES (@i);', // 6
  '    SET @i += 1;',
  '  END',
  'END',
  'GO',
  '',
].join('\n');

function fakeDocument(text: string, uri: string) {
  const lines = text.split('\n');
  return {
    uri: { toString: () => uri, path: uri.replace(/^file:\/\//, '') },
    fileName: uri.replace(/^file:\/\//, ''),
    version: 1,
    lineCount: lines.length,
    getText: (range?: { start: { line: number; character: number }; end: { line: number; character: number } }) => {
      if (!range) return text;
      const off = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
      return text.slice(off(range.start), off(range.end));
    },
    offsetAt: (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character,
    lineAt: (line: number) => ({ range: { start: { line, character: 0 }, end: { line, character: lines[line]!.length } } }),
  };
}

describe('consent before anything changes data or schema (fake vscode, stand-in)', function () {
  this.timeout(120_000);
  const fake = sharedFake;
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let controller: ProfilingControllerType;
  const panels: PanelData[] = [];
  const lines: string[] = [];
  const text = script();
  const doc = fakeDocument(text, 'file:///w/long.sql');
  const loopLine = text.split('\n').findIndex((l) => l.startsWith('WHILE'));
  let range: (line: number, character?: number, endLine?: number, endCharacter?: number) => unknown;

  const rows = async (table: string): Promise<number> => {
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      const [row] = await s.query(`SELECT COUNT(*) AS n FROM dbo.${table}`);
      return Number(row!.n);
    } finally {
      await s.close();
    }
  };

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    const setup = await connect(h.profile, h.secret, { role: 'workload' });
    await setup.execute('CREATE TABLE dbo.keep_rows (id int); INSERT INTO dbo.keep_rows (id) VALUES (1), (2), (3); CREATE TABLE dbo.loop_rows (id int);');
    await setup.close();
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { ProfilingController } = await import('../../../src/extension/profiling/profilingController');
    const { ConsentGate } = await import('../../../src/extension/consent/consentGate');
    const { ConsentStore, MemoryMemento } = await import('../../../src/extension/consent/consentStore');
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    fake.settings['durabilityLens.connections'] = [{ name: 'flow', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    manager = new ConnectionManager(new ConnectionStore(fake.secretStorage() as never), fakeOutput(lines) as never, journal, async () => undefined);
    const gate = new ConsentGate(new ConsentStore(new MemoryMemento()), fakeOutput(lines) as never);
    controller = new ProfilingController(fakeOutput(lines) as never, manager, { show: async (d: PanelData) => void panels.push(d) } as never, journal, undefined, undefined, undefined, gate);
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'flow'));
    fake.inputAnswers.push(h.secret);
    assert.equal(await manager.connect(), true);
    fake.documents = [doc];
    const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
    range = (line, character = 0, endLine = line, endCharacter = character) => new Range(new Position(line, character), new Position(endLine, endCharacter));
  });

  after(async () => {
    manager?.dispose();
    delete fake.settings['durabilityLens.connections'];
    fake.documents = [];
    fake.reset();
    uninstall?.();
    await h?.close();
  });

  beforeEach(() => {
    fake.shown = [];
    fake.autoConsent = false;
  });

  const lensAtLoop = (): ProfileTarget => ({ uri: 'file:///w/long.sql', version: 1, batchIndex: 1, batchRange: { start: { line: 4, character: 0 }, end: { line: loopLine + 5, character: 3 } }, repeat: 1, commit: null });

  it('"Profile batch" at line 307 shows the setup DELETE of line 2 and the loop, and runs nothing when not confirmed', async () => {
    fake.messageAnswers = [undefined]; // the user closes the consent view
    await controller.profileTarget(lensAtLoop(), 'profile');
    const modal = fake.shown.find((s) => s.modal && CONSENT.test(s.message));
    assert.ok(modal, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.deepEqual(modal.items, ['Run', 'Review in Editor']);
    assert.match(modal.detail!, /It changes data or schema: DELETE \(line 2\), INSERT \(line 310\)\./);
    assert.match(modal.detail!, /── Setup — runs first, unmeasured \(lines 1–3\) — changes: DELETE \(line 2\) ──\n1 │ -- durability-lens: setup\n2 │ DELETE FROM dbo\.keep_rows;/);
    // 300 lines of notes make it too long for the modal: the whole text is in the read-only tab, opened beside.
    assert.match(modal.detail!, /more lines: the whole text is in the read-only tab "What runs — long\.sql"/);
    const tab = fake.previews.at(-1)!;
    assert.match(tab.uri, /^durability-lens-consent:\/What runs — long\.sql/);
    assert.equal(loopLine + 1, 308);
    assert.match(tab.text, /\n308 │ WHILE @i < 5\n309 │ BEGIN\n310 │ {3}INSERT INTO dbo\.loop_rows/);
    assert.match(tab.text, /\n2 │ DELETE FROM dbo\.keep_rows;/);
    assert.equal(await rows('keep_rows'), 3, 'the setup DELETE did not run');
    assert.equal(await rows('loop_rows'), 0, 'the loop did not run');
    assert.equal(panels.length, 0);
  });

  it('runs after Run (the setup DELETE and the loop); the same text again runs without asking', async () => {
    fake.messageAnswers = ['Run'];
    await controller.profileTarget(lensAtLoop(), 'profile');
    assert.equal(panels.at(-1)?.header.status, 'completed', JSON.stringify(fake.shown.map((s) => s.message)));
    assert.equal(await rows('keep_rows'), 0);
    assert.equal(await rows('loop_rows'), 5);
    fake.shown = [];
    await controller.profileText(doc as never, range(loopLine + 1, 2) as never, 'profile');
    assert.equal(fake.shown.filter((s) => CONSENT.test(s.message)).length, 0, 'confirmed before, the file unchanged');
    assert.equal(await rows('loop_rows'), 10);
  });

  it('an edit of the file revokes the confirmation: the view is shown again', async () => {
    for (const l of fake.changeListeners) l({ document: { uri: { toString: () => 'file:///w/long.sql' } }, contentChanges: [{}] });
    fake.messageAnswers = [undefined];
    await controller.profileTarget(lensAtLoop(), 'profile');
    assert.equal(fake.shown.filter((s) => CONSENT.test(s.message)).length, 1);
    assert.equal(await rows('loop_rows'), 10, 'declined: nothing ran');
  });

  it('a read-only workload needs no consent', async () => {
    const reader = fakeDocument('SELECT COUNT(*) FROM dbo.loop_rows;\n', 'file:///w/read.sql');
    const before = panels.length;
    await controller.profileText(reader as never, range(0) as never, 'profile');
    assert.equal(fake.shown.filter((s) => s.modal).length, 0, JSON.stringify(fake.shown.map((s) => s.message)));
    assert.equal(panels.length, before + 1);
  });

  it('Restricted Mode: nothing runs and nothing is asked (not even to connect), with a clear message', async () => {
    fake.trusted = false;
    try {
      await manager.disconnect();
      const before = panels.length;
      await controller.profileTarget(lensAtLoop(), 'profile');
      await controller.profileText(doc as never, range(loopLine + 1) as never, 'compare');
      assert.equal(panels.length, before);
      assert.equal(manager.current, null, 'not connected: no connection was even asked for');
      assert.equal(fake.shown.length, 2, JSON.stringify(fake.shown.map((s) => s.message)));
      for (const s of fake.shown) {
        assert.match(s.message, /^Durability Lens: this workspace is in Restricted Mode, so (Profile batch 2|Compare durability modes for the whole document: measured batch 2) \(lines 5–31\d\), after setup batch 1 \(lines 1–3\) does not send its T-SQL to a server/);
        assert.match(s.message, /Nothing was run and no database setting was changed\.$/);
      }
      assert.deepEqual(fake.shown[0]!.items, ['Manage Workspace Trust']);
      assert.equal(await rows('loop_rows'), 10);
    } finally {
      fake.trusted = true;
    }
  });

  describe('inside a procedure body', () => {
    const procDoc = fakeDocument(PROC, 'file:///w/proc.sql');
    before(async () => {
      fake.documents = [doc, procDoc];
      if (!manager.current) {
        fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'flow'));
        assert.equal(await manager.connect(), true);
      }
    });

    it('a lens target on the procedure\'s batch offers EXEC and never runs the CREATE OR ALTER', async () => {
      fake.messageAnswers = [undefined];
      const before = await rows('loop_rows');
      await controller.profileTarget({ uri: 'file:///w/proc.sql', version: 1, batchIndex: 0, batchRange: { start: { line: 0, character: 0 }, end: { line: 9, character: 3 } }, repeat: 1, commit: null }, 'profile');
      const warning = fake.shown.find((s) => s.kind === 'warning')!;
      assert.match(warning.message, /this is the body of procedure dbo\.flow_load \(line 1\)\. Running its batch would run its CREATE\/ALTER — redeploying it — and measure that DDL/);
      assert.match(warning.message, /Nothing was run\./);
      assert.deepEqual(warning.items, ['Profile EXEC dbo.flow_load…']);
      assert.ok(!fake.shown.some((s) => CONSENT.test(s.message)));
      const s = await connect(h.profile, h.secret, { role: 'monitor' });
      try {
        const [row] = await s.query("SELECT OBJECT_ID(N'dbo.flow_load', N'P') AS id");
        assert.equal(row!.id, null, 'the procedure was not deployed');
      } finally {
        await s.close();
      }
      assert.equal(await rows('loop_rows'), before);
    });

    it('the cursor in the body (no selection): the same refusal; choosing EXEC hands over to the procedure lens', async () => {
      fake.messageAnswers = ['Compare EXEC dbo.flow_load…'];
      fake.commandsRun = [];
      await controller.profileText(procDoc as never, range(6, 6) as never, 'compare');
      assert.match(fake.shown.find((s) => s.kind === 'warning')!.message, /body of procedure dbo\.flow_load/);
      assert.deepEqual(fake.commandsRun, [Commands.compareProcedure]);
    });

    it('a selection inside the body runs as an ad-hoc batch, and the consent view says so', async () => {
      fake.messageAnswers = ['Run'];
      const before = await rows('loop_rows');
      await controller.profileText(procDoc as never, range(3, 0, 8, 5) as never, 'profile');
      const modal = fake.shown.find((s) => CONSENT.test(s.message))!;
      assert.match(modal.detail!, /The selection lies inside procedure dbo\.flow_load: it runs on its own, as an ad-hoc batch — not as the procedure/);
      assert.match(modal.detail!, /\n7 │ {5}INSERT INTO dbo\.loop_rows/);
      assert.doesNotMatch(modal.detail!, /CREATE OR ALTER/);
      assert.equal(await rows('loop_rows'), before + 3);
    });
  });
});
