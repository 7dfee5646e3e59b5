// A test double of the mssql extension (ms-mssql.mssql) for the fake `vscode`: it registers the Connection Sharing
// commands Durability Lens calls, with the behaviour vscode-mssql's connectionSharingService.ts documents — the first
// call from an extension shows mssql's Approve / Deny prompt (answered through the fake's messageAnswers), the answer
// is remembered per extension id, a denied or dismissed prompt throws a ConnectionSharingError with its code, and
// getConnectionString returns the saved connection's string. Versions before 1.37 have no getConnectionString.
import type { FakeVscode } from './fakeVscode';

export const MSSQL_PROMPT = (extensionId: string) => `The extension '${extensionId}' is requesting access to your SQL Server connections. This will allow it to execute queries and access your database.`;

export interface FakeMssqlOptions {
  version?: string;
  /** The id of the connection of the active editor; undefined: the editor is not connected. */
  activeConnectionId?: string;
  /** Connection strings by connection id, as getConnectionString returns them. */
  connectionStrings?: Record<string, string>;
  /** Register the commands (false: an mssql whose API was retired). */
  registerCommands?: boolean;
}

export class FakeMssql {
  permissions = new Map<string, 'approved' | 'denied'>();
  calls: { command: string; args: unknown[] }[] = [];

  constructor(private readonly fake: FakeVscode, private readonly options: FakeMssqlOptions = {}) {}

  install(): this {
    const version = this.options.version ?? '1.45.0';
    this.fake.extensions.set('ms-mssql.mssql', { id: 'ms-mssql.mssql', packageJSON: { version, publisher: 'ms-mssql', name: 'mssql' }, isActive: false, activate: async () => undefined });
    if (this.options.registerCommands === false) return this;
    const register = (name: string, handler: (...args: unknown[]) => unknown) => this.fake.externalCommands.set(name, (...args) => {
      this.calls.push({ command: name, args });
      return handler(...args);
    });
    register('mssql.connectionSharing.getActiveEditorConnectionId', async (extensionId) => {
      await this.validate(String(extensionId));
      return this.options.activeConnectionId;
    });
    register('mssql.connectionSharing.editConnectionSharingPermissions', async () => undefined);
    const [major, minor] = version.split('.').map(Number);
    if (major! > 1 || minor! >= 37) {
      register('mssql.connectionSharing.getConnectionString', async (extensionId, connectionId) => {
        await this.validate(String(extensionId));
        const text = this.options.connectionStrings?.[String(connectionId)];
        if (text === undefined) throw Object.assign(new Error(`Connection with ID "${String(connectionId)}" not found. Please verify the connection ID exists.`), { code: 'CONNECTION_NOT_FOUND' });
        return text;
      });
    }
    return this;
  }

  /** mssql's requestConnectionSharingPermission: ask once, remember Approve / Deny; a dismissed prompt is not remembered. */
  private async validate(extensionId: string): Promise<void> {
    let permission = this.permissions.get(extensionId);
    if (!permission) {
      const window = (this.fake.module() as { window: { showInformationMessage(m: string, o: object, ...i: string[]): Promise<string | undefined> } }).window;
      const answer = await window.showInformationMessage(MSSQL_PROMPT(extensionId), {}, 'Approve', 'Deny');
      if (answer === 'Approve') permission = 'approved';
      else if (answer === 'Deny') permission = 'denied';
      if (permission) this.permissions.set(extensionId, permission);
    }
    if (permission === 'approved') return;
    if (permission === 'denied') throw Object.assign(new Error(`Connection sharing permission denied for extension: '${extensionId}'. Use the permission management commands to change this.`), { code: 'PERMISSION_DENIED' });
    throw Object.assign(new Error(`Connection sharing permission is required for extension: '${extensionId}'`), { code: 'PERMISSION_REQUIRED' });
  }
}
