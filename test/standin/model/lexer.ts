// Tokenizer for the T-SQL subset the stand-in understands: identifiers ([..]] escapes, "quoted"),
// N'..' strings, numbers, @variables, @@functions, operators; comments skipped. Lines are 1-based.
import { errors } from './errors';

export type TokenKind = 'ident' | 'number' | 'string' | 'var' | 'sysvar' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Identifier text without brackets, string contents unescaped, operator text. */
  value: string;
  /** True for [bracketed] or "quoted" identifiers: never keywords. */
  quoted: boolean;
  /** N'..' literal. */
  unicode: boolean;
  line: number;
  /** Offset in the batch text (used to slice original text, e.g. predicates). */
  offset: number;
  end: number;
}

const TWO_CHAR_OPS = new Set(['<>', '!=', '<=', '>=', '!<', '!>', '+=', '-=', '*=', '/=', '::']);
const ONE_CHAR_OPS = '(),.;=<>+-*/%~&|^';

export function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let line = 1;
  const n = sql.length;
  const push = (kind: TokenKind, value: string, start: number, startLine: number, quoted = false, unicode = false) =>
    tokens.push({ kind, value, quoted, unicode, line: startLine, offset: start, end: i });

  while (i < n) {
    const c = sql[i]!;
    if (c === '\n') { line++; i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || c === '\u00a0' || c === '\ufeff') { i++; continue; }
    if (c === '-' && sql[i + 1] === '-') {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      // T-SQL block comments nest.
      let depth = 0;
      const startLine = line;
      while (i < n) {
        if (sql[i] === '/' && sql[i + 1] === '*') { depth++; i += 2; continue; }
        if (sql[i] === '*' && sql[i + 1] === '/') { depth--; i += 2; if (depth === 0) break; continue; }
        if (sql[i] === '\n') line++;
        i++;
      }
      if (depth !== 0) throw Object.assign(errors.syntaxEnd(startLine), {});
      continue;
    }
    const start = i;
    const startLine = line;
    if ((c === 'N' || c === 'n') && sql[i + 1] === "'") {
      i++;
      const s = readQuoted("'");
      push('string', s, start, startLine, false, true);
      continue;
    }
    if (c === "'") {
      const s = readQuoted("'");
      push('string', s, start, startLine);
      continue;
    }
    if (c === '[') {
      i++;
      let s = '';
      for (;;) {
        if (i >= n) throw errors.syntaxEnd(startLine);
        const ch = sql[i]!;
        if (ch === ']') {
          if (sql[i + 1] === ']') { s += ']'; i += 2; continue; }
          i++;
          break;
        }
        if (ch === '\n') line++;
        s += ch;
        i++;
      }
      push('ident', s, start, startLine, true);
      continue;
    }
    if (c === '"') {
      const s = readQuoted('"');
      push('ident', s, start, startLine, true);
      continue;
    }
    if (c === '@') {
      const sys = sql[i + 1] === '@';
      i += sys ? 2 : 1;
      while (i < n && isIdentChar(sql[i]!)) i++;
      push(sys ? 'sysvar' : 'var', sql.slice(start, i), start, startLine);
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(sql[i + 1] ?? ''))) {
      while (i < n && isDigit(sql[i]!)) i++;
      if (sql[i] === '.') { i++; while (i < n && isDigit(sql[i]!)) i++; }
      if ((sql[i] === 'e' || sql[i] === 'E') && /[-+0-9]/.test(sql[i + 1] ?? '')) {
        i += 2;
        while (i < n && isDigit(sql[i]!)) i++;
      }
      push('number', sql.slice(start, i), start, startLine);
      continue;
    }
    if (isIdentStart(c)) {
      while (i < n && isIdentChar(sql[i]!)) i++;
      push('ident', sql.slice(start, i), start, startLine);
      continue;
    }
    const two = sql.slice(i, i + 2);
    if (TWO_CHAR_OPS.has(two)) { i += 2; push('op', two, start, startLine); continue; }
    if (ONE_CHAR_OPS.includes(c)) { i++; push('op', c, start, startLine); continue; }
    throw errors.syntax(c, startLine);
  }
  tokens.push({ kind: 'eof', value: '', quoted: false, unicode: false, line, offset: n, end: n });
  return tokens;

  function readQuoted(q: string): string {
    const startLine = line;
    i++;
    let s = '';
    for (;;) {
      if (i >= n) throw errors.syntaxEnd(startLine);
      const ch = sql[i]!;
      if (ch === q) {
        if (sql[i + 1] === q) { s += q; i += 2; continue; }
        i++;
        return s;
      }
      if (ch === '\n') line++;
      s += ch;
      i++;
    }
  }
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
function isIdentStart(c: string): boolean {
  return /[\p{L}_#]/u.test(c);
}
function isIdentChar(c: string): boolean {
  return /[\p{L}\p{N}_#$@]/u.test(c);
}
