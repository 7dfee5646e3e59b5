// src/extension/ is folders by feature, each with an index.ts that is its public surface: a file outside a folder
// imports only that folder's index, never a file inside it. The files at the top of src/extension/ (besides
// entry.ts, extension.ts, deferred.ts and features.ts, which wire everything) are the base every folder may import, so
// they import no folder.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { importGraph, srcRoot, type ImportGraph } from './sourceGraph';

const extensionRoot = join(srcRoot, 'extension');
const WIRING = new Set(['extension.ts', 'entry.ts', 'deferred.ts', 'features.ts']);

/** The feature folder (first path part under `root`) a file lives in; undefined for a file at the top of `root`. */
function folderOf(root: string, file: string): string | undefined {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Imports that reach into a feature folder past its index.ts, and base files that import a feature folder. */
function surfaceViolations(graph: ImportGraph, root: string): string[] {
  const out: string[] = [];
  const show = (file: string) => relative(root, file).split(sep).join('/');
  for (const [from, targets] of graph.edges) {
    if (relative(root, from).startsWith('..')) continue;
    const fromFolder = folderOf(root, from);
    for (const to of targets) {
      const toFolder = folderOf(root, to);
      if (toFolder === undefined || toFolder === fromFolder) continue;
      if (fromFolder === undefined && !WIRING.has(show(from))) out.push(`${show(from)} → ${show(to)} (a base file imports a folder)`);
      else if (to !== join(root, toFolder, 'index.ts')) out.push(`${show(from)} → ${show(to)} (past ${toFolder}/index.ts)`);
    }
  }
  return out.sort();
}

describe('src/extension/ folders', () => {
  const folders = readdirSync(extensionRoot).filter((d) => statSync(join(extensionRoot, d)).isDirectory());

  it('has feature folders, each with an index.ts', () => {
    assert.ok(folders.length >= 8, `only ${folders.length} folders`);
    assert.deepEqual(folders.filter((d) => !existsSync(join(extensionRoot, d, 'index.ts'))), []);
  });

  it('is imported across folders only through each folder\'s index.ts, and its base files import no folder', () => {
    assert.deepEqual(surfaceViolations(importGraph(), extensionRoot), []);
  });

  it('keeps at its top only the wiring and the base files', () => {
    const top = readdirSync(extensionRoot).filter((f) => f.endsWith('.ts')).sort();
    assert.deepEqual(top, ['api.ts', 'commandIds.ts', 'deferred.ts', 'entry.ts', 'extension.ts', 'features.ts', 'l10n.ts', 'runOptions.ts', 'uiText.ts', 'walkthrough.ts']);
  });

  it('reports an import past an index and a base file importing a folder', () => {
    const r = '/x/extension';
    const graph: ImportGraph = {
      edges: new Map([
        [`${r}/panel/panel.ts`, [`${r}/panel/csp.ts`]],
        [`${r}/history/history.ts`, [`${r}/panel/panel.ts`, `${r}/panel/index.ts`, `${r}/uiText.ts`]],
        [`${r}/uiText.ts`, [`${r}/panel/index.ts`]],
        [`${r}/extension.ts`, [`${r}/panel/index.ts`, `${r}/history/index.ts`]],
        [`${dirname(r)}/report/x.ts`, [`${r}/panel/panel.ts`]],
      ]),
      unresolved: [],
    };
    assert.deepEqual(surfaceViolations(graph, r), [
      'history/history.ts → panel/panel.ts (past panel/index.ts)',
      'uiText.ts → panel/index.ts (a base file imports a folder)',
    ]);
  });
});
