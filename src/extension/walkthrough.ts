// The Getting Started walkthrough (package.json contributes.walkthroughs) shows the stand-in demo as its first step
// only while no connection profile exists: this keeps the context key its `when` clause reads up to date.
import * as vscode from 'vscode';

/** True when durabilityLens.connections holds at least one profile. */
export const HAS_CONNECTIONS_CONTEXT = 'durabilityLens.hasConnections';

export function trackConnectionsContext(): vscode.Disposable {
  const update = () => {
    const list = vscode.workspace.getConfiguration('durabilityLens').get<unknown>('connections');
    void vscode.commands.executeCommand('setContext', HAS_CONNECTIONS_CONTEXT, Array.isArray(list) && list.length > 0);
  };
  update();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('durabilityLens.connections')) update();
  });
}
