// docs/architecture.md describes the folders src/ has: every folder in its floors table exists, and every folder of
// src/ is in the table; the same for the folders of src/extension/ in its own table; every file it names under src/
// exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { srcRoot } from './sourceGraph';

const doc = readFileSync(resolve(srcRoot, '../docs/architecture.md'), 'utf8');

describe('docs/architecture.md', () => {
  it('names exactly the folders of src/ in its floors table', () => {
    const table = [...doc.matchAll(/^\| \d+ \| `([a-z]+)\/` \|/gm)].map((m) => m[1]!).sort();
    const folders = readdirSync(srcRoot).filter((d) => statSync(join(srcRoot, d)).isDirectory()).sort();
    assert.deepEqual(table, folders);
  });

  it('names exactly the folders of src/extension/ in its extension table', () => {
    const table = [...doc.matchAll(/^\| `extension\/([A-Za-z]+)\/` \|/gm)].map((m) => m[1]!).sort();
    const root = join(srcRoot, 'extension');
    const folders = readdirSync(root).filter((d) => statSync(join(root, d)).isDirectory()).sort();
    assert.deepEqual(table, folders);
  });

  it('names only files that exist (folder/file.ts, resolved under src/)', () => {
    const named = [...new Set([...doc.matchAll(/`([a-z]+\/[A-Za-z/]+\.ts)`/g)].map((m) => m[1]!))];
    assert.ok(named.length >= 10, `only ${named.length} files named`);
    assert.deepEqual(named.filter((f) => !existsSync(join(srcRoot, f))), []);
  });
});
