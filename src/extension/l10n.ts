// Runtime text of the extension goes through l10n.t — the signature of vscode.l10n.t: an English message with {0}
// placeholders, the key of l10n/bundle.l10n.json (npm run l10n writes it from the calls; translations add
// bundle.l10n.<locale>.json). Kept free of `vscode` so the text modules stay unit-testable: activation installs
// vscode.l10n.t; until then, and in tests, the English message is formatted as it is.

import { inertLinks } from '../shared/notificationText';

export type Translate = (message: string, ...args: Array<string | number | boolean>) => string;

/** The English message with {n} replaced by the n-th argument (a placeholder without an argument stays). */
export function formatMessage(message: string, ...args: Array<string | number | boolean>): string {
  return message.replace(/\{(\d+)\}/g, (whole, index: string) => (Number(index) < args.length ? String(args[Number(index)]) : whole));
}

let translate: Translate = formatMessage;

export const l10n = {
  t(message: string, ...args: Array<string | number | boolean>): string {
    // The arguments are the server's, a file's or a setting's text (error messages, names, paths): none may become a
    // `[label](command:…)` link when the message is a notification (shared/notificationText.ts).
    return translate(message, ...args.map((a) => (typeof a === 'string' ? inertLinks(a) : a)));
  },
};

/** Called once at activation with vscode.l10n.t. */
export function useTranslator(next: Translate): void {
  translate = next;
}
