// T-SQL lexer: offsets-only tokens in typed arrays, so a 10 MB script lexes without a string per token.
// Comments go to their own stream; tokens, comments and the whitespace between them cover the input exactly. Never throws.

import { Kw, MAX_KEYWORD_LENGTH as MAX_KW_IMPORT, keywordAt as keywordAtImport } from './keywords';

// Module-local aliases: transpilers turn imported bindings into getter calls, too slow inside the character loop.
const keywordAt = keywordAtImport;
const MAX_KEYWORD_LENGTH = MAX_KW_IMPORT;
const NO_KW = 0 as Kw;

export enum TokenKind {
  /** Identifier or keyword (`keywords[i]` tells which keyword, if any). */
  Word = 1,
  /** `[bracketed]]id]` */
  BracketId,
  /** `"quoted id"` */
  QuotedId,
  /** `'string'` */
  String,
  /** `N'unicode string'` */
  NString,
  /** `42`, `1.5`, `.5`, `1e3` */
  Number,
  /** `0x1F` (binary literal) */
  Binary,
  /** `@name` */
  Variable,
  /** `@@name` */
  SystemVariable,
  /** `#temp`, `##global_temp` */
  TempName,
  LineComment,
  BlockComment,
  /** `+ - * / % & | ^ ~ = < > ! :` and two-character forms `+= <> != <= >= ::` ... */
  Operator,
  Semicolon,
  Comma,
  LParen,
  RParen,
  Dot,
  /** Any other character (a stray `$`, a backtick...). */
  Other,
}

/** Token flag: the string, identifier or comment runs to the end of input without its closing delimiter. */
export const UNTERMINATED = 1;

/** Comment tokens (LineComment/BlockComment), kept apart so structural scans never step over them. */
export interface CommentStream {
  readonly count: number;
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly flags: Uint8Array;
}

export interface TokenStream {
  readonly text: string;
  /** Number of tokens, comments excluded. */
  readonly count: number;
  readonly kinds: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** Keyword identity of Word tokens (Kw.None for identifiers and other kinds). */
  readonly keywords: Uint16Array;
  readonly flags: Uint8Array;
  readonly comments: CommentStream;
}

/** A token as a plain object, for tests and callers that want convenience over speed. */
export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
  text: string;
  keyword: Kw;
  unterminated: boolean;
}

// Character classes for ASCII: bit 1 whitespace, bit 2 identifier start, bit 4 identifier part.
const WS = 1, ID_START = 2, ID_PART = 4;
const ASCII = new Uint8Array(128);
for (const c of [9, 10, 11, 12, 13, 32]) ASCII[c] = WS;
for (let c = 65; c <= 90; c++) ASCII[c] = ASCII[c + 32] = ID_START | ID_PART;
ASCII[95] = ID_START | ID_PART; // _
for (let c = 48; c <= 57; c++) ASCII[c] = ID_PART;
ASCII[64] = ID_PART; // @
ASCII[35] = ID_PART; // #
ASCII[36] = ID_PART; // $

/** Non-ASCII characters that are whitespace (so never part of an identifier). */
function isUnicodeSpace(c: number): boolean {
  return c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
    c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0x85;
}

export function isWhitespaceCode(c: number): boolean {
  return c < 128 ? (ASCII[c]! & WS) !== 0 : isUnicodeSpace(c);
}

function isIdentPart(c: number): boolean {
  return c < 128 ? (ASCII[c]! & ID_PART) !== 0 : !isUnicodeSpace(c);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 102);
}

// Second characters that make a two-character operator with the first one.
function isCompoundOperator(a: number, b: number): boolean {
  if (b === 61 /* = */) return a !== 61; // += -= *= /= %= &= |= ^= <= >= != (and == is not T-SQL)
  if (a === 60 /* < */) return b === 62; // <>
  if (a === 33 /* ! */) return b === 60 || b === 62; // !< !>
  if (a === 58 /* : */) return b === 58; // ::
  return false;
}

class Builder {
  count = 0;
  kinds: Uint8Array;
  starts: Int32Array;
  ends: Int32Array;
  keywords: Uint16Array;
  flags: Uint8Array;

  constructor(capacity: number) {
    this.kinds = new Uint8Array(capacity);
    this.starts = new Int32Array(capacity);
    this.ends = new Int32Array(capacity);
    this.keywords = new Uint16Array(capacity);
    this.flags = new Uint8Array(capacity);
  }

  push(kind: TokenKind, start: number, end: number, keyword: Kw, flags: number): void {
    if (this.count === this.kinds.length) this.grow();
    const i = this.count++;
    this.kinds[i] = kind;
    this.starts[i] = start;
    this.ends[i] = end;
    this.keywords[i] = keyword;
    this.flags[i] = flags;
  }

  private grow(): void {
    const size = this.kinds.length * 2;
    const kinds = new Uint8Array(size); kinds.set(this.kinds); this.kinds = kinds;
    const starts = new Int32Array(size); starts.set(this.starts); this.starts = starts;
    const ends = new Int32Array(size); ends.set(this.ends); this.ends = ends;
    const keywords = new Uint16Array(size); keywords.set(this.keywords); this.keywords = keywords;
    const flags = new Uint8Array(size); flags.set(this.flags); this.flags = flags;
  }
}

/** Scans a delimited run (`'..'`, `[..]`, `".."`) where a doubled closer is an escaped closer. Returns end (exclusive), negative when unterminated. */
function scanDelimited(text: string, from: number, closer: number): number {
  const n = text.length;
  let i = from;
  while (i < n) {
    const c = text.charCodeAt(i++);
    if (c === closer) {
      if (i < n && text.charCodeAt(i) === closer) { i++; continue; }
      return i;
    }
  }
  return -n;
}

/** Lexes a whole script. */
export function lex(text: string): TokenStream {
  const n = text.length;
  // Roughly one token per 4 characters in typical scripts; grows if not.
  const out = new Builder(Math.max(64, n >>> 2));
  const comments = new Builder(64);
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128 ? (ASCII[c]! & WS) !== 0 : isUnicodeSpace(c)) { i++; continue; }
    const start = i;
    const next = i + 1 < n ? text.charCodeAt(i + 1) : -1;

    // Comments first: `--` and `/*` would otherwise lex as operators.
    if (c === 45 /* - */ && next === 45) {
      i += 2;
      while (i < n) { const d = text.charCodeAt(i); if (d === 10 || d === 13) break; i++; }
      comments.push(TokenKind.LineComment, start, i, NO_KW, 0);
      continue;
    }
    if (c === 47 /* / */ && next === 42 /* * */) {
      // T-SQL block comments nest.
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        const d = text.charCodeAt(i);
        if (d === 42 && i + 1 < n && text.charCodeAt(i + 1) === 47) { depth--; i += 2; }
        else if (d === 47 && i + 1 < n && text.charCodeAt(i + 1) === 42) { depth++; i += 2; }
        else i++;
      }
      comments.push(TokenKind.BlockComment, start, i, NO_KW, depth > 0 ? UNTERMINATED : 0);
      continue;
    }
    if (c === 39 /* ' */) {
      const end = scanDelimited(text, i + 1, 39);
      i = end < 0 ? n : end;
      out.push(TokenKind.String, start, i, NO_KW, end < 0 ? UNTERMINATED : 0);
      continue;
    }
    if ((c === 78 || c === 110) /* N n */ && next === 39) {
      const end = scanDelimited(text, i + 2, 39);
      i = end < 0 ? n : end;
      out.push(TokenKind.NString, start, i, NO_KW, end < 0 ? UNTERMINATED : 0);
      continue;
    }
    if (c === 91 /* [ */) {
      const end = scanDelimited(text, i + 1, 93);
      i = end < 0 ? n : end;
      out.push(TokenKind.BracketId, start, i, NO_KW, end < 0 ? UNTERMINATED : 0);
      continue;
    }
    if (c === 34 /* " */) {
      const end = scanDelimited(text, i + 1, 34);
      i = end < 0 ? n : end;
      out.push(TokenKind.QuotedId, start, i, NO_KW, end < 0 ? UNTERMINATED : 0);
      continue;
    }
    if (c < 128 ? (ASCII[c]! & ID_START) !== 0 : !isUnicodeSpace(c)) {
      // Identifier or keyword: hash while scanning so keyword identity costs one map lookup.
      let hash = 0;
      let hashable = true;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d < 128) {
          const cls = ASCII[d]!;
          if ((cls & ID_PART) === 0) break;
          if (hashable) {
            // Same fold as keywords.ts foldHashStep, inlined for speed.
            if ((cls & ID_START) !== 0 || isDigit(d)) hash = (Math.imul(hash, 31) + (d | 0x20)) | 0;
            else hashable = false;
          }
        } else {
          if (isUnicodeSpace(d)) break;
          hashable = false;
        }
        i++;
      }
      const kw = hashable && i - start <= MAX_KEYWORD_LENGTH ? keywordAt(text, start, i, hash) : NO_KW;
      out.push(TokenKind.Word, start, i, kw, 0);
      continue;
    }
    if (isDigit(c) || (c === 46 /* . */ && isDigit(next))) {
      if (c === 48 && (next === 120 || next === 88) /* 0x */) {
        i += 2;
        while (i < n && isHexDigit(text.charCodeAt(i))) i++;
        out.push(TokenKind.Binary, start, i, NO_KW, 0);
        continue;
      }
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      if (i < n && text.charCodeAt(i) === 46) { i++; while (i < n && isDigit(text.charCodeAt(i))) i++; }
      if (i < n && (text.charCodeAt(i) | 0x20) === 101 /* e */) {
        let j = i + 1;
        const s = j < n ? text.charCodeAt(j) : -1;
        if (s === 43 || s === 45) j++;
        if (j < n && isDigit(text.charCodeAt(j))) {
          i = j;
          while (i < n && isDigit(text.charCodeAt(i))) i++;
        }
      }
      out.push(TokenKind.Number, start, i, NO_KW, 0);
      continue;
    }
    if (c === 64 /* @ */) {
      const system = next === 64;
      i += system ? 2 : 1;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      out.push(system ? TokenKind.SystemVariable : TokenKind.Variable, start, i, NO_KW, 0);
      continue;
    }
    if (c === 35 /* # */) {
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      out.push(TokenKind.TempName, start, i, NO_KW, 0);
      continue;
    }
    if (c === 36 /* $ */ && next >= 0 && next < 128 && (ASCII[next]! & ID_START) !== 0) {
      // `$action`, `$identity`: pseudo-columns read as identifiers.
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      out.push(TokenKind.Word, start, i, NO_KW, 0);
      continue;
    }
    i++;
    switch (c) {
      case 59: out.push(TokenKind.Semicolon, start, i, NO_KW, 0); break;
      case 44: out.push(TokenKind.Comma, start, i, NO_KW, 0); break;
      case 40: out.push(TokenKind.LParen, start, i, NO_KW, 0); break;
      case 41: out.push(TokenKind.RParen, start, i, NO_KW, 0); break;
      case 46: out.push(TokenKind.Dot, start, i, NO_KW, 0); break;
      case 43: case 45: case 42: case 47: case 37: case 38: case 124: case 94: case 126:
      case 61: case 60: case 62: case 33: case 58:
        if (next >= 0 && isCompoundOperator(c, next)) i++;
        out.push(TokenKind.Operator, start, i, NO_KW, 0);
        break;
      default: {
        // Keep surrogate pairs whole so a token never splits a character.
        if (c >= 0xd800 && c <= 0xdbff && i < n) { const d = text.charCodeAt(i); if (d >= 0xdc00 && d <= 0xdfff) i++; }
        out.push(TokenKind.Other, start, i, NO_KW, 0);
      }
    }
  }
  return {
    text, count: out.count, kinds: out.kinds, starts: out.starts, ends: out.ends, keywords: out.keywords, flags: out.flags,
    comments: { count: comments.count, kinds: comments.kinds, starts: comments.starts, ends: comments.ends, flags: comments.flags },
  };
}

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
