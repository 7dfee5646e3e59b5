// What the profiling commands need from the profiling controller (implemented in profilingController.ts), and
// the step texts shown in the progress notification (vscode-free, so tests can check them).
import type * as vscode from 'vscode';
import type { ProfileTarget } from '../shared/commands';
import type { ProfileStep, ProgressEvent } from '../profile/types';
import { formatBytes, formatCount, formatDuration } from '../report/units';

export type ProfileMode = 'profile' | 'compare';

export interface ProfilingActions {
  /** A lens (or another caller with a ProfileTarget) asked to profile or compare a batch / transaction. */
  profileTarget(target: ProfileTarget, mode: ProfileMode): Promise<void>;
  /**
   * Profile or compare from an editor: a non-empty `selection` is profiled as is; an empty one (a cursor) means
   * the batch under the cursor, or the whole document when it has a single batch.
   */
  profileText(document: vscode.TextDocument, selection: vscode.Range, mode: ProfileMode): Promise<void>;
}

/** 'cancel' is listed explicitly: the step exists since the profile layer reports the attention it sends. */
export const STEP_TEXT: Record<ProfileStep | 'cancel', string> = {
  connect: 'Connecting (workload and monitor connections)',
  preflight: 'Checking permissions',
  'snapshot-before': 'Reading counters before the run',
  'xe-start': 'Starting the log-flush trace',
  setup: 'Running the setup batches (not measured)',
  workload: 'Running the workload',
  cancel: 'Cancelling: attention sent, waiting for the server to stop the batch',
  'snapshot-after': 'Reading counters after the run',
  'xe-read': 'Reading the log-flush trace',
  'xe-drop': 'Dropping the log-flush trace',
  plan: 'Planning the comparison',
  'set-durability': 'Switching DELAYED_DURABILITY',
  'restore-durability': 'Restoring DELAYED_DURABILITY',
  done: 'Done',
};

export function progressText(step: ProfileStep, detail?: string): string {
  return detail ? `${STEP_TEXT[step]}: ${detail}` : STEP_TEXT[step];
}

/**
 * The whole progress line: the comparison run, the step, and while the workload runs its batch / GO iteration,
 * elapsed time and the sampler's live log figures ("Run 3 of 7: FORCED — Running the workload: batch 1 of 1,
 * GO iteration 120 of 500 — 4.20 s, 1,234 log flushes, 4.82 MiB of log").
 */
export function progressLine(event: ProgressEvent): string {
  const run = event.run ? `${event.run[0]!.toUpperCase()}${event.run.slice(1)} — ` : '';
  const live = event.live;
  const figures = live
    ? ` — ${formatDuration(live.elapsedMs)}${live.logFlushes !== null ? `, ${formatCount(live.logFlushes)} log flushes` : ''}${live.logBytes !== null ? `, ${formatBytes(live.logBytes)} of log` : ''}`
    : '';
  return `${run}${progressText(event.step, event.detail)}${figures}`;
}
