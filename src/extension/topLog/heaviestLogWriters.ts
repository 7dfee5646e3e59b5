// "Durability Lens: Show Heaviest Log Writers (Query Store)" (issue 30): reads the connected database's Query Store
// (read-only, as `durability-lens top-log`) into a tree in the Explorer — one row per statement, its procedure and
// figures; a click opens its CREATE/ALTER in the workspace at the statement's line, or the server's definition
// read-only. A refused read (Query Store off, read-only, no permission, …) shows its message and the fix to review.
import * as vscode from 'vscode';
import type { SqlSession } from '../../db/types';
import { readQueryStoreOfConnection, readServerDefinition } from '../../probes/queryStore';
import { grantContextOf, captureServerIdentity } from '../../probes/serverInfo';
import type { TopLogRanking } from '../../probes/queryStoreSql';
import { buildTopLogDocument, type TopLogDocument, type TopLogRow } from '../../report/topLog';
import { emptyText, rowFigures, spanText } from '../../report/topLogText';
import { formatBytes, formatCount, formatDuration } from '../../report/units';
import { ConnectionCommands } from '../commandIds';
import type { ConnectionManager } from '../connections';
import { TOP_LOG_COMMAND_TITLES, TOP_LOG_LOADED_CONTEXT, TOP_LOG_VIEW, TopLogCommands } from './ids';
import { findStatement } from './locate';
import { adHocText, serverTextHeader, type ServerDefinitions } from './serverDefinition';
import { findWorkspaceDefinitions } from './workspaceRoutines';
import { iconLabelField, oneLineField } from '../../shared/visibleText';
import { inertLinks } from '../../shared/notificationText';
import { l10n } from '../l10n';

const TITLE = `Durability Lens: ${TOP_LOG_COMMAND_TITLES[TopLogCommands.show]}`;

export type TopLogElement = { kind: 'row'; row: TopLogRow } | { kind: 'fix'; statement: string; cost: string } | { kind: 'notice'; text: string };

/** What was read, from where: a row opens its definition only on the server and database it came from. */
export interface LoadedTopLog {
  doc: TopLogDocument;
  serverLabel: string;
}

// Translated when shown (activation installs vscode.l10n.t after this module loads).
const RANKINGS = (): ReadonlyArray<{ id: TopLogRanking; label: string; detail: string }> => [
  { id: 'log', label: l10n.t('Total log bytes'), detail: l10n.t('Σ average log bytes × executions over the window') },
  { id: 'wait', label: l10n.t('Log-IO wait time'), detail: l10n.t('Query Store wait category "Tran Log IO" (WRITELOG and its kin), SQL Server 2017+') },
  { id: 'alone', label: l10n.t('Executions that each commit on their own'), detail: l10n.t('many executions, small log each, waiting on their own flush') },
];

export class HeaviestLogWriters implements vscode.TreeDataProvider<TopLogElement>, vscode.Disposable {
  private loaded: LoadedTopLog | null = null;
  private ranking: TopLogRanking = 'log';
  private readonly changed = new vscode.EventEmitter<TopLogElement | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly loadedEvent = new vscode.EventEmitter<LoadedTopLog | null>();
  /** Fires when a read finished (the lenses follow it). */
  readonly onDidLoad = this.loadedEvent.event;
  private view: vscode.TreeView<TopLogElement> | undefined;

  constructor(
    private readonly connections: ConnectionManager,
    private readonly output: vscode.LogOutputChannel,
    private readonly definitions: ServerDefinitions,
  ) {}

  get current(): LoadedTopLog | null {
    return this.loaded;
  }

  attach(view: vscode.TreeView<TopLogElement>): void {
    this.view = view;
  }

  dispose(): void {
    this.changed.dispose();
    this.loadedEvent.dispose();
  }

  getTreeItem(e: TopLogElement): vscode.TreeItem {
    if (e.kind === 'fix') {
      const item = new vscode.TreeItem(l10n.t('Review the fix: {0}', e.statement.split('\n').filter((l) => !l.startsWith('--')).join(' ')), vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('tools');
      item.tooltip = new vscode.MarkdownString().appendText(`${e.statement}\n${e.cost}`);
      item.command = { command: TopLogCommands.reviewFix, title: TOP_LOG_COMMAND_TITLES[TopLogCommands.reviewFix], arguments: [e] };
      return item;
    }
    if (e.kind === 'notice') {
      const item = new vscode.TreeItem(e.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('info');
      item.tooltip = e.text;
      return item;
    }
    const r = e.row;
    const item = new vscode.TreeItem(`${r.rank}. ${oneLineField(r.objectLabel)}`, vscode.TreeItemCollapsibleState.None);
    item.description = `${oneLine(r.text, 60)} — ${rowFigures(r)}`;
    const tip = new vscode.MarkdownString();
    tip.appendText(`${oneLineField(r.objectLabel)} — query_id ${r.queryId}${r.queryHash ? `, query_hash ${r.queryHash}` : ''}\n`);
    // As text, never as a code block: a statement holding ``` would otherwise end the fence and be read as Markdown.
    tip.appendText(`${r.text.length > 2000 ? `${r.text.slice(0, 2000)}…` : r.text}\n`);
    tip.appendText(tooltipFigures(r));
    item.tooltip = tip;
    item.iconPath = new vscode.ThemeIcon(r.object ? 'symbol-method' : 'symbol-snippet');
    item.contextValue = r.object ? 'logWriter.module' : 'logWriter.adHoc';
    item.command = { command: TopLogCommands.open, title: TOP_LOG_COMMAND_TITLES[TopLogCommands.open], arguments: [e] };
    item.accessibilityInformation = { label: `${r.rank}. ${oneLineField(r.objectLabel)}: ${oneLine(r.text, 120)}. ${rowFigures(r)}` };
    return item;
  }

  getChildren(parent?: TopLogElement): TopLogElement[] {
    if (parent || !this.loaded) return [];
    const q = this.loaded.doc.queryStore;
    const out: TopLogElement[] = [];
    if (q.fix) out.push({ kind: 'fix', statement: q.fix.statement, cost: q.fix.cost });
    for (const n of q.notices) out.push({ kind: 'notice', text: n });
    for (const row of this.loaded.doc.rows) out.push({ kind: 'row', row });
    return out;
  }

  getParent(): undefined {
    return undefined;
  }

  private setMessage(text: string | undefined): void {
    if (this.view) this.view.message = text;
  }

  /** The read: connect if needed, then Query Store of the active database, read-only. */
  async load(ranking: TopLogRanking = this.ranking): Promise<void> {
    this.ranking = ranking;
    let source = this.connections.connectionSource();
    if (!source) {
      const connect = l10n.t('Connect…');
      if ((await vscode.window.showWarningMessage(l10n.t(`{0}: connect to the production (or a copy of its) database first. Nothing was read.`, TITLE), connect)) !== connect) return;
      await vscode.commands.executeCommand(ConnectionCommands.connect);
      source = this.connections.connectionSource();
      if (!source) return;
    }
    const active = this.connections.current!;
    await vscode.commands.executeCommand('setContext', TOP_LOG_LOADED_CONTEXT, true);
    await vscode.commands.executeCommand(`${TOP_LOG_VIEW}.focus`);
    this.setMessage(l10n.t('Reading Query Store of {0} (read-only)…', active.database));
    let monitor: SqlSession | null = null;
    try {
      const doc = await vscode.window.withProgress({ location: { viewId: TOP_LOG_VIEW } }, async () => {
        monitor = await source!.open('monitor');
        const { history, standIn } = await readQueryStoreOfConnection(monitor, { ranking });
        return buildTopLogDocument(history, { standIn });
      });
      this.loaded = { doc, serverLabel: source.serverLabel };
      this.output.info(`${TITLE}: ${oneLineField(doc.database)} on ${oneLineField(source.serverLabel)}: ${doc.queryStore.outcome}, ${doc.rows.length} row(s), ranked by ${doc.ranking.used ?? doc.ranking.requested}.`);
      this.setMessage(messageOf(doc));
      if (doc.queryStore.outcome !== 'ready' && doc.queryStore.outcome !== 'read-only') {
        void vscode.window.showWarningMessage(l10n.t('{0}: {1}', TITLE, inertLinks(doc.queryStore.message)));
      }
    } catch (err) {
      const text = (err as Error).message ?? String(err);
      this.output.error(`${TITLE} failed: ${text}`);
      this.setMessage(l10n.t('Query Store could not be read: {0} Nothing was changed.', text));
      void vscode.window.showErrorMessage(l10n.t(`{0} failed: {1} Nothing was changed on the server.`, TITLE, text));
    } finally {
      await (monitor as SqlSession | null)?.close().catch(() => undefined);
      this.changed.fire(undefined);
      this.loadedEvent.fire(this.loaded);
    }
  }

  async pickRanking(): Promise<void> {
    const picked = await vscode.window.showQuickPick(
      RANKINGS().map((r) => ({ label: r.label, detail: r.detail, id: r.id, picked: r.id === this.ranking })),
      { title: l10n.t('Rank the heaviest log writers by'), placeHolder: l10n.t('How to rank Query Store\'s statements') },
    );
    if (picked) await this.load(picked.id);
  }

  /** A row's definition: the workspace's CREATE/ALTER at the statement's line, else the server's definition (read-only). */
  async open(target: TopLogElement | TopLogRow | undefined): Promise<void> {
    const row = rowOf(target);
    if (!row || !this.loaded) return;
    if (!row.object?.name) {
      await this.openAdHoc(row);
      return;
    }
    const label = oneLineField(row.objectLabel);
    // The Window progress label renders $(icon) syntax (notifications do not): there the name is escaped.
    const found = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: l10n.t(`Looking for {0} in the workspace…`, iconLabelField(row.objectLabel)) }, (_p, token) =>
      findWorkspaceDefinitions(row.object!.schema, row.object!.name!, row.text, token));
    const def = found[0];
    if (!def) {
      void vscode.window.showInformationMessage(l10n.t(`Durability Lens: no .sql file in this workspace defines {0} (CREATE or ALTER): showing the definition the server keeps, read-only.`, label));
      await this.openFromServer(row);
      return;
    }
    const document = await vscode.workspace.openTextDocument(def.uri);
    const line = def.statementLine ?? def.headerLine;
    const editor = await vscode.window.showTextDocument(document, { selection: new vscode.Range(line, 0, line, 0), preview: false });
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    if (def.statementLine === null) void vscode.window.showInformationMessage(l10n.t(`Durability Lens: {0}'s statement "{1}" was not found in {2} (edited since, or written differently): the cursor is on the routine.`, label, oneLine(row.text, 60), vscode.workspace.asRelativePath(def.uri)));
    if (found.length > 1) this.output.info(`${label} is defined in ${found.length} places; opened ${vscode.workspace.asRelativePath(def.uri)}:${def.headerLine + 1}. Others: ${found.slice(1).map((f) => `${vscode.workspace.asRelativePath(f.uri)}:${f.headerLine + 1}`).join(', ')}`);
  }

  /** OBJECT_DEFINITION on the server and database the rows came from, into a read-only editor. */
  async openFromServer(target: TopLogElement | TopLogRow | undefined): Promise<void> {
    const row = rowOf(target);
    if (!row || !this.loaded) return;
    if (!row.object) {
      await this.openAdHoc(row);
      return;
    }
    const { doc, serverLabel } = this.loaded;
    const source = this.connections.connectionSource();
    const active = this.connections.current;
    if (!source || !active || source.serverLabel !== serverLabel || active.database !== doc.database) {
      void vscode.window.showWarningMessage(l10n.t(`Durability Lens: {0} was read from {1} on {2}; connect to that database again (or refresh Heaviest Log Writers) to open its definition. Nothing was read.`, oneLineField(row.objectLabel), oneLineField(doc.database), oneLineField(serverLabel)));
      return;
    }
    let monitor: SqlSession | null = null;
    try {
      monitor = await source.open('monitor');
      const identity = await captureServerIdentity(monitor);
      const m = await readServerDefinition(monitor, grantContextOf(identity, doc.database), row.object.objectId);
      if (m.status !== 'ok') throw new Error(m.reason);
      if (m.value.definition === null) {
        void vscode.window.showWarningMessage(l10n.t(`Durability Lens: the server returns no definition for {0}: it is encrypted (WITH ENCRYPTION), or this login may not see it (it needs VIEW DEFINITION on it). Nothing was changed.`, oneLineField(row.objectLabel)));
        return;
      }
      const text = `${serverTextHeader(row.objectLabel, serverLabel, doc.database, 'the definition the server keeps (OBJECT_DEFINITION)')}${m.value.definition}`;
      await this.showHeld(this.definitions.hold(doc.database, row.objectLabel, text), text, row.text);
    } catch (err) {
      void vscode.window.showErrorMessage(l10n.t(`Durability Lens: the definition of {0} could not be read: {1} Nothing was changed.`, oneLineField(row.objectLabel), (err as Error).message ?? String(err)));
    } finally {
      await (monitor as SqlSession | null)?.close().catch(() => undefined);
    }
  }

  private async openAdHoc(row: TopLogRow): Promise<void> {
    const { doc, serverLabel } = this.loaded!;
    const text = adHocText(row, serverLabel, doc.database);
    await this.showHeld(this.definitions.hold(doc.database, `query-${row.queryId}`, text), text, row.text);
  }

  private async showHeld(uri: vscode.Uri, text: string, statement: string): Promise<void> {
    let document = await vscode.workspace.openTextDocument(uri);
    document = await vscode.languages.setTextDocumentLanguage(document, 'sql');
    const at = findStatement(text, statement);
    const line = at === null ? 0 : document.positionAt(at).line;
    const editor = await vscode.window.showTextDocument(document, { selection: new vscode.Range(line, 0, line, 0), preview: false });
    editor.revealRange(new vscode.Range(line, 0, line, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  /** The fix in an untitled SQL editor, to review and run with the user's own tool: Durability Lens never runs it. */
  async reviewFix(target: TopLogElement | undefined): Promise<void> {
    const fix = target?.kind === 'fix' ? target : this.loaded?.doc.queryStore.fix;
    if (!fix) return;
    const content = `-- Proposed by Durability Lens (Heaviest Log Writers). Not run: review it, then run it yourself.\n-- ${fix.cost.replace(/\r?\n/g, ' ')}\n${fix.statement}\n`;
    const document = await vscode.workspace.openTextDocument({ language: 'sql', content });
    await vscode.window.showTextDocument(document, { preview: false });
  }
}

function rowOf(target: TopLogElement | TopLogRow | undefined): TopLogRow | null {
  if (!target) return null;
  if ('kind' in target) return target.kind === 'row' ? target.row : null;
  return target;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function tooltipFigures(r: TopLogRow): string {
  const parts = [
    `${formatCount(r.executions)} executions${r.unfinishedExecutions > 0 ? ` (${formatCount(r.unfinishedExecutions)} aborted or failed)` : ''}`,
    r.logBytes === null ? 'log bytes not measured' : `${formatBytes(r.logBytes)} of log, ${formatBytes(r.logBytesPerExecution ?? 0)} per execution`,
    r.logWaitMs === null ? 'log-IO wait not measured' : `${formatDuration(r.logWaitMs)} log-IO wait (${formatDuration(r.logWaitMsPerExecution ?? 0)} per execution)`,
    `${formatDuration(r.durationMsPerExecution ?? 0)} per execution`,
    `first seen ${r.firstExecution ?? 'unknown'}, last seen ${r.lastExecution ?? 'unknown'}`,
  ];
  return parts.join(' · ');
}

/** The view's message: what was read, how it is ranked, and the state's outcome when it is not simply readable. */
export function messageOf(doc: TopLogDocument): string {
  const head = `${doc.database}, ${spanText(doc.window.spanHours, doc.window.requestedHours)}${doc.source === 'stand-in' ? ' (STAND-IN figures)' : ''}`;
  if (doc.queryStore.outcome !== 'ready' && doc.queryStore.outcome !== 'read-only') return `${head}: ${doc.queryStore.message}`;
  const used = doc.ranking.used ?? doc.ranking.requested;
  const by = RANKINGS().find((r) => r.id === used)?.label.toLowerCase() ?? used;
  const rows = doc.rows.length === 0 ? ` ${emptyText(doc)}` : '';
  const readOnly = doc.queryStore.outcome === 'read-only' ? ` ${doc.queryStore.message}` : '';
  return `${head} — ranked by ${by}.${doc.ranking.note ? ` ${doc.ranking.note}` : ''}${readOnly}${rows}`;
}
