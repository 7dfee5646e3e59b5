// The one gate every lens and command passes before it sends a file's T-SQL: in Restricted Mode nothing is sent;
// otherwise a run that changes data or schema shows its exact text (batch by batch, document lines) in a modal — the
// whole text also in a read-only tab when it is too long for the modal — and runs only after "Run". A confirmation is
// remembered per workspace for that file and text (consentStore.ts) and revoked when the file changes.
import * as vscode from 'vscode';
import { ConsentStore, MemoryMemento } from './consentStore';
import { consentKeys, consentMessage, consentText, modalText, needsConsent, type ConsentRequest } from './consentView';
import { l10n } from '../l10n';
import { oneLineField } from '../../shared/visibleText';

export const CONSENT_SCHEME = 'durability-lens-consent';
// A button label, translated when shown (activation installs vscode.l10n.t after this module loads): the choice is
// compared with the same call.
export const REVIEW_IN_EDITOR = () => l10n.t('Review in Editor');
export const MANAGE_TRUST = () => l10n.t('Manage Workspace Trust');

/** What the Restricted Mode message says (the e2e test finds it by its start). */
export function restrictedModeText(what: string): string {
  return l10n.t("Durability Lens: this workspace is in Restricted Mode, so {0} does not send its T-SQL to a server — no lens or command runs a file's T-SQL until you trust the workspace. Nothing was run and no database setting was changed.", what);
}

export class ConsentGate implements vscode.Disposable {
  private readonly previews = new Map<string, string>();
  private provider: vscode.Disposable | null = null;
  private readonly previewChanged = new vscode.EventEmitter<vscode.Uri>();
  private readonly disposables: vscode.Disposable[] = [];
  private previewCount = 0;

  constructor(
    readonly store: ConsentStore = new ConsentStore(new MemoryMemento()),
    private readonly output?: vscode.LogOutputChannel,
  ) {
    // An edit revokes the file's confirmations at once (a later run would also see the hash differ).
    this.disposables.push(
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length > 0 && !e.document.uri.toString().startsWith(`${CONSENT_SCHEME}:`)) void this.store.revoke(e.document.uri.toString());
      }),
    );
  }

  /** True when the workspace is trusted; otherwise tells the user why nothing runs and returns false. */
  async trusted(what: string): Promise<boolean> {
    if (vscode.workspace.isTrusted) return true;
    this.output?.warn(restrictedModeText(what));
    const choice = await vscode.window.showWarningMessage(restrictedModeText(what), MANAGE_TRUST());
    if (choice === MANAGE_TRUST()) await vscode.commands.executeCommand('workbench.trust.manage');
    return false;
  }

  /**
   * True when the request may run: it only reads, or the user confirmed exactly this text for this file before (and
   * the file has not changed since), or confirms it now. False after Restricted Mode, Cancel or "Review in Editor".
   */
  async confirm(request: ConsentRequest): Promise<boolean> {
    if (!(await this.trusted(request.action))) return false;
    if (!needsConsent(request)) {
      this.output?.info(`${request.action}: reads only (no statement changes data or schema), so no confirmation is asked.`);
      return true;
    }
    const keys = consentKeys(request);
    if (await this.store.has(request.file.uri, request.file.text, keys)) {
      this.output?.info(`${request.action}: you confirmed this exact T-SQL from ${oneLineField(request.file.name)} for ${oneLineField(request.connection.database)} before (the file has not changed since).`);
      return true;
    }
    const whole = consentText(request);
    this.output?.info(`Asking to confirm what runs:\n${whole}`);
    const tabName = l10n.t('What runs — {0}', oneLineField(request.file.name));
    const shown = modalText(whole, tabName);
    if (shown.truncated) await this.showPreview(tabName, whole);
    const choice = await vscode.window.showWarningMessage(consentMessage(request), { modal: true, detail: shown.text }, request.confirmLabel, REVIEW_IN_EDITOR());
    if (choice === request.confirmLabel) {
      await this.store.grant(request.file.uri, request.file.text, keys);
      this.output?.info(`${request.action}: confirmed.`);
      return true;
    }
    if (choice === REVIEW_IN_EDITOR()) {
      await this.showPreview(tabName, whole);
      void vscode.window.showInformationMessage(l10n.t(`Durability Lens: nothing was run. Read what {0} sends in the tab "{1}", then run it again to confirm.`, request.action, tabName));
      this.output?.info(`${request.action}: opened for review; nothing was run.`);
      return false;
    }
    this.output?.info(`${request.action}: not confirmed; nothing was run and no database setting was changed.`);
    return false;
  }

  /** A read-only tab beside the editor with the whole text (a virtual document: nothing is written to disk). */
  private async showPreview(name: string, text: string): Promise<void> {
    if (!this.provider) {
      this.provider = vscode.workspace.registerTextDocumentContentProvider(CONSENT_SCHEME, {
        onDidChange: this.previewChanged.event,
        provideTextDocumentContent: (uri) => this.previews.get(uri.toString()) ?? '',
      });
    }
    // A new URI each time: VS Code caches a virtual document's text by URI.
    const uri = vscode.Uri.from({ scheme: CONSENT_SCHEME, path: `/${name.replace(/[\\/]/g, '_')}`, query: String(++this.previewCount) });
    this.previews.set(uri.toString(), text);
    const document = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
  }

  dispose(): void {
    this.provider?.dispose();
    this.previewChanged.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
