// The stand-ins activation registers for the features chunk (src/extension/deferred.ts): every command and agent
// tool that activates the extension exists when activate() returns; the first call loads the features once, the
// command stand-ins give way to the real commands, and each call reaches the real handler with its arguments.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { sharedFake, useSharedFake } from './support/fakeVscode';
import type { Features } from '../../../src/extension/features';

const root = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require(path.join(root, 'package.json')) as { activationEvents: string[]; contributes: { commands: { command: string }[]; languageModelTools?: { name: string }[] } };

describe('activation stand-ins for the features chunk (fake vscode)', () => {
  const fake = sharedFake;
  const module = useSharedFake(() => import('../../../src/extension/deferred'));
  let deferred: typeof import('../../../src/extension/deferred');
  beforeEach(() => (deferred = module()));

  it('stands in for every contributed command and every agent tool (the activation events name them all)', () => {
    const commands = deferred.activationTargets(manifest, 'onCommand:');
    assert.deepEqual([...commands].sort(), manifest.contributes.commands.map((c) => c.command).sort());
    const tools = deferred.activationTargets(manifest, 'onLanguageModelTool:');
    assert.deepEqual([...tools].sort(), (manifest.contributes.languageModelTools ?? []).map((t) => t.name).sort());
    assert.ok(tools.length > 0);
  });

  it('loads the features once on the first command, hands the call on with its arguments, then gives way', async () => {
    fake.reset();
    const ids = ['durabilityLens.a', 'durabilityLens.b'];
    let loads = 0;
    const calls: unknown[][] = [];
    let standIns: { dispose(): void } | undefined;
    let loading: Promise<Features> | undefined;
    // What extension.ts does: dispose the stand-ins, then the features register the real commands.
    const load = () => (loading ??= Promise.resolve().then(() => {
      loads++;
      standIns!.dispose();
      for (const id of ids) fake.externalCommands.set(id, (...args: unknown[]) => (calls.push([id, ...args]), `${id} ran`));
      return { restorePanel: async () => undefined, lmTools: {}, stop: async () => undefined } satisfies Features;
    }));
    standIns = deferred.registerCommandStandIns(ids, load);
    assert.deepEqual([...fake.registeredCommands.keys()], ids);
    const standIn = fake.registeredCommands.get('durabilityLens.a')!;
    const [first, second] = await Promise.all([standIn({ line: 3 }, 'x'), fake.registeredCommands.get('durabilityLens.b')!()]);
    assert.equal(first, 'durabilityLens.a ran');
    assert.equal(second, 'durabilityLens.b ran');
    assert.equal(loads, 1);
    assert.deepEqual(calls, [['durabilityLens.a', { line: 3 }, 'x'], ['durabilityLens.b']]);
    assert.equal(fake.registeredCommands.size, 0, 'the stand-ins are gone once the features registered theirs');
  });

  it('hands an agent tool\'s prepare and invoke to the implementation the features hold', async () => {
    fake.reset();
    const seen: string[] = [];
    const implementation = {
      prepareInvocation: (options: { input: unknown }) => (seen.push(`prepare ${JSON.stringify(options.input)}`), { invocationMessage: 'preparing' }),
      invoke: (options: { input: unknown }) => (seen.push(`invoke ${JSON.stringify(options.input)}`), { content: [] }),
    };
    const features = { restorePanel: async () => undefined, lmTools: { durability_lens_analyze_file: implementation as never }, stop: async () => undefined } satisfies Features;
    const lines: string[] = [];
    const output = { info: (t: string) => void lines.push(t) } as never;
    deferred.registerToolStandIns(['durability_lens_analyze_file', 'durability_lens_unknown'], async () => features, output);
    const tool = fake.lmTools!.get('durability_lens_analyze_file') as { prepareInvocation(o: unknown, t: unknown): Promise<unknown>; invoke(o: unknown, t: unknown): Promise<unknown> };
    assert.deepEqual(await tool.prepareInvocation({ input: { path: 'a.sql' } }, undefined), { invocationMessage: 'preparing' });
    assert.deepEqual(await tool.invoke({ input: { path: 'a.sql' } }, undefined), { content: [] });
    assert.deepEqual(seen, ['prepare {"path":"a.sql"}', 'invoke {"path":"a.sql"}']);
    const unknown = fake.lmTools!.get('durability_lens_unknown') as { invoke(o: unknown, t: unknown): Promise<unknown> };
    await assert.rejects(unknown.invoke({ input: {} }, undefined), /no agent tool named durability_lens_unknown/);
    assert.deepEqual(lines, []);
  });

  it('registers no tool on a VS Code without the lm API, and says so', () => {
    fake.reset();
    fake.lmTools = null;
    const lines: string[] = [];
    const disposables = deferred.registerToolStandIns(['durability_lens_analyze_file'], () => Promise.reject(new Error('not loaded')), { info: (t: string) => void lines.push(t) } as never);
    assert.deepEqual(disposables, []);
    assert.match(lines.join('\n'), /no language-model tool API/);
  });
});
