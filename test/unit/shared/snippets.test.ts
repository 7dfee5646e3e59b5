// The contributed snippets are valid snippet JSON and, expanded with their defaults, analyse as the
// T-SQL they claim to be (no unbalanced transactions; the loop, GO n, COMMIT option found where expected).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { analyze } from '../../../src/tsql/index';

interface Snippet {
  prefix: string;
  body: string[];
  description: string;
}

const file = path.resolve(__dirname, '../../../snippets/tsql.code-snippets');
const snippets = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, Snippet>;

/** Replaces tab stops with what VS Code inserts when the user just tabs through: defaults, first choices. */
export function expandDefaults(body: string): string {
  const defaults = new Map<string, string>();
  for (const m of body.matchAll(/\$\{(\d+):([^}]*)\}/g)) if (!defaults.has(m[1]!)) defaults.set(m[1]!, m[2]!);
  for (const m of body.matchAll(/\$\{(\d+)\|([^|]*)\|\}/g)) if (!defaults.has(m[1]!)) defaults.set(m[1]!, m[2]!.split(',')[0]!);
  return body
    .replace(/\$\{(\d+):([^}]*)\}/g, (_, _n: string, value: string) => value)
    .replace(/\$\{(\d+)\|([^|]*)\|\}/g, (_, _n: string, choices: string) => choices.split(',')[0]!)
    .replace(/\$\{(\d+)\}|\$(\d+)/g, (_, a: string | undefined, b: string | undefined) => defaults.get((a ?? b)!) ?? '');
}

function byPrefix(prefix: string): string {
  const snippet = Object.values(snippets).find((s) => s.prefix === prefix);
  assert.ok(snippet, `no snippet with prefix ${prefix}`);
  return expandDefaults(snippet.body.join('\n'));
}

describe('snippets/tsql.code-snippets', () => {
  it('expands placeholders the way VS Code does with defaults', () => {
    assert.equal(expandDefaults('A ${1:x} B ${1:x} C ${2|ON,OFF|} $1 $0'), 'A x B x C ON x ');
  });

  it('has prefix, body and description on every snippet, with distinct dl- prefixes', () => {
    const entries = Object.entries(snippets);
    assert.ok(entries.length >= 10, `only ${entries.length} snippets`);
    for (const [name, s] of entries) {
      assert.match(s.prefix, /^dl-[a-z-]+$/, name);
      assert.ok(Array.isArray(s.body) && s.body.length > 0 && s.body.every((l) => typeof l === 'string'), name);
      assert.ok(typeof s.description === 'string' && s.description.length > 20, name);
      assert.doesNotMatch(s.body.join('\n'), /\t/, `${name} uses tabs`);
    }
    const prefixes = entries.map(([, s]) => s.prefix);
    assert.equal(new Set(prefixes).size, prefixes.length);
  });

  it('no snippet leaves a transaction unbalanced when expanded with its defaults', () => {
    for (const [name, s] of Object.entries(snippets)) {
      const analysis = analyze(expandDefaults(s.body.join('\n')));
      const unbalanced = analysis.diagnostics.filter((d) => d.code === 'unbalanced-transaction');
      assert.deepEqual(unbalanced, [], name);
    }
  });

  it('the insert loop is an autocommit INSERT in a WHILE loop', () => {
    const analysis = analyze(byPrefix('dl-insert-loop'));
    assert.deepEqual(analysis.batchesWithDmlInLoop, [0]);
    assert.deepEqual(analysis.loops.map((l) => l.kind), ['WHILE']);
    const looped = analysis.dml.filter((d) => d.inLoop);
    assert.deepEqual(looped.map((d) => [d.kind, d.autocommit]), [['INSERT', true]]);
    assert.deepEqual(analysis.diagnostics.map((d) => d.code), ['autocommit-dml-in-loop']);
  });

  it('GO n repeats the batch n times', () => {
    const analysis = analyze(byPrefix('dl-go-repeat'));
    assert.equal(analysis.batches[0]!.repeat, 1000);
  });

  it('the database setting, the delayed COMMIT and sp_flush_log are recognised', () => {
    assert.deepEqual(analyze(byPrefix('dl-set-durability')).durabilitySettings.map((s) => [s.database, s.value]), [['database', 'ALLOWED']]);
    const commits = analyze(byPrefix('dl-commit-delayed')).commits;
    assert.deepEqual(commits.map((c) => [c.form, c.delayedDurability, c.beginRange !== null]), [['COMMIT TRANSACTION', 'ON', true]]);
    assert.equal(analyze(byPrefix('dl-flush-log')).flushLogCalls.length, 1);
  });

  it('measurement snippets have no loop, COMMIT or durability change of their own', () => {
    for (const prefix of ['dl-file-stats', 'dl-wait-stats', 'dl-xe-log-flush', 'dl-xe-read', 'dl-log-info']) {
      const analysis = analyze(byPrefix(prefix));
      assert.deepEqual([analysis.loops.length, analysis.commits.length, analysis.durabilitySettings.length], [0, 0, 0], prefix);
      assert.deepEqual(analysis.diagnostics, [], prefix);
    }
  });
});
