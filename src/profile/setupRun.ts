// Runs the setup part of a script (before the snapshots, unmeasured) on the WORKLOAD connection; profile and
// compare share it so a setup error reads the same from both.
import type { SqlSession, WorkloadBatch, WorkloadMessage } from '../db/types';
import type { WorkloadExecutor } from './types';

/** The setup failed: nothing was measured; the message names the SQL error and document line. */
export class SetupFailedError extends Error {
  constructor(
    message: string,
    readonly number: number,
    readonly documentLine: number | null,
  ) {
    super(message);
    this.name = 'SetupFailedError';
  }
}

export type SetupOutcome = { status: 'done' } | { status: 'cancelled' } | { status: 'failed'; error: SetupFailedError };

export async function runSetup(
  workload: SqlSession,
  setup: readonly WorkloadBatch[],
  executor: WorkloadExecutor,
  options: { onMessage?: ((m: WorkloadMessage) => void) | undefined; signal?: AbortSignal | undefined },
): Promise<SetupOutcome> {
  for (const batch of setup) {
    if (options.signal?.aborted) return { status: 'cancelled' };
    const report = await executor.run(workload, batch, options).done;
    if (report.cancelled) return { status: 'cancelled' };
    if (report.error) {
      const line = report.error.documentLine !== null ? ` (line ${report.error.documentLine + 1})` : '';
      return { status: 'failed', error: new SetupFailedError(`The setup failed${line}: SQL error ${report.error.number}: ${report.error.message}`, report.error.number, report.error.documentLine) };
    }
  }
  return { status: 'done' };
}
