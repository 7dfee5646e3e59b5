// Token access for the structural scanner: the current batch's tokens by index, bounded to the batch, read from the
// lexer's typed arrays without building strings.

import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';

export class TokenCursor {
  protected readonly kinds: Uint8Array;
  protected readonly keywords: Uint8Array;
  protected readonly starts: Int32Array;
  protected readonly ends: Int32Array;
  /** The batch's tokens are [lo, n); p is the next one to read. */
  protected lo = 0;
  protected n = 0;
  protected p = 0;

  constructor(protected readonly t: TokenStream) {
    this.kinds = t.kinds;
    this.keywords = t.keywords;
    this.starts = t.starts;
    this.ends = t.ends;
  }

  protected kw(i: number = this.p): Kw {
    return i >= this.lo && i < this.n ? (this.keywords[i] as Kw) : Kw.None;
  }

  protected kind(i: number = this.p): TokenKind {
    return i >= this.lo && i < this.n ? (this.kinds[i] as TokenKind) : (0 as TokenKind);
  }

  protected start(i: number): number {
    if (i < this.n) return this.starts[i]!;
    return this.n > this.lo ? this.ends[this.n - 1]! : 0;
  }

  protected end(i: number): number {
    return this.ends[i]!;
  }

  /** Index in the token stream (for identifierText) of scanner position i. */
  protected token(i: number): number {
    return i;
  }

  protected text(i: number): string {
    return this.t.text.slice(this.start(i), this.end(i));
  }

  /** Token i is the one-character operator `op` (compared by code: no string per check). */
  protected isOperator(i: number, op: string): boolean {
    return this.kind(i) === TokenKind.Operator && this.ends[i]! - this.starts[i]! === 1 &&
      this.t.text.charCodeAt(this.starts[i]!) === op.charCodeAt(0);
  }

  /** Word token i spelled `upper` (for words the keyword table leaves out: TOP, FROM). */
  protected wordIs(i: number, upper: string): boolean {
    return this.kind(i) === TokenKind.Word && this.ends[i]! - this.starts[i]! === upper.length && this.upperIs(i, upper);
  }

  /** `upperIs(i, w)` for some `w` of `words`: reads token i once whatever the number of words. */
  protected upperIn(i: number, words: readonly string[]): boolean {
    const text = this.t.text;
    const start = this.starts[i]!;
    const length = this.ends[i]! - start;
    for (let j = 0; j < length; j++) if (text.charCodeAt(start + j) >= 128) return words.includes(this.text(i).toUpperCase());
    for (const word of words) {
      if (word.length !== length) continue;
      let j = 0;
      for (; j < length; j++) {
        let c = text.charCodeAt(start + j);
        if (c >= 97 && c <= 122) c -= 32;
        if (c !== word.charCodeAt(j)) break;
      }
      if (j === length) return true;
    }
    return false;
  }

  /**
   * `text(i).toUpperCase() === upper` for an ASCII `upper`, without building either string when token i is ASCII
   * (a non-ASCII letter can upper-case to ASCII, `ſ` to `S`, so those take the string path and answer the same).
   */
  protected upperIs(i: number, upper: string): boolean {
    const text = this.t.text;
    const start = this.starts[i]!;
    const length = this.ends[i]! - start;
    // Upper-casing never shortens a string (checked over every code point), so a longer token cannot match.
    if (length > upper.length) return false;
    if (length < upper.length) {
      // Only a non-ASCII letter that upper-cases to several characters (ß to SS) can make up the difference.
      for (let j = 0; j < length; j++) if (text.charCodeAt(start + j) >= 128) return this.text(i).toUpperCase() === upper;
      return false;
    }
    for (let j = 0; j < length; j++) {
      let c = text.charCodeAt(start + j);
      if (c >= 128) return this.text(i).toUpperCase() === upper;
      if (c >= 97 && c <= 122) c -= 32;
      if (c !== upper.charCodeAt(j)) return false;
    }
    return true;
  }
}
