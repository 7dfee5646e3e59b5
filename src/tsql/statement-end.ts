// Where a T-SQL statement ends when nobody wrote a semicolon: which statement-opening words continue the current one.
// T-SQL needs no terminators, so `INSERT t SELECT ...` and `UPDATE t SET ...` must not split at SELECT/SET.

import { Kw, STATEMENT_START } from './keywords';
import { TokenKind } from './lexer';

const STARTS = new Uint8Array(256);
for (const k of STATEMENT_START) STARTS[k] = 1;

export function opensStatement(k: Kw): boolean {
  return STARTS[k] === 1;
}

/** Object types that may follow DROP/ALTER, e.g. `DROP TABLE IF EXISTS`. */
const OBJECT_TYPES = new Set<Kw>([
  Kw.TABLE, Kw.VIEW, Kw.PROCEDURE, Kw.PROC, Kw.FUNCTION, Kw.INDEX, Kw.TRIGGER, Kw.SCHEMA, Kw.SEQUENCE, Kw.TYPE,
  Kw.DATABASE, Kw.USER, Kw.ROLE, Kw.SYNONYM, Kw.COLUMN, Kw.CONSTRAINT, Kw.DEFAULT, Kw.STATISTICS,
]);

/** What the scanner knows about the statement being consumed. */
export interface StatementContext {
  /** First word of the statement. */
  head: Kw;
  /** Second word (`ALTER TABLE` vs `ALTER DATABASE`). */
  second: Kw;
  /** The DML verb: the head, or for `WITH cte AS (...)` the first verb after the CTEs (None until seen). */
  verb: Kw;
  /** INSERT has met its source (VALUES, SELECT, EXEC, DEFAULT VALUES). */
  insertSourceSeen: boolean;
  /** UPDATE has met its SET. */
  updateSetSeen: boolean;
}

function isGrantFamily(k: Kw): boolean {
  return k === Kw.GRANT || k === Kw.DENY || k === Kw.REVOKE;
}

/** True when the statement-opening word `k` (at paren depth 0, between prev and next tokens) belongs to the current statement. */
export function continuesStatement(ctx: StatementContext, k: Kw, prevKw: Kw, prevKind: TokenKind, nextKw: Kw, nextKind: TokenKind): boolean {
  // `GRANT SELECT, INSERT, EXECUTE ON ...`: permission names are statement words.
  if (isGrantFamily(ctx.head) && (prevKw === ctx.head || prevKind === TokenKind.Comma || prevKw === Kw.WITH)) return true;
  switch (k) {
    case Kw.SELECT:
      if (prevKw === Kw.UNION || prevKw === Kw.ALL || prevKw === Kw.EXCEPT || prevKw === Kw.INTERSECT) return true;
      // `CREATE VIEW v AS SELECT`, `DECLARE c CURSOR FOR SELECT`.
      if (prevKw === Kw.AS || prevKw === Kw.FOR) return true;
      if (ctx.head === Kw.WITH && ctx.verb === Kw.None) return true;
      return ctx.verb === Kw.INSERT && !ctx.insertSourceSeen;
    case Kw.INSERT:
    case Kw.UPDATE:
    case Kw.DELETE:
      // MERGE ... THEN UPDATE/INSERT/DELETE; BULK INSERT; IF UPDATE(col) in triggers.
      if (prevKw === Kw.THEN || prevKw === Kw.BULK) return true;
      if (k === Kw.UPDATE && nextKind === TokenKind.LParen) return true;
      if (ctx.head === Kw.WITH && ctx.verb === Kw.None) return true;
      // `FOR UPDATE OF` (cursors), `ON DELETE CASCADE` (constraints), `AFTER INSERT` (triggers).
      if ((prevKw === Kw.FOR || prevKw === Kw.AFTER || prevKw === Kw.OF) &&
        (ctx.head === Kw.DECLARE || ctx.head === Kw.CREATE || ctx.head === Kw.ALTER)) return true;
      if (prevKw === Kw.ON && (ctx.head === Kw.CREATE || ctx.head === Kw.ALTER)) return true;
      return prevKind === TokenKind.Comma && (ctx.head === Kw.CREATE || ctx.head === Kw.ALTER);
    case Kw.SET:
      if (ctx.verb === Kw.UPDATE && !ctx.updateSetSeen) return true;
      if (prevKw === Kw.UPDATE || prevKw === Kw.DELETE) return true; // THEN UPDATE SET; ON DELETE SET NULL
      return ctx.head === Kw.ALTER; // ALTER DATABASE x SET ..., ALTER TABLE t SET (...)
    case Kw.EXEC:
    case Kw.EXECUTE:
      if (ctx.verb === Kw.INSERT && !ctx.insertSourceSeen) return true;
      return prevKw === Kw.WITH || prevKind === TokenKind.Comma; // WITH EXECUTE AS OWNER
    case Kw.FETCH:
      return prevKw === Kw.ROWS || prevKw === Kw.ROW; // OFFSET n ROWS FETCH NEXT m ROWS ONLY
    case Kw.IF:
      return (ctx.head === Kw.DROP || ctx.head === Kw.ALTER) && nextKw === Kw.EXISTS && OBJECT_TYPES.has(prevKw);
    case Kw.CREATE:
    case Kw.ALTER:
    case Kw.DROP:
      if (prevKw === Kw.OR) return true; // CREATE OR ALTER
      // ALTER TABLE t ALTER COLUMN / DROP COLUMN / DROP CONSTRAINT, but not a following DROP TABLE.
      return ctx.head === Kw.ALTER && ctx.second === Kw.TABLE && k !== Kw.CREATE && !OBJECT_TYPES.has(nextKw)
        || (ctx.head === Kw.ALTER && (nextKw === Kw.COLUMN || nextKw === Kw.CONSTRAINT));
    case Kw.ENABLE:
    case Kw.DISABLE:
      return ctx.head === Kw.ALTER; // ALTER INDEX ... DISABLE, ALTER TABLE ... ENABLE TRIGGER
    case Kw.MERGE:
      return nextKw === Kw.JOIN; // INNER MERGE JOIN
    case Kw.ROLLBACK:
      // `ALTER DATABASE ... SET ... WITH ROLLBACK IMMEDIATE | ROLLBACK AFTER n [SECONDS]`: a termination clause, not a
      // statement (Learn, ALTER DATABASE SET options, <termination>:
      // https://learn.microsoft.com/sql/t-sql/statements/alter-database-transact-sql-set-options).
      return prevKw === Kw.WITH && ctx.head === Kw.ALTER;
    default:
      return false;
  }
}
