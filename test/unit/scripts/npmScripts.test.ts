// Issue 27: the npm scripts work wherever a user runs them — every `npm run X` the repository tells people (README,
// docs, workflows, test and script messages) is a script of package.json, and no script needs a POSIX shell
// (npm runs scripts with cmd.exe on Windows: no single quotes, env assignments, rm/cp/mkdir -p, `$VAR`, `;`).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const scripts = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** `npm run NAME` mentions in the tracked text files (recorded outputs and evaluation corpora aside). */
function mentionedScripts(): Map<string, string[]> {
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n')
    .filter((f) => /\.(md|ts|js|json|ya?ml)$/.test(f) || f.startsWith('.ci/'))
    .filter((f) => !/^(eval\/|test\/unit\/tsql\/golden\/)/.test(f));
  const found = new Map<string, string[]>();
  for (const file of files) {
    const full = path.join(root, file);
    if (!fs.existsSync(full)) continue;
    for (const m of fs.readFileSync(full, 'utf8').matchAll(/\bnpm run ([a-z][\w:-]*)/g)) {
      const name = m[1]!.replace(/[:-]+$/, '');
      found.set(name, [...(found.get(name) ?? []), file]);
    }
  }
  return found;
}

/** Why a script line would not run under cmd.exe (npm's script shell on Windows), or null. */
function posixOnly(line: string): string | null {
  const checks: [RegExp, string][] = [
    [/'/, 'single quotes (cmd.exe passes them through)'],
    [/(^|&&\s*|\s)[A-Z_][A-Z0-9_]*=\S*\s/, 'an environment assignment before the command'],
    [/\$\{?[A-Za-z_]/, 'a POSIX variable'],
    [/(^|[\s&|;])(rm|cp|mv|mkdir|cat|ls|chmod|ln|sh|bash|test)\s/, 'a POSIX command'],
    [/;/, 'a `;` separator'],
    [/\\\s*$/, 'a line continuation'],
  ];
  for (const [pattern, why] of checks) if (pattern.test(line)) return why;
  return null;
}

describe('package.json scripts: the ones the docs name exist, none needs a POSIX shell (issue 27)', () => {
  it('every `npm run X` the repository mentions is a script', () => {
    const mentioned = mentionedScripts();
    assert.ok(mentioned.has('package') && mentioned.has('demo'), 'the scan finds the README\'s commands');
    const missing = [...mentioned].filter(([name]) => !(name in scripts)).map(([name, files]) => `npm run ${name} (${[...new Set(files)].slice(0, 3).join(', ')})`);
    assert.deepEqual(missing, []);
  });

  it('npm run l10n writes the runtime bundle (the l10n test and the README name it)', () => {
    assert.equal(scripts.l10n, 'node scripts/l10n.js');
  });

  it('no script uses what only a POSIX shell understands, and the check catches each kind', () => {
    assert.deepEqual(Object.entries(scripts).flatMap(([name, line]) => {
      const why = posixOnly(line);
      return why ? [`${name}: ${why}`] : [];
    }), []);
    for (const line of ["mocha 'test/**/*.ts'", 'NODE_ENV=production webpack', 'rm -rf dist && webpack', 'node x.js $PORT', 'tsc; mocha']) {
      assert.ok(posixOnly(line), line);
    }
  });
});
