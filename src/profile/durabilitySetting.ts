// DELAYED_DURABILITY itself: the statement that reads it (sys.databases), the ALTER that changes it (quoted, one of three
// keywords, WITH NO_WAIT), the change verified by reading it back, lock waits retried with backoff, and the errors that
// say whether the setting changed. The guard (durabilityGuard.ts) and recovery (recovery.ts) are built on these.
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { sqlErrorsOf } from '../db/errors';
import { durabilityOfDesc } from '../probes/databaseInfo';
import { DURABILITY_MODES, type DurabilityMode } from './types';

/** delayed_durability_desc: DISABLED / ALLOWED / FORCED (Learn: sys-databases-transact-sql; reference §5). */
export const READ_DURABILITY_SQL = `SELECT delayed_durability_desc
FROM sys.databases
WHERE name = @database_name;`;

/**
 * ALTER DATABASE SET DELAYED_DURABILITY with NO_WAIT: fail at once instead of waiting on locks, never roll back
 * other sessions (Learn: alter-database-transact-sql-set-options; reference §5). The mode is one of three
 * keywords checked here; the name is quoted.
 */
export function alterDurabilitySql(database: string, mode: DurabilityMode): string {
  if (!DURABILITY_MODES.includes(mode)) throw new RangeError(`Not a DELAYED_DURABILITY value: ${String(mode)}`);
  return `ALTER DATABASE ${quoteName(database)} SET DELAYED_DURABILITY = ${mode} WITH NO_WAIT;`;
}

export const DATA_LOSS_CAVEAT =
  'While a database is FORCED (or ALLOWED with delayed commits), committed transactions whose log was not yet flushed can be lost on a crash, shutdown or restart; consistency is kept (Learn: Control Transaction Durability).';

export async function readDurability(client: SqlClient, database: string): Promise<DurabilityMode> {
  const rows = await client.query(READ_DURABILITY_SQL, [{ name: 'database_name', type: 'nvarchar', value: database }]);
  const mode = durabilityOfDesc(rows[0]?.delayed_durability_desc);
  if (mode !== null) return mode;
  throw new Error(`sys.databases has no DELAYED_DURABILITY for database ${quoteName(database)} (is it visible to this login?).`);
}

/** The ALTER failed or did not take effect; says whether the setting changed and what the server said. */
export class DurabilityChangeError extends Error {
  constructor(
    message: string,
    readonly statement: string,
    readonly serverErrorNumber: number | null,
    /** The setting read back after the failure; null when it could not be read. */
    readonly settingNow: DurabilityMode | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DurabilityChangeError';
  }
}

/**
 * Lock errors an ALTER ... WITH NO_WAIT reports when another session holds a lock on the database: 5061 (NO_WAIT
 * could not get the lock; test/standin/MODEL.md "ALTER DATABASE") and 1222 (lock timeout). 5069 ("ALTER DATABASE
 * statement failed") accompanies every failure, permission errors included, so it says nothing about locks.
 */
export const LOCK_ERROR_NUMBERS: ReadonlySet<number> = new Set([5061, 1222]);
/** 5011: the login may not alter this database (MODEL.md "ALTER DATABASE"). */
export const ALTER_DENIED_ERROR_NUMBER = 5011;

/** Socket-level codes tedious and src/db use for a connection that is gone (src/db/workload.ts uses the same). */
const CONNECTION_LOST_CODES = new Set(['ESOCKET', 'ECLOSE', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** True when `err` carries no server error and its code (anywhere in the cause chain) says the socket is gone. */
export function isConnectionLost(err: unknown): boolean {
  if (sqlErrorsOf(err).length > 0) return false;
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 6; depth++, e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_LOST_CODES.has(code)) return true;
  }
  return false;
}

export interface ChangeAdvice {
  /** The GRANT that allows the ALTER (identifiers quoted); shown when the server refuses with 5011. */
  grant?: string;
}

/** What to tell the user after a failed ALTER: only the advice that fits the error. */
function adviceFor(err: unknown, database: string, advice: ChangeAdvice): string {
  const numbers = sqlErrorsOf(err).map((e) => e.number);
  if (numbers.some((n) => LOCK_ERROR_NUMBERS.has(n))) {
    return 'WITH NO_WAIT fails instead of waiting when another session holds a lock on the database; try again when it is idle.';
  }
  if (numbers.includes(ALTER_DENIED_ERROR_NUMBER)) {
    const grant = advice.grant ?? `GRANT ALTER ON DATABASE::${quoteName(database)} TO <the database user of this login>;`;
    return `The login lacks ALTER permission on ${quoteName(database)}. Ask an administrator to run: ${grant}`;
  }
  return '';
}

/** The driver's text without what src/db appends ("(while running: …)") and without a final period. */
function driverText(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return message.replace(/\s*\(while running: .*\)$/s, '').replace(/\.+$/, '');
}

/** Runs the ALTER and re-reads the setting; throws DurabilityChangeError when it did not become `mode`. */
export async function setDurability(client: SqlClient, database: string, mode: DurabilityMode, advice: ChangeAdvice = {}): Promise<void> {
  const statement = alterDurabilitySql(database, mode);
  try {
    await client.execute(statement);
  } catch (err) {
    const first = sqlErrorsOf(err)[0];
    let now: DurabilityMode | null = null;
    try {
      now = await readDurability(client, database);
    } catch {
      now = null;
    }
    const state = now === null ? 'The current setting could not be read back.' : `The setting is still ${now}.`;
    const what = first
      ? ` (SQL error ${first.number}: ${first.message.replace(/\.+$/, '')}).`
      : isConnectionLost(err)
        ? `: the connection to the server was lost (${driverText(err)}), so whether the ALTER ran is not known.`
        : ` (${driverText(err)}).`;
    const tail = adviceFor(err, database, advice);
    throw new DurabilityChangeError(
      `Could not set DELAYED_DURABILITY = ${mode} on ${quoteName(database)}${what} ${state}${tail ? ` ${tail}` : ''}`,
      statement,
      first?.number ?? null,
      now,
      { cause: err },
    );
  }
  let now: DurabilityMode;
  try {
    now = await readDurability(client, database);
  } catch (err) {
    throw new DurabilityChangeError(
      `ALTER DATABASE ran, but the setting could not be read back (${driverText(err)}); it may now be ${mode}.`,
      statement,
      null,
      null,
      { cause: err },
    );
  }
  if (now !== mode) {
    throw new DurabilityChangeError(`ALTER DATABASE reported success, but sys.databases says ${now}, not ${mode}.`, statement, null, now);
  }
}

const FIRST_RETRY_DELAY_MS = 100;
const MAX_RETRY_DELAY_MS = 2_000;

function isLockError(err: unknown): boolean {
  return err instanceof DurabilityChangeError && err.serverErrorNumber !== null && LOCK_ERROR_NUMBERS.has(err.serverErrorNumber);
}

/**
 * setDurability, retried with exponential backoff while the server reports a lock wait (5061/1222) and the deadline
 * allows: another session's lock on the database is usually short-lived.
 */
export async function setDurabilityRetrying(client: SqlClient, database: string, mode: DurabilityMode, advice: ChangeAdvice, deadline: number): Promise<void> {
  let delay = FIRST_RETRY_DELAY_MS;
  for (;;) {
    try {
      await setDurability(client, database, mode, advice);
      return;
    } catch (err) {
      if (!isLockError(err) || Date.now() + delay > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, delay)); // backoff before the next attempt
      delay = Math.min(delay * 2, MAX_RETRY_DELAY_MS);
    }
  }
}
