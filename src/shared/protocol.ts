// Custom LSP messages between the extension (client) and the language server, each declared once
// as a typed namespace so both sides share the method name and the parameter shape.
import { NotificationType } from 'vscode-languageserver-protocol';

/** The DELAYED_DURABILITY setting of the database the client is connected to. */
export interface DatabaseContextParams {
  /** Database name as sys.databases reports it. */
  database: string;
  /** sys.databases.delayed_durability_desc. */
  delayedDurability: 'DISABLED' | 'ALLOWED' | 'FORCED';
}

/**
 * Client → server: the connected database changed. `null` means "not connected": the server then
 * stops assuming anything about the database. Diagnostics of open documents are re-published.
 */
export namespace DatabaseContextNotification {
  export const method = 'durabilityLens/databaseContext';
  export const type = new NotificationType<DatabaseContextParams | null>(method);
}
