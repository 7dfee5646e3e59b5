// The language-status item shown for SQL editors: whether the language server runs, which database
// (and DELAYED_DURABILITY setting) the analysis assumes, and a way to the output channel when something fails.
import * as vscode from 'vscode';
import { Commands } from '../../shared/commands';
import type { DatabaseContextParams } from '../../shared/protocol';

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export class DurabilityLanguageStatus implements vscode.Disposable {
  private readonly item: vscode.LanguageStatusItem;
  private state: ServerState = 'starting';
  private database: DatabaseContextParams | null = null;

  constructor() {
    this.item = vscode.languages.createLanguageStatusItem('durabilityLens.status', { language: 'sql' });
    this.item.name = 'Durability Lens';
    this.item.command = { title: 'Open Output', command: Commands.showOutput };
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
    const where = this.database
      ? `${this.database.database}: DELAYED_DURABILITY = ${this.database.delayedDurability}`
      : 'no database connected';
    this.item.busy = this.state === 'starting';
    this.item.severity = this.state === 'failed' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    switch (this.state) {
      case 'starting':
        this.item.text = 'Durability Lens';
        this.item.detail = 'starting the language server';
        break;
      case 'running':
        this.item.text = 'Durability Lens';
        this.item.detail = where;
        break;
      case 'stopped':
        this.item.text = 'Durability Lens: stopped';
        this.item.detail = 'the language server is not running';
        break;
      case 'failed':
        this.item.text = 'Durability Lens: failed';
        this.item.detail = 'the language server could not start; see the output';
        break;
    }
  }
}
