// Leftover durability_lens_* sessions offered for drop after connect, the ad-hoc log-flush trace (start → status bar
// → stop drops the session and shows the figures; shutdown drops without showing), and history reopen/export — the
// real extension classes with the scripted fake `vscode`, against the TDS stand-in (figures are the model's).
import * as assert from 'node:assert/strict';
import { connect } from '../../../src/db/connect';
import type { AdhocTrace as AdhocTraceType } from '../../../src/extension/recording/adhocTrace';
import type { ActiveConnection, ConnectionManager as ConnectionManagerType } from '../../../src/extension/connections/connectionManager';
import type { RunHistory as RunHistoryType } from '../../../src/extension/history/runHistory';
import { quoteName } from '../../../src/db/quote';
import { KeyValueRestoreJournal, MemoryStore } from '../../../src/profile/restoreJournal';
import type { RunResult } from '../../../src/profile/types';
import type { PanelData } from '../../../src/shared/webviewProtocol';
import { serverState, startStandin, type StandinHarness } from '../../integration/profile/standin';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

const fake = sharedFake;
const HOSTILE_ORPHANS = ['durability_lens_<img src=x onerror=alert(1)>', "durability_lens_it's]; --", 'durability_lens_[click](command:workbench.action.quit)'];

class MemoryMemento {
  private values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
}

describe('ad-hoc trace, leftover sessions and run history with a fake vscode (stand-in)', function () {
  this.timeout(120_000);
  let uninstall: () => void;
  let h: StandinHarness;
  let manager: ConnectionManagerType;
  let trace: AdhocTraceType;
  let history: RunHistoryType;
  let offerOrphanCleanup: typeof import('../../../src/extension/sessions/orphanSessions').offerOrphanCleanup;
  let historyCommands: typeof import('../../../src/extension/history/historyCommands');
  const shownPanels: { data: PanelData; runs: readonly RunResult[] }[] = [];
  const connected: ActiveConnection[] = [];
  const lines: string[] = [];
  const output = fakeOutput(lines) as never;
  const panels = { show: async (data: PanelData, runs: readonly RunResult[] = []) => void shownPanels.push({ data, runs }) } as never;

  before(async () => {
    fake.reset();
    uninstall = installFakeVscode(fake);
    h = await startStandin();
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { AdhocTrace } = await import('../../../src/extension/recording/adhocTrace');
    const { RunHistory } = await import('../../../src/extension/history/runHistory');
    ({ offerOrphanCleanup } = await import('../../../src/extension/sessions/orphanSessions'));
    historyCommands = await import('../../../src/extension/history/historyCommands');
    fake.settings['durabilityLens.connections'] = [{ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    const store = new ConnectionStore(fake.secretStorage() as never);
    manager = new ConnectionManager(store, output, new KeyValueRestoreJournal(new MemoryStore()), async () => undefined);
    manager.onDidConnect((a) => void connected.push(a));
    history = new RunHistory(new MemoryMemento(), () => 5);
    trace = new AdhocTrace({ output, connections: manager, panels, history });
  });

  after(async () => {
    await trace?.shutdown();
    manager?.dispose();
    uninstall?.();
    await h?.close();
  });

  it('after connect, lists exactly the leftover sessions (hostile names as plain text) and drops them when asked', async () => {
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      for (const n of HOSTILE_ORPHANS) await s.execute(`CREATE EVENT SESSION ${quoteName(n)} ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
    } finally {
      await s.close();
    }
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'standin'));
    fake.inputAnswers.push(h.secret);
    assert.equal(await manager.connect(), true);
    assert.equal(connected.length, 1);
    assert.equal(connected[0]!.standIn, true);

    fake.messageAnswers.push('Drop Them');
    const outcome = await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [], output });
    assert.deepEqual([...outcome.found].sort(), [...HOSTILE_ORPHANS].sort());
    assert.deepEqual([...outcome.dropped].sort(), [...HOSTILE_ORPHANS].sort());
    const prompt = fake.shown.find((m) => m.modal && m.message.includes('left on the server'))!;
    assert.equal(prompt.message, 'Durability Lens: 3 Extended Events sessions named durability_lens_* are left on the server and no running trace owns them.');
    // The names are the detail's first lines, verbatim and nothing else: a dialog detail is plain text.
    assert.deepEqual(prompt.detail!.split('\n').slice(0, 3).sort(), [...HOSTILE_ORPHANS].sort());
    assert.equal(prompt.detail!.split('\n')[3], '');
    assert.deepEqual(prompt.items, ['Drop Them', 'Keep']);
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });

  it('offers only sessions whose owner window is gone: never a live session of another window; unknown ones only on demand', async () => {
    const { SessionLedger, LEDGER_KEY } = await import('../../../src/extension/sessions/sessionLedger');
    const shared = new MemoryMemento(); // globalState, as every window of this machine sees it
    const deadPid = 2 ** 30;
    const thisWindow = new SessionLedger(shared, Date.now, (pid) => pid !== deadPid);
    const otherWindow = new SessionLedger(shared);
    const liveElsewhere = await otherWindow.claim();
    const crashed = 'durability_lens_crashed0000000001';
    await shared.update(LEDGER_KEY, [...(shared.get<unknown[]>(LEDGER_KEY) ?? []), { name: crashed, owner: 'gone-window', pid: deadPid, heartbeatAt: Date.now() }]);
    const unknown = 'durability_lens_fromthecli000001';
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      for (const n of [liveElsewhere, crashed, unknown]) await s.execute(`CREATE EVENT SESSION ${quoteName(n)} ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
    } finally {
      await s.close();
    }
    fake.shown = [];
    fake.messageAnswers.push('Drop Them');
    const onConnect = await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [], output, ledger: thisWindow });
    assert.deepEqual(onConnect, { found: [crashed], dropped: [crashed] });
    const prompt = fake.shown.find((m) => m.modal)!;
    assert.ok(!prompt.detail!.includes(liveElsewhere) && !prompt.detail!.includes(unknown), prompt.detail);
    // On demand: the unknown one is offered, marked as not ours; the other window's live session still is not.
    fake.shown = [];
    fake.messageAnswers.push('Drop Them');
    const manual = await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [], output, ledger: thisWindow, reportNone: true });
    assert.deepEqual(manual.found, [unknown]);
    assert.match(fake.shown.find((m) => m.modal)!.detail!, /Not started by this VS Code[^\n]*\n.*fromthecli/);
    assert.deepEqual((await serverState(h)).eventSessions, [liveElsewhere]);
    // Once the other window stops beating (closed or crashed), its session is an orphan too.
    const later = new SessionLedger(shared, () => Date.now() + 10 * 60_000);
    assert.deepEqual(later.classify([liveElsewhere], []), { orphans: [liveElsewhere], liveElsewhere: [], unknown: [] });
    // A trace's latency companion session belongs to the trace's owner, live or gone.
    assert.deepEqual(thisWindow.classify([`${liveElsewhere}_latency`], []), { orphans: [], liveElsewhere: [`${liveElsewhere}_latency`], unknown: [] });
    assert.deepEqual(later.classify([`${liveElsewhere}_latency`], []), { orphans: [`${liveElsewhere}_latency`], liveElsewhere: [], unknown: [] });
    const s2 = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      await s2.execute(`DROP EVENT SESSION ${quoteName(liveElsewhere)} ON SERVER;`);
    } finally {
      await s2.close();
    }
  });

  it('keeps leftovers when the user chooses Keep, and finds none afterwards once dropped', async () => {
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      await s.execute(`CREATE EVENT SESSION ${quoteName('durability_lens_kept')} ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
    } finally {
      await s.close();
    }
    fake.messageAnswers.push('Keep');
    const kept = await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [], output });
    assert.deepEqual(kept, { found: ['durability_lens_kept'], dropped: [] });
    assert.deepEqual((await serverState(h)).eventSessions, ['durability_lens_kept']);
    fake.messageAnswers.push('Drop Them');
    await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [], output });
    fake.shown = [];
    const none = await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [], output, reportNone: true });
    assert.deepEqual(none, { found: [], dropped: [] });
    assert.equal(fake.shown.at(-1)?.message, 'Durability Lens: no leftover durability_lens_* event sessions on this server.');
  });

  it('Start Log-Flush Trace runs a session the orphan check leaves alone; Stop Trace and Show drops it and shows the figures', async () => {
    assert.equal(await trace.start(), true);
    const name = trace.sessionName!;
    assert.match(name, /^durability_lens_/);
    assert.equal(fake.statusItems.get('durabilityLens.trace'), '$(record) Log-flush trace: lab');
    assert.deepEqual((await serverState(h)).eventSessions, [name, `${name}_latency`]);
    const own = await offerOrphanCleanup({ source: manager.connectionSource()!, scope: 'server', liveNames: [name], output, reportNone: true });
    assert.deepEqual(own.found, [], 'the live trace is not offered as leftover');

    // The user works in another tool: 20 autocommit inserts on another connection of the lab database.
    const w = await connect(h.profile, h.secret, { role: 'workload' });
    try {
      await w.execute('CREATE TABLE dbo.adhoc_trace (id int NOT NULL);');
      for (let i = 0; i < 20; i++) await w.execute(`INSERT INTO dbo.adhoc_trace (id) VALUES (${i});`);
    } finally {
      await w.close();
    }
    assert.equal(await trace.stop(), true);
    assert.equal(trace.sessionName, null);
    assert.equal(fake.statusItems.get('durabilityLens.trace'), '');
    assert.deepEqual((await serverState(h)).eventSessions, []);
    const shown = shownPanels.at(-1)!.data;
    assert.equal(shown.kind, 'trace');
    assert.equal(shown.title, 'Log-flush trace: lab');
    assert.ok(shown.standInLabel, 'stand-in figures are labelled');
    const flushes = shown.details!.trace.find((r) => r.figure.startsWith('Log flushes'))!;
    assert.match(flushes.value, /\(event_counter, exact\)$/);
    assert.ok(Number(/^[\d,]+/.exec(flushes.value)![0].replace(/,/g, '')) >= 20, `at least one flush per autocommit insert: ${flushes.value}`);
    assert.equal(history.list()[0]!.kind, 'trace');
  });

  it('shutdown (deactivation) stops and drops a running trace without showing anything', async () => {
    const before = shownPanels.length;
    assert.equal(await trace.start(), true);
    assert.equal((await serverState(h)).eventSessions.length, 2, 'the trace and its latency companion');
    await trace.shutdown();
    assert.deepEqual((await serverState(h)).eventSessions, []);
    assert.equal(shownPanels.length, before);
    assert.equal(fake.statusItems.get('durabilityLens.trace'), '');
  });

  it('Show Run History reopens the chosen entry; Export Run writes the chosen format', async () => {
    shownPanels.length = 0;
    fake.quickPickAnswers.push((items) => items[0]);
    await historyCommands.showRunHistory(history, panels);
    assert.equal(fake.quickPickPlaceholders.at(-1), historyCommands.HISTORY_PLACEHOLDER());
    assert.equal(shownPanels[0]?.data.title, 'Log-flush trace: lab');

    fake.quickPickAnswers.push((items) => items[0], (items) => items.find((i) => i.label === 'CSV'));
    fake.saveAnswers.push('/tmp/out/trace.csv');
    await historyCommands.exportRun(history);
    assert.deepEqual(fake.quickPickPlaceholders.slice(-2), [historyCommands.EXPORT_PICK_PLACEHOLDER(), historyCommands.EXPORT_FORMAT_PLACEHOLDER()]);
    const csv = fake.written.get('/tmp/out/trace.csv')!;
    assert.ok(csv.startsWith('figure,value\r\n'), csv);
    assert.match(csv, /^Event session,durability_lens_[0-9a-f]+ \(ring_buffer\)\r$/m);
  });

  it('Open Comparison File… shows a saved comparison document and refuses other JSON with the reason', async () => {
    const { comparisonDocument } = await import('../../../src/report/document');
    const { makeRun } = await import('../report/runFixture');
    const runs = [makeRun({ mode: 'DISABLED', elapsedMs: 900 }), makeRun({ mode: 'FORCED', elapsedMs: 300 })];
    fake.written.set('/tmp/ci/compare.json', JSON.stringify(comparisonDocument({ runs, status: 'completed', createdAt: '2026-05-06T07:08:09.000Z' })));
    fake.written.set('/tmp/ci/other.json', JSON.stringify({ kind: 'something-else' }));
    shownPanels.length = 0;
    fake.openAnswers.push('/tmp/ci/compare.json');
    assert.equal(await historyCommands.openComparisonFile(panels, history), true);
    const opened = shownPanels[0]!;
    assert.equal(opened.data.kind, 'comparison');
    assert.deepEqual(opened.data.model.columns, ['DISABLED', 'FORCED']);
    assert.equal(opened.runs.length, 2);
    assert.equal(history.list()[0]!.createdAt, '2026-05-06T07:08:09.000Z');

    fake.shown = [];
    fake.openAnswers.push('/tmp/ci/other.json');
    assert.equal(await historyCommands.openComparisonFile(panels, history), false);
    assert.equal(fake.shown.at(-1)?.message, 'Durability Lens: /tmp/ci/other.json is not a comparison this version can show. Not a Durability Lens comparison (kind is "something-else", expected "durability-lens.comparison").');
  });
});
