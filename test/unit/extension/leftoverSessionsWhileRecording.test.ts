// The leftover-session check of the wired features (features.ts) while this window records: the recording's running
// event session belongs to a live capture, so neither the check after a connect nor "Drop Leftover Event Sessions"
// may offer it as "left on the server and no running trace owns it". Real classes, scripted fake `vscode`, stand-in.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { setJournalOwnerSession } from '../../../src/profile/restoreJournal';
import { serverState, startStandin, type StandinHarness } from '../../integration/profile/standin';
import { waitFor } from '../../integration/support';
import { fakeOutput, sharedFake, useSharedFake } from './support/fakeVscode';

class MemoryMemento {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (JSON.parse(JSON.stringify(this.values.get(key))) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, JSON.parse(JSON.stringify(value)));
  }
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  setKeysForSync(): void {}
}

describe('leftover event sessions while this window records (features wired, fake vscode, stand-in)', function () {
  this.timeout(60_000);
  const fake = sharedFake;
  const module = useSharedFake(() => import('../../../src/extension/features'));
  let h: StandinHarness;
  const context = { subscriptions: [] as { dispose(): unknown }[] } as Record<string, unknown> & { subscriptions: { dispose(): unknown }[] };
  let features: import('../../../src/extension/features').Features | undefined;

  before(async () => {
    h = await startStandin();
  });

  after(async () => {
    await features?.stop(() => 10_000);
    for (const d of context.subscriptions.splice(0)) await d.dispose();
    setJournalOwnerSession('cli'); // activateFeatures named the journal's owner after the window
    await h?.close();
  });

  it("Drop Leftover Event Sessions does not offer the recording's live session", async () => {
    fake.treeViewError = null; // the Heaviest Log Writers view: drawn by nothing here
    fake.settings['durabilityLens.connections'] = [{ name: 'standin', server: '127.0.0.1', port: h.server.port, database: 'lab', user: 'sa', encrypt: false, development: true }];
    fake.settings['durabilityLens.sampling.intervalMs'] = 100;
    Object.assign(context, {
      extension: { id: 'durability-lens.test', packageJSON: {} },
      extensionUri: { toString: () => 'file:///ext', path: '/ext', scheme: 'file' },
      globalState: new MemoryMemento(),
      workspaceState: new MemoryMemento(),
      secrets: fake.secretStorage(),
      asAbsolutePath: (p: string) => path.resolve(__dirname, '../../..', p),
    });
    const lines: string[] = [];
    features = module().activateFeatures(context as never, { output: fakeOutput(lines) as never, setDatabaseContext: async () => undefined });
    fake.quickPickAnswers.push((items) => items.find((i) => i.label === 'standin'));
    fake.inputAnswers.push(h.secret);
    assert.equal(await fake.registeredCommands.get('durabilityLens.startRecording')!(), true);
    const live = (await serverState(h)).eventSessions;
    assert.equal(live.length, 2, `the recording's log-flush session and its latency companion: ${live.join(', ')}`);

    fake.shown = [];
    fake.messageAnswers.push('Keep');
    await fake.registeredCommands.get('durabilityLens.dropLeftoverSessions')!();
    await waitFor(() => fake.shown.length > 0, 'the answer of the leftover check');
    const offered = fake.shown.filter((m) => m.modal && /left on the server/.test(m.message));
    assert.deepEqual(offered.map((m) => m.detail), [], 'the live recording is offered as a leftover');
    assert.deepEqual((await serverState(h)).eventSessions.sort(), live.sort(), 'the recording still runs');

    // Closing the window (deactivation) ends the recording without showing it, and drops its sessions.
    for (const d of context.subscriptions.splice(0)) await d.dispose();
    await waitFor(async () => (await serverState(h)).eventSessions.length === 0, 'the recording to drop its sessions', 15_000);
  });
});
