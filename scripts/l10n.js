// `npm run l10n`: writes l10n/bundle.l10n.json — every runtime message of the extension (the literal first argument
// of each `l10n.t(…)` / `vscode.l10n.t(…)` call in src/extension), keyed by its English text as vscode.l10n expects.
// Translators add l10n/bundle.l10n.<locale>.json and package.nls.<locale>.json beside it; a test keeps the bundle
// in step with the sources. `--check` exits 1 when the bundle is stale instead of writing it.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const SOURCES = path.join(root, 'src', 'extension');
const BUNDLE = path.join(root, 'l10n', 'bundle.l10n.json');

/** A JavaScript string literal's value ('…', "…" or `…` without ${}); null when it is not one. */
function literalValue(literal) {
  const quote = literal[0];
  const body = literal.slice(1, -1);
  if (quote === '`' && body.includes('${')) return null;
  // As JSON: only double quotes need escaping there; \' and \` are plain characters.
  const json = `"${body.replace(/\\(['`])/g, '$1').replace(/(^|[^\\])((?:\\\\)*)"/g, '$1$2\\"').replace(/\n/g, '\\n')}"`;
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}

const CALL = /\bl10n\.t\(\s*/g;
const LITERAL = /^('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)/;

/** Messages of one source text, and the calls whose first argument is not a literal (they cannot be extracted). */
function extract(text, file = '') {
  const messages = [];
  const problems = [];
  for (const m of text.matchAll(CALL)) {
    const rest = text.slice(m.index + m[0].length);
    const literal = LITERAL.exec(rest);
    const value = literal ? literalValue(literal[1]) : null;
    const line = text.slice(0, m.index).split('\n').length;
    if (value === null) problems.push(`${file}:${line}: l10n.t needs a literal message as its first argument`);
    else messages.push(value);
  }
  return { messages, problems };
}

function sourceFiles(dir = SOURCES) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  }).sort();
}

/** The bundle the sources call for: { message: message }, sorted; plus the calls that cannot be extracted. */
function buildBundle() {
  const all = new Set();
  const problems = [];
  for (const file of sourceFiles()) {
    const found = extract(fs.readFileSync(file, 'utf8'), path.relative(root, file));
    found.messages.forEach((m) => all.add(m));
    problems.push(...found.problems);
  }
  const bundle = Object.fromEntries([...all].sort().map((m) => [m, m]));
  return { bundle, problems };
}

function serialize(bundle) {
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

module.exports = { BUNDLE, buildBundle, extract, literalValue, serialize };

if (require.main === module) {
  const { bundle, problems } = buildBundle();
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  const text = serialize(bundle);
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(BUNDLE) ? fs.readFileSync(BUNDLE, 'utf8') : '';
    if (current !== text) {
      console.error(`${path.relative(root, BUNDLE)} is out of date: run npm run l10n`);
      process.exit(1);
    }
  } else {
    fs.mkdirSync(path.dirname(BUNDLE), { recursive: true });
    fs.writeFileSync(BUNDLE, text);
    console.log(`${path.relative(root, BUNDLE)}: ${Object.keys(bundle).length} messages`);
  }
}
