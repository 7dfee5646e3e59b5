// Diagnostic wording: what was found, what it costs in log flushes, and what to do. Facts follow Learn's
// "Control Transaction Durability" (https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability).

import type { RoutineKind } from './structure-types';
import type { DatabaseDurabilityContext, DmlKind } from './types';

function repeatText(repeat: number): string {
  return `in a batch the client runs ${repeat} times (GO ${repeat})`;
}

/** Where a finding's certainty comes from: a routine body runs inside whatever its caller opened. */
function callerCaveat(inRoutine: RoutineKind | null): string {
  return inRoutine === 'PROCEDURE' || inRoutine === 'FUNCTION'
    ? ' This holds when the procedure is called with no transaction open; a caller\'s BEGIN TRAN would cover it.'
    : '';
}

/** Why a loop finding is a hint: the iteration runs work whose cost the text does not show, or runs a few times. */
export type LoopDoubt = 'opaque' | 'few' | 'rows';

function doubtText(doubt: LoopDoubt | null): string {
  switch (doubt) {
    case null: return '';
    case 'opaque':
      return ' Each iteration also runs work whose cost the script does not show (a procedure call, dynamic SQL, a ' +
        'wait, a maintenance command): whether the per-iteration commits matter depends on it.';
    case 'rows':
      return ' Its WHERE clause compares a column with a literal: whether that is a key (one row per commit) or a ' +
        'value many rows share, the script does not say.';
    case 'few':
      return ' The loop looks short (a cursor over catalog views, or a count up to a small number): with a handful ' +
        'of iterations the extra flushes cost little.';
  }
}

export function autocommitDmlInLoop(
  kind: DmlKind, repeatedBatchOnly: boolean, repeat: number, inRoutine: RoutineKind | null = null, doubt: LoopDoubt | null = null,
): string {
  const where = repeatedBatchOnly ? repeatText(repeat) : 'inside a loop';
  const fix = repeatedBatchOnly
    ? 'Loop inside the batch instead, within one BEGIN TRAN ... COMMIT'
    : 'Wrap the loop in one BEGIN TRAN ... COMMIT (or commit every few thousand rows)';
  return `${kind} runs ${where} with no transaction open: the server commits each execution on its own, and each ` +
    `fully durable commit waits for its log flush (WRITELOG) before the next row.${callerCaveat(inRoutine)}${doubtText(doubt)} ${fix}, or ` +
    `use delayed durability where losing the last commits on a crash is acceptable.`;
}

export function commitInLoop(repeatedBatchOnly: boolean, repeat: number, doubt: LoopDoubt | null = null): string {
  const where = repeatedBatchOnly ? repeatText(repeat) : 'inside a loop, on every iteration';
  const advice = repeatedBatchOnly
    ? 'Loop inside the batch instead (WHILE within one BEGIN TRAN ... COMMIT), so many changes share one flush.'
    : 'Commit once after the loop, or every N iterations, so many changes share one flush.';
  return `COMMIT ${where}: the server ends a transaction and, unless it is delayed durable, waits for its log flush ` +
    `each time before going on.${doubtText(doubt)} ${advice}`;
}

/** The recommended commit-every-N pattern: a hint that says what it costs, not a problem. */
export function commitEveryN(everyN: number | null): string {
  const n = everyN === null ? 'every few iterations' : `every ${everyN} iterations`;
  return `COMMIT under a condition inside the loop (${n}): the commit-in-batches pattern. The server waits for one ` +
    `log flush per batch instead of one per row, which is what this pattern is for; nothing to change unless the ` +
    `batches are small.`;
}

export function delayedCommit(option: 'ON' | 'OFF', what: 'COMMIT' | 'BEGIN ATOMIC', db: DatabaseDurabilityContext | null): string | null {
  const clause = `DELAYED_DURABILITY = ${option}`;
  if (db === null || db === undefined) {
    if (option === 'OFF') return null;
    return `${what} ... WITH (${clause}) only takes effect when the database's DELAYED_DURABILITY is ALLOWED: ` +
      `DISABLED ignores it (the commit stays fully durable) and FORCED makes every commit delayed anyway. ` +
      `Check sys.databases.delayed_durability_desc, or connect so Durability Lens can tell.`;
  }
  const name = db.database;
  switch (db.delayedDurability) {
    case 'DISABLED':
      return option === 'ON'
        ? `Ignored: database ${name} is DISABLED, so this ${what} stays fully durable. ` +
          `ALTER DATABASE ... SET DELAYED_DURABILITY = ALLOWED lets the option take effect.`
        : null;
    case 'ALLOWED':
      return option === 'ON'
        ? `Honoured: database ${name} is ALLOWED, so this ${what} returns before its log is on disk; ` +
          `a crash can lose it until a later fully durable commit or sys.sp_flush_log hardens the log.`
        : null;
    case 'FORCED':
      return option === 'ON'
        ? `Redundant: database ${name} is FORCED, so every commit there is delayed durable with or without this option.`
        : `Ignored: database ${name} is FORCED, so this ${what} is delayed durable despite ${clause}.`;
  }
}

export function forcedDurability(database: string | null): string {
  const target = database === null ? 'the current database' : `database ${database}`;
  return `DELAYED_DURABILITY = FORCED makes every commit in ${target} delayed durable: commits return before ` +
    `their log is on disk, so a crash or even a planned shutdown can lose the last committed transactions. ` +
    `Prefer ALLOWED plus COMMIT ... WITH (DELAYED_DURABILITY = ON) where loss is acceptable, and set it back ` +
    `to DISABLED when done.`;
}

export function beginWithoutEnd(inRoutine: RoutineKind | null = null, restoring = false): string {
  if (inRoutine !== null && restoring) {
    // Learn, "Rollbacks and Commits in Stored Procedures and Triggers": error 266 when @@TRANCOUNT differs between the
    // start and the end of a procedure; a BEGIN TRANSACTION after the COMMIT that lowered it avoids the error
    // (https://learn.microsoft.com/previous-versions/sql/sql-server-2008/ms187844(v=sql.100)).
    return `BEGIN TRAN has no COMMIT or ROLLBACK after it in this ${inRoutine.toLowerCase()}: it returns with a ` +
      `transaction open. It comes after something that may have changed the caller's transaction count (a ROLLBACK, ` +
      `a COMMIT of the caller's transaction, a procedure call, a @@TRANCOUNT test), so it may be restoring the count ` +
      `the caller had; if not, the server raises error 266 when the ${inRoutine.toLowerCase()} returns with a ` +
      `different @@TRANCOUNT.`;
  }
  const where = inRoutine === null ? 'script' : inRoutine.toLowerCase();
  return `BEGIN TRAN has no COMMIT or ROLLBACK after it in this ${where}: when it ends the transaction is ` +
    `still open (@@TRANCOUNT > 0) and keeps its locks and log until the session commits, rolls back or closes ` +
    `(closing rolls it back). Certain only if no caller or later script ends it.`;
}

export function endWithoutBegin(verb: 'COMMIT' | 'ROLLBACK', inRoutine: RoutineKind | null = null): string {
  const where = inRoutine === null ? 'earlier in this script' : `in this ${inRoutine.toLowerCase()}`;
  const caller = inRoutine === null ? 'a transaction is already open when the script runs'
    : 'its caller has a transaction open';
  return `${verb} has no BEGIN TRAN ${where}: it only succeeds if ${caller}; with none open the server raises an ` +
    `error. Guard it with IF @@TRANCOUNT > 0 (or XACT_STATE() <> 0), or open the transaction here.`;
}
