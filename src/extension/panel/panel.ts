// Hosts the "Durability comparison" webview: strict CSP page, assets only from dist/ and media/, typed messages,
// exports through a save dialog, and a serializer so a panel restored after a reload re-renders its data.
import * as vscode from 'vscode';
import { isFromWebview, PANEL_VIEW_TYPE, type PanelData, type RunningView, type ToWebview } from '../../shared/webviewProtocol';
import { buildCsp, makeNonce, panelHtml } from './csp';
import { saveExport } from './exportFile';
import { exportText, type ComparisonContext } from './panelData';
import type { RunResult } from '../../profile/types';
import { fillGrantees, LOGIN_PLACEHOLDER } from '../../agent/untrustedComparison';
import { l10n } from '../l10n';
import { pageLanguage, webviewTranslations } from './webviewText';

/** The last shown data, so a panel VS Code restores after a reload can render without re-running anything. */
export const PANEL_STATE_KEY = 'durabilityLens.panelData';

export class ComparisonPanels implements vscode.Disposable {
  private panel: vscode.WebviewPanel | null = null;
  private data: PanelData | null = null;
  /** RunResults behind the shown data (JSON export carries them); empty after a reload restored the panel. */
  private runs: readonly RunResult[] = [];
  private comparison: ComparisonContext | null = null;
  /** A run in progress: the panel shows it instead of the last result until show() or runEnded(). */
  private running: RunningView | null = null;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    /** The connected login and database user (the preflight's): who "Copy GRANTs" of a comparison file grants to. */
    private readonly principal: () => { loginName: string; userName: string } | null = () => null,
  ) {}

  /**
   * A panel VS Code restores after a reload re-renders the last shown data (the extension's webview serializer,
   * registered at activation by extension.ts, calls this).
   */
  async restore(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    // workspaceState is written on every show(); the webview's own state is persisted only when the window
    // shuts down, so after a plain reload it can hold an older result. It is the fallback, not the source.
    const fromState = (state as { data?: PanelData } | undefined)?.data ?? null;
    this.data = this.context.workspaceState.get<PanelData>(PANEL_STATE_KEY) ?? fromState;
    this.runs = [];
    this.comparison = null;
    this.attach(panel);
  }

  private roots(): vscode.Uri[] {
    return [vscode.Uri.joinPath(this.context.extensionUri, 'dist'), vscode.Uri.joinPath(this.context.extensionUri, 'media')];
  }

  /**
   * Shows a run in progress (opening the panel beside the editor when there is none), so the panel never shows the
   * previous result as if it were this run's. Cheap to call often: it only posts a message.
   */
  async showRunning(view: RunningView): Promise<void> {
    const first = this.running === null;
    this.running = view;
    if (!this.panel) {
      const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, view.title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, { enableScripts: true, localResourceRoots: this.roots() });
      this.attach(panel);
      return; // 'ready' posts the running view
    }
    if (first) this.panel.reveal(undefined, true);
    await this.post({ type: 'running', view });
  }

  /** The run ended without a result to show (declined, refused, failed before measuring): back to the last result. */
  async runEnded(): Promise<void> {
    if (this.running === null) return;
    this.running = null;
    await this.post({ type: 'runEnded' });
  }

  async show(data: PanelData, runs: readonly RunResult[] = [], comparison: ComparisonContext | null = null): Promise<void> {
    this.running = null;
    this.data = data;
    this.runs = runs;
    this.comparison = comparison;
    await this.context.workspaceState.update(PANEL_STATE_KEY, data);
    if (this.panel) {
      this.panel.title = data.title;
      this.panel.reveal(undefined, true);
      await this.post({ type: 'show', data });
      return;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, data.title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      localResourceRoots: this.roots(),
    });
    this.attach(panel);
  }

  private attach(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: this.roots() };
    if (this.data) panel.title = this.data.title;
    else if (this.running) panel.title = this.running.title;
    const nonce = makeNonce();
    webview.html = panelHtml({
      csp: buildCsp(webview.cspSource, nonce),
      nonce,
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'media', 'webview.css')).toString(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'webview.js')).toString(),
      title: this.data?.title ?? l10n.t('Durability comparison'),
      lang: pageLanguage(vscode.env.language),
      loading: l10n.t('Loading…'),
      translations: webviewTranslations(vscode.l10n.bundle),
    });
    const subscriptions: vscode.Disposable[] = [];
    subscriptions.push(
      webview.onDidReceiveMessage((message: unknown) => void this.onMessage(message)),
      panel.onDidDispose(() => {
        if (this.panel === panel) this.panel = null;
        for (const d of subscriptions) d.dispose();
      }),
    );
  }

  private post(message: ToWebview): Thenable<boolean> {
    return this.panel ? this.panel.webview.postMessage(message) : Promise.resolve(false);
  }

  private async onMessage(message: unknown): Promise<void> {
    if (!isFromWebview(message)) return;
    const data = this.data;
    switch (message.type) {
      case 'ready':
        if (data) await this.post({ type: 'show', data });
        if (this.running) await this.post({ type: 'running', view: this.running });
        return;
      case 'copyMarkdown':
        if (!data) return;
        await vscode.env.clipboard.writeText(exportText(data, 'markdown'));
        void vscode.window.showInformationMessage(l10n.t('Durability Lens: the comparison is on the clipboard as Markdown.'));
        return;
      case 'copyGrants': {
        if (!data?.grantScript) return;
        // A comparison file's GRANTs name placeholders (it never chooses the grantee): the connection's own login fills them.
        const script = fillGrantees(data.grantScript, this.principal());
        await vscode.env.clipboard.writeText(script.text);
        void vscode.window.showInformationMessage(
          !script.needed
            ? l10n.t('Durability Lens: the GRANT statements are on the clipboard.')
            : script.filled
              ? l10n.t('Durability Lens: the GRANT statements are on the clipboard, for the login of your current connection (a comparison file never chooses who is granted).')
              : l10n.t('Durability Lens: the GRANT statements are on the clipboard with {0} where the login goes: connect and copy again to fill in your own login (a comparison file never chooses who is granted).', LOGIN_PLACEHOLDER),
        );
        return;
      }
      case 'export': {
        if (!data) return;
        await saveExport(data, message.format, this.runs, this.comparison);
        return;
      }
      case 'openLine': {
        // The document comes from our own data, never from the webview: it can only pick a line.
        if (!data?.documentUri) return;
        const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(data.documentUri));
        const line = Math.min(message.line, document.lineCount) - 1;
        const position = new vscode.Position(line, 0);
        await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(position, position) });
        return;
      }
    }
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) d.dispose();
  }
}
