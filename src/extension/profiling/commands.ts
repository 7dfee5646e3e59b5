// Registers the profiling commands. Lens commands receive a ProfileTarget from the language server; from the
// palette or the context menu they use the active editor: its selection, else the whole document (docs/selection.md).
import * as vscode from 'vscode';
import { Commands, isProfileTarget } from '../../shared/commands';
import type { ProfileMode, ProfilingActions } from './profiling';
import { l10n } from '../l10n';

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
    await vscode.window.showWarningMessage(l10n.t('Durability Lens: open a SQL file and select the T-SQL to profile (or use a code lens above a COMMIT).'));
    return;
  }
  await profiling.profileText(editor.document, editor.selection, mode);
}
