// "Show Run History" (reopen an earlier run, comparison or trace in the panel) and "Export Run" (JSON, Markdown or
// CSV through a save dialog), over the per-workspace RunHistory. Quick-pick placeholders are stable for the e2e tests.
import * as vscode from 'vscode';
import { HistoryCommands } from '../commandIds';
import { type ComparisonPanels, EXPORT_FORMATS, saveExport, panelDataFromDocument, type ComparisonContext } from '../panel';
import { ComparisonFormatError, loadComparison } from '../../report/document';
import type { ExportFormat } from '../../shared/webviewProtocol';
import { describeEntry, type HistoryEntry, type RunHistory } from './runHistory';
import { neutraliseDocument, tooLargeText } from '../../agent/untrustedComparison';
import { l10n } from '../l10n';

// Translated when shown (activation installs vscode.l10n.t after this module loads).
export const HISTORY_PLACEHOLDER = () => l10n.t('Durability Lens run history: pick a run or comparison to reopen');
export const EXPORT_PICK_PLACEHOLDER = () => l10n.t('Export which run or comparison?');
export const EXPORT_FORMAT_PLACEHOLDER = () => l10n.t('Export format');

async function pickEntry(history: RunHistory, placeHolder: string): Promise<HistoryEntry | undefined> {
  const entries = history.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage(l10n.t('Durability Lens: no runs yet in this workspace. Profile a selection or compare durability first.'));
    return undefined;
  }
  type Item = vscode.QuickPickItem & { entry: HistoryEntry };
  const items: Item[] = entries.map((entry) => ({ ...describeEntry(entry), entry }));
  const picked = await vscode.window.showQuickPick(items, { placeHolder, matchOnDescription: true, matchOnDetail: true });
  return picked?.entry;
}

export async function showRunHistory(history: RunHistory, panels: ComparisonPanels): Promise<void> {
  const entry = await pickEntry(history, HISTORY_PLACEHOLDER());
  if (entry) await panels.show(entry.panel, entry.runs, entry.comparison ?? null);
}

export async function exportRun(history: RunHistory): Promise<void> {
  const entry = await pickEntry(history, EXPORT_PICK_PLACEHOLDER());
  if (!entry) return;
  type Item = vscode.QuickPickItem & { format: ExportFormat };
  const formats: Item[] = (Object.keys(EXPORT_FORMATS) as ExportFormat[]).map((format) => ({
    label: EXPORT_FORMATS[format].label,
    description: format === 'json' ? l10n.t('as the CLI writes it: the RunResult, or the comparison document with its runs') : format === 'markdown' ? l10n.t('tables like the blog posts') : l10n.t('one row per metric and mode'),
    format,
  }));
  const format = await vscode.window.showQuickPick(formats, { placeHolder: EXPORT_FORMAT_PLACEHOLDER() });
  if (format) await saveExport(entry.panel, format.format, entry.runs, entry.comparison ?? null);
}

/**
 * Opens a saved comparison (Export Run's JSON, or the CLI's `compare --json` from a CI pipeline) in the panel.
 * The runs are the source of truth: the model is rebuilt with this version's rules. A file over the size limit is not
 * read; what it would present as SQL to run (GRANTs, the restore statement) is rebuilt from our templates, and it never
 * chooses who "Copy GRANTs" grants to (agent/untrustedComparison.ts). Returns whether it opened.
 */
export async function openComparisonFile(panels: ComparisonPanels, history?: RunHistory): Promise<boolean> {
  const picked = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: l10n.t('Open Comparison'), filters: { [l10n.t('Durability Lens comparison')]: ['json'] } });
  const uri = picked?.[0];
  if (!uri) return false;
  const name = vscode.workspace.asRelativePath(uri);
  let text: string;
  try {
    // The size first, so a huge file is refused before it is read into memory; checked again on what was read.
    const stat = await vscode.workspace.fs.stat(uri);
    const before = tooLargeText(name, stat.size);
    if (before) {
      void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, before));
      return false;
    }
    const bytes = await vscode.workspace.fs.readFile(uri);
    const after = tooLargeText(name, bytes.byteLength);
    if (after) {
      void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, after));
      return false;
    }
    text = new TextDecoder().decode(bytes);
  } catch (err) {
    void vscode.window.showErrorMessage(l10n.t(`Durability Lens: could not read {0}: {1}`, name, (err as Error).message));
    return false;
  }
  try {
    const doc = neutraliseDocument(loadComparison(text));
    const data = panelDataFromDocument(doc);
    const runs = [...doc.modes.flatMap((m) => m.runs), ...doc.warmupRuns];
    const context: ComparisonContext = { plan: doc.plan, restore: doc.restore, error: doc.error };
    await panels.show(data, runs, context);
    await history?.add(data, runs, context);
    return true;
  } catch (err) {
    const why = err instanceof ComparisonFormatError ? err.message : `unexpected content: ${(err as Error).message}`;
    void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0} is not a comparison this version can show. {1}`, name, why));
    return false;
  }
}

export function registerHistoryCommands(history: RunHistory, panels: ComparisonPanels): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(HistoryCommands.showRunHistory, () => showRunHistory(history, panels)),
    vscode.commands.registerCommand(HistoryCommands.exportRun, () => exportRun(history)),
    vscode.commands.registerCommand(HistoryCommands.openComparisonFile, () => openComparisonFile(panels, history)),
  ];
}
