// Export a run or comparison to a file the user picks (JSON, Markdown or CSV): the save dialog, a file name made
// safe from the database name, and the exporter's text. Used by "Export Run" and by the panel's export buttons.
import * as vscode from 'vscode';
import type { RunResult } from '../../profile/types';
import type { ExportFormat, PanelData } from '../../shared/webviewProtocol';
import { exportText, type ComparisonContext } from './panelData';
import { l10n } from '../l10n';

export const EXPORT_FORMATS: Record<ExportFormat, { ext: string; label: string }> = {
  json: { ext: 'json', label: 'JSON' },
  markdown: { ext: 'md', label: 'Markdown' },
  csv: { ext: 'csv', label: 'CSV' },
};

/** A file name from the database name: anything but letters, digits, `_.-` becomes `_` (hostile names included). */
export function exportFileName(data: PanelData, format: ExportFormat): string {
  const base = (data.header.database ?? data.kind).replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^\.+/, '_') || data.kind;
  const stamp = data.createdAt.replace(/[:.]/g, '-');
  return `durability-${data.kind}-${base}-${stamp}.${EXPORT_FORMATS[format].ext}`;
}

/** Save dialog, then the exporter's text; returns the written URI (undefined when the user backed out). */
export async function saveExport(data: PanelData, format: ExportFormat, runs: readonly RunResult[] | undefined, comparison: ComparisonContext | null = null): Promise<vscode.Uri | undefined> {
  const { ext, label } = EXPORT_FORMATS[format];
  const base = vscode.workspace.workspaceFolders?.[0]?.uri;
  const name = exportFileName(data, format);
  const uri = await vscode.window.showSaveDialog({ filters: { [label]: [ext] }, defaultUri: base ? vscode.Uri.joinPath(base, name) : undefined });
  if (!uri) return undefined;
  await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(exportText(data, format, runs && runs.length > 0 ? runs : undefined, comparison)));
  void vscode.window.showInformationMessage(l10n.t(`Durability Lens: exported {0} to {1}.`, label, vscode.workspace.asRelativePath(uri)));
  return uri;
}
