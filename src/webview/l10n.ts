// The panel's own text in VS Code's display language. Every string the webview writes goes through t('English {0}', …):
// a literal English message with {n} placeholders, which scripts/l10n.js extracts into l10n/bundle.l10n.json beside the
// extension's messages (translators translate one bundle). The extension host puts the active bundle's translations of
// these messages on the page (#root data-l10n, panel/webviewText.ts); a message without a translation stays English.
// Translated text is as untrusted as a server's: it only becomes a text node or an attribute value through the vnode
// tree (escaped by toHtml, set with textContent/setAttribute by main.ts), never markup, and a {n} it carries without an
// argument stays as it is. Figures, exports and ids never come from here: they stay English and machine-stable.

let messages: Readonly<Record<string, string>> = {};

/** `message` (English, the bundle's key) in the display language, with {n} replaced by the n-th argument. */
export function t(message: string, ...args: Array<string | number>): string {
  const text = Object.hasOwn(messages, message) ? messages[message]! : message;
  return text.replace(/\{(\d+)\}/g, (whole, index: string) => (Number(index) < args.length ? String(args[Number(index)]) : whole));
}

/** Installs the translations (message → translated message); an empty object is English. */
export function useMessages(next: Readonly<Record<string, string>>): void {
  messages = next;
}

/** The translations from the page's data-l10n: a JSON object of strings; anything else (absent, malformed) is English. */
export function messagesFrom(json: string | undefined | null): Record<string, string> {
  if (!json) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(parsed)) if (typeof value === 'string') out[key] = value;
  return out;
}
