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
