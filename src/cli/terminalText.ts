// Neutralises text on its way to the terminal: everything the CLI prints may carry a server's or a file's strings
// (database names, error messages, file paths), and a terminal obeys control sequences inside them — ESC [ … (CSI:
// clear the screen, move the cursor over "ALL GOOD"), ESC ] … BEL (OSC: set the title, OSC 52 writes the clipboard),
// bare CR (overwrite the line), and the C1 forms of the same (U+009B is CSI on its own). Bidi overrides (U+202E …)
// reorder what is shown, so a name can read as something it is not.
//
// Each such character becomes visible escape text (`\x1b`, `\u202e`). The `\uXXXX` form is also a JSON string escape
// of the same character, so JSON output stays valid and decodes to the original text (JSON.stringify already writes C0
// characters as \u00XX; it leaves C1 and bidi characters raw, which this covers). A literal backslash is left alone:
// the output is for reading, and JSON needs it unchanged.
//
// Tab and line feed stay in whole output (runCli wraps every write), whose lines are ours. A single-line field — a name,
// a statement, a file name printed inside one of our lines — goes through terminalField, which writes its line breaks
// visibly too: a procedure named "p<LF>  9999 × …" must not add a line that reads like one of ours.

import { hasActiveCharacters, oneLineField, withVisibleControls } from '../shared/visibleText';

/** `text` with every terminal control and bidi character written as visible escape text. */
export function terminalSafe(text: string): string {
  return withVisibleControls(text);
}

/**
 * One server- or file-provided field of a line: every active character and every line break written as visible escape
 * text (`p\x0a  9999 × …`), so the field stays on the line it was printed in.
 */
export function terminalField(text: string): string {
  return oneLineField(text);
}

/** True when `text` holds nothing a terminal would act on (what tests and fuzzers assert). */
export function isTerminalSafe(text: string): boolean {
  return !hasActiveCharacters(text);
}

/** The same sinks with every write neutralised: wrap once where output leaves the CLI (runCli). */
export function terminalSafeSinks<T extends { stdout(text: string): void; stderr(text: string): void }>(io: T): T {
  const wrapped = Object.create(io) as T;
  wrapped.stdout = (text: string) => io.stdout(terminalSafe(text));
  wrapped.stderr = (text: string) => io.stderr(terminalSafe(text));
  return wrapped;
}
