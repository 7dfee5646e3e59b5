// No file in src/ over 400 lines: past that, a file usually holds a second concept (docs/architecture.md, "Files").
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sourceFiles, srcRelative } from './sourceGraph';

export const MAX_LINES = 400;

/** Lines as an editor counts them: a final newline does not start another line. */
export function lineCount(text: string): number {
  if (text.length === 0) return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

describe('src/ file length', () => {
  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = sourceFiles()
      .map((file) => ({ file: srcRelative(file), lines: lineCount(readFileSync(file, 'utf8')) }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines} lines`);
    assert.deepEqual(long, []);
  });

  it('counts lines as wc -l does for a file ending in a newline, and counts a last line without one', () => {
    assert.equal(lineCount(''), 0);
    assert.equal(lineCount('a\n'), 1);
    assert.equal(lineCount('a\nb'), 2);
    assert.equal(lineCount('a\r\nb\r\n'), 2);
  });
});
