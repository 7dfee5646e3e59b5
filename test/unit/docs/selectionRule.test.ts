// The rule for what runs (a selection, nothing selected, a lens) is written once, in docs/selection.md: its wording
// appears in no other document of the repository, every other paragraph that speaks of nothing being selected links
// there, and the old rule ("the batch under the cursor") is gone from everything a user reads.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '../../..');
const SKIP = new Set(['node_modules', '.git', '.e2e', 'out', 'dist', '.vscode-test']);

/** Every Markdown file of the repository (docs, README, CHANGELOG, the walkthrough, MODEL.md…), relative paths. */
function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [relative(ROOT, full).replace(/\\/g, '/')] : [];
  });
}

/** The rule's three statements, as docs/selection.md words them (bold). */
const RULE = ['A selection runs exactly as selected.', 'With nothing selected, the whole document runs', 'A code lens runs the batch it sits on'];
const NOTHING_SELECTED = /nothing (is )?selected|batch under the cursor/i;

describe('docs: the rule for what runs is stated once (docs/selection.md)', () => {
  const files = markdownFiles();
  const text = (f: string) => readFileSync(join(ROOT, f), 'utf8').replace(/\s+/g, ' ');

  it('finds the documents (a broken walk would pass everything)', () => {
    for (const f of ['README.md', 'CHANGELOG.md', 'docs/selection.md', 'docs/settings-and-commands.md', 'docs/agents.md', 'media/walkthrough/profile.md']) assert.ok(files.includes(f), f);
  });

  it('each statement of the rule appears exactly once, in docs/selection.md', () => {
    for (const sentence of RULE) {
      const where = files.flatMap((f) => Array.from({ length: text(f).split(sentence).length - 1 }, () => f));
      assert.deepEqual(where, ['docs/selection.md'], sentence);
    }
  });

  it('every other paragraph that speaks of nothing being selected links to selection.md instead of restating it', () => {
    const unlinked = files
      .filter((f) => f !== 'docs/selection.md')
      .flatMap((f) => readFileSync(join(ROOT, f), 'utf8').split(/\r?\n\s*\r?\n/).map((p) => ({ f, p })))
      .filter(({ p }) => NOTHING_SELECTED.test(p) && !/selection\.md/.test(p))
      .map(({ f, p }) => `${f}: ${p.replace(/\s+/g, ' ').slice(0, 160)}`);
    assert.deepEqual(unlinked, []);
  });

  it('the old rule is gone from the strings a user reads (manifest, walkthrough, tool descriptions)', () => {
    for (const f of ['package.json', 'package.nls.json', 'src/agent/toolDefinitions.ts']) assert.doesNotMatch(readFileSync(join(ROOT, f), 'utf8'), /batch under the cursor/i, f);
  });
});
