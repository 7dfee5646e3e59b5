// When the features chunk does not load (src/extension/deferred.ts featuresLoader, extension.ts): a chunk that failed to
// load is tried again by the next command, as the driver's chunk is (db/loadDriver.ts) — its stand-ins stay until then;
// an activation that failed is never run twice; the user is told that nothing ran and how to try again; deactivate()
// stops only features that loaded and never loads them itself.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { sharedFake, useSharedFake } from './support/fakeVscode';
import type { Features } from '../../../src/extension/features';
import { setJournalOwnerSession } from '../../../src/profile/restoreJournal';

const root = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require(path.join(root, 'package.json')) as { activationEvents: string[] };

const FEATURES: Features = { restorePanel: async () => undefined, lmTools: {}, stop: async () => undefined };

class MemoryMemento {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback?: T): T | undefined {
    return this.values.has(key) ? (this.values.get(key) as T) : fallback;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
  }
  keys(): readonly string[] {
    return [...this.values.keys()];
  }
  setKeysForSync(): void {}
}

/** Polls until `done` holds (a deadline, not a timing assumption). */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}

describe('the features chunk failing to load (fake vscode)', () => {
  const fake = sharedFake;
  const module = useSharedFake(() => import('../../../src/extension/deferred'));
  let deferred: typeof import('../../../src/extension/deferred');
  beforeEach(() => (deferred = module()));

  it('a chunk that failed to load is loaded again by the next command, whose stand-in stayed until then', async () => {
    fake.reset();
    const id = 'durabilityLens.connect';
    let imports = 0;
    let activations = 0;
    const loader = deferred.featuresLoader(async () => {
      imports++;
      if (imports === 1) throw new Error("Cannot find module './extension.features.js'");
      return () => {
        activations++;
        fake.externalCommands.set(id, () => 'connected');
        return FEATURES;
      };
    }, () => standIns);
    const standIns = deferred.registerCommandStandIns([id], () => loader.load());
    const standIn = fake.registeredCommands.get(id)!;

    await assert.rejects(Promise.resolve(standIn()), /Cannot find module/);
    assert.equal(loader.started(), undefined, 'a failed import is not kept');
    assert.equal(fake.registeredCommands.get(id), standIn, 'the command still exists: its stand-in stays');

    assert.equal(await standIn(), 'connected');
    assert.deepEqual({ imports, activations }, { imports: 2, activations: 1 });
    assert.equal(fake.registeredCommands.size, 0, 'the stand-in gave way once the features loaded');
    assert.equal(await loader.started(), FEATURES);
  });

  it('an activation that failed is not run a second time (it may have registered part of the features)', async () => {
    fake.reset();
    let imports = 0;
    let activations = 0;
    const loader = deferred.featuresLoader(async () => {
      imports++;
      return () => {
        activations++;
        throw new Error('command durabilityLens.connect already exists');
      };
    }, () => ({ dispose() {} }));
    await assert.rejects(loader.load(), /already exists/);
    await assert.rejects(loader.load(), /already exists/);
    assert.deepEqual({ imports, activations }, { imports: 1, activations: 1 });
    await assert.rejects(loader.started()!, /already exists/, 'deactivate() still sees the load it must not stop twice');
  });

  describe('extension.ts', () => {
    let extension: typeof import('../../../src/extension/extension');
    let context: { subscriptions: { dispose(): unknown }[] } & Record<string, unknown>;

    before(async () => {
      extension = await import('../../../src/extension/extension');
    });

    beforeEach(() => {
      fake.reset();
      fake.statusText = '';
      context = {
        subscriptions: [],
        extension: { id: 'durability-lens.test', packageJSON: manifest },
        extensionUri: { toString: () => 'file:///ext', path: '/ext', scheme: 'file' },
        globalState: new MemoryMemento(),
        workspaceState: new MemoryMemento(),
        secrets: fake.secretStorage(),
        asAbsolutePath: (p: string) => path.join(root, p),
      };
    });

    afterEach(async () => {
      await extension.deactivate();
      for (const d of context.subscriptions.splice(0)) d.dispose();
      // activateFeatures names this process's journal owner after the window; later test files expect the CLI's.
      setJournalOwnerSession('cli');
    });

    it('a failed activation of the features: the user reads that nothing ran and to reload the window, and is offered it', async () => {
      fake.treeViewError = new Error('simulated: tree views are unavailable');
      fake.messageAnswers = ['Reload Window'];
      await extension.activate(context as never);
      await until(() => fake.shown.some((s) => s.kind === 'error'), 'the load failure to be shown');
      const shown = fake.shown.find((s) => s.kind === 'error')!;
      assert.match(shown.message, /^Durability Lens did not load its commands: simulated: tree views are unavailable\. Nothing ran on a database\. Reload the window/);
      assert.deepEqual(shown.items, ['Reload Window']);
      await until(() => fake.commandsRun.includes('workbench.action.reloadWindow'), 'the window reload the user chose');
      assert.match(fake.outputLines.join('\n'), /error Durability Lens did not load its commands: Error: simulated: tree views are unavailable\n\s+at /);
    });

    it('deactivate() before the turn that loads the features: they are never loaded', async () => {
      await extension.activate(context as never);
      const standIns = [...fake.registeredCommands.keys()];
      await extension.deactivate();
      // The turn after activation has passed (and the one after it): the features would have loaded by then.
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setTimeout(resolve, 20));
      assert.equal(fake.statusText, '', 'no connection status item: the features never ran');
      assert.deepEqual([...fake.registeredCommands.keys()], standIns, 'only the stand-ins were ever registered');
      assert.deepEqual(fake.shown, []);
    });
  });
});
