// Progress as people read it (notification, panel, CLI): the step in words, the comparison run it belongs to, and while
// the workload runs its batch / GO iteration, elapsed time and the sampler's live log figures.
import type { ProfileStep, ProgressEvent } from '../profile/types';
import { formatBytes, formatCount, formatDuration } from './units';

/** 'cancel' is listed explicitly: the step exists since the profile layer reports the attention it sends. */
export const STEP_TEXT: Record<ProfileStep | 'cancel', string> = {
  connect: 'Connecting (workload and monitor connections)',
  preflight: 'Checking permissions',
  'snapshot-before': 'Reading counters before the run',
  'xe-start': 'Starting the log-flush trace',
  setup: 'Running the setup batches (not measured)',
  workload: 'Running the workload',
  'workload-progress': 'Running the workload',
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
