// durabilityLens.xe.traceOverheadRuns through ProfilingController with the fake `vscode` against the stand-in (issue
// 28): a confirmed single run does not cover the 2×N runs — the consent view asks again and shows the plan —, the
// workload then runs 2×N times, and the panel's model carries the measured traceOverhead (stand-in figures).
import * as assert from 'node:assert/strict';
import { connect } from '../../../src/db/connect';
import type { ProfilingController as ProfilingControllerType } from '../../../src/extension/profiling/profilingController';
import type { ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const CONSENT = /^Durability Lens: confirm what runs — /;
const TEXT = 'SET NOCOUNT ON;\nDECLARE @i int = 0;\nWHILE @i < 5\nBEGIN\n  INSERT INTO dbo.overhead_rows (id) VALUES (@i);\n  SET @i += 1;\nEND\n';

function fakeDocument(text: string, uri: string) {
  const lines = text.split('\n');
  const offset = (p: { line: number; character: number }) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character;
  return {
    uri: { toString: () => uri, path: uri.replace(/^file:\/\//, '') },
    fileName: uri.replace(/^file:\/\//, ''),
    version: 1,
    lineCount: lines.length,
    getText: (range?: { start: { line: number; character: number }; end: { line: number; character: number } }) => (range ? text.slice(offset(range.start), offset(range.end)) : text),
    offsetAt: offset,
    lineAt: (line: number) => ({ range: { start: { line, character: 0 }, end: { line, character: lines[line]!.length } } }),
  };
}

describe('trace-overhead runs through the controller (fake vscode, stand-in)', function () {
  this.timeout(120_000);
  const fake = sharedFake;
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let controller: ProfilingControllerType;
  const panels: PanelData[] = [];
  const lines: string[] = [];
  const doc = fakeDocument(TEXT, 'file:///w/overhead.sql');
  let whole: unknown;

  const rows = async (): Promise<number> => {
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      return Number((await s.query('SELECT COUNT(*) AS n FROM dbo.overhead_rows'))[0]!.n);
    } finally {
      await s.close();
    }
  };

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    const setup = await connect(h.profile, h.secret, { role: 'workload' });
    await setup.execute('CREATE TABLE dbo.overhead_rows (id int);');
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
    whole = new Range(new Position(0, 0), new Position(7, 0));
  });

  after(async () => {
    manager?.dispose();
    delete fake.settings['durabilityLens.connections'];
    delete fake.settings['durabilityLens.xe.traceOverheadRuns'];
    fake.documents = [];
    fake.reset();
    uninstall?.();
    await h?.close();
  });

  beforeEach(() => {
    fake.shown = [];
    fake.autoConsent = false;
  });

  it('one run by default: confirmed once, and traceOverhead says not measured with how to measure it', async () => {
    fake.messageAnswers = ['Run'];
    await controller.profileText(doc as never, whole as never, 'profile');
    assert.equal(fake.shown.filter((s) => CONSENT.test(s.message)).length, 1);
    assert.equal(await rows(), 5);
    const t = panels.at(-1)!.model.traceOverhead!;
    assert.equal(t.status, 'not-measured');
    assert.match(t.fix!, /durabilityLens\.xe\.traceOverheadRuns: 2/);
  });

  it('with the setting at 2, the confirmed single run does not cover it: the view asks again with the plan, then the workload runs 4 times', async () => {
    fake.settings['durabilityLens.xe.traceOverheadRuns'] = 2;
    fake.messageAnswers = [undefined];
    await controller.profileText(doc as never, whole as never, 'profile');
    const modal = fake.shown.find((s) => s.modal && CONSENT.test(s.message));
    assert.ok(modal, 'asked again');
    assert.match(modal.detail!, /This profile runs the workload 4 times: 2 with the per-statement trace, 2 without/);
    assert.match(modal.detail!, /── Trace-overhead measurement \(durabilityLens\.xe\.traceOverheadRuns: 2\)/);
    assert.equal(await rows(), 5, 'declined: nothing ran');

    fake.shown = [];
    fake.messageAnswers = ['Run'];
    await controller.profileText(doc as never, whole as never, 'profile');
    assert.equal(await rows(), 25, 'four more runs of 5 inserts');
    const t = panels.at(-1)!.model.traceOverhead!;
    assert.equal(t.status, 'measured', t.reason ?? '');
    assert.deepEqual(t.runs.map((r) => r.trace), ['with', 'without', 'with', 'without']);
    assert.equal(t.source, 'stand-in');
    assert.ok(lines.some((l) => /This profile runs the workload 4 times/.test(l)), 'the output channel says what ran');
  });
});
