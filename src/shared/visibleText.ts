// Characters that act instead of showing: C0 controls (ESC starts terminal CSI/OSC sequences, CR overwrites a line),
// DEL, C1 controls (U+009B is CSI by itself) and the Unicode bidi marks/embeddings/overrides/isolates that reorder
// what is displayed. Every sink that shows server-, file- or setting-provided text (terminal, Markdown, clipboard)
// writes them as visible escape text. Shared by src/cli (terminal) and src/report (Markdown); no dependencies.

/** C0 controls except TAB (09) and LF (0A), DEL, C1 controls, ALM/LRM/RLM, and U+202A–202E, U+2066–2069. */
// eslint-disable-next-line no-control-regex
export const ACTIVE_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `\x1b` for C0 controls, `\u007f` / `\u202e` for DEL and the rest. The `\u` form is also the JSON escape of the same
 * character, so JSON whose strings hold DEL, C1 or bidi characters (JSON.stringify leaves them raw) stays valid and
 * decodes to the original; C0 never reaches here from JSON (JSON.stringify writes it as \u00XX already).
 */
export function visibleEscape(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every active character written as visible escape text. */
export function withVisibleControls(text: string): string {
  return text.replace(ACTIVE_CHARACTERS, visibleEscape);
}

/** True when `text` holds no active character. */
export function hasActiveCharacters(text: string): boolean {
  return new RegExp(ACTIVE_CHARACTERS.source).test(text);
}

/** Line breaks withVisibleControls keeps (LF) or no terminal breaks on but editors and dialogs do (U+2028, U+2029). */
const LINE_BREAKS = /[\n\u2028\u2029]/g;

/**
 * One server- or file-provided field printed inside a line of ours (a database or server name in a plan, a report
 * heading): active characters and line breaks written as visible escape text, so the field stays on its line.
 */
export function oneLineField(text: string): string {
  return withVisibleControls(text).replace(LINE_BREAKS, visibleEscape);
}

/**
 * Longest line of a log entry: PRINT's own limit is 8,000 characters (Learn, "PRINT (Transact-SQL)"), so a whole
 * message and our prefix fit; longer lines are cut with a count, where an editor would stop rendering them anyway.
 */
export const MAX_LOG_LINE = 8_192;
/** Indent of an entry's continuation lines: only the first line of an entry starts where the log's timestamp does. */
export const LOG_CONTINUATION = '    ';

/**
 * One entry of a log (the Output channel) holding server-, file- or setting-provided text (PRINT, an error message, a
 * name): active characters written as visible escape text (a lone CR would rewrite the line, a bidi override reorder
 * it, ESC start a sequence that shows as garbage); CRLF read as one line break; every line after the first indented,
 * so no text of the server can start a line that reads as an entry of its own ("2026-11-28 … [info] Restored …");
 * each line at most MAX_LOG_LINE characters.
 */
export function logEntryText(text: string): string {
  return withVisibleControls(text.replace(/\r\n/g, '\n'))
    .replace(/[\u2028\u2029]/g, visibleEscape)
    .split('\n')
    .map((line, i) => (i === 0 ? '' : line === '' ? '' : LOG_CONTINUATION) + capped(line))
    .join('\n');
}

/**
 * Where to cut `text` so at most `max` UTF-16 code units stay, never between the two halves of a surrogate pair; null
 * when it fits. Every sink that shortens a server's or a file's text (a log line, an agent's field, an editor message)
 * cuts here and says how much it left out.
 */
export function cutPoint(text: string, max: number): number | null {
  if (text.length <= max) return null;
  return /[\ud800-\udbff]/.test(text[max - 1]!) ? max - 1 : max;
}

function capped(line: string): string {
  const cut = cutPoint(line, MAX_LOG_LINE);
  return cut === null ? line : `${line.slice(0, cut)}… (${line.length - cut} more characters not shown)`;
}

/**
 * VS Code's theme-icon syntax: `$(name)` or `$(name~modifier)` (src/vs/base/common/themables.ts: iconNameExpression
 * `[A-Za-z0-9-]+`, iconModifierExpression `~[A-Za-z]+`). Labels that render it — per the API reference (vscode.d.ts):
 * QuickPickItem label, description and detail, StatusBarItem and LanguageStatusItem text, ProgressLocation.Window's
 * label, MarkdownString with supportThemeIcons; and a code lens's title (the editor's CodeLensContentWidget renders it
 * with renderLabelWithIcons). Tree item string labels and descriptions, notification messages and notification
 * progress titles show it as text.
 */
const THEME_ICON_START = /\$\((?=[A-Za-z0-9-]+(?:~[A-Za-z]+)?\))/g;

/**
 * `text` with every theme-icon reference escaped as VS Code's escapeIcons does — a backslash before `$(` — which
 * renderLabelWithIcons (src/vs/base/browser/ui/iconLabel/iconLabels.ts) shows as the text `$(name)`. Unlike
 * escapeIcons, an already escaped `\$(name)` gets a backslash too, so the field shows exactly as written.
 */
export function escapeThemeIcons(text: string): string {
  return text.replace(THEME_ICON_START, '\\$(');
}

/**
 * One server-, file- or setting-provided field (a database, routine or profile name, a file path) inside a label that
 * renders theme icons: on its line (oneLineField) and with no `$(name)` turning into an icon.
 */
export function iconLabelField(text: string): string {
  return escapeThemeIcons(oneLineField(text));
}
