// What one measured run stands on: the open sessions and the target database (RunContext, built once by the caller
// and reused across a comparison's runs), its options, how a cancel before measuring surfaces, and progress steps.
import type { Row, SqlClient, SqlSession } from '../db/types';
import type { BenignWaitOptions, PreflightResult } from '../probes';
import { durabilityOfDesc } from '../probes/databaseInfo';
import { num, text } from '../probes/values';
import type { ConcurrentSessions } from './concurrency';
import type { DurabilityMode, FigureSource, ProfileCallbacks, ProfileStep, SamplingOptions, WorkloadExecutor, XeOptions } from './types';

/** Live workload progress is reported at most this often (batch starts are always reported). */
export const LIVE_PROGRESS_MS = 250;

/**
 * The monitor connection is opened in the target database; DB_ID()/DB_NAME() name it (Learn: db-id-transact-sql).
 * Its DELAYED_DURABILITY comes along (a profile compares it with the setting after the run: a script may change it).
 * "The database to which the caller is connected can always be viewed in sys.databases" (Learn: sys-databases), so
 * no permission beyond the connection is needed.
 */
export const TARGET_DATABASE_SQL = `SELECT DB_ID() AS database_id, DB_NAME() AS database_name,
  (SELECT d.delayed_durability_desc FROM sys.databases AS d WHERE d.database_id = DB_ID()) AS delayed_durability_desc;`;

/**
 * Thrown when the AbortSignal fired before the before-snapshot (nothing was measured yet); everything the run
 * opened or created was cleaned up first. A cancel during the workload returns a RunResult with status 'cancelled'.
 */
export class ProfileCancelledError extends Error {
  constructor(message = 'The run was cancelled.') {
    super(message);
    this.name = 'AbortError';
  }
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new ProfileCancelledError();
}

/** The stand-in's @@VERSION says "Durability Lens stand-in"; anything else is treated as a real SQL Server. */
export function figureSourceOf(versionText: string): FigureSource {
  return /durability lens stand-in/i.test(versionText) ? 'stand-in' : 'sql-server';
}

export interface TargetDatabase {
  databaseId: number;
  databaseName: string;
  /** DELAYED_DURABILITY when the run began (before any setup); null when sys.databases did not say. */
  delayedDurability?: DurabilityMode | null;
}

/**
 * Reads the target database on the monitor. `fresh`: the monitor was opened just now (for this run), so the row its
 * login read (src/db/connect.ts, the same columns) still holds and no request is needed; an older session is asked.
 */
export async function readTargetDatabase(monitor: SqlClient & { readonly atLogin?: Row | null }, options: { fresh?: boolean } = {}): Promise<TargetDatabase> {
  const row = (options.fresh && monitor.atLogin ? monitor.atLogin : (await monitor.query(TARGET_DATABASE_SQL))[0]) ?? {};
  const databaseId = num(row.database_id);
  const databaseName = text(row.database_name);
  if (databaseId === null || databaseName === null) throw new Error('The monitor connection could not read DB_ID()/DB_NAME().');
  return { databaseId, databaseName, delayedDurability: durabilityOfDesc(row.delayed_durability_desc) };
}

/** Everything one measured run needs besides the batches; the comparison runner reuses it across runs. */
export interface RunContext extends ProfileCallbacks {
  workload: SqlSession;
  monitor: SqlSession;
  target: TargetDatabase;
  executor?: WorkloadExecutor | undefined;
  xe?: XeOptions | undefined;
  signal?: AbortSignal | undefined;
  /** Reopens a monitor connection so the event session can still be dropped when the first one died. */
  reconnectMonitor?: (() => Promise<SqlClient>) | undefined;
  /** Read once per comparison; a plain run reads it itself. */
  preflight?: PreflightResult | null;
  /** Default: on, every 1000 ms. */
  sampling?: SamplingOptions | undefined;
  /** Cancel the workload (attention) after this many ms; the run ends 'cancelled' with reason 'timeout'. */
  workloadTimeoutMs?: number | undefined;
  /** The user's changes to the shipped benign-wait list for the server waits (include un-hides, exclude hides). */
  waits?: BenignWaitOptions | undefined;
  /** A concurrency sweep's level: the batches run on these sessions at once instead of on `workload` (concurrency.ts). */
  concurrent?: ConcurrentSessions | undefined;
}

export interface MeasureOptions {
  mode?: DurabilityMode | null;
  repetition?: number | null;
  warmup?: boolean;
  /** Recorded in the result (setup run by the caller before this run). */
  setupBatchCount?: number;
}

export function progress(ctx: ProfileCallbacks, step: ProfileStep, detail?: string): void {
  ctx.onProgress?.({ step, at: Date.now(), detail });
}
