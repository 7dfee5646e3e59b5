// Lexer: every token kind, the escapes and nesting T-SQL allows, unterminated input, exact coverage.
import * as assert from 'node:assert/strict';
import { Kw, keywordOf } from '../../../src/tsql/keywords';
import { TokenKind, lex } from '../../../src/tsql/lexer';
import { identifierText, tokenize } from '../../../src/tsql/tokenText';

function kinds(text: string): Array<[TokenKind, string]> {
  return tokenize(text).map((t) => [t.kind, t.text]);
}

describe('tsql lexer', () => {
  it('reads keywords in any case and keeps identifiers apart from them', () => {
    const tokens = tokenize('begin Tran COMMIT commitment [COMMIT] "COMMIT"');
    assert.deepEqual(tokens.map((t) => t.keyword), [Kw.BEGIN, Kw.TRAN, Kw.COMMIT, Kw.None, Kw.None, Kw.None]);
    assert.deepEqual(tokens.map((t) => t.kind), [
      TokenKind.Word, TokenKind.Word, TokenKind.Word, TokenKind.Word, TokenKind.BracketId, TokenKind.QuotedId,
    ]);
  });

  it('unescapes ]] in bracketed identifiers and "" in quoted identifiers', () => {
    const stream = lex('[a]]b] "c""d"');
    assert.equal(stream.count, 2);
    assert.equal(identifierText(stream, 0), 'a]b');
    assert.equal(identifierText(stream, 1), 'c"d');
  });

  it("keeps '' escapes inside one string and reads N'...' as a unicode string", () => {
    assert.deepEqual(kinds("'it''s' N'ünï''côde' n'x'"), [
      [TokenKind.String, "'it''s'"], [TokenKind.NString, "N'ünï''côde'"], [TokenKind.NString, "n'x'"],
    ]);
  });

  it('reads line comments to the end of the line and nested block comments whole', () => {
    assert.deepEqual(kinds('a -- COMMIT here\r\nb /* x /* COMMIT */ y */ c'), [
      [TokenKind.Word, 'a'], [TokenKind.LineComment, '-- COMMIT here'], [TokenKind.Word, 'b'],
      [TokenKind.BlockComment, '/* x /* COMMIT */ y */'], [TokenKind.Word, 'c'],
    ]);
  });

  it('reads numbers: integers, decimals, leading dot, exponents and 0x binary literals', () => {
    assert.deepEqual(kinds('42 1.5 .5 1e3 2.5E-4 0x1F 0x'), [
      [TokenKind.Number, '42'], [TokenKind.Number, '1.5'], [TokenKind.Number, '.5'], [TokenKind.Number, '1e3'],
      [TokenKind.Number, '2.5E-4'], [TokenKind.Binary, '0x1F'], [TokenKind.Binary, '0x'],
    ]);
  });

  it('reads variables, system variables, local and global temp tables', () => {
    assert.deepEqual(kinds('@i @@TRANCOUNT #t ##g @x$1'), [
      [TokenKind.Variable, '@i'], [TokenKind.SystemVariable, '@@TRANCOUNT'], [TokenKind.TempName, '#t'],
      [TokenKind.TempName, '##g'], [TokenKind.Variable, '@x$1'],
    ]);
  });

  it('reads two-character operators as one token and punctuation separately', () => {
    assert.deepEqual(kinds('@i+=1;a<>b!=c<=d>=e::f(g,h.i)'), [
      [TokenKind.Variable, '@i'], [TokenKind.Operator, '+='], [TokenKind.Number, '1'], [TokenKind.Semicolon, ';'],
      [TokenKind.Word, 'a'], [TokenKind.Operator, '<>'], [TokenKind.Word, 'b'], [TokenKind.Operator, '!='],
      [TokenKind.Word, 'c'], [TokenKind.Operator, '<='], [TokenKind.Word, 'd'], [TokenKind.Operator, '>='],
      [TokenKind.Word, 'e'], [TokenKind.Operator, '::'], [TokenKind.Word, 'f'], [TokenKind.LParen, '('],
      [TokenKind.Word, 'g'], [TokenKind.Comma, ','], [TokenKind.Word, 'h'], [TokenKind.Dot, '.'],
      [TokenKind.Word, 'i'], [TokenKind.RParen, ')'],
    ]);
  });

  it('flags unterminated strings, identifiers and comments and runs them to the end of input', () => {
    for (const text of ["SELECT 'abc", 'SELECT [abc', 'SELECT "abc', 'SELECT /* a /* b */', "SELECT N'x"]) {
      const tokens = tokenize(text);
      const last = tokens[tokens.length - 1]!;
      assert.equal(last.end, text.length, text);
      assert.equal(last.unterminated, true, text);
    }
    assert.equal(tokenize("'done'")[0]!.unterminated, false);
  });

  it('treats a byte order mark and non-breaking spaces as whitespace', () => {
    assert.deepEqual(kinds('\uFEFFGO\u00A0x'), [[TokenKind.Word, 'GO'], [TokenKind.Word, 'x']]);
    assert.equal(tokenize('\uFEFFGO')[0]!.keyword, Kw.GO);
  });

  it('reads unicode identifiers and $action as words', () => {
    assert.deepEqual(kinds('données $action'), [[TokenKind.Word, 'données'], [TokenKind.Word, '$action']]);
  });

  it('returns no tokens for empty and blank input', () => {
    assert.equal(lex('').count, 0);
    assert.equal(lex(' \r\n\t ').count, 0);
    assert.equal(lex(' \r\n\t ').comments.count, 0);
  });

  it('keeps comments out of the token arrays, in their own stream', () => {
    const stream = lex('a /* b */ -- c\nd');
    assert.equal(stream.count, 2);
    assert.equal(stream.comments.count, 2);
    assert.deepEqual([stream.comments.starts[0], stream.comments.ends[0], stream.comments.starts[1]], [2, 9, 10]);
  });

  it('grows past its initial capacity on token-dense input', () => {
    const text = ';'.repeat(10_000);
    const stream = lex(text);
    assert.equal(stream.count, 10_000);
    assert.equal(stream.starts[9_999], 9_999);
  });

  it('recognises every keyword spelling it declares, in lower case too', () => {
    for (const name of Object.keys(Kw).filter((k) => Number.isNaN(Number(k)) && k !== 'None')) {
      assert.equal(keywordOf(name.toLowerCase()), (Kw as unknown as Record<string, number>)[name], name);
    }
    assert.equal(keywordOf('COMMITS'), Kw.None);
  });
});
