// Recursive-descent parser for expressions, data types and SELECT (the query subset of MODEL.md).
// Errors are SQL Server's 102 "Incorrect syntax near 'x'." with the 1-based batch line.
import type { ColumnType } from '../engine';
import type { Expr } from './ast';
import { errors } from './errors';
import type { Token } from './lexer';
import { parseSelect } from './parse-select';

export { parseSelect };

/** Words that end an expression/alias: clause keywords and statement starters (T-SQL needs no ';'). */
const RESERVED = new Set(
  ('SELECT FROM WHERE GROUP ORDER BY HAVING JOIN ON INNER LEFT RIGHT FULL OUTER CROSS APPLY AS UNION EXCEPT INTERSECT ' +
    'INSERT UPDATE DELETE SET DECLARE IF ELSE WHILE BEGIN END COMMIT ROLLBACK SAVE PRINT EXEC EXECUTE USE ALTER CREATE ' +
    'DROP TRUNCATE CHECKPOINT WAITFOR RAISERROR DBCC RETURN BREAK CONTINUE WITH INTO VALUES AND OR NOT IN IS LIKE ' +
    'BETWEEN CASE WHEN THEN DISTINCT TOP NULL OPTION FOR GO DEFAULT').split(' '),
);

export class Cursor {
  pos = 0;
  constructor(public readonly tokens: Token[], public readonly sql: string) {}

  get tok(): Token {
    return this.tokens[this.pos]!;
  }
  peek(n = 1): Token {
    return this.tokens[Math.min(this.pos + n, this.tokens.length - 1)]!;
  }
  next(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.pos++;
    return t;
  }
  isKw(word: string, t: Token = this.tok): boolean {
    return t.kind === 'ident' && !t.quoted && t.value.toUpperCase() === word;
  }
  acceptKw(...words: string[]): boolean {
    for (let i = 0; i < words.length; i++) if (!this.isKw(words[i]!, this.peek(i))) return false;
    this.pos += words.length;
    return true;
  }
  expectKw(word: string): void {
    if (!this.acceptKw(word)) throw this.unexpected();
  }
  isOp(op: string, t: Token = this.tok): boolean {
    return t.kind === 'op' && t.value === op;
  }
  acceptOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.pos++;
    return true;
  }
  expectOp(op: string): void {
    if (!this.acceptOp(op)) throw this.unexpected();
  }
  unexpected(): Error {
    const t = this.tok;
    if (t.kind === 'eof') return errors.syntaxEnd(t.line);
    return errors.syntax(this.sql.slice(t.offset, t.end), t.line);
  }
  /** An identifier usable as a name (bracketed, or a bare word that is not a clause keyword). */
  isName(t: Token = this.tok): boolean {
    return t.kind === 'ident' && (t.quoted || !RESERVED.has(t.value.toUpperCase()));
  }
  name(): string {
    if (this.tok.kind !== 'ident') throw this.unexpected();
    return this.next().value;
  }
  /** a.b.c multi-part name. */
  multipart(): string[] {
    const parts = [this.name()];
    while (this.isOp('.')) {
      this.next();
      // `master..sysfiles` style empty part
      if (this.isOp('.')) { parts.push(''); continue; }
      parts.push(this.name());
    }
    return parts;
  }
}

export function parseType(c: Cursor): { type: ColumnType; typeName: string } {
  const t = c.tok;
  const base = c.name().toLowerCase();
  let args: Array<number | 'max'> = [];
  if (c.acceptOp('(')) {
    do {
      if (c.acceptKw('MAX')) args.push('max');
      else if (c.tok.kind === 'number') args.push(Number(c.next().value));
      else throw c.unexpected();
    } while (c.acceptOp(','));
    c.expectOp(')');
  }
  const typeName = args.length ? `${base}(${args.join(',')})` : base;
  const num = (i: number, d: number) => (typeof args[i] === 'number' ? (args[i] as number) : d);
  const len = (d: number): number | 'max' => (args[0] === 'max' ? 'max' : num(0, d));
  switch (base) {
    case 'int': case 'bigint': case 'smallint': case 'tinyint': case 'bit': case 'float': case 'uniqueidentifier':
      return { type: { kind: base } as ColumnType, typeName };
    case 'real': return { type: { kind: 'float' }, typeName };
    case 'decimal': case 'numeric': return { type: { kind: 'decimal', precision: num(0, 18), scale: num(1, 0) }, typeName };
    case 'money': return { type: { kind: 'decimal', precision: 19, scale: 4 }, typeName };
    // nchar(n) / char(n) are fixed length: values are padded with blanks to n (values.ts coerce).
    case 'nchar': return { type: { kind: 'nvarchar', length: num(0, 1), fixed: true }, typeName };
    case 'char': return { type: { kind: 'varchar', length: num(0, 1), fixed: true }, typeName };
    case 'nvarchar': case 'ntext': case 'xml': return { type: { kind: 'nvarchar', length: base === 'ntext' || base === 'xml' ? 'max' : len(base === 'nvarchar' ? 30 : 1) }, typeName };
    case 'sysname': return { type: { kind: 'nvarchar', length: 128 }, typeName };
    case 'varchar': case 'text': return { type: { kind: 'varchar', length: base === 'text' ? 'max' : len(30) }, typeName };
    case 'datetime': case 'smalldatetime': case 'date': return { type: { kind: 'datetime2', scale: 3 }, typeName };
    case 'datetime2': return { type: { kind: 'datetime2', scale: num(0, 7) }, typeName };
    case 'datetimeoffset': return { type: { kind: 'datetimeoffset', scale: num(0, 7) }, typeName };
    default: throw errors.syntax(t.value, t.line); // unknown type: SQL Server says 2715, we keep it simple
  }
}

export function parseExpr(c: Cursor): Expr {
  return parseOr(c);
}

function parseOr(c: Cursor): Expr {
  let l = parseAnd(c);
  while (c.acceptKw('OR')) l = { k: 'or', l, r: parseAnd(c) };
  return l;
}
function parseAnd(c: Cursor): Expr {
  let l = parseNot(c);
  while (c.acceptKw('AND')) l = { k: 'and', l, r: parseNot(c) };
  return l;
}
function parseNot(c: Cursor): Expr {
  if (c.acceptKw('NOT')) return { k: 'not', e: parseNot(c) };
  return parsePredicate(c);
}

function parsePredicate(c: Cursor): Expr {
  if (c.isKw('EXISTS')) {
    c.next();
    c.expectOp('(');
    const q = parseSelect(c);
    c.expectOp(')');
    return { k: 'exists', q };
  }
  const e = parseAdditive(c);
  const t = c.tok;
  if (t.kind === 'op' && ['=', '<>', '!=', '<', '>', '<=', '>=', '!<', '!>'].includes(t.value)) {
    c.next();
    const map: Record<string, '=' | '<>' | '<' | '>' | '<=' | '>='> = { '!=': '<>', '!<': '>=', '!>': '<=' };
    return { k: 'cmp', op: map[t.value] ?? (t.value as '='), l: e, r: parseAdditive(c) };
  }
  if (c.acceptKw('IS')) {
    const not = c.acceptKw('NOT');
    c.expectKw('NULL');
    return { k: 'isnull', e, not };
  }
  const not = c.isKw('NOT') && (c.isKw('IN', c.peek()) || c.isKw('LIKE', c.peek()) || c.isKw('BETWEEN', c.peek()));
  if (not) c.next();
  if (c.acceptKw('IN')) {
    c.expectOp('(');
    if (c.isKw('SELECT')) {
      const q = parseSelect(c);
      c.expectOp(')');
      return { k: 'in', e, list: q, not };
    }
    const list: Expr[] = [];
    do list.push(parseExpr(c)); while (c.acceptOp(','));
    c.expectOp(')');
    return { k: 'in', e, list, not };
  }
  if (c.acceptKw('LIKE')) return { k: 'like', e, pattern: parseAdditive(c), not };
  if (c.acceptKw('BETWEEN')) {
    const lo = parseAdditive(c);
    c.expectKw('AND');
    return { k: 'between', e, lo, hi: parseAdditive(c), not };
  }
  if (not) throw c.unexpected();
  return e;
}

function parseAdditive(c: Cursor): Expr {
  let l = parseMultiplicative(c);
  for (;;) {
    const t = c.tok;
    if (t.kind === 'op' && ['+', '-', '&', '|', '^'].includes(t.value)) {
      c.next();
      l = { k: 'bin', op: t.value as '+', l, r: parseMultiplicative(c), line: t.line };
    } else return l;
  }
}
function parseMultiplicative(c: Cursor): Expr {
  let l = parseUnary(c);
  for (;;) {
    const t = c.tok;
    if (t.kind === 'op' && ['*', '/', '%'].includes(t.value)) {
      c.next();
      l = { k: 'bin', op: t.value as '*', l, r: parseUnary(c), line: t.line };
    } else return l;
  }
}
function parseUnary(c: Cursor): Expr {
  const t = c.tok;
  if (t.kind === 'op' && (t.value === '-' || t.value === '+' || t.value === '~')) {
    c.next();
    const e = parseUnary(c);
    if (t.value === '-' && e.k === 'lit' && typeof e.v === 'number') return { ...e, v: -e.v };
    if (t.value === '-' && e.k === 'lit' && typeof e.v === 'bigint') return { ...e, v: -e.v };
    return { k: 'unary', op: t.value as '-', e };
  }
  return parsePrimary(c);
}

export function parsePrimary(c: Cursor): Expr {
  const t = c.tok;
  switch (t.kind) {
    case 'number': {
      c.next();
      if (/[.eE]/.test(t.value)) {
        if (/[eE]/.test(t.value)) return { k: 'lit', v: Number(t.value), t: { kind: 'float' } };
        const [ip, fp = ''] = t.value.split('.');
        return { k: 'lit', v: Number(t.value), t: { kind: 'decimal', precision: Math.max(1, (ip ?? '').replace(/^0+/, '').length + fp.length), scale: fp.length } };
      }
      const n = BigInt(t.value);
      if (n <= 2147483647n) return { k: 'lit', v: Number(n), t: { kind: 'int' } };
      return { k: 'lit', v: n, t: { kind: 'bigint' } };
    }
    case 'string':
      c.next();
      return { k: 'lit', v: t.value, t: t.unicode ? { kind: 'nvarchar', length: Math.max(1, t.value.length) } : { kind: 'varchar', length: Math.max(1, t.value.length) } };
    case 'var': c.next(); return { k: 'var', name: t.value, line: t.line };
    case 'sysvar': c.next(); return { k: 'sysvar', name: t.value.toUpperCase(), line: t.line };
    case 'op':
      if (t.value === '(') {
        c.next();
        if (c.isKw('SELECT')) {
          const q = parseSelect(c);
          c.expectOp(')');
          return { k: 'subq', q };
        }
        const e = parseExpr(c);
        c.expectOp(')');
        return e;
      }
      if (t.value === '*') { c.next(); return { k: 'star' }; }
      throw c.unexpected();
    case 'ident': break;
    default: throw c.unexpected();
  }
  if (!t.quoted) {
    const w = t.value.toUpperCase();
    if (w === 'NULL') { c.next(); return { k: 'lit', v: null, t: { kind: 'int' } }; }
    if (w === 'CASE') return parseCase(c);
    if ((w === 'CAST' || w === 'TRY_CAST') && c.isOp('(', c.peek())) {
      c.next(); c.next();
      const e = parseExpr(c);
      c.expectKw('AS');
      const { type, typeName } = parseType(c);
      c.expectOp(')');
      return { k: 'cast', e, type, typeName, line: t.line };
    }
    if ((w === 'CONVERT' || w === 'TRY_CONVERT') && c.isOp('(', c.peek())) {
      c.next(); c.next();
      const { type, typeName } = parseType(c);
      c.expectOp(',');
      const e = parseExpr(c);
      const style = c.acceptOp(',') ? parseExpr(c) : undefined;
      c.expectOp(')');
      return style ? { k: 'cast', e, type, typeName, style, line: t.line } : { k: 'cast', e, type, typeName, line: t.line };
    }
    if (RESERVED.has(w) && !c.isOp('(', c.peek())) throw c.unexpected();
  }
  const parts = c.multipart();
  if (c.isOp('.') && c.isOp('*', c.peek())) {
    c.next(); c.next();
    return { k: 'star', qualifier: parts[parts.length - 1]! };
  }
  if (c.isOp('(')) {
    c.next();
    const name = parts.join('.').toUpperCase();
    const args: Expr[] = [];
    let distinct = false;
    if (!c.isOp(')')) {
      distinct = c.acceptKw('DISTINCT');
      do args.push(parseExpr(c)); while (c.acceptOp(','));
    }
    c.expectOp(')');
    if (c.isKw('OVER') && c.isOp('(', c.peek())) {
      // Window clause: only ROW_NUMBER() is modelled; the OVER list is read and numbering follows row order.
      c.next(); c.next();
      const empty = c.isOp(')');
      let depth = 1;
      while (depth > 0) {
        if (c.tok.kind === 'eof') throw c.unexpected();
        const x = c.next();
        if (x.kind === 'op' && x.value === '(') depth++;
        if (x.kind === 'op' && x.value === ')') depth--;
      }
      // Aggregates are modelled only over the whole result: SUM(x) OVER ().
      const aggregate = ['COUNT', 'COUNT_BIG', 'SUM', 'MIN', 'MAX', 'AVG'].includes(name);
      if (name !== 'ROW_NUMBER' && !(aggregate && empty)) throw errors.unknownFunction(name, t.line);
      return { k: 'call', name, args, over: true, line: t.line };
    }
    return distinct ? { k: 'call', name, args, distinct, line: t.line } : { k: 'call', name, args, line: t.line };
  }
  return { k: 'col', parts, line: t.line };
}

function parseCase(c: Cursor): Expr {
  c.expectKw('CASE');
  const operand = c.isKw('WHEN') ? undefined : parseExpr(c);
  const whens: Array<[Expr, Expr]> = [];
  while (c.acceptKw('WHEN')) {
    const w = parseExpr(c);
    c.expectKw('THEN');
    whens.push([w, parseExpr(c)]);
  }
  if (!whens.length) throw c.unexpected();
  const otherwise = c.acceptKw('ELSE') ? parseExpr(c) : undefined;
  c.expectKw('END');
  const e: Expr = { k: 'case', whens };
  if (operand) e.operand = operand;
  if (otherwise) e.otherwise = otherwise;
  return e;
}
