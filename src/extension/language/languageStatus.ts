// The language-status item shown for SQL editors: whether the language server runs, which database
// (and DELAYED_DURABILITY setting) the analysis assumes, and a way to the output channel when something fails.
import * as vscode from 'vscode';
import { Commands } from '../../shared/commands';
import type { DatabaseContextParams } from '../../shared/protocol';
import { l10n } from '../l10n';
import { inertLinks } from '../../shared/notificationText';
import { iconLabelField } from '../../shared/visibleText';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

/** What the item says in each state; a null detail is the database the analysis assumes. */
function stateText(state: ServerState): { text: string; detail: string | null } {
  switch (state) {
    case 'starting':
      return { text: 'Durability Lens', detail: l10n.t('starting the language server') };
    case 'running':
      return { text: 'Durability Lens', detail: null };
    case 'stopped':
      return { text: l10n.t('Durability Lens: stopped'), detail: l10n.t('the language server is not running') };
    case 'failed':
      return { text: l10n.t('Durability Lens: failed'), detail: l10n.t('the language server could not start; see the output') };
  }
}

export class DurabilityLanguageStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private state: ServerState = 'starting';
  private database: DatabaseContextParams | null = null;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem('durabilityLens.status', { language: 'sql' });
    this.item.name = 'Durability Lens';
    this.item.command = { title: l10n.t('Open Output'), command: Commands.showOutput };
    this.render();
  }

  setState(state: ServerState): void {
    this.state = state;
    this.render();
  }

  setDatabase(database: DatabaseContextParams | null): void {
    this.database = database;
    this.render();
  }

  dispose(): void {
    this.item.dispose();
  }

  private render(): void {
    // The detail renders `$(icon)` syntax and `[label](command:…)` links: the server's name is neither.
    const where = this.database
      ? `${inertLinks(iconLabelField(this.database.database))}: DELAYED_DURABILITY = ${this.database.delayedDurability}`
      : l10n.t('no database connected');
    const shown = stateText(this.state);
    this.item.busy = this.state === 'starting';
    this.item.severity = this.state === 'failed' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    this.item.text = shown.text;
    this.item.detail = shown.detail ?? where;
  }
}
