// Finds a routine's CREATE/ALTER in the workspace's .sql files (issue 30, item 2): files read with the same decoding as
// the CLI (UTF-16 from SSMS, UTF-8, the legacy code page), at most MAX_FILES of them and none above MAX_FILE_BYTES, the
// open documents' unsaved text first. Nothing here reaches a server: the file text only locates a definition.
import * as vscode from 'vscode';
import { decodeScript } from '../../cli/textDecoding';
import { findRoutine, mentions, type RoutineMatch } from './locate';
import { byCodeUnits } from '../../shared/textOrder';

export const MAX_FILES = 5000;
export const MAX_FILE_BYTES = 8 * 1024 * 1024;
const EXCLUDE = '{**/node_modules/**,**/.git/**,**/bin/**,**/obj/**}';

export interface WorkspaceDefinition extends RoutineMatch {
  uri: vscode.Uri;
}

async function textOf(uri: vscode.Uri): Promise<string | null> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > MAX_FILE_BYTES) return null;
    return decodeScript(await vscode.workspace.fs.readFile(uri)).text;
  } catch {
    return null; // unreadable or not text: not a definition we can show
  }
}

/** Every definition of `schema.name` in the workspace, open documents first, then files in path order. */
export async function findWorkspaceDefinitions(schema: string | null, name: string, statement: string | undefined, token?: vscode.CancellationToken): Promise<WorkspaceDefinition[]> {
  const found: WorkspaceDefinition[] = [];
  const seen = new Set<string>();
  const consider = async (uri: vscode.Uri) => {
    if (seen.has(uri.toString())) return;
    seen.add(uri.toString());
    const text = await textOf(uri);
    if (text === null || !mentions(text, name)) return;
    for (const m of findRoutine(text, schema, name, statement)) found.push({ ...m, uri });
  };
  for (const d of vscode.workspace.textDocuments) if (d.languageId === 'sql' && d.uri.scheme !== 'durability-lens-server') await consider(d.uri);
  const files = await vscode.workspace.findFiles('**/*.sql', EXCLUDE, MAX_FILES, token);
  files.sort((a, b) => byCodeUnits(a.path, b.path));
  for (const f of files) {
    if (token?.isCancellationRequested) break;
    await consider(f);
  }
  return found;
}
