// Extension entry point: starts the language client, the output channel, the language-status item and
// the commands. Connection and profiling features plug in here (replace PendingProfiling).
import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import type { DatabaseContextParams } from '../shared/protocol';
import { registerCommands } from './commands';
import { createLanguageClient, sendDatabaseContext } from './languageClient';
import { DurabilityLanguageStatus } from './languageStatus';
import { PendingProfiling } from './profiling';

let client: LanguageClient | undefined;

/** What other parts of the extension use: the output channel and a way to tell the server the database context. */
export interface DurabilityLensApi {
  output: vscode.LogOutputChannel;
  setDatabaseContext(context: DatabaseContextParams | null): Promise<void>;
}

export async function activate(context: vscode.ExtensionContext): Promise<DurabilityLensApi> {
  const output = vscode.window.createOutputChannel('Durability Lens', { log: true });
  const status = new DurabilityLanguageStatus();
  context.subscriptions.push(output, status, ...registerCommands(output, new PendingProfiling(output)));

  const languageClient = createLanguageClient(context, output);
  client = languageClient;
  // The server keeps the database context in memory; after a crash the client restarts it, so tell it again.
  let database: DatabaseContextParams | null = null;
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

  return {
    output,
    async setDatabaseContext(next) {
      database = next;
      status.setDatabase(next);
      await sendDatabaseContext(languageClient, next);
    },
  };
}

export async function deactivate(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) await running.stop();
}
