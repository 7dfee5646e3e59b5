// Diagnostic wording: what was found, what it costs in log flushes, and what to do. Facts follow Learn's
// "Control Transaction Durability" (https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability).

import type { DatabaseDurabilityContext, DmlKind } from './types';

function repeatText(repeat: number): string {
  return `in a batch the client runs ${repeat} times (GO ${repeat})`;
}

export function autocommitDmlInLoop(kind: DmlKind, repeatedBatchOnly: boolean, repeat: number): string {
  const where = repeatedBatchOnly ? repeatText(repeat) : 'inside a loop';
  const fix = repeatedBatchOnly
    ? 'Loop inside the batch instead, within one BEGIN TRAN ... COMMIT'
    : 'Wrap the loop in one BEGIN TRAN ... COMMIT (or commit every few thousand rows)';
  return `${kind} runs ${where} outside any explicit transaction: each execution commits on its own and waits ` +
    `for its own log flush (WRITELOG). ${fix}, or use delayed durability where losing the last commits on a ` +
    `crash is acceptable.`;
}

export function commitInLoop(repeatedBatchOnly: boolean, repeat: number): string {
  const where = repeatedBatchOnly ? repeatText(repeat) : 'inside a loop';
  const advice = repeatedBatchOnly
    ? 'Loop inside the batch instead (WHILE within one BEGIN TRAN ... COMMIT), so many changes share one flush.'
    : 'Commit once after the loop, or every N iterations, so many changes share one flush.';
  return `COMMIT ${where}: every execution ends a transaction and waits for its log flush before going on. ${advice}`;
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
  return `BEGIN TRAN has no COMMIT or ROLLBACK in this batch: the transaction is still open when the batch ends ` +
    `(@@TRANCOUNT > 0), keeping its locks until a later batch ends it.`;
}

export function endWithoutBegin(verb: 'COMMIT' | 'ROLLBACK'): string {
  return `${verb} has no BEGIN TRAN before it in this batch: it only succeeds if a transaction is already open ` +
    `when the batch runs. Guard it with IF @@TRANCOUNT > 0, or move the BEGIN TRAN into this batch.`;
}
