// Reads the header of CREATE [OR ALTER] | ALTER {PROC[EDURE] | FUNCTION | TRIGGER}: the name, a procedure number and
// where the body starts. Every form of header ends at the `AS` that opens the body (Learn: CREATE PROCEDURE,
// CREATE FUNCTION, CREATE TRIGGER — https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql,
// .../create-function-transact-sql, .../create-trigger-transact-sql); the only other `AS` words a header may hold are
// `@param AS type`, `EXECUTE AS ...` in the WITH clause, and anything inside parentheses.

import { Kw } from './keywords';
import { TokenKind, identifierText, type TokenStream } from './lexer';
import type { RoutineKind } from './structure-types';

export interface RoutineHeader {
  kind: RoutineKind;
  /** Name parts as written, brackets and quotes removed, joined with dots: `dbo.usp_load`. */
  name: string;
  number: number | null;
  /** Token index of the first body token (`end` when the header has no AS yet, e.g. while typing). */
  bodyAt: number;
  /** `AS EXTERNAL NAME ...`: a CLR routine. */
  external: boolean;
}

function isNamePart(kind: TokenKind): boolean {
  return kind === TokenKind.Word || kind === TokenKind.BracketId || kind === TokenKind.QuotedId || kind === TokenKind.TempName;
}

/** The header starting at token `from` (CREATE or ALTER), tokens up to `end` (exclusive); null when not a routine. */
export function routineHeader(t: TokenStream, from: number, end: number): RoutineHeader | null {
  const kw = (i: number): Kw => (i < end ? (t.keywords[i] as Kw) : Kw.None);
  const kind = (i: number): TokenKind => (i < end ? (t.kinds[i] as TokenKind) : (0 as TokenKind));
  let q = from + 1;
  if (kw(from) === Kw.CREATE && kw(q) === Kw.OR && kw(q + 1) === Kw.ALTER) q += 2;
  const k = kw(q);
  const routineKind: RoutineKind | null =
    k === Kw.PROC || k === Kw.PROCEDURE ? 'PROCEDURE' : k === Kw.FUNCTION ? 'FUNCTION' : k === Kw.TRIGGER ? 'TRIGGER' : null;
  if (routineKind === null) return null;

  // [server.][database.][schema.]name: parts separated by dots, `db..name` leaving one out. The name ends at the first
  // part not followed by a dot, so `CREATE PROCEDURE dbo.p AS BEGIN` stops before AS.
  const parts: string[] = [];
  let r = q + 1;
  while (r < end && isNamePart(kind(r))) {
    parts.push(identifierText(t, r));
    r++;
    if (kind(r) !== TokenKind.Dot) break;
    r++;
    while (kind(r) === TokenKind.Dot) { parts.push(''); r++; }
  }
  let number: number | null = null;
  if (routineKind === 'PROCEDURE' && kind(r) === TokenKind.Semicolon && kind(r + 1) === TokenKind.Number) {
    number = Number(t.text.slice(t.starts[r + 1]!, t.ends[r + 1]!));
    r += 2;
  }

  let depth = 0;
  for (; r < end; r++) {
    const kd = kind(r);
    if (kd === TokenKind.LParen) depth++;
    else if (kd === TokenKind.RParen) { if (depth > 0) depth--; }
    else if (depth === 0 && kw(r) === Kw.AS && kind(r - 1) !== TokenKind.Variable && kw(r - 1) !== Kw.EXEC && kw(r - 1) !== Kw.EXECUTE) break;
  }
  const bodyAt = Math.min(r + 1, end);
  const external = bodyAt < end && t.kinds[bodyAt] === TokenKind.Word &&
    t.text.slice(t.starts[bodyAt]!, t.ends[bodyAt]!).toUpperCase() === 'EXTERNAL';
  return { kind: routineKind, name: parts.join('.'), number, bodyAt, external };
}
