// Properties over arbitrary input: the lexer and analyze never throw, tokens cover the input, batches stay in bounds,
// and prefixes and splices of real scripts analyse with every range inside the document.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { analyze } from '../../../src/tsql/analyze';
import { splitBatches } from '../../../src/tsql/batches';
import { lex } from '../../../src/tsql/lexer';
import { isWhitespaceCode } from '../../../src/tsql/lexer';
import { tokenize } from '../../../src/tsql/tokenText';
import { LineIndex } from '../../../src/tsql/lines';

// Pieces that exercise the tricky paths far more often than uniform random text would.
const piece = fc.constantFrom(
  'GO', 'GO 3', '\n', '\r\n', '\r', ' ', "'", "''", 'N\'', '[', ']', ']]', '"', '--', '/*', '*/', 'BEGIN', 'END',
  'TRAN', 'COMMIT', 'ROLLBACK', 'WHILE', 'IF', 'ELSE', 'TRY', 'CATCH', 'INSERT', 'UPDATE', 'SET', 'SELECT', 'INTO',
  'WITH', '(', ')', ';', 'DELAYED_DURABILITY', '=', 'ON', 'CASE', 'ATOMIC', 'CREATE', 'PROCEDURE', 'AS', 'ALTER',
  'DATABASE', 'FORCED', '@i', '@@FETCH_STATUS', '#t', '0x1F', '1e3', '.5', 'é', '\uFEFF', '\u00A0', 'x',
);
const scriptish = fc.oneof(
  fc.array(piece, { maxLength: 60 }).map((p) => p.join(' ')),
  fc.array(piece, { maxLength: 60 }).map((p) => p.join('')),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

describe('tsql properties', () => {
  it('lexes any input without throwing, tokens and comments in order and covering it with only whitespace between', () => {
    fc.assert(fc.property(scriptish, (text) => {
      let at = 0;
      for (const token of tokenize(text)) {
        const { start, end } = token;
        assert.ok(start >= at && end > start && end <= text.length);
        for (let j = at; j < start; j++) assert.ok(isWhitespaceCode(text.charCodeAt(j)), `gap char ${text.charCodeAt(j)}`);
        at = end;
      }
      for (let j = at; j < text.length; j++) assert.ok(isWhitespaceCode(text.charCodeAt(j)));
    }), { numRuns: 500 });
  });

  it('keeps batches inside the input, in order and never overlapping, each text equal to its slice', () => {
    fc.assert(fc.property(scriptish, (text) => {
      const batches = splitBatches(lex(text), new LineIndex(text)).map((b) => b.batch);
      let at = 0;
      for (const b of batches) {
        assert.ok(b.startOffset >= at && b.endOffset >= b.startOffset && b.endOffset <= text.length);
        assert.equal(text.slice(b.startOffset, b.endOffset), b.text);
        assert.ok(b.repeat >= 1);
        at = b.endOffset;
      }
    }), { numRuns: 500 });
  });

  it('analyses any input without throwing and with ranges inside the document', () => {
    fc.assert(fc.property(scriptish, (text) => {
      const a = analyze(text);
      const lineCount = new LineIndex(text).lineCount;
      for (const d of a.diagnostics) {
        assert.ok(d.range.start.line <= d.range.end.line && d.range.end.line < lineCount);
      }
    }), { numRuns: 500 });
  });

  // Text as it is being typed, and pieces of real scripts run together: what an editor hands the language server.
  const corpus = path.resolve(__dirname, '../../corpus');
  const texts = fs.readdirSync(corpus).filter((f) => f.endsWith('.sql')).sort().map((f) => fs.readFileSync(path.join(corpus, f), 'utf8'));
  const statementsInside = (text: string): void => {
    const a = analyze(text);
    const lineCount = new LineIndex(text).lineCount;
    for (const s of a.statements ?? []) assert.ok(s.range.start.line <= s.range.end.line && s.range.end.line < lineCount, JSON.stringify(text.slice(0, 80)));
    for (const d of a.diagnostics) assert.ok(d.range.end.line < lineCount, JSON.stringify(text.slice(0, 80)));
  };

  it('analyses every prefix of a corpus script, with statements and findings inside the document', () => {
    const text = fs.readFileSync(path.join(corpus, 'retry-on-deadlock.sql'), 'utf8');
    for (let end = 0; end <= text.length; end += 7) statementsInside(text.slice(0, end));
  });

  it('analyses random cuts and splices of the corpus, with statements and findings inside the document', () => {
    const cut = fc.tuple(fc.nat(texts.length - 1), fc.nat(), fc.nat(400)).map(([i, at, len]) => {
      const t = texts[i]!;
      const from = at % (t.length + 1);
      return t.slice(from, from + len);
    });
    fc.assert(fc.property(fc.array(cut, { minLength: 1, maxLength: 6 }), fc.constantFrom('\n', '\r\n', '\r'), (parts, eol) => {
      statementsInside(parts.join(eol));
    }), { numRuns: 400 });
  });
});
