// The lexer's per-code-unit tables are filled in bulk at load (src/tsql/lexer.ts): they must say what the character
// tests say for every UTF-16 code unit — a non-ASCII unit is part of a word unless it is one of UNICODE_SPACES.
import * as assert from 'node:assert/strict';
import { TokenKind, UNICODE_SPACES, isUnicodeSpace } from '../../../src/tsql/lexer';
import { tokenize } from '../../../src/tsql/tokenText';

describe('tsql lexer tables', () => {
  it('UNICODE_SPACES lists exactly the code units isUnicodeSpace accepts', () => {
    const accepted: number[] = [];
    for (let c = 0; c < 65536; c++) if (isUnicodeSpace(c)) accepted.push(c);
    assert.deepEqual([...UNICODE_SPACES].sort((a, b) => a - b), accepted);
  });

  it('reads every non-ASCII code unit inside a word as part of it, and each Unicode space as a break', () => {
    const parts: string[] = [];
    const expected: string[] = [];
    for (let c = 128; c < 65536; c++) {
      const ch = String.fromCharCode(c);
      parts.push(`a${ch}b`, ' ', `${ch}c`, '\n');
      if (isUnicodeSpace(c)) expected.push('a', 'b', 'c');
      else expected.push(`a${ch}b`, `${ch}c`);
    }
    const words = tokenize(parts.join('')).filter((t) => t.kind === TokenKind.Word).map((t) => t.text);
    assert.equal(words.length, expected.length);
    assert.deepEqual(words, expected);
  });
});
