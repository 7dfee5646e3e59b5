// `npm run l10n`: writes l10n/bundle.l10n.json — every runtime message of the extension (the literal first argument
// of each `l10n.t(…)` / `vscode.l10n.t(…)` call in src/extension) and of the panel's webview (each `t(…)` call in
// src/webview, see src/webview/l10n.ts), keyed by its English text as vscode.l10n expects — and l10n/webview-messages.json,
// the webview's messages alone: the panel host passes the active bundle's translations of exactly these to the page.
// Translators add l10n/bundle.l10n.<locale>.json and package.nls.<locale>.json beside it; a test keeps both files
// in step with the sources. `--check` exits 1 when either is stale instead of writing them.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const SOURCES = path.join(root, 'src', 'extension');
const WEBVIEW_SOURCES = path.join(root, 'src', 'webview');
const BUNDLE = path.join(root, 'l10n', 'bundle.l10n.json');
const WEBVIEW_MESSAGES = path.join(root, 'l10n', 'webview-messages.json');

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
/** The webview's t(…): a call of a bare `t`, not a method (x.t), another name (split) or its declaration. */
const WEBVIEW_CALL = /(?<![\w$.])(?<!function\s+)t\(\s*/g;
const LITERAL = /^('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)/;

/** Messages of one source text, and the calls whose first argument is not a literal (they cannot be extracted). */
function extract(text, file = '', call = CALL) {
  const messages = [];
  const problems = [];
  const name = call === CALL ? 'l10n.t' : 't';
  for (const m of text.matchAll(call)) {
    // A call quoted in a comment line (// t('…'), * t() in a doc comment) is prose, not a message.
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    if (/^\s*(?:\/\/|\/\*|\*)/.test(text.slice(lineStart, m.index))) continue;
    const rest = text.slice(m.index + m[0].length);
    const literal = LITERAL.exec(rest);
    const value = literal ? literalValue(literal[1]) : null;
    const line = text.slice(0, m.index).split('\n').length;
    if (value === null) problems.push(`${file}:${line}: ${name} needs a literal message as its first argument`);
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

/** Messages of the files under `dir` (the file defining the webview's t is not a caller), and the calls refused. */
function collect(dir, call) {
  const all = new Set();
  const problems = [];
  for (const file of sourceFiles(dir)) {
    if (call === WEBVIEW_CALL && path.basename(file) === 'l10n.ts') continue;
    const found = extract(fs.readFileSync(file, 'utf8'), path.relative(root, file).split(path.sep).join('/'), call);
    found.messages.forEach((m) => all.add(m));
    problems.push(...found.problems);
  }
  return { messages: [...all].sort(), problems };
}

/**
 * The bundle the sources call for: { message: message }, sorted (the extension's and the webview's messages in one
 * bundle); the webview's messages alone, sorted; and the calls that cannot be extracted.
 */
function buildBundle() {
  const host = collect(SOURCES, CALL);
  const webview = collect(WEBVIEW_SOURCES, WEBVIEW_CALL);
  const bundle = Object.fromEntries([...new Set([...host.messages, ...webview.messages])].sort().map((m) => [m, m]));
  return { bundle, webviewMessages: webview.messages, problems: [...host.problems, ...webview.problems] };
}

function serialize(bundle) {
  return `${JSON.stringify(bundle, null, 2)}\n`;
}

module.exports = { BUNDLE, WEBVIEW_CALL, WEBVIEW_MESSAGES, buildBundle, extract, literalValue, serialize };

if (require.main === module) {
  const { bundle, webviewMessages, problems } = buildBundle();
  for (const p of problems) console.error(p);
  if (problems.length > 0) process.exit(1);
  const files = [[BUNDLE, serialize(bundle), Object.keys(bundle).length], [WEBVIEW_MESSAGES, serialize(webviewMessages), webviewMessages.length]];
  if (process.argv.includes('--check')) {
    for (const [file, text] of files) {
      const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (current !== text) {
        console.error(`${path.relative(root, file)} is out of date: run npm run l10n`);
        process.exit(1);
      }
    }
  } else {
    for (const [file, text, count] of files) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, text);
      console.log(`${path.relative(root, file)}: ${count} messages`);
    }
  }
}
