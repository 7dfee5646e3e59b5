// What the profiling commands need from the profiling controller (implemented in profilingController.ts), and
// the step texts shown in the progress notification (vscode-free, so tests can check them).
import type * as vscode from 'vscode';
import type { ProfileTarget } from '../../shared/commands';

export type ProfileMode = 'profile' | 'compare';

/**
 * What a run came to, for callers that report it (the agent tools): a result was shown and kept, or why nothing was
 * measured — the same text the user was shown (a refusal names the database's owner, since when, its original setting).
 */
export type RunOutcome = { kind: 'result' } | { kind: 'nothing'; reason: string };

export interface ProfilingActions {
  /** A lens (or another caller with a ProfileTarget) asked to profile or compare a batch / transaction. */
  profileTarget(target: ProfileTarget, mode: ProfileMode): Promise<void>;
  /**
   * Profile or compare from an editor: a non-empty `selection` is profiled as is; an empty one (a cursor) means the
   * whole document, wherever the cursor is (docs/selection.md).
   */
  profileText(document: vscode.TextDocument, selection: vscode.Range, mode: ProfileMode): Promise<void>;
}

export { progressLine, progressText, STEP_TEXT } from '../../report/progress';
