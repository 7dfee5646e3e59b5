// What a comparison returns (ComparisonResult) and how its outcome reads: what was kept when it stopped, a workload
// error, and what the restore did. Shared by the runner (compare.ts, compareRuns.ts), the CLI and the panel.
import type { LockHolder } from './databaseLock';
import type { RestoreOutcome } from './durabilityGuard';
import type { OwnershipMarker } from './ownershipMarker';
import type { ComparisonPlan } from './plan';
import type { DurabilityMode, RunError, RunResult } from './types';

export type ComparisonStatus = 'completed' | 'refused' | 'declined' | 'workload-error' | 'cancelled' | 'failed';

export interface ComparisonResult {
  schemaVersion: 1;
  status: ComparisonStatus;
  plan: ComparisonPlan;
  /** Every run in the order it ran, warm-up included (flagged `warmup`). */
  runs: RunResult[];
  setupBatchCount: number;
  /** null when nothing was changed (refused, declined, or failed before the first ALTER). */
  restore: RestoreOutcome | null;
  /** Why the comparison stopped early. */
  error: ComparisonError | null;
  /** Runs measured under a setting other than their planned mode (another session changed it): not in `runs`. */
  discardedRuns?: DiscardedRun[];
  /** Status 'refused' because another comparison holds the database: who holds it. */
  heldBy?: LockHolder;
  /** Status 'refused' because another run's ownership marker is on the database: what it says. */
  ownedBy?: OwnershipMarker;
}

/** Why a comparison stopped early, in words the user reads. */
export interface ComparisonError {
  kind: 'durability-change' | 'workload' | 'cancelled' | 'external-change' | 'ownership-lost' | 'other';
  message: string;
}

export interface DiscardedRun {
  mode: DurabilityMode;
  repetition: number | null;
  warmup: boolean;
  /** The setting found instead of `mode`. */
  settingFound: DurabilityMode;
  when: 'before' | 'after';
}

/** What a stopped comparison keeps: never "the runs so far" when the warm-up was all that ran (issue 20). */
export function keptText(runs: readonly Pick<RunResult, 'warmup'>[]): string {
  const measured = runs.filter((r) => !r.warmup).length;
  if (measured === 0) return runs.length > 0 ? 'it stopped in the warm-up, so no run was measured.' : 'no run was measured.';
  return `the ${measured} measured run${measured === 1 ? '' : 's'} so far ${measured === 1 ? 'is' : 'are'} kept.`;
}

/** "SQL error n: text" for a server error; a lost connection (no server error, number 0) says so instead. */
export function workloadErrorText(mode: DurabilityMode, e: RunError, continued = false): string {
  const where = e.documentLine !== null ? ` (line ${e.documentLine + 1})` : '';
  if (continued) return `The workload raised an error in ${mode}${where}: SQL error ${e.number}: ${e.message} — the server carried on past it, so did the comparison (every run is kept; see each run's errors).`;
  if (e.number === 0) {
    return `The workload failed in ${mode}${where}: the connection to the server was lost (${e.message.replace(/\.+$/, '')}), so the comparison stopped; the runs so far are kept.`;
  }
  return `The workload failed in ${mode}${where}: SQL error ${e.number}: ${e.message}`;
}

export function restoreSummary(restore: RestoreOutcome): string {
  if (restore.status === 'failed') return `DELAYED_DURABILITY was NOT restored to ${restore.originalSetting}: ${restore.message}`;
  if (restore.status === 'external-change' || restore.status === 'in-use') return restore.message;
  if (restore.status === 'restored') return `DELAYED_DURABILITY was restored to ${restore.originalSetting} (verified).`;
  return `DELAYED_DURABILITY is ${restore.originalSetting}, as before (verified).`;
}
