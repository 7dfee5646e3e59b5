// A profile never changes DELAYED_DURABILITY itself, but the script it runs may (`ALTER DATABASE … SET
// DELAYED_DURABILITY = FORCED` in the setup or the workload), and so may another session meanwhile. The setting read
// when the run began (runContext.ts, TARGET_DATABASE_SQL) is compared with the setting read after it: a difference is
// said in the result (notes, `workloadDurabilityChange`), the CLI, the panel and agent tools, with the statement that
// puts it back — never "not changed". The profile does not put it back itself: the user confirmed the script that
// changed it, not a second ALTER.
import type { SqlClient } from '../db/types';
import { quoteName } from '../db/quote';
import { alterDurabilitySql, DATA_LOSS_CAVEAT, readDurability } from './durabilitySetting';
import type { DurabilityMode, WorkloadDurabilityChange } from './types';

/** The change between the two readings, or null when there is nothing to say (same setting, or no first reading). */
export function workloadDurabilityChangeOf(database: string, before: DurabilityMode | null | undefined, after: DurabilityMode | { unreadable: string }): WorkloadDurabilityChange | null {
  if (!before) return null;
  const restoreStatement = alterDurabilitySql(database, before);
  const name = quoteName(database);
  if (typeof after !== 'string') {
    return {
      database,
      before,
      after: null,
      restoreStatement,
      message: `DELAYED_DURABILITY of ${name} was ${before} when this profile began and could not be read after it (${after.unreadable}); if the script changed it, it is still changed. Check it with SELECT delayed_durability_desc FROM sys.databases WHERE name = DB_NAME(); to put it back: ${restoreStatement}`,
    };
  }
  if (after === before) return null;
  const risk = after === 'DISABLED' ? '' : ` ${DATA_LOSS_CAVEAT}`;
  return {
    database,
    before,
    after,
    restoreStatement,
    message: `DELAYED_DURABILITY of ${name} changed during this profile from ${before} to ${after} — by the script (an ALTER DATABASE in its setup or workload) or by another session — and it is ${after} now. Durability Lens did not change it and has not changed it back.${risk} To put it back: ${restoreStatement}`,
  };
}

/**
 * What changed between `before` and the end of the run: `known` is the setting the after-snapshot read (no extra round
 * trip); without it (unreadable, or more runs followed) the setting is read now, on `monitor` or a fresh connection.
 */
export async function checkDurabilityAfterRun(
  monitor: SqlClient,
  database: string,
  before: DurabilityMode | null | undefined,
  known: DurabilityMode | null | undefined,
  reopen?: () => Promise<SqlClient>,
): Promise<WorkloadDurabilityChange | null> {
  if (!before) return null;
  if (known) return workloadDurabilityChangeOf(database, before, known);
  let after: DurabilityMode | { unreadable: string };
  try {
    after = await readDurability(monitor, database);
  } catch (first) {
    try {
      if (!reopen) throw first;
      after = await readDurability(await reopen(), database);
    } catch (err) {
      after = { unreadable: (err as Error).message };
    }
  }
  return workloadDurabilityChangeOf(database, before, after);
}
