// A pseudo-locale for tests: every message of l10n/bundle.l10n.json (the extension's and the webview's) wrapped in
// [brackets], the way a translator's bundle.l10n.<locale>.json replaces each message. Applied to the extension through
// useTranslator (what vscode.l10n.t does with a bundle) and to the webview through the host's webviewTranslations:
// any text still showing unbracketed English was not localised. Built from the bundle itself, so it never goes stale.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatMessage, type Translate } from '../../src/extension/l10n';

export const BUNDLE_PATH = path.resolve(__dirname, '../../l10n/bundle.l10n.json');

/** message → "[message]" for every message of the bundle. */
export function pseudoBundle(): Record<string, string> {
  const bundle = JSON.parse(fs.readFileSync(BUNDLE_PATH, 'utf8')) as Record<string, string>;
  return Object.fromEntries(Object.keys(bundle).map((m) => [m, `[${m}]`]));
}

/** vscode.l10n.t with `bundle` active: the translation when there is one, else the English message; then {n} filled. */
export function translatorFor(bundle: Readonly<Record<string, string>>): Translate {
  return (message, ...args) => formatMessage(Object.hasOwn(bundle, message) ? bundle[message]! : message, ...args);
}

/** True when `text` reads as pseudo-translated: it starts with a bracketed message (leading spaces and codicons aside). */
export function isPseudo(text: string): boolean {
  return /^\s*\[/.test(text);
}
