// How many rows one execution of a DML statement touches, as far as its text says: one row (`VALUES`, `WHERE id = @id`,
// `WHERE CURRENT OF`) or a set (`INSERT ... SELECT ... FROM`, key ranges, `TOP (n)` chunks, no WHERE). A loop of
// one-row statements commits per row; a loop of set statements is batching, the cure for a long transaction.
// Also: what a CTE named as a DML target reads from (`WITH c AS (SELECT ... FROM @t) UPDATE c` writes @t).

import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';

/**
 * `row`: one (or a few listed) rows per execution; `set`: as many as a query finds; `unknown`: the text does not say
 * (`INSERT ... EXEC`, `WHERE id = 1`: a key or a flag shared by many rows); `unkeyed`: the script declares the
 * target's keys and the WHERE clause pins none of them (it may change every row sharing the values it compares).
 */
export type DmlShape = 'row' | 'set' | 'unknown' | 'unkeyed';

/** Token i is a word spelled `upper` (ASCII, any case). */
export function wordAt(t: TokenStream, i: number, upper: string): boolean {
  if (t.kinds[i] !== TokenKind.Word) return false;
  const start = t.starts[i]!;
  if (t.ends[i]! - start !== upper.length) return false;
  for (let j = 0; j < upper.length; j++) {
    let c = t.text.charCodeAt(start + j);
    if (c >= 97 && c <= 122) c -= 32;
    if (c !== upper.charCodeAt(j)) return false;
  }
  return true;
}

function operatorAt(t: TokenStream, i: number): string | null {
  return t.kinds[i] === TokenKind.Operator ? t.text.slice(t.starts[i]!, t.ends[i]!) : null;
}

/** Index of the first token in [from, to) at paren depth 0 that `match` accepts, or -1. */
function findAtDepth0(t: TokenStream, from: number, to: number, match: (i: number) => boolean): number {
  let depth = 0;
  for (let i = from; i < to; i++) {
    const kind = t.kinds[i];
    if (kind === TokenKind.LParen) depth++;
    else if (kind === TokenKind.RParen) { if (depth > 0) depth--; }
    else if (depth === 0 && match(i)) return i;
  }
  return -1;
}

/** `TOP (1)` / `TOP 1` at i: one row. */
function topOne(t: TokenStream, i: number): boolean {
  const n = t.kinds[i + 1] === TokenKind.LParen ? i + 2 : i + 1;
  return t.kinds[n] === TokenKind.Number && t.text.slice(t.starts[n]!, t.ends[n]!) === '1';
}

/**
 * Shape of the DML statement starting at token `from` (`WITH` for a CTE), verb at `verbAt`, ending before `end`.
 * `keys`: the column sets that identify a row of the target, when the script declares them (table-catalog.ts).
 */
export function dmlShape(
  t: TokenStream, kind: string, from: number, verbAt: number, end: number, keys: readonly (readonly string[])[] | null = null,
): DmlShape {
  switch (kind) {
    case 'INSERT': return insertShape(t, from, verbAt, end);
    case 'UPDATE':
    case 'DELETE': return updateDeleteShape(t, kind, verbAt, end, keys);
    case 'MERGE': return mergeShape(t, verbAt, end);
    default: return 'set'; // SELECT INTO, BULK INSERT
  }
}

function insertShape(t: TokenStream, from: number, verbAt: number, end: number): DmlShape {
  const source = findAtDepth0(t, verbAt + 1, end, (i) => {
    const k = t.keywords[i];
    return k === Kw.VALUES || k === Kw.SELECT || k === Kw.EXEC || k === Kw.EXECUTE || k === Kw.DEFAULT;
  });
  if (source < 0) return 'unknown';
  const k = t.keywords[source];
  if (k === Kw.VALUES || k === Kw.DEFAULT) return 'row';
  if (k === Kw.EXEC || k === Kw.EXECUTE) return 'unknown';
  // INSERT ... SELECT: a row of expressions when there is no FROM, else whatever the query returns.
  if (wordAt(t, source + 1, 'TOP') && topOne(t, source + 1)) return 'row';
  const fromAt = findAtDepth0(t, source + 1, end, (i) => wordAt(t, i, 'FROM'));
  if (fromAt < 0) return 'row';
  // ... FROM cte, where the statement's CTE is `SELECT TOP (1) ...`: one row.
  if (verbAt > from && t.keywords[from] === Kw.WITH) {
    const body = cteBody(t, from, verbAt, fromAt + 1);
    if (body !== null && t.keywords[body.start] === Kw.SELECT && wordAt(t, body.start + 1, 'TOP') && topOne(t, body.start + 1)) return 'row';
  }
  return 'set';
}

function updateDeleteShape(
  t: TokenStream, kind: string, verbAt: number, end: number, keys: readonly (readonly string[])[] | null,
): DmlShape {
  let i = verbAt + 1;
  if (wordAt(t, i, 'TOP')) return topOne(t, i) ? 'row' : 'set';
  // DELETE [FROM] target: that FROM names the target; a later FROM joins other sources (a set-based statement).
  if (kind === 'DELETE' && wordAt(t, i, 'FROM')) i++;
  const where = findAtDepth0(t, i, end, (j) => wordAt(t, j, 'WHERE'));
  const from = findAtDepth0(t, i + 1, where < 0 ? end : where, (j) => wordAt(t, j, 'FROM'));
  if (where < 0) return 'set';
  if (t.keywords[where + 1] === Kw.CURRENT && t.keywords[where + 2] === Kw.OF) return 'row';
  if (from >= 0) return 'set';
  return keyedPredicate(t, where + 1, end, keys);
}

/**
 * A WHERE clause that pins rows to given values: some comparison outside subqueries is `column = @variable` (either
 * way round) or `column IN (@a, ...)`: `row`. `column = literal` may be a key or a flag many rows share: `unknown`.
 * Ranges alone (`id >= @lo AND id < @hi`, BETWEEN, LIKE) pick a set. When the script declares the target's keys, the
 * columns compared with a value must cover one of them for `row`; otherwise the statement may change every row that
 * shares those values (`WHERE TypeId = @type` on a table keyed by (TypeId, Id)): `unkeyed`.
 */
function keyedPredicate(t: TokenStream, from: number, end: number, keys: readonly (readonly string[])[] | null): DmlShape {
  const literal = (k: number | undefined): boolean => k === TokenKind.Number || k === TokenKind.String || k === TokenKind.NString;
  const declared = keys !== null && keys.length > 0;
  const pinned: string[] = [];
  let shape: DmlShape = 'set';
  for (let i = from; i < end; i++) {
    if (t.kinds[i] === TokenKind.LParen && t.keywords[i + 1] === Kw.SELECT) { i = skipParens(t, i, end) - 1; continue; }
    if (operatorAt(t, i) === '=') {
      const left = t.kinds[i - 1], right = t.kinds[i + 1];
      const rightColumn = columnAt(t, i + 1);
      if ((right === TokenKind.Variable && isColumn(left)) || (left === TokenKind.Variable && rightColumn !== null)) {
        if (!declared) return 'row';
        pinned.push(right === TokenKind.Variable ? identifier(t, i - 1) : rightColumn!);
      } else if ((literal(right) && isColumn(left)) || (literal(left) && rightColumn !== null)) {
        shape = 'unknown';
        if (declared) pinned.push(literal(right) ? identifier(t, i - 1) : rightColumn!);
      }
    }
    if (wordAt(t, i, 'IN') && t.kinds[i + 1] === TokenKind.LParen && t.kinds[i + 2] === TokenKind.Variable) {
      if (!declared) return 'row';
      if (isColumn(t.kinds[i - 1])) pinned.push(identifier(t, i - 1));
    }
  }
  if (!declared) return shape;
  return keys.some((key) => key.every((c) => pinned.includes(c))) ? 'row' : 'unkeyed';
}

function isColumn(k: number | undefined): boolean {
  return k === TokenKind.Word || k === TokenKind.BracketId || k === TokenKind.QuotedId;
}

/** The column named at i (`col`, `alias.col`): its last part, or null. */
function columnAt(t: TokenStream, i: number): string | null {
  if (!isColumn(t.kinds[i])) return null;
  while (t.kinds[i + 1] === TokenKind.Dot && isColumn(t.kinds[i + 2])) i += 2;
  return identifier(t, i);
}

function mergeShape(t: TokenStream, verbAt: number, end: number): DmlShape {
  const using = findAtDepth0(t, verbAt + 1, end, (i) => wordAt(t, i, 'USING'));
  if (using < 0) return 'set';
  if (t.kinds[using + 1] !== TokenKind.LParen) return 'set';
  const k = t.keywords[using + 2];
  if (k === Kw.VALUES) return 'row';
  if (k !== Kw.SELECT) return 'set';
  // USING (SELECT @a AS a, ...): one row of values when the query reads no table.
  let depth = 0;
  for (let i = using + 1; i < end; i++) {
    if (t.kinds[i] === TokenKind.LParen) depth++;
    else if (t.kinds[i] === TokenKind.RParen && --depth === 0) return 'row';
    else if (wordAt(t, i, 'FROM')) return 'set';
  }
  return 'set';
}

/** What a name written as a DML target refers to, when a CTE of the statement defines it. */
export type CteSource = 'temp-table' | 'table-variable' | 'table' | null;

/**
 * `WITH name [(cols)] AS (query) [, ...] verb target`: when `target` (token index) names one of the CTEs, the kind of
 * object the CTE's first FROM reads (a CTE over one table is updatable and writes that table). null: not a CTE name.
 */
export function cteSource(t: TokenStream, withAt: number, verbAt: number, target: number): CteSource {
  const body = cteBody(t, withAt, verbAt, target);
  return body === null ? null : firstFromSource(t, body.start, body.end);
}

/** Tokens [start, end) inside the parentheses of the statement's CTE named at token `nameAt`, or null. */
function cteBody(t: TokenStream, withAt: number, verbAt: number, nameAt: number): { start: number; end: number } | null {
  if (t.kinds[nameAt] !== TokenKind.Word && t.kinds[nameAt] !== TokenKind.BracketId) return null;
  const name = identifier(t, nameAt);
  let i = withAt + 1;
  while (i < verbAt) {
    const cteName = identifier(t, i);
    i++;
    if (t.kinds[i] === TokenKind.LParen) i = skipParens(t, i, verbAt); // column list
    if (t.keywords[i] === Kw.AS) i++;
    if (t.kinds[i] !== TokenKind.LParen) return null;
    const bodyEnd = skipParens(t, i, verbAt);
    if (cteName === name) return { start: i + 1, end: bodyEnd - 1 };
    i = bodyEnd;
    if (t.kinds[i] === TokenKind.Comma) i++;
    else break;
  }
  return null;
}

function identifier(t: TokenStream, i: number): string {
  const text = t.text.slice(t.starts[i]!, t.ends[i]!);
  return (t.kinds[i] === TokenKind.BracketId || t.kinds[i] === TokenKind.QuotedId ? text.slice(1, -1) : text).toLowerCase();
}

/** Index just past the parenthesis group opening at i. */
function skipParens(t: TokenStream, i: number, end: number): number {
  let depth = 0;
  for (; i < end; i++) {
    if (t.kinds[i] === TokenKind.LParen) depth++;
    else if (t.kinds[i] === TokenKind.RParen && --depth === 0) return i + 1;
  }
  return end;
}

function firstFromSource(t: TokenStream, from: number, end: number): CteSource {
  const at = findAtDepth0(t, from, end, (i) => wordAt(t, i, 'FROM'));
  if (at < 0) return 'table';
  return objectKind(t, at + 1);
}

/** The kind of object named at token i: `#t`, `[#t]`, `tempdb..t` live in tempdb; `@t` is a table variable. */
export function objectKind(t: TokenStream, i: number): 'temp-table' | 'table-variable' | 'table' {
  // `dbo.#t`: a schema written before a temp table's name changes nothing, it is in tempdb.
  let last = i;
  for (let parts = 0; parts < 3 && t.kinds[last + 1] === TokenKind.Dot; parts++) {
    last += 2;
    if (t.kinds[last] === TokenKind.Dot) last++; // db..name
  }
  if (last > i && t.kinds[last] === TokenKind.TempName) return 'temp-table';
  const kind = t.kinds[i];
  if (kind === TokenKind.TempName) return 'temp-table';
  if (kind === TokenKind.Variable) return 'table-variable';
  if (kind === TokenKind.BracketId || kind === TokenKind.QuotedId) {
    if (t.text.charCodeAt(t.starts[i]! + 1) === 35 /* # */) return 'temp-table';
  }
  if (t.kinds[i + 1] === TokenKind.Dot && (wordAt(t, i, 'TEMPDB') ||
    (kind === TokenKind.BracketId && t.ends[i]! - t.starts[i]! === 8 && identifier(t, i) === 'tempdb'))) return 'temp-table';
  return 'table';
}
