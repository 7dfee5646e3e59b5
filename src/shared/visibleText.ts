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
