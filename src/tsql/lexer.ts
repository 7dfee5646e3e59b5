// T-SQL lexer: offsets-only tokens in typed arrays, so a 10 MB script lexes without a string per token.
// Comments go to their own stream; tokens, comments and the whitespace between them cover the input exactly. Never throws.

import { grown } from './growable';
import { Kw, MAX_KEYWORD_LENGTH as MAX_KW_IMPORT, keywordOfWord as keywordOfWordImport } from './keywords';

// Module-local aliases: transpilers turn imported bindings into getter calls, too slow inside the character loop.
const keywordOfWord = keywordOfWordImport;
const MAX_KEYWORD_LENGTH = MAX_KW_IMPORT;
const NO_KW = 0 as Kw;
const GO = Kw.GO;

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
  /** Keyword identity of Word tokens (Kw.None for identifiers and other kinds); one byte (keywords.ts checks they fit). */
  readonly keywords: Uint8Array;
  readonly flags: Uint8Array;
  readonly comments: CommentStream;
  /** Indices of the tokens that are the word GO, in order (batches.ts decides which of them separate batches). */
  readonly goTokens: Int32Array;
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

/** Non-ASCII characters that are whitespace (so never part of an identifier): the code units isUnicodeSpace accepts. */
export const UNICODE_SPACES: readonly number[] = [0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff];

/** Whether c is one of UNICODE_SPACES (as comparisons: no table load on the per-character path). */
export function isUnicodeSpace(c: number): boolean {
  return c === 0xa0 || c === 0xfeff || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 ||
    c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0x85;
}

export function isWhitespaceCode(c: number): boolean {
  return c < 128 ? (ASCII[c]! & WS) !== 0 : isUnicodeSpace(c);
}

/**
 * Whether each UTF-16 code unit can be part of an identifier, as one table (64 KB): the word loop then tests one byte
 * per character. Every non-ASCII unit but UNICODE_SPACES can; filled in bulk, not by a call per unit, because the
 * table is built at every start (65,536 calls took 30–60 ms of a CLI start on a busy machine; the fills, 0.3 ms).
 */
const IDENT_PART = new Uint8Array(65536).fill(1, 128);
for (let c = 0; c < 128; c++) IDENT_PART[c] = (ASCII[c]! & ID_PART) !== 0 ? 1 : 0;
for (const c of UNICODE_SPACES) IDENT_PART[c] = 0;

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
    this.kinds = grown(this.kinds, size); this.starts = grown(this.starts, size); this.ends = grown(this.ends, size);
    this.keywords = grown(this.keywords, size); this.flags = grown(this.flags, size);
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

// What the first character of a token says about it (ASCII); non-ASCII characters are whitespace or start a word.
const C_OTHER = 0, C_SPACE = 1, C_WORD = 2, C_N = 3, C_DIGIT = 4, C_QUOTE = 5, C_BRACKET = 6, C_DQUOTE = 7, C_AT = 8,
  C_HASH = 9, C_DOLLAR = 10, C_MINUS = 11, C_SLASH = 12, C_DOT = 13, C_SEMI = 14, C_COMMA = 15, C_LPAREN = 16,
  C_RPAREN = 17, C_OP = 18;
const START = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  START[c] = (ASCII[c]! & WS) !== 0 ? C_SPACE : (ASCII[c]! & ID_START) !== 0 ? C_WORD : isDigit(c) ? C_DIGIT : C_OTHER;
}
START[78] = START[110] = C_N;
START[39] = C_QUOTE; START[91] = C_BRACKET; START[34] = C_DQUOTE; START[64] = C_AT; START[35] = C_HASH; START[36] = C_DOLLAR;
START[45] = C_MINUS; START[47] = C_SLASH; START[46] = C_DOT; START[59] = C_SEMI; START[44] = C_COMMA; START[40] = C_LPAREN;
START[41] = C_RPAREN;
for (const c of [43, 42, 37, 38, 124, 94, 126, 61, 60, 62, 33, 58]) START[c] = C_OP; // + * % & | ^ ~ = < > ! :
/** START for every UTF-16 code unit (64 KB), so the main loop classifies a character with one load and no branch. */
const START_ANY = new Uint8Array(65536).fill(C_WORD, 128);
START_ANY.set(START);
for (const c of UNICODE_SPACES) START_ANY[c] = C_SPACE;

/** Lexes a whole script. */
export function lex(text: string): TokenStream {
  const n = text.length;
  // Roughly one token per 4.6 characters in typical scripts; grows if not. Written through locals, one emit site.
  let capacity = Math.max(64, n >>> 2);
  let kinds = new Uint8Array(capacity);
  let starts = new Int32Array(capacity);
  let ends = new Int32Array(capacity);
  let keywords = new Uint8Array(capacity);
  let flags = new Uint8Array(capacity);
  let count = 0;
  const comments = new Builder(64);
  let goTokens = new Int32Array(64);
  let goCount = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    let cls = START_ANY[c]!;
    if (cls === C_SPACE) {
      // Runs of blanks (indentation, line breaks) in a tight loop of their own.
      i++;
      while (i < n && START_ANY[text.charCodeAt(i)] === C_SPACE) i++;
      continue;
    }
    // `N'...'` is a Unicode string, any other N a word; `.5` a number, any other dot a dot.
    if (cls === C_N) cls = i + 1 < n && text.charCodeAt(i + 1) === 39 ? C_QUOTE : C_WORD;
    else if (cls === C_DOT && i + 1 < n && isDigit(text.charCodeAt(i + 1))) cls = C_DIGIT;
    const start = i;
    let kind: TokenKind;
    let kw = NO_KW;
    let flag = 0;
    i++;
    switch (cls) {
      case C_WORD: {
        // Identifier or keyword: hash while scanning so keyword identity costs one table lookup. Every character goes
        // into the hash: keywordOfWord verifies the letters, so a word with `@`, `#`, `$` or a non-ASCII letter never matches.
        let hash = (c | 0x20);
        while (i < n) {
          const d = text.charCodeAt(i);
          if (IDENT_PART[d] === 0) break;
          // Same fold as keywords.ts foldHashStep, inlined for speed.
          hash = (Math.imul(hash, 31) + (d | 0x20)) | 0;
          i++;
        }
        if (i - start <= MAX_KEYWORD_LENGTH) {
          kw = keywordOfWord(text, start, i, hash);
          if (kw === GO) {
            if (goCount === goTokens.length) goTokens = grown(goTokens, goCount * 2);
            goTokens[goCount++] = count;
          }
        }
        kind = TokenKind.Word;
        break;
      }
      case C_QUOTE:
      case C_BRACKET:
      case C_DQUOTE: {
        const unicode = c !== 39 && cls === C_QUOTE; // N'...'
        const end = scanDelimited(text, unicode ? i + 1 : i, cls === C_QUOTE ? 39 : cls === C_BRACKET ? 93 : 34);
        i = end < 0 ? n : end;
        kind = cls === C_QUOTE ? (unicode ? TokenKind.NString : TokenKind.String) : cls === C_BRACKET ? TokenKind.BracketId : TokenKind.QuotedId;
        if (end < 0) flag = UNTERMINATED;
        break;
      }
      case C_MINUS:
        if (i < n && text.charCodeAt(i) === 45) {
          i++;
          while (i < n) { const d = text.charCodeAt(i); if (d === 10 || d === 13) break; i++; }
          comments.push(TokenKind.LineComment, start, i, NO_KW, 0);
          continue;
        }
        if (i < n && isCompoundOperator(c, text.charCodeAt(i))) i++;
        kind = TokenKind.Operator;
        break;
      case C_SLASH:
        if (i < n && text.charCodeAt(i) === 42) {
          // T-SQL block comments nest.
          let depth = 1;
          i++;
          while (i < n && depth > 0) {
            const d = text.charCodeAt(i);
            if (d === 42 && i + 1 < n && text.charCodeAt(i + 1) === 47) { depth--; i += 2; }
            else if (d === 47 && i + 1 < n && text.charCodeAt(i + 1) === 42) { depth++; i += 2; }
            else i++;
          }
          comments.push(TokenKind.BlockComment, start, i, NO_KW, depth > 0 ? UNTERMINATED : 0);
          continue;
        }
        if (i < n && isCompoundOperator(c, text.charCodeAt(i))) i++;
        kind = TokenKind.Operator;
        break;
      case C_DOT: kind = TokenKind.Dot; break;
      case C_DIGIT: {
        const next = i < n ? text.charCodeAt(i) : -1;
        if (c === 48 && (next === 120 || next === 88) /* 0x */) {
          i++;
          while (i < n && isHexDigit(text.charCodeAt(i))) i++;
          kind = TokenKind.Binary;
          break;
        }
        i = start;
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
        kind = TokenKind.Number;
        break;
      }
      case C_AT: {
        const system = i < n && text.charCodeAt(i) === 64;
        if (system) i++;
        while (i < n && IDENT_PART[text.charCodeAt(i)] !== 0) i++;
        kind = system ? TokenKind.SystemVariable : TokenKind.Variable;
        break;
      }
      case C_HASH:
        while (i < n && IDENT_PART[text.charCodeAt(i)] !== 0) i++;
        kind = TokenKind.TempName;
        break;
      case C_DOLLAR: {
        const next = i < n ? text.charCodeAt(i) : -1;
        if (next >= 0 && next < 128 && (ASCII[next]! & ID_START) !== 0) {
          // `$action`, `$identity`: pseudo-columns read as identifiers.
          while (i < n && IDENT_PART[text.charCodeAt(i)] !== 0) i++;
          kind = TokenKind.Word;
        } else kind = TokenKind.Other;
        break;
      }
      case C_SEMI: kind = TokenKind.Semicolon; break;
      case C_COMMA: kind = TokenKind.Comma; break;
      case C_LPAREN: kind = TokenKind.LParen; break;
      case C_RPAREN: kind = TokenKind.RParen; break;
      case C_OP:
        if (i < n && isCompoundOperator(c, text.charCodeAt(i))) i++;
        kind = TokenKind.Operator;
        break;
      default:
        // Keep surrogate pairs whole so a token never splits a character.
        if (c >= 0xd800 && c <= 0xdbff && i < n) { const d = text.charCodeAt(i); if (d >= 0xdc00 && d <= 0xdfff) i++; }
        kind = TokenKind.Other;
    }
    if (count === capacity) {
      capacity *= 2;
      kinds = grown(kinds, capacity); starts = grown(starts, capacity); ends = grown(ends, capacity);
      keywords = grown(keywords, capacity); flags = grown(flags, capacity);
    }
    kinds[count] = kind;
    starts[count] = start;
    ends[count] = i;
    // Typed arrays start zeroed: only keywords and the rare unterminated token need a write.
    if (kw !== NO_KW) keywords[count] = kw;
    if (flag !== 0) flags[count] = flag;
    count++;
  }
  return {
    text, count, kinds, starts, ends, keywords, flags, goTokens: goTokens.subarray(0, goCount),
    comments: { count: comments.count, kinds: comments.kinds, starts: comments.starts, ends: comments.ends, flags: comments.flags },
  };
}
