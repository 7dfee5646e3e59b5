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

export function autocommitDmlInLoop(kind: DmlKind, repeatedBatchOnly: boolean, repeat: number, inRoutine: RoutineKind | null = null): string {
  const where = repeatedBatchOnly ? repeatText(repeat) : 'inside a loop';
  const fix = repeatedBatchOnly
    ? 'Loop inside the batch instead, within one BEGIN TRAN ... COMMIT'
    : 'Wrap the loop in one BEGIN TRAN ... COMMIT (or commit every few thousand rows)';
  return `${kind} runs ${where} with no transaction open: the server commits each execution on its own, and each ` +
    `fully durable commit waits for its log flush (WRITELOG) before the next row.${callerCaveat(inRoutine)} ${fix}, or ` +
    `use delayed durability where losing the last commits on a crash is acceptable.`;
}

export function commitInLoop(repeatedBatchOnly: boolean, repeat: number): string {
  const where = repeatedBatchOnly ? repeatText(repeat) : 'inside a loop, on every iteration';
  const advice = repeatedBatchOnly
    ? 'Loop inside the batch instead (WHILE within one BEGIN TRAN ... COMMIT), so many changes share one flush.'
    : 'Commit once after the loop, or every N iterations, so many changes share one flush.';
  return `COMMIT ${where}: the server ends a transaction and, unless it is delayed durable, waits for its log flush ` +
    `each time before going on. ${advice}`;
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

export function beginWithoutEnd(): string {
  return `BEGIN TRAN has no COMMIT or ROLLBACK after it in this script: when the script ends the transaction is ` +
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
