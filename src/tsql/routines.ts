// Reads the header of CREATE [OR ALTER] | ALTER {PROC[EDURE] | FUNCTION | TRIGGER}: the name, a procedure number and
// where the body starts. A header ends at the `AS` that opens the body (Learn: CREATE PROCEDURE, CREATE FUNCTION,
// CREATE TRIGGER — https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql,
// .../create-function-transact-sql, .../create-trigger-transact-sql); the only other `AS` words a header may hold are
// `@param AS type`, `EXECUTE AS ...` in the WITH clause, and anything inside parentheses.
// A function's AS is optional (`RETURNS int [ AS ] BEGIN`, `RETURNS TABLE [ AS ] RETURN`, `[ AS ] EXTERNAL NAME`), so
// without it the header ends before the first top-level BEGIN, RETURN or EXTERNAL. A procedure's or trigger's AS is
// required; while one is being typed without it, its body is read from a top-level BEGIN all the same.

import { Kw } from './keywords';
import { TokenKind, type TokenStream } from './lexer';
import { identifierText } from './tokenText';
import type { RoutineKind } from './structure-types';

export interface RoutineHeader {
  kind: RoutineKind;
  /** Name parts as written, brackets and quotes removed, joined with dots: `dbo.usp_load`. */
  name: string;
  number: number | null;
  /** Token index of the first body token (`end` when no body has started yet, e.g. while typing). */
  bodyAt: number;
  /** Token index where the header's options end: its AS, or the first body token when AS is left out. */
  headerEnd: number;
  /** `AS EXTERNAL NAME ...`: a CLR routine. */
  external: boolean;
  /** Token index just after the name (and `;number`): where a procedure's parameter list starts. */
  nameEnd: number;
  /** The name's parts, brackets and quotes removed (`[dbo].[a.b]` → `dbo`, `a.b`); '' for a part left out (`db..p`). */
  nameParts: string[];
}

function isNamePart(kind: TokenKind): boolean {
  return kind === TokenKind.Word || kind === TokenKind.BracketId || kind === TokenKind.QuotedId || kind === TokenKind.TempName;
}

// Token lookups bounded by `end` as module functions, not closures made per call (routineHeader runs once per routine).
export function kwAt(t: TokenStream, end: number, i: number): Kw {
  return i < end ? (t.keywords[i] as Kw) : Kw.None;
}

export function kindAt(t: TokenStream, end: number, i: number): TokenKind {
  return i < end ? (t.kinds[i] as TokenKind) : (0 as TokenKind);
}

/** Whether token `i` is the (non-keyword) word `upper`, in any case. */
function isWord(t: TokenStream, i: number, upper: string): boolean {
  return t.kinds[i] === TokenKind.Word && t.ends[i]! - t.starts[i]! === upper.length &&
    t.text.slice(t.starts[i]!, t.ends[i]!).toUpperCase() === upper;
}

/** The header starting at token `from` (CREATE or ALTER), tokens up to `end` (exclusive); null when not a routine. */
export function routineHeader(t: TokenStream, from: number, end: number): RoutineHeader | null {
  let q = from + 1;
  if (kwAt(t, end, from) === Kw.CREATE && kwAt(t, end, q) === Kw.OR && kwAt(t, end, q + 1) === Kw.ALTER) q += 2;
  const k = kwAt(t, end, q);
  const routineKind: RoutineKind | null =
    k === Kw.PROC || k === Kw.PROCEDURE ? 'PROCEDURE' : k === Kw.FUNCTION ? 'FUNCTION' : k === Kw.TRIGGER ? 'TRIGGER' : null;
  if (routineKind === null) return null;

  // [server.][database.][schema.]name: parts separated by dots, `db..name` leaving one out. The name ends at the first
  // part not followed by a dot, so `CREATE PROCEDURE dbo.p AS BEGIN` stops before AS.
  const parts: string[] = [];
  let r = q + 1;
  while (r < end && isNamePart(kindAt(t, end, r))) {
    parts.push(identifierText(t, r));
    r++;
    if (kindAt(t, end, r) !== TokenKind.Dot) break;
    r++;
    while (kindAt(t, end, r) === TokenKind.Dot) { parts.push(''); r++; }
  }
  let number: number | null = null;
  if (routineKind === 'PROCEDURE' && kindAt(t, end, r) === TokenKind.Semicolon && kindAt(t, end, r + 1) === TokenKind.Number) {
    number = Number(t.text.slice(t.starts[r + 1]!, t.ends[r + 1]!));
    r += 2;
  }
  const nameEnd = r;

  let depth = 0;
  let bodyAt = end;
  for (; r < end; r++) {
    const kd = kindAt(t, end, r);
    if (kd === TokenKind.LParen) depth++;
    else if (kd === TokenKind.RParen) { if (depth > 0) depth--; }
    else if (depth === 0) {
      const kw = kwAt(t, end, r);
      if (kw === Kw.AS && kindAt(t, end, r - 1) !== TokenKind.Variable && kwAt(t, end, r - 1) !== Kw.EXEC && kwAt(t, end, r - 1) !== Kw.EXECUTE) {
        bodyAt = r + 1;
        break;
      }
      if (kw === Kw.BEGIN || (routineKind === 'FUNCTION' && (kw === Kw.RETURN || isWord(t, r, 'EXTERNAL')))) {
        bodyAt = r;
        break;
      }
    }
  }
  const headerEnd = r;
  const external = bodyAt < end && isWord(t, bodyAt, 'EXTERNAL');
  return { kind: routineKind, name: parts.join('.'), number, bodyAt, headerEnd, external, nameEnd, nameParts: parts };
}
