// Test helpers: find where a piece of text sits in a script, computed independently of src/tsql/lines.ts.

import type { Position, Range } from '../../../src/tsql/types';

/** Position of the `nth` (0-based) occurrence of `needle`, counting \r\n, \r and \n as line breaks. */
export function positionOf(text: string, needle: string, nth = 0): Position {
  let offset = -1;
  for (let i = 0; i <= nth; i++) {
    offset = text.indexOf(needle, offset + 1);
    if (offset < 0) throw new Error(`occurrence ${nth} of ${JSON.stringify(needle)} not found`);
  }
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: before.length - 1, character: before[before.length - 1]!.length };
}

/** Range covering the `nth` occurrence of `needle` (single-line needles). */
export function rangeOf(text: string, needle: string, nth = 0): Range {
  const start = positionOf(text, needle, nth);
  return { start, end: { line: start.line, character: start.character + needle.length } };
}

/** Joins lines with \n: keeps test scripts readable. */
export function script(...lines: string[]): string {
  return lines.join('\n');
}
