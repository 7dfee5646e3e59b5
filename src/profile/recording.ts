// The workload "run an external program" (or "wait until Stop"), as a WorkloadExecutor the measured run and the
// comparison runner drive exactly like T-SQL batches, plus the step that turns their RunResult into a recording's:
// the program's exit, no per-session waits (its sessions are not ours), server- and database-wide figures labelled.
import type { BatchReport, WorkloadBatch } from '../db/types';
import { notApplicable } from '../probes/measurement';
import type { WaitStatsDiff } from '../probes/waitStats';
import { reconcileRun } from './consistency';
import { counterDelta } from './measureRun';
import { notMeasuredAttribution } from './statementAttribution';
import { displayCommand, runExternalCommand, type CommandOutcome, type CommandSpec } from './externalCommand';
import type { RecordingInfo, RunResult, WorkloadExecutor } from './types';

/** Why a recording has no session waits: shown wherever the figure would be (missing, the CLI, the panel). */
export const FOREIGN_SESSIONS_REASON =
  'The recorded program connects with its own sessions, not ours, so per-session waits do not apply: see the server waits (server-wide: every session on the server adds to them).';

/** Per-statement attribution follows one session of ours; a recorded program's statements run in its own. */
export const FOREIGN_STATEMENTS_REASON = 'The recorded program runs its statements in its own sessions, not ours, so they are not attributed per statement.';

export const SERVER_WIDE_KEYS = ['serverWaits'];
export const DATABASE_WIDE_KEYS = ['files', 'logCounters', 'logFlushTrace', 'samples', 'recording.transactions', 'recording.writeTransactions'];

export interface CommandWorkloadOptions {
  /** Ends a window recording (no command) as completed; ignored when a command runs (it ends by exiting). */
  stop?: AbortSignal;
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

function report(elapsedMs: number, completed: boolean, cancelled: boolean): BatchReport {
  return {
    elapsedMs,
    iterationsCompleted: completed ? 1 : 0,
    statements: 0,
    rowsAffected: 0,
    rowsReturned: 0,
    resultSets: 0,
    messageCount: 0,
    messages: [],
    error: null,
    cancelled,
    connectionLost: false,
  };
}

/** Resolves when `signal` fires (immediately when it already has). */
function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal || signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * One measured workload that is not ours: `executor` runs the program (or waits for Stop) when measureRun asks it to
 * run `batch`; `finishRun` then completes that run's RunResult. One instance serves every run of a comparison.
 */
export class CommandWorkload {
  readonly executor: WorkloadExecutor;
  /** The placeholder batch measureRun hands to the executor: its text names the program. */
  readonly batch: WorkloadBatch;
  private last: { outcome: CommandOutcome; stopped: boolean } | null = null;

  constructor(readonly spec: CommandSpec | null, private readonly options: CommandWorkloadOptions = {}) {
    this.batch = { text: spec ? displayCommand(spec) : '(recording window)', repeat: 1, firstLine: 0 };
    this.executor = {
      run: (_session, _batch, runOptions) => {
        const local = new AbortController();
        const forward = () => local.abort();
        runOptions.signal?.addEventListener('abort', forward, { once: true });
        if (runOptions.signal?.aborted) local.abort();
        const done = this.runOnce(local.signal).finally(() => runOptions.signal?.removeEventListener('abort', forward));
        return { done, cancel: () => local.abort() };
      },
    };
  }

  private async runOnce(cancel: AbortSignal): Promise<BatchReport> {
    this.last = null;
    if (!this.spec) {
      const started = performance.now();
      await Promise.race([aborted(this.options.stop), aborted(cancel)]);
      const durationMs = Math.round(performance.now() - started);
      const cancelled = cancel.aborted;
      this.last = { outcome: { display: '(recording window)', exitCode: null, signal: null, durationMs, ended: cancelled ? 'cancelled' : 'exit', spawnError: null }, stopped: !cancelled };
      return report(durationMs, !cancelled, cancelled);
    }
    const outcome = await runExternalCommand(this.spec, {
      signal: cancel,
      ...(this.options.env ? { env: this.options.env } : {}),
      ...(this.options.cwd ? { cwd: this.options.cwd } : {}),
      ...(this.options.onOutput ? { onOutput: this.options.onOutput } : {}),
    });
    this.last = { outcome, stopped: false };
    return report(outcome.durationMs, outcome.ended === 'exit', outcome.ended === 'cancelled');
  }

  /** The RunResult of the run that just finished, as a recording (call once per measured run, right after it). */
  finishRun(run: RunResult): RunResult {
    const last = this.last;
    this.last = null;
    const timedOut = run.cancel?.reason === 'timeout';
    let ended: RecordingInfo['ended'];
    if (!last) ended = timedOut ? 'timeout' : 'cancelled';
    else if (last.stopped) ended = 'stopped';
    else if (last.outcome.ended === 'cancelled' && timedOut) ended = 'timeout';
    else ended = last.outcome.ended;
    const exitCode = last?.outcome.exitCode ?? null;
    const failed = this.spec !== null && (ended !== 'exit' || exitCode !== 0);
    const recording: RecordingInfo = {
      kind: this.spec ? 'command' : 'window',
      ended,
      signal: last?.outcome.signal ?? null,
      spawnError: last?.outcome.spawnError ?? null,
      failed,
      serverWide: [...SERVER_WIDE_KEYS],
      databaseWide: [...DATABASE_WIDE_KEYS],
      // SQL Server, Databases object: Transactions/sec counts transactions started for the database, Write
      // Transactions/sec those that wrote to it and committed (https://learn.microsoft.com/sql/relational-databases/performance-monitor/sql-server-databases-object).
      transactions: counterDelta(run.diff, 'Transactions/sec'),
      writeTransactions: counterDelta(run.diff, 'Write Transactions/sec'),
    };
    const notes = [
      ...run.notes,
      `Recorded ${this.spec ? `the program ${this.batch.text}` : 'a window'}: server waits are server-wide and per-file IO, log counters and the log-flush trace cover the whole database — every session working there adds to them, not only the program's.`,
    ];
    if (failed) notes.push(commandFailureText(this.batch.text, recording, exitCode));
    const diff = { ...run.diff, sessionWaits: notApplicable<WaitStatsDiff>('sessionWaits', FOREIGN_SESSIONS_REASON) };
    const missing = [
      ...run.missing.filter((m) => m.measurement !== 'sessionWaits' && m.measurement !== 'statementAttribution'),
      { measurement: 'sessionWaits', reason: FOREIGN_SESSIONS_REASON, grant: null },
      { measurement: 'statementAttribution', reason: FOREIGN_STATEMENTS_REASON, grant: null },
    ];
    const statementAttribution = notMeasuredAttribution(FOREIGN_STATEMENTS_REASON, null);
    return {
      ...run,
      // No session of ours ran the workload: the spid measureRun was given is not the program's.
      workloadSpid: 0,
      sessionWaits: [],
      diff,
      missing,
      statements: [],
      statementAttribution,
      // The cross-checks again over what the recording keeps: the per-session ones say why they cannot run.
      consistency: reconcileRun({ diff, logFlushTrace: run.logFlushTrace, statements: [], statementAttribution, missing }).checks,
      notes,
      command: this.spec ? this.batch.text : null,
      exitCode,
      durationMs: last?.outcome.durationMs ?? 0,
      recording,
    };
  }
}

/** One sentence for a program that did not succeed: shown beside its run, never dropped. */
export function commandFailureText(display: string, recording: Pick<RecordingInfo, 'ended' | 'signal' | 'spawnError'>, exitCode: number | null): string {
  switch (recording.ended) {
    case 'spawn-failed':
      return `The program ${display} could not be started (${recording.spawnError ?? 'unknown error'}); nothing it would do was measured.`;
    case 'cancelled':
      return `The program ${display} was stopped by the cancel${recording.signal ? ` (${recording.signal})` : ''}: the figures cover what it did until then.`;
    case 'timeout':
      return `The program ${display} hit the time limit and was stopped${recording.signal ? ` (${recording.signal})` : ''}: the figures cover what it did until then.`;
    default:
      return `The program ${display} exited with code ${exitCode ?? '?'}${recording.signal ? ` (signal ${recording.signal})` : ''}: the run is measured, but the program failed.`;
  }
}
