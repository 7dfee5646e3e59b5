// Tokens read back as text: every token and comment as an object (tests, tools), and the name an identifier token
// denotes. The lexer itself (lexer.ts) stays offsets-only.
import { Kw } from './keywords';
import { lex, TokenKind, UNTERMINATED, type Token, type TokenStream } from './lexer';

/** All tokens, comments included, as objects in document order (convenient, slower). */
export function tokenize(text: string): Token[] {
  const s = lex(text);
  const c = s.comments;
  const tokens: Token[] = [];
  let i = 0, j = 0;
  while (i < s.count || j < c.count) {
    if (j >= c.count || (i < s.count && s.starts[i]! < c.starts[j]!)) {
      tokens.push({
        kind: s.kinds[i] as TokenKind, start: s.starts[i]!, end: s.ends[i]!, text: text.slice(s.starts[i]!, s.ends[i]!),
        keyword: s.keywords[i] as Kw, unterminated: (s.flags[i]! & UNTERMINATED) !== 0,
      });
      i++;
    } else {
      tokens.push({
        kind: c.kinds[j] as TokenKind, start: c.starts[j]!, end: c.ends[j]!, text: text.slice(c.starts[j]!, c.ends[j]!),
        keyword: Kw.None, unterminated: (c.flags[j]! & UNTERMINATED) !== 0,
      });
      j++;
    }
  }
  return tokens;
}

/** The name an identifier token denotes: brackets and quotes removed, doubled closers unescaped. */
export function identifierText(stream: TokenStream, index: number): string {
  const kind = stream.kinds[index] as TokenKind;
  const raw = stream.text.slice(stream.starts[index]!, stream.ends[index]!);
  const unterminated = (stream.flags[index]! & UNTERMINATED) !== 0;
  if (kind === TokenKind.BracketId) return raw.slice(1, unterminated ? undefined : -1).replaceAll(']]', ']');
  if (kind === TokenKind.QuotedId) return raw.slice(1, unterminated ? undefined : -1).replaceAll('""', '"');
  return raw;
}

/** Token i is the operator `op` (one or two characters), compared by code: no string per check. */
export function isOperatorAt(stream: TokenStream, index: number, op: string): boolean {
  if (stream.kinds[index] !== TokenKind.Operator) return false;
  const start = stream.starts[index]!;
  if (stream.ends[index]! - start !== op.length) return false;
  for (let j = 0; j < op.length; j++) if (stream.text.charCodeAt(start + j) !== op.charCodeAt(j)) return false;
  return true;
}

/**
 * `text(i).toUpperCase() === upper` for an ASCII `upper`, without building either string when token i is ASCII
 * (a non-ASCII letter can upper-case to ASCII, `ſ` to `S`, so those take the string path and answer the same).
 */
export function upperIsAt(stream: TokenStream, index: number, upper: string): boolean {
  const text = stream.text;
  const start = stream.starts[index]!;
  const length = stream.ends[index]! - start;
  // Upper-casing never shortens a string (checked over every code point), so a longer token cannot match.
  if (length > upper.length) return false;
  if (length < upper.length) {
    // Only a non-ASCII letter that upper-cases to several characters (ß to SS) can make up the difference.
    for (let j = 0; j < length; j++) if (text.charCodeAt(start + j) >= 128) return text.slice(start, start + length).toUpperCase() === upper;
    return false;
  }
  for (let j = 0; j < length; j++) {
    let c = text.charCodeAt(start + j);
    if (c >= 128) return text.slice(start, start + length).toUpperCase() === upper;
    if (c >= 97 && c <= 122) c -= 32;
    if (c !== upper.charCodeAt(j)) return false;
  }
  return true;
}

/**
 * Index of the first of `count` ascending `starts` at or after `offset` (`count` when none): the token or comment a
 * position reaches, by binary search over a TokenStream's starts or its comments' starts.
 */
export function firstStartAtOrAfter(starts: ArrayLike<number>, count: number, offset: number): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < offset) lo = mid + 1; else hi = mid;
  }
  return lo;
}
