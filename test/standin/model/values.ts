// SQL value semantics the evaluator needs: three-valued comparison, arithmetic with int/bigint/float
// promotion, LIKE, and coercion of a value to a result column's declared type.
import type { ColumnType, SqlValue } from '../engine';
import { errors, SqlError } from './errors';

export function isNumeric(t: ColumnType): boolean {
  return ['int', 'bigint', 'smallint', 'tinyint', 'bit', 'float', 'decimal'].includes(t.kind);
}

export function isString(t: ColumnType): boolean {
  return t.kind === 'nvarchar' || t.kind === 'varchar';
}

const RANK: Record<string, number> = { bit: 1, tinyint: 2, smallint: 3, int: 4, bigint: 5, decimal: 6, float: 7 };

/** Result type of arithmetic between two numeric types (SQL Server data type precedence, simplified). */
export function promote(a: ColumnType, b: ColumnType): ColumnType {
  if ((a.kind === 'nvarchar' || a.kind === 'varchar') && (b.kind === 'nvarchar' || b.kind === 'varchar')) {
    const la = a.length === 'max' || b.length === 'max' ? 'max' : Math.min(8000, a.length + b.length);
    return a.kind === 'nvarchar' || b.kind === 'nvarchar' ? { kind: 'nvarchar', length: la } : { kind: 'varchar', length: la };
  }
  if (isString(a)) return b;
  if (isString(b)) return a;
  const ra = RANK[a.kind] ?? 4;
  const rb = RANK[b.kind] ?? 4;
  const t = ra >= rb ? a : b;
  if (t.kind === 'bit' || t.kind === 'tinyint' || t.kind === 'smallint') return { kind: 'int' };
  return t;
}

export function toNumber(v: SqlValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const n = Number(v.trim());
    if (v.trim() === '' || Number.isNaN(n)) throw errors.conversion(v, 'int', 0);
    return n;
  }
  if (v instanceof Date) return v.getTime();
  // datetimeoffset: compared and ordered by its UTC instant (Query Store's interval times, queryStoreCatalog.ts).
  if (typeof v === 'object' && v !== null && 'date' in v && v.date instanceof Date) return v.date.getTime();
  return NaN;
}

export function toBigInt(v: SqlValue): bigint {
  if (typeof v === 'bigint') return v;
  return BigInt(Math.trunc(toNumber(v)));
}

/**
 * A date/time text read as the model's server reads it: without an offset it is a wall-clock time, held as a Date whose
 * UTC fields are that time (as local times are, Server.localTime), never in the zone of the machine running the tests — JavaScript's
 * `new Date('2026-11-25 10:00:00')` would read it as local time.
 */
export function dateFromText(text: string): Date {
  return new Date(text.replace(' ', 'T') + (/[zZ]|[+-]\d\d:\d\d$/.test(text) ? '' : 'Z'));
}

export function toText(v: SqlValue): string {
  if (v === null) return '';
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (v instanceof Date) return v.toISOString().replace('T', ' ').replace('Z', '');
  if (typeof v === 'object') return v.date.toISOString();
  return String(v);
}

/**
 * Compare two non-null values; strings compare case-insensitively (the default CI collation) with trailing spaces
 * ignored: = and <> pad the shorter string with blanks, so 'abc' = 'abc ' (ANSI/ISO SQL-92 8.2; "String comparison
 * & assignment", https://learn.microsoft.com/sql/t-sql/language-elements/string-comparison-assignment — LIKE is the exception).
 */
export function compare(a: SqlValue, b: SqlValue): number {
  if (a === null || b === null) return 0;
  if (typeof a === 'string' && typeof b === 'string') {
    const x = a.replace(/ +$/, '').toLowerCase();
    const y = b.replace(/ +$/, '').toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    if ((typeof a === 'number' && !Number.isInteger(a)) || (typeof b === 'number' && !Number.isInteger(b))) return Math.sign(toNumber(a) - toNumber(b));
    const x = toBigInt(a);
    const y = toBigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof Date || b instanceof Date) return toNumber(a) - toNumber(b);
  return Math.sign(toNumber(a) - toNumber(b));
}

export function arith(op: string, a: SqlValue, b: SqlValue, t: ColumnType, line: number): SqlValue {
  if (a === null || b === null) return null;
  if (op === '+' && (typeof a === 'string' || typeof b === 'string') && isString(t)) return toText(a) + toText(b);
  if (t.kind === 'float' || t.kind === 'decimal') {
    const x = toNumber(a);
    const y = toNumber(b);
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*': return x * y;
      case '/': if (y === 0) throw errors.divideByZero(line); return x / y;
      case '%': if (y === 0) throw errors.divideByZero(line); return x % y;
    }
  }
  if (t.kind === 'bigint') {
    const x = toBigInt(a);
    const y = toBigInt(b);
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*': return x * y;
      case '/': if (y === 0n) throw errors.divideByZero(line); return x / y;
      case '%': if (y === 0n) throw errors.divideByZero(line); return x % y;
      case '&': return x & y;
      case '|': return x | y;
      case '^': return x ^ y;
    }
  }
  const x = toNumber(a);
  const y = toNumber(b);
  let r: number;
  switch (op) {
    case '+': r = x + y; break;
    case '-': r = x - y; break;
    case '*': r = x * y; break;
    case '/': if (y === 0) throw errors.divideByZero(line); r = Math.trunc(x / y); break;
    case '%': if (y === 0) throw errors.divideByZero(line); r = x % y; break;
    case '&': r = x & y; break;
    case '|': r = x | y; break;
    case '^': r = x ^ y; break;
    default: r = NaN;
  }
  if (t.kind === 'int' && (r > 2147483647 || r < -2147483648)) throw new SqlError(8115, 16, 'Arithmetic overflow error converting expression to data type int.', line);
  return r;
}

/**
 * LIKE. https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql ("Pattern matching by using
 * LIKE"): when any argument is Unicode (nchar/nvarchar), trailing blanks are significant — its NCHAR(30) example
 * `col1 LIKE '% King'` returns no rows; for non-Unicode data the match expression's trailing blanks are ignored
 * (Remarks: "trailing blanks, in the expression to which the pattern is matched, are ignored").
 */
export function like(value: string, pattern: string, unicode: boolean): boolean {
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '%') re += '.*';
    else if (ch === '_') re += '.';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) { re += '\\['; continue; }
      let set = pattern.slice(i + 1, end);
      if (set.startsWith('^')) set = '^' + set.slice(1).replace(/[\\\]]/g, '\\$&');
      else set = set.replace(/[\\\]]/g, '\\$&');
      re += `[${set}]`;
      i = end;
    } else re += ch.replace(/[.*+?^${}()|\\]/g, '\\$&');
  }
  return new RegExp(unicode ? re + '$' : re + ' *$', 'is').test(value);
}

/**
 * A string or bigint converted to decimal(p, s) exactly (no double in between: decimal(38) holds 38 digits), rounded
 * half away from zero at the scale (Learn "decimal and numeric": SQL Server rounds when converting to a lower scale).
 * Precision overflow is not checked here (NOT CONFIRMED: error 8115 not modelled).
 */
function exactDecimal(text: string, scale: number, line: number): string {
  const m = /^\s*([+-]?)(\d*)(?:\.(\d*))?\s*$/.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw errors.conversion(text, 'numeric', line);
  const fraction = m[3] ?? '';
  let unscaled = BigInt((m[2] || '0') + fraction.slice(0, scale).padEnd(scale, '0'));
  if (fraction.length > scale && Number(fraction[scale]) >= 5) unscaled += 1n;
  const digits = unscaled.toString().padStart(scale + 1, '0');
  const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return m[1] === '-' && unscaled !== 0n ? `-${body}` : body;
}

/** Convert a computed value to the wire representation the engine contract promises for the column type. */
export function coerce(v: SqlValue, t: ColumnType, line = 0): SqlValue {
  if (v === null) return null;
  switch (t.kind) {
    case 'int': case 'smallint': case 'tinyint': {
      if (typeof v === 'string') {
        const n = Number(v.trim());
        if (v.trim() === '' || !Number.isFinite(n) || !/^\s*[-+]?\d+(\.\d*)?\s*$/.test(v)) throw errors.conversion(v, t.kind, line);
        return Math.trunc(n);
      }
      return Math.trunc(toNumber(v));
    }
    case 'bigint': {
      if (typeof v === 'string' && !/^\s*[-+]?\d+\s*$/.test(v)) throw errors.conversion(v, 'bigint', line);
      return typeof v === 'string' ? BigInt(v.trim()) : toBigInt(v);
    }
    case 'bit': return typeof v === 'boolean' ? v : toNumber(v) !== 0;
    case 'float': return toNumber(v);
    case 'decimal': return typeof v === 'string' || typeof v === 'bigint' ? exactDecimal(String(v), t.scale, line) : toNumber(v).toFixed(t.scale);
    case 'nvarchar': case 'varchar': {
      const s = typeof v === 'number' && !Number.isInteger(v) ? String(v) : toText(v);
      const cut = t.length !== 'max' && s.length > t.length ? s.slice(0, t.length) : s;
      // nchar(n) / char(n) values are padded with blanks to n (fixed-length character types).
      return t.fixed && t.length !== 'max' ? cut.padEnd(t.length, ' ') : cut;
    }
    case 'datetime2': return v instanceof Date ? v : dateFromText(toText(v));
    case 'datetimeoffset': return v instanceof Date ? { date: v, offsetMinutes: 0 } : v;
    case 'uniqueidentifier': return toText(v);
  }
}

/** Value SQL Server treats as TRUE in a predicate (booleans from comparisons; NULL is unknown). */
export function truthy(v: SqlValue): boolean {
  return v === true;
}
