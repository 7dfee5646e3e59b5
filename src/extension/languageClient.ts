// Starts the Durability Lens language server (dist/server.js over IPC) for SQL files and untitled SQL
// editors, and exposes the one custom message the extension sends it: the connected database's setting.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';
import { DatabaseContextNotification, type DatabaseContextParams } from '../shared/protocol';

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
