// Extension entry point: the language client, output channel and language-status item, the connection UI
// (profiles, SecretStorage, status bar), the profiling/comparison commands and the comparison panel.
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { KeyValueRestoreJournal } from '../profile/restoreJournal';
import type { DatabaseContextParams } from '../shared/protocol';
import { registerCommands } from './commands';
import { registerConnectionCommands } from './connectionCommands';
import { ConnectionManager } from './connectionManager';
import { ConnectionStore } from './connectionStore';
import { createLanguageClient, sendDatabaseContext } from './languageClient';
import { DurabilityLanguageStatus } from './languageStatus';
import { ComparisonPanels } from './panel';
import { ProfilingController } from './profilingController';

let client: LanguageClient | undefined;
let profiling: ProfilingController | undefined;

/** How long deactivation waits for a running comparison to restore DELAYED_DURABILITY and drop its trace. */
export const DEACTIVATE_RESTORE_TIMEOUT_MS = 15_000;

/** What other parts of the extension use: the output channel and a way to tell the server the database context. */
export interface DurabilityLensApi {
  output: vscode.LogOutputChannel;
  setDatabaseContext(context: DatabaseContextParams | null): Promise<void>;
}

export async function activate(context: vscode.ExtensionContext): Promise<DurabilityLensApi> {
  const output = vscode.window.createOutputChannel('Durability Lens', { log: true });
  const status = new DurabilityLanguageStatus();
  context.subscriptions.push(output, status);

  const languageClient = createLanguageClient(context, output);
  client = languageClient;
  // The server keeps the database context in memory; after a crash the client restarts it, so tell it again.
  let database: DatabaseContextParams | null = null;
  const setDatabaseContext = async (next: DatabaseContextParams | null) => {
    database = next;
    status.setDatabase(next);
    await sendDatabaseContext(languageClient, next);
  };

  // The journal lives in globalState: a comparison interrupted in one window is offered for restore in the next.
  const journal = new KeyValueRestoreJournal(context.globalState);
  const store = new ConnectionStore(context.secrets);
  const connections = new ConnectionManager(store, output, journal, setDatabaseContext);
  const panels = new ComparisonPanels(context);
  profiling = new ProfilingController(output, connections, panels, journal);
  context.subscriptions.push(
    connections,
    panels,
    profiling,
    ...registerCommands(output, profiling),
    ...registerConnectionCommands(store, connections, output),
  );

  context.subscriptions.push(
    languageClient.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        status.setState('running');
        if (database) void sendDatabaseContext(languageClient, database);
      } else if (event.newState === State.Starting) status.setState('starting');
      else status.setState('stopped');
    }),
  );
  try {
    await languageClient.start();
  } catch (error) {
    // The commands stay registered, so the user can still open the output and read why.
    status.setState('failed');
    output.error(`The Durability Lens language server did not start: ${error instanceof Error ? error.message : String(error)}`);
  }

  // Not awaited: the prompt is modal and activation must not wait for the user.
  void connections.offerPendingRestores();

  return { output, setDatabaseContext };
}

export async function deactivate(): Promise<void> {
  const controller = profiling;
  profiling = undefined;
  // A running comparison restores DELAYED_DURABILITY in its finally; give it a bounded time to do so.
  if (controller) await controller.stop(DEACTIVATE_RESTORE_TIMEOUT_MS);
  const running = client;
  client = undefined;
  if (running) await running.stop();
}
