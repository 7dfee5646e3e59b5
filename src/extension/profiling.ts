// What the profiling commands do. Until connection support lands, the pending implementation says
// plainly what would have been profiled and why nothing ran; the real one replaces it in extension.ts.
import * as vscode from 'vscode';
import { describeTarget, type ProfileTarget } from '../shared/commands';

export type ProfileMode = 'profile' | 'compare';

export interface ProfilingActions {
  /** A lens (or another caller with a ProfileTarget) asked to profile or compare a batch / transaction. */
  profileTarget(target: ProfileTarget, mode: ProfileMode): Promise<void>;
  /** Profile or compare T-SQL the user selected (or the whole document when nothing is selected). */
  profileText(document: vscode.TextDocument, range: vscode.Range, mode: ProfileMode): Promise<void>;
}

const NOT_YET =
  'Profiling needs a SQL Server connection, and connection support is coming in the next release. ' +
  'Nothing was run and no database setting was changed.';

export class PendingProfiling implements ProfilingActions {
  constructor(private readonly output: vscode.LogOutputChannel) {}

  async profileTarget(target: ProfileTarget, mode: ProfileMode): Promise<void> {
    await this.explain(`${verb(mode)} ${describeTarget(target)}`);
  }

  async profileText(document: vscode.TextDocument, range: vscode.Range, mode: ProfileMode): Promise<void> {
    const lines = range.start.line === range.end.line ? `line ${range.start.line + 1}` : `lines ${range.start.line + 1}–${range.end.line + 1}`;
    await this.explain(`${verb(mode)} ${lines} of ${vscode.workspace.asRelativePath(document.uri)}`);
  }

  private async explain(what: string): Promise<void> {
    this.output.info(`${what}: not run. ${NOT_YET}`);
    await vscode.window.showInformationMessage(`Durability Lens: ${what}. ${NOT_YET}`);
  }
}

function verb(mode: ProfileMode): string {
  return mode === 'compare' ? 'Compare durability modes for' : 'Profile';
}
