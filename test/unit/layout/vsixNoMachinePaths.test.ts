// Attack install41: nothing from the build machine inside what the VSIX and the npm tarball ship. The folders are the
// ones .vscodeignore and package.json "files" let through as text (docs, data, media, samples, l10n, snippets).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SHIPPED = ['docs', 'data', 'media', 'samples', 'l10n', 'snippets'];
const TEXT = /\.(md|json|sql|css|code-snippets)$/;
/** This machine's folders: the shared workspace, the clones and the worktrees. */
const MACHINE_PATH = /(^|[\s"'`(=:])\/work\/[A-Za-z0-9._-]+/m;

function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : TEXT.test(e.name) ? [path.join(dir, e.name)] : []));
}

describe('shipped files hold no path of the build machine (install41)', () => {
  it('docs, data, media, samples, l10n and snippets name no /work/… folder', () => {
    const hits: string[] = [];
    for (const file of SHIPPED.flatMap((d) => files(path.join(ROOT, d)))) {
      const m = MACHINE_PATH.exec(fs.readFileSync(file, 'utf8'));
      if (m) hits.push(`${path.relative(ROOT, file)}: ${m[0].trim()}`);
    }
    assert.deepEqual(hits, []);
  });
});
