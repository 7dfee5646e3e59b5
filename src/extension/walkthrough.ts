// The Getting Started walkthrough (package.json contributes.walkthroughs): the context key that shows the stand-in
// demo step only while no connection profile exists, and the command its "Open a T-SQL script" step runs — the
// samples ship inside the extension (samples/ in the VSIX), not in the user's workspace, so Quick Open cannot find
// them; this opens a copy of one in an untitled editor (change it freely, save it where you like).
import * as vscode from 'vscode';
import { WalkthroughCommands } from './commandIds';

/** True when durabilityLens.connections holds at least one profile. */
export const HAS_CONNECTIONS_CONTEXT = 'durabilityLens.hasConnections';

/** The sample the walkthrough opens; the others are offered by the command's quick pick. */
export const FIRST_SAMPLE = 's1-single-row-inserts.sql';

/** A sample's name as a command argument may give it: a plain file name, never a path. */
const SAMPLE_NAME = /^[\w.-]+\.sql$/;

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

/** The bundled samples (samples/*.sql in the extension's folder) with their first comment line as description. */
async function bundledSamples(extensionUri: vscode.Uri): Promise<{ name: string; uri: vscode.Uri; description: string }[]> {
  const folder = vscode.Uri.joinPath(extensionUri, 'samples');
  const entries = await vscode.workspace.fs.readDirectory(folder);
  const names = entries.filter(([name, type]) => type === vscode.FileType.File && SAMPLE_NAME.test(name)).map(([name]) => name).sort();
  return Promise.all(names.map(async (name) => {
    const uri = vscode.Uri.joinPath(folder, name);
    const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    const description = /^--\s*(.*)$/m.exec(text)?.[1]?.trim() ?? '';
    return { name, uri, description };
  }));
}

/** Opens a copy of a bundled sample as an untitled editor named after it (the installed file stays untouched). */
export async function openSample(extensionUri: vscode.Uri, requested?: unknown): Promise<vscode.TextEditor | undefined> {
  const samples = await bundledSamples(extensionUri);
  let chosen = typeof requested === 'string' ? samples.find((s) => s.name === requested) : undefined;
  if (typeof requested === 'string' && !chosen) {
    void vscode.window.showWarningMessage(SAMPLE_NAME.test(requested)
      ? vscode.l10n.t('Durability Lens has no sample named {0}. Pick one of the samples it ships.', requested)
      : vscode.l10n.t('Durability Lens has no sample named like that. Pick one of the samples it ships.'));
  }
  if (!chosen) {
    const pick = await vscode.window.showQuickPick(samples.map((s) => ({ label: s.name, description: s.description, sample: s })), { title: vscode.l10n.t('Open a Durability Lens sample (a copy in an untitled editor)') });
    chosen = pick?.sample;
  }
  if (!chosen) return undefined;
  const content = new TextDecoder().decode(await vscode.workspace.fs.readFile(chosen.uri));
  // untitled:<name> gives the editor the sample's name (and suggests it on Save); a second open shows the same copy.
  const document = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: 'untitled', path: chosen.name }));
  if (document.getText() === '') {
    const edit = new vscode.WorkspaceEdit();
    edit.insert(document.uri, new vscode.Position(0, 0), content);
    await vscode.workspace.applyEdit(edit);
  }
  if (document.languageId !== 'sql') await vscode.languages.setTextDocumentLanguage(document, 'sql');
  return vscode.window.showTextDocument(document);
}

/** The walkthrough's context key and its "open a sample" command. */
export function registerWalkthrough(extensionUri: vscode.Uri): vscode.Disposable[] {
  return [
    trackConnectionsContext(),
    vscode.commands.registerCommand(WalkthroughCommands.openSample, (name?: unknown) => openSample(extensionUri, name)),
  ];
}
