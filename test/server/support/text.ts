// Position helpers for tests: expected LSP positions come from the test's own text, never typed by hand.
import type { Position, Range } from 'vscode-languageserver-protocol';

export function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, character: offset - (before.lastIndexOf('\n') + 1) };
}

/** Range of the `occurrence`-th (0-based) exact occurrence of `needle` in `text`. */
export function rangeOf(text: string, needle: string, occurrence = 0): Range {
  let from = -1;
  for (let i = 0; i <= occurrence; i++) {
    from = text.indexOf(needle, from + 1);
    if (from < 0) throw new Error(`"${needle}" occurs fewer than ${occurrence + 1} times`);
  }
  return { start: positionAt(text, from), end: positionAt(text, from + needle.length) };
}

/** A position inside the needle (its second character), where a user would hover. */
export function inside(text: string, needle: string, occurrence = 0): Position {
  const { start } = rangeOf(text, needle, occurrence);
  return { line: start.line, character: start.character + 1 };
}
