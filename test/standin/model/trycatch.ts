// TRY...CATCH state of one session: which TRY blocks are open (and at which execution level), the error each running
// CATCH block handles (read by ERROR_NUMBER() & co.), and the rule for which errors a TRY block catches.
// Learn, "TRY...CATCH (Transact-SQL)": https://learn.microsoft.com/sql/t-sql/language-elements/try-catch-transact-sql
import type { SqlError } from './errors';
import type { Session } from './state';

interface TryState {
  /** Execution level of the running batch: 0 for the client's batch, +1 per sp_executesql / EXEC('…') inside it. */
  level: number;
  /** Levels of the open TRY blocks, innermost last. */
  tries: number[];
  /** Errors being handled by the running CATCH blocks, innermost last. */
  caught: SqlError[];
}

const states = new WeakMap<Session, TryState>();

export function tryState(session: Session): TryState {
  let s = states.get(session);
  if (!s) states.set(session, (s = { level: -1, tries: [], caught: [] }));
  return s;
}

/**
 * Whether an open TRY block catches `e` raised at execution level `level`. The page: a TRY...CATCH "catches all
 * execution errors that have a severity higher than 10 that don't close the database connection"; severity ≤ 10
 * (warnings, informational messages) is not caught; compile errors (syntax) and errors of statement-level recompilation
 * (deferred name resolution: 208 for a table that does not exist) are not caught "at the same level of execution as
 * the TRY...CATCH construct", but are when they happen at a lower level, e.g. inside sp_executesql run in the TRY block.
 * Severity ≥ 20 errors that end the connection never reach here (the model drops the connection instead).
 */
export function catches(session: Session, e: SqlError, level: number, sameLevelUncatchable: ReadonlySet<number>): boolean {
  const s = states.get(session);
  const tryLevel = s?.tries.at(-1);
  if (tryLevel === undefined || e.cls <= 10) return false;
  return !(tryLevel === level && sameLevelUncatchable.has(e.number));
}

/** The error the innermost running CATCH block handles; ERROR_*() return NULL outside a CATCH block (page: "Retrieve error information"). */
export function currentCaught(session: Session): SqlError | null {
  return states.get(session)?.caught.at(-1) ?? null;
}

/** Carries a caught error from the failing statement up to its TRY statement (not a SqlError, so no level reports it). */
export class TryTransfer extends Error {
  constructor(readonly error: SqlError) {
    super(error.message);
  }
}
