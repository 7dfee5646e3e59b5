// Token-level questions classify.ts asks about a batch, each decided on the side of "it may change something" where
// SQL Server's own reading is not documented. Tokens, not regexes over the text: comments never hide a word, and a
// word is the whole identifier SQL Server would read.
import { TokenKind, type TokenStream } from './lexer';
import { firstStartAtOrAfter, upperIsAt } from './tokenText';

/** Index of the first token that starts at or after `offset` (tokens.count when none). */
export function tokenIndexAt(tokens: TokenStream, offset: number): number {
  return firstStartAtOrAfter(tokens.starts, tokens.count, offset);
}

/**
 * The leading words of the statement at `offset`, upper-cased in ASCII only, up to `count`, stopping at the first token
 * that is not a word. Whole lexer words: `SELECT$x` stays `SELECT$X` (Learn, "Database identifiers": `$`, `#`, `@` and
 * letters continue an identifier, so that is a procedure's name, not SELECT), and `ſelect` is not upper-cased to SELECT.
 */
export function leadingWords(tokens: TokenStream, offset: number, count: number): string[] {
  const words: string[] = [];
  for (let i = tokenIndexAt(tokens, offset); i < tokens.count && words.length < count; i++) {
    if (tokens.kinds[i] !== TokenKind.Word) break;
    words.push(tokens.text.slice(tokens.starts[i]!, tokens.ends[i]!).replace(/[a-z]+/g, (m) => m.toUpperCase()));
  }
  return words;
}

/** `NEXT VALUE FOR` starting at token i, comments allowed between the words (the token stream holds none). */
export function isNextValueFor(tokens: TokenStream, i: number): boolean {
  return i + 2 < tokens.count && upperIsAt(tokens, i, 'NEXT') && tokens.kinds[i + 1] === TokenKind.Word &&
    upperIsAt(tokens, i + 1, 'VALUE') && tokens.kinds[i + 2] === TokenKind.Word && upperIsAt(tokens, i + 2, 'FOR');
}

/** An ASCII word: it reads only as itself. */
const PLAIN_WORD = /^[A-Za-z_][A-Za-z0-9_@#]*$/;

/**
 * The words a Word token may stand for, upper-cased. Besides the token itself: its pieces split at characters no
 * identifier holds (Learn, "Database identifiers": letters, decimal digits, `_ @ # $` only — a U+200B or U+00B7 may end
 * the word for SQL Server), a piece without a leading `$` (`$` also starts money literals), and, right after a number,
 * a piece without a leading `e` (`1eDELETE`: SQL Server may read `1e` as a float), and each piece's compatibility form
 * (NFKC: full-width letters as ASCII, should a collation fold them). How SQL Server's lexer splits these
 * is NOT CONFIRMED; every reading is checked, so a wrong guess is a false alarm, never a miss.
 */
export function wordReadings(tokens: TokenStream, i: number): string[] {
  const start = tokens.starts[i]!;
  const raw = tokens.text.slice(start, tokens.ends[i]!);
  const afterNumber = i > 0 && tokens.kinds[i - 1] === TokenKind.Number && tokens.ends[i - 1] === start;
  // The common case, an ASCII word not glued to a number: it reads only as itself (and costs no split).
  if (!afterNumber && PLAIN_WORD.test(raw)) return [raw.toUpperCase()];
  const readings = new Set<string>([raw.toUpperCase()]);
  raw.split(/[^\p{L}\p{Nd}_@#$]+/u).forEach((piece, k) => {
    const upper = piece.toUpperCase();
    readings.add(upper);
    readings.add(piece.normalize('NFKC').toUpperCase()); // ＤＥＬＥＴＥ (full width) reads DELETE
    if (upper.startsWith('$')) readings.add(upper.slice(1));
    if (k === 0 && afterNumber && upper.startsWith('E')) readings.add(upper.slice(1));
  });
  return [...readings];
}

/**
 * A RAISERROR statement (tokens from `from` to `end`) that writes the server's error log: `WITH … LOG` (Learn,
 * RAISERROR: "Logs the error in the error log and the application log"), or a message number as its first argument
 * (Learn, sp_addmessage: a message added with @with_log = 'TRUE' "is always written to the Windows application log",
 * and so to the error log). A message text or a variable holding one, without LOG, is only returned to the client.
 */
export function raiserrorWrites(tokens: TokenStream, from: number, end: number): 'log' | 'number' | null {
  let i = tokenIndexAt(tokens, from) + 1; // past RAISERROR
  for (let k = i; k < tokens.count && tokens.starts[k]! < end; k++) {
    if (tokens.kinds[k] === TokenKind.Word && upperIsAt(tokens, k, 'LOG')) return 'log';
  }
  if (tokens.kinds[i] === TokenKind.LParen) i++;
  const first = tokens.kinds[i];
  return first === TokenKind.String || first === TokenKind.NString || first === TokenKind.Variable ? null : 'number';
}

/** BEGIN TRAN … WITH MARK (a row in msdb.dbo.logmarkhistory at commit) or BEGIN DISTRIBUTED TRAN (MS DTC), else null. */
export function beginTransactionReaches(tokens: TokenStream, from: number, end: number): 'mark' | 'distributed' | null {
  for (let k = tokenIndexAt(tokens, from); k < tokens.count && tokens.starts[k]! < end; k++) {
    if (tokens.kinds[k] !== TokenKind.Word) continue;
    if (upperIsAt(tokens, k, 'DISTRIBUTED')) return 'distributed';
    if (upperIsAt(tokens, k, 'MARK')) return 'mark';
  }
  return null;
}

/**
 * Offsets of line comments holding a line break other than CR or LF (U+0085, U+2028, U+2029, VT, FF). The lexer ends
 * a `--` comment at CR or LF only; Learn ("-- (Comment)") says such a comment ends at a newline without naming which
 * characters are one, so the text after such a break may run: unsure, asked.
 */
export function oddlyBrokenLineComments(tokens: TokenStream): number[] {
  const c = tokens.comments;
  const found: number[] = [];
  for (let k = 0; k < c.count; k++) {
    if (c.kinds[k] !== TokenKind.LineComment) continue;
    if (/[\u0085\u2028\u2029\v\f]/.test(tokens.text.slice(c.starts[k]!, c.ends[k]!))) found.push(c.starts[k]!);
  }
  return found;
}
