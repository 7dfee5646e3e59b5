// A finished run, comparison, trace or recording goes to the panel and then into the run history. A history that
// cannot keep it (a full or failing globalState) is a warning in the output, never a failure of what was shown.
import type * as vscode from 'vscode';
import type { RunResult } from '../../profile/types';
import type { PanelData } from '../../shared/webviewProtocol';
import type { ComparisonContext, ComparisonPanels } from '../panel';
import type { RunHistory } from './runHistory';

export interface ShowAndKeepTarget {
  readonly panels: ComparisonPanels;
  readonly history?: RunHistory | undefined;
  readonly output: vscode.LogOutputChannel;
}

/** Shows `data` in the panel, then keeps it in the history; `what` names it in the warning ("the recording"). */
export async function showAndKeep(target: ShowAndKeepTarget, what: string, data: PanelData, runs: readonly RunResult[], context: ComparisonContext | null = null): Promise<void> {
  await target.panels.show(data, runs, context);
  try {
    await target.history?.add(data, runs, context);
  } catch (err) {
    target.output.warn(`Could not keep ${what} in the run history: ${(err as Error).message}`);
  }
}
