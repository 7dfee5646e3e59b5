// The mssql extension's Connection Sharing API as Durability Lens calls it: its documented commands
// (vscode-mssql src/connectionSharing/connectionSharingService.ts, typings/vscode-mssql.d.ts IConnectionSharingService),
// each taking the calling extension's id so mssql can ask the user once whether to share (its Approve / Deny prompt,
// remembered by mssql). Presence and version are checked first: the commands arrived in mssql 1.34.0 (July 2025),
// getConnectionString in 1.37.0; mssql 1.45 (August 2026) marks the API for retirement and shows its own notice.
import * as vscode from 'vscode';
import { MIN_SHARING_VERSION, versionAtLeast } from './versions';

export { MIN_SHARING_VERSION } from './versions';

export const MSSQL_EXTENSION_ID = 'ms-mssql.mssql';

export const MssqlCommands = {
  getActiveEditorConnectionId: 'mssql.connectionSharing.getActiveEditorConnectionId',
  getConnectionString: 'mssql.connectionSharing.getConnectionString',
  editPermissions: 'mssql.connectionSharing.editConnectionSharingPermissions',
} as const;

export type MssqlPresence =
  | { status: 'ready'; version: string; connectionString: boolean }
  | { status: 'missing' }
  | { status: 'no-api'; version: string };

/** Is mssql installed, activated and offering the sharing commands? Activates it when needed (its own activation). */
export async function detectMssql(): Promise<MssqlPresence> {
  const extension = vscode.extensions.getExtension(MSSQL_EXTENSION_ID);
  if (!extension) return { status: 'missing' };
  const version = String((extension.packageJSON as { version?: unknown } | undefined)?.version ?? '0.0.0');
  if (!versionAtLeast(version, MIN_SHARING_VERSION)) return { status: 'no-api', version };
  if (!extension.isActive) {
    try {
      await extension.activate();
    } catch {
      return { status: 'no-api', version };
    }
  }
  const commands = new Set(await vscode.commands.getCommands(true));
  // Retired (a later mssql) or not registered: the command list is the truth, not the version.
  if (!commands.has(MssqlCommands.getActiveEditorConnectionId)) return { status: 'no-api', version };
  return { status: 'ready', version, connectionString: commands.has(MssqlCommands.getConnectionString) };
}

/** mssql's ConnectionSharingError codes (connectionSharingService.ts) that mean the user said no or did not answer. */
const PERMISSION_CODES = new Set(['PERMISSION_DENIED', 'PERMISSION_REQUIRED']);

/** A refusal or failure of an mssql command, with mssql's own words. */
export class MssqlSharingError extends Error {
  constructor(
    message: string,
    /** The user denied (or dismissed) mssql's sharing prompt: the permission can be changed in mssql. */
    readonly permission: boolean,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'MssqlSharingError';
  }
}

/** Runs one sharing command; an error from mssql becomes an MssqlSharingError keeping mssql's message. */
export async function callMssql<T>(command: string, ...args: unknown[]): Promise<T> {
  try {
    return (await vscode.commands.executeCommand(command, ...args)) as T;
  } catch (err) {
    const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : null;
    const message = err instanceof Error ? err.message : String(err);
    // The code survives when the error reaches us as thrown; the English text is the fallback for hosts that rewrap it.
    const permission = (code !== null && PERMISSION_CODES.has(code)) || /connection sharing permission/i.test(message);
    throw new MssqlSharingError(message, permission, code);
  }
}
