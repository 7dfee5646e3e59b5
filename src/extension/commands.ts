// Registers the Durability Lens commands. Lens commands receive a ProfileTarget from the language
// server; from the palette or the context menu they fall back to the active editor's selection.
import * as vscode from 'vscode';
import { Commands, isProfileTarget } from '../shared/commands';
import type { ProfileMode, ProfilingActions } from './profiling';

export function registerCommands(output: vscode.LogOutputChannel, profiling: ProfilingActions): vscode.Disposable[] {
  const fromLensOrEditor = (mode: ProfileMode) => async (target?: unknown) => {
    if (isProfileTarget(target)) return profiling.profileTarget(target, mode);
    return profileActiveEditor(profiling, mode);
  };
  return [
    vscode.commands.registerCommand(Commands.profileTransaction, fromLensOrEditor('profile')),
    vscode.commands.registerCommand(Commands.profileBatch, fromLensOrEditor('profile')),
    vscode.commands.registerCommand(Commands.compareDurability, fromLensOrEditor('compare')),
    vscode.commands.registerCommand(Commands.profileSelection, () => profileActiveEditor(profiling, 'profile')),
    vscode.commands.registerCommand(Commands.showOutput, () => output.show(true)),
  ];
}

async function profileActiveEditor(profiling: ProfilingActions, mode: ProfileMode): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'sql') {
    await vscode.window.showWarningMessage('Durability Lens: open a SQL file and select the T-SQL to profile (or use a code lens above a COMMIT).');
    return;
  }
  const { document, selection } = editor;
  // Nothing selected means "the whole script", the way query editors run everything without a selection.
  const range = selection.isEmpty ? new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)) : selection;
  await profiling.profileText(document, range, mode);
}
