// Starts the Durability Lens language server (dist/server.js over IPC) for SQL files and untitled SQL
// editors, and exposes the one custom message the extension sends it: the connected database's setting.
// Loaded after activation (its own chunk, dist/extension.languageClient.js): vscode-languageclient is half of what
// the extension would otherwise parse before activate() runs.
import * as vscode from 'vscode';
import { LanguageClient, State, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { DatabaseContextNotification, type DatabaseContextParams } from '../../shared/protocol';
import type { ServerState } from './languageStatus';

/** Client id: VS Code reads `durabilityLens.trace.server` because of it. */
export const CLIENT_ID = 'durabilityLens';

export function createLanguageClient(context: vscode.ExtensionContext, output: vscode.LogOutputChannel): LanguageClient {
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    // Port 6011 is arbitrary; attach a debugger to it when running the extension in development mode.
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { language: 'sql', scheme: 'file' },
      { language: 'sql', scheme: 'untitled' },
    ],
    outputChannel: output,
    // Hovers carry a server-provided database name (escaped in hoverText.ts): never trusted, no HTML, so no command
    // link or raw HTML could act even if escaping ever failed.
    markdown: { isTrusted: false, supportHtml: false },
  };
  return new LanguageClient(CLIENT_ID, 'Durability Lens', serverOptions, clientOptions);
}

/**
 * Tells the server which database the user is connected to (null = disconnected), so diagnostics such as
 * `delayed-commit-needs-allowed` can name the database and its actual setting.
 */
export async function sendDatabaseContext(client: LanguageClient, context: DatabaseContextParams | null): Promise<void> {
  if (!client.isRunning()) return;
  await client.sendNotification(DatabaseContextNotification.type, context);
}

/** The running language service as the rest of the extension sees it: no vscode-languageclient types leak out. */
export interface LanguageService {
  setDatabaseContext(context: DatabaseContextParams | null): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Creates and starts the client; `onState` follows the server's state, and the database context is sent again each
 * time the server (re)starts, since the server keeps it only in memory and the client restarts it after a crash.
 */
export function startLanguageService(
  context: vscode.ExtensionContext,
  output: vscode.LogOutputChannel,
  onState: (state: ServerState) => void,
  currentDatabase: () => DatabaseContextParams | null,
): LanguageService {
  const client = createLanguageClient(context, output);
  context.subscriptions.push(
    client.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        onState('running');
        const database = currentDatabase();
        if (database) void sendDatabaseContext(client, database);
      } else if (event.newState === State.Starting) onState('starting');
      else onState('stopped');
    }),
  );
  client.start().catch((error: unknown) => {
    // The commands stay registered, so the user can still open the output and read why.
    onState('failed');
    output.error(`The Durability Lens language server did not start: ${error instanceof Error ? error.message : String(error)}`);
  });
  return {
    setDatabaseContext: (next) => sendDatabaseContext(client, next),
    stop: () => client.stop(),
  };
}
