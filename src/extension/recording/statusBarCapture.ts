// What the ad-hoc log-flush trace and the recording window share: a capture that runs in the background while the
// user works in another tool, shown by a status bar item that stops it on click; deactivation stops it (its event
// session is dropped) without showing anything.
import * as vscode from 'vscode';
import type { ConnectionManager } from '../connections';
import type { RunHistory } from '../history';
import type { ComparisonPanels } from '../panel';
import type { SessionLedger } from '../sessions';

export interface StatusBarItemSpec {
  id: string;
  name: string;
  /** Left-aligned; a higher priority stands further left. */
  priority: number;
  /** The "stop and show" command the item runs on click. */
  command: string;
}

/** What a capture works with: where it logs, the connection, where it shows its result and keeps it, the ledger. */
export interface CaptureDeps {
  output: vscode.LogOutputChannel;
  connections: ConnectionManager;
  panels: ComparisonPanels;
  history?: RunHistory | undefined;
  /** Records the event session as this window's before it is created (so no other window offers to drop it). */
  ledger?: SessionLedger | undefined;
}

export abstract class StatusBarCapture implements vscode.Disposable {
  protected readonly statusItem: vscode.StatusBarItem;
  protected readonly output: vscode.LogOutputChannel;
  protected readonly connections: ConnectionManager;
  protected readonly panels: ComparisonPanels;
  protected readonly history: RunHistory | undefined;
  protected readonly ledger: SessionLedger | undefined;

  constructor(spec: StatusBarItemSpec, protected readonly deps: CaptureDeps) {
    ({ output: this.output, connections: this.connections, panels: this.panels, history: this.history, ledger: this.ledger } = deps);
    this.statusItem = vscode.window.createStatusBarItem(spec.id, vscode.StatusBarAlignment.Left, spec.priority);
    this.statusItem.name = spec.name;
    this.statusItem.command = spec.command;
  }

  /** Ends the capture; shows its result unless `show` is false (deactivation). */
  abstract stop(show?: boolean): Promise<unknown>;

  /** Deactivation: stop and drop, show nothing. */
  async shutdown(): Promise<void> {
    await this.stop(false);
  }

  dispose(): void {
    void this.shutdown();
    this.statusItem.dispose();
  }

  /** The item shows `status` while the capture runs, and hides when `status` is null (nothing runs). */
  protected showStatus(status: { text: string; tooltip: string } | null): void {
    if (!status) {
      this.statusItem.hide();
      return;
    }
    this.statusItem.text = status.text;
    this.statusItem.tooltip = status.tooltip;
    this.statusItem.show();
  }
}
