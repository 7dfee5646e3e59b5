// Issue 27 item 5: every string package.json contributes is a %key% of package.nls.json (a literal one fails here),
// runtime messages go through l10n.t with literal messages, and l10n/bundle.l10n.json (package.json "l10n") holds
// exactly the messages the sources use.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatMessage, l10n, useTranslator } from '../../../src/extension/l10n';
import { NLS_PLACEHOLDER } from '../../support/manifest';

const root = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const nls = JSON.parse(fs.readFileSync(path.join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
const l10nScript = require(path.join(root, 'scripts', 'l10n.js')) as {
  BUNDLE: string;
  buildBundle(): { bundle: Record<string, string>; problems: string[] };
  extract(text: string, file?: string): { messages: string[]; problems: string[] };
  serialize(bundle: Record<string, string>): string;
};

/** Keys whose string values VS Code shows to people (the manifest's contribution points). */
const SHOWN = new Set(['title', 'description', 'markdownDescription', 'category', 'displayName', 'deprecationMessage', 'markdownDeprecationMessage', 'altText', 'label', 'userDescription']);
const SHOWN_LISTS = new Set(['enumDescriptions', 'markdownEnumDescriptions']);

/** "path: value" of every shown string that is written out instead of being a %key%. */
function literalStrings(manifest: Record<string, unknown>): string[] {
  const found: string[] = [];
  const visit = (value: unknown, where: string, key: string) => {
    if (typeof value === 'string') {
      // A view's `name` is its title in the side bar (a language model tool's `name` is an id, never shown).
      const shown = SHOWN.has(key) || SHOWN_LISTS.has(key) || (key === 'name' && /^contributes\.views\./.test(where));
      if (shown && !NLS_PLACEHOLDER.test(value)) found.push(`${where}: ${value.slice(0, 60)}`);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, `${where}[${i}]`, SHOWN_LISTS.has(key) ? key : ''));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, `${where}.${k}`, k);
    }
  };
  visit(manifest.contributes, 'contributes', '');
  visit(manifest.capabilities, 'capabilities', '');
  for (const key of ['displayName', 'description']) visit(manifest[key], key, key);
  return found;
}

function placeholderKeys(manifest: unknown): string[] {
  const keys: string[] = [];
  const visit = (v: unknown) => {
    if (typeof v === 'string') { const m = NLS_PLACEHOLDER.exec(v); if (m) keys.push(m[1]!); }
    else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(manifest);
  return keys;
}

/** The end of the string literal starting at `i` (a quote), and its text outside `${…}`. */
function literalAt(text: string, i: number): { end: number; fixed: string } {
  const quote = text[i]!;
  let fixed = '';
  let j = i + 1;
  while (j < text.length && text[j] !== quote) {
    if (text[j] === '\\') { fixed += text.slice(j, j + 2); j += 2; continue; }
    if (quote === '`' && text.startsWith('${', j)) {
      let depth = 1;
      j += 2;
      while (j < text.length && depth > 0) {
        const c = text[j]!;
        if (c === "'" || c === '"' || c === '`') { j = literalAt(text, j).end; continue; }
        if (c === '{') depth++;
        else if (c === '}') depth--;
        j++;
      }
      continue;
    }
    fixed += text[j];
    j++;
  }
  return { end: j + 1, fixed };
}

/** Words, not only placeholders, punctuation or a codicon such as $(database). */
const hasWords = (fixed: string) => /[A-Za-z]{2}/.test(fixed.replace(/\$\([a-z~-]+\)/g, ''));

/** The start of each top-level argument of the call whose '(' is at `open`, and the index of its ')'. */
function argumentStarts(text: string, open: number): { starts: number[]; close: number } {
  const starts = [open + 1];
  let depth = 0;
  let j = open;
  while (j < text.length) {
    const c = text[j]!;
    if (c === "'" || c === '"' || c === '`') { j = literalAt(text, j).end; continue; }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return { starts, close: j };
    } else if (c === ',' && depth === 1) starts.push(j + 1);
    j++;
  }
  return { starts, close: j };
}

/**
 * Messages, titles, prompts, placeholders, quick pick items and button labels written as English literals instead of
 * through l10n.t: "file:line: text".
 */
function untranslated(file: string, text: string): string[] {
  const found: string[] = [];
  const flag = (at: number) => {
    const { fixed } = literalAt(text, at);
    if (hasWords(fixed)) found.push(`${file}:${text.slice(0, at).split('\n').length}: ${fixed.slice(0, 60)}`);
  };
  const shown = /\.show(?:Information|Warning|Error)Message\(\s*|\b(?:title|prompt|placeHolder|tooltip|label|detail|description|confirmLabel|openLabel):\s*|\.(?:text|tooltip|description|message) = /g;
  for (const m of text.matchAll(shown)) {
    const at = m.index + m[0].length;
    if (`'"\``.includes(text[at] ?? '')) flag(at);
  }
  // A button: any later argument of a notification; a quick pick's items given as a list of strings.
  for (const m of text.matchAll(/\.show(?:Information|Warning|Error)Message\(|\.showQuickPick\(/g)) {
    const open = m.index + m[0].length - 1;
    const { starts } = argumentStarts(text, open);
    const isPick = m[0].includes('QuickPick');
    for (const start of isPick ? starts.slice(0, 1) : starts.slice(1)) {
      let at = start;
      while (/\s/.test(text[at] ?? '')) at++;
      if (isPick && text[at] === '[') {
        const list = argumentStarts(text, at);
        for (const item of list.starts) {
          let i = item;
          while (/\s/.test(text[i] ?? '')) i++;
          if (`'"\``.includes(text[i] ?? '')) flag(i);
        }
      } else if (`'"\``.includes(text[at] ?? '')) flag(at);
    }
  }
  return found;
}

describe('l10n: contributed strings in package.nls.json, runtime messages in the l10n bundle (issue 27)', () => {
  it('every string package.json shows is a %key%, and a literal one fails this check', () => {
    assert.deepEqual(literalStrings(pkg), []);
    const broken = JSON.parse(JSON.stringify(pkg));
    broken.contributes.commands[0].title = 'Profile Transaction';
    broken.contributes.configuration.properties['durabilityLens.codeLens.enabled'].markdownDescription = 'Show lenses.';
    broken.contributes.walkthroughs[0].steps[1].description = 'Connect.';
    broken.contributes.views.explorer[0].name = 'Heaviest Log Writers';
    assert.deepEqual(literalStrings(broken).map((l) => l.split(':')[0]), [
      'contributes.commands[0].title',
      'contributes.views.explorer[0].name',
      'contributes.configuration.properties.durabilityLens.codeLens.enabled.markdownDescription',
      'contributes.walkthroughs[0].steps[1].description',
    ]);
  });

  it('package.nls.json has every key package.json uses, none unused, none empty', () => {
    const used = new Set(placeholderKeys(pkg));
    assert.ok(used.size > 70, `${used.size} keys`);
    for (const key of used) assert.ok(typeof nls[key] === 'string' && nls[key]!.trim() !== '', `package.nls.json: ${key}`);
    assert.deepEqual(Object.keys(nls).filter((k) => !used.has(k)), [], 'keys package.json no longer uses');
    assert.equal(nls['command.profileSelection.title'], 'Profile Selection');
    assert.equal(nls.category, 'Durability Lens');
  });

  it('package.json names the runtime bundle folder, and the bundle holds exactly the messages of the l10n.t calls', () => {
    assert.equal(pkg.l10n, './l10n');
    const { bundle, problems } = l10nScript.buildBundle();
    assert.deepEqual(problems, [], 'every l10n.t call has a literal message');
    assert.equal(fs.readFileSync(l10nScript.BUNDLE, 'utf8'), l10nScript.serialize(bundle), 'l10n/bundle.l10n.json is out of date: npm run l10n');
    assert.ok(Object.keys(bundle).length >= 20);
    assert.ok(bundle['Switch DELAYED_DURABILITY of {0} on {1} between {2} and {3} to compare?']);
    for (const message of Object.keys(bundle)) {
      const indices = [...message.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
      assert.deepEqual([...new Set(indices)].sort((a, b) => a - b), [...Array(new Set(indices).size).keys()], `placeholders of "${message}" run {0}..{n}`);
    }
  });

  it('the extraction reads literal messages and refuses a computed one', () => {
    const found = l10nScript.extract("a(l10n.t('It\\'s {0}', x)); vscode.l10n.t(\"Say \\\"hi\\\"\"); l10n.t(`plain`); l10n.t(message); l10n.t(`x ${y}`);", 'f.ts');
    assert.deepEqual(found.messages, ["It's {0}", 'Say "hi"', 'plain']);
    assert.equal(found.problems.length, 2);
    assert.match(found.problems[0]!, /^f\.ts:1: l10n\.t needs a literal message/);
  });

  it('l10n.t formats English until activation installs vscode.l10n.t, then uses it', () => {
    assert.equal(formatMessage('{0} on {1}, {0} again; {2} stays', 'lab', 'db1'), 'lab on db1, lab again; {2} stays');
    assert.equal(formatMessage('{0}', '{1}', 'x'), '{1}', 'an argument is not formatted again');
    try {
      useTranslator((message, ...args) => `[fr] ${formatMessage(message, ...args)}`);
      assert.equal(l10n.t('Warning: {0}', 'w'), '[fr] Warning: w');
    } finally {
      useTranslator(formatMessage);
    }
    assert.equal(l10n.t('Warning: {0}', 'w'), 'Warning: w');
  });
  it('every notification, button, input box, quick pick (items too) and progress title of src/extension goes through l10n.t', () => {
    // The webview's panel titles and chart series (panel/panelData.ts, panel/panelDetail.ts) are data the panel and its
    // exports carry, not VS Code UI; export formats are names (JSON, Markdown, CSV).
    const skipped = new Set(['panel/panelData.ts', 'panel/panelDetail.ts', 'panel/exportFile.ts']);
    // A workload's description is the panel header's "Workload", which the exports carry in English.
    const data = new Set(['procedures/procedureRun.ts:  (the procedure at , called as an RPC)']);
    const files = (function walk(dir: string): string[] {
      return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
    })(path.join(root, 'src', 'extension'));
    const found = files.flatMap((f) => {
      const rel = path.relative(path.join(root, 'src', 'extension'), f).split(path.sep).join('/');
      return skipped.has(rel) ? [] : untranslated(rel, fs.readFileSync(f, 'utf8')).filter((l) => !data.has(l.replace(/:\d+:/, ':')));
    });
    assert.deepEqual(found, []);
    // And the check finds each form.
    const sample = "w.showErrorMessage(`Durability Lens: ${x} failed`); w.showInputBox({ prompt: 'Name it' }); item.text = '$(database) ok'; item.text = `$(sync~spin) ${a}`; w.showWarningMessage(l10n.t('fine'));"
      + " w.showWarningMessage(l10n.t('m', f(1, 'x')), { modal: true }, 'Go Ahead', go, l10n.t('Keep')); w.showQuickPick(['Pick Me', l10n.t('ok')], { title: l10n.t('t') }); w.showQuickPick([{ label: 'Item', detail: `Why ${n}` }]);";
    assert.deepEqual(untranslated('f.ts', sample).map((l) => l.replace(/^f\.ts:1: /, '')), ['Durability Lens:  failed', 'Name it', '$(database) ok', 'Item', 'Why ', 'Go Ahead', 'Pick Me']);
  });
});
