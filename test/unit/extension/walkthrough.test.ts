// The Getting Started walkthrough: connect → open a sample → profile → compare, with the stand-in demo first while
// no connection profile exists; every command it links to is one we contribute, every media file exists.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { localizedManifest } from '../../support/manifest';

const root = path.resolve(__dirname, '../../..');
// As VS Code shows it: the %key% strings resolved from package.nls.json.
const pkg = localizedManifest(root);
// walkthrough.ts imports vscode, so its constant is read from the source rather than imported.
const HAS_CONNECTIONS_CONTEXT = /HAS_CONNECTIONS_CONTEXT = '([\w.]+)'/.exec(fs.readFileSync(path.join(root, 'src/extension/walkthrough.ts'), 'utf8'))![1]!;

interface Step { id: string; title: string; description: string; media: { markdown?: string }; when?: string; completionEvents?: string[] }

describe('Getting Started walkthrough', () => {
  const walkthrough = pkg.contributes.walkthroughs?.[0] as { id: string; steps: Step[] } | undefined;

  it('goes demo (only without a connection) → connect → open a sample → profile → compare', () => {
    assert.ok(walkthrough, 'package.json contributes a walkthrough');
    assert.deepEqual(walkthrough.steps.map((s) => s.id), ['demo', 'connect', 'openSample', 'profile', 'compare']);
    assert.equal(walkthrough.steps[0]!.when, `!${HAS_CONNECTIONS_CONTEXT}`);
    assert.ok(walkthrough.steps[1]!.completionEvents?.includes(`onContext:${HAS_CONNECTIONS_CONTEXT}`));
  });

  it('links only to commands we contribute (or VS Code\'s quick open) and ships every media file', () => {
    const ours = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const step of walkthrough!.steps) {
      for (const [, id] of step.description.matchAll(/\(command:([\w.]+)/g)) assert.ok(ours.has(id) || id === 'workbench.action.quickOpen', `${step.id} links to ${id}`);
      for (const e of step.completionEvents ?? []) {
        const id = e.startsWith('onCommand:') ? e.slice('onCommand:'.length) : null;
        if (id) assert.ok(ours.has(id) || id === 'workbench.action.quickOpen', `${step.id} completes on ${id}`);
      }
      assert.ok(step.media.markdown && fs.existsSync(path.join(root, step.media.markdown)), `${step.id}: ${step.media.markdown}`);
    }
  });
});
