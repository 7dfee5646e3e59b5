// Neutralises text on its way to the terminal: everything the CLI prints may carry a server's or a file's strings
// (database names, error messages, file paths), and a terminal obeys control sequences inside them — ESC [ … (CSI:
// clear the screen, move the cursor over "ALL GOOD"), ESC ] … BEL (OSC: set the title, OSC 52 writes the clipboard),
// bare CR (overwrite the line), and the C1 forms of the same (U+009B is CSI on its own). Bidi overrides (U+202E …)
// reorder what is shown, so a name can read as something it is not.
//
// Each such character becomes visible escape text (`\x1b`, `\u202e`); tab and line feed stay. The `\uXXXX` form is
// also a JSON string escape of the same character, so JSON output stays valid and decodes to the original text
// (JSON.stringify already writes C0 characters as \u00XX; it leaves C1 and bidi characters raw, which this covers).
// A literal backslash is left alone: the output is for reading, and JSON needs it unchanged.

/** C0 controls except TAB (09) and LF (0A), DEL, C1 controls, and the Unicode bidi embedding/override/isolate marks. */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  // C0 and DEL as \xHH (never inside JSON output: JSON.stringify escaped them already); the rest as \uXXXX.
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every terminal control and bidi character written as visible escape text. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** True when `text` holds nothing a terminal would act on (what tests and fuzzers assert). */
export function isTerminalSafe(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return !found;
}

/** The same sinks with every write neutralised: wrap once where output leaves the CLI (runCli). */
export function terminalSafeSinks<T extends { stdout(text: string): void; stderr(text: string): void }>(io: T): T {
  const wrapped = Object.create(io) as T;
  wrapped.stdout = (text: string) => io.stdout(terminalSafe(text));
  wrapped.stderr = (text: string) => io.stderr(terminalSafe(text));
  return wrapped;
}
