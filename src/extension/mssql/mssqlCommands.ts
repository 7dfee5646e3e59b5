// "Use the mssql Connection of This Editor" and "Use an mssql Connection…": the mssql extension's connection through
// its Connection Sharing API (mssql asks the user once whether Durability Lens may use its connections), saved as a
// Durability Lens profile (secret in secret storage) and connected. What the API cannot give — a password mssql keeps
// to itself, Windows integrated security, an Entra type without an equivalent — gets a clear message and the fallback:
// ask for the password, offer NTLM with a password, or Add Connection / Import mssql Connections.
import * as vscode from 'vscode';
import type { StoredProfile } from '../../db/storedProfiles';
import { ConnectionCommands, MssqlConnectionCommands } from '../commandIds';
import type { ConnectionManager, ConnectionStore } from '../connections';
import { callMssql, detectMssql, MIN_SHARING_VERSION, MSSQL_EXTENSION_ID, MssqlCommands, MssqlSharingError, type MssqlPresence } from './mssqlApi';
import { fromMssqlConnectionString, fromMssqlProfile, ntlmProfileOf, type ServerPart, type SharedConnection } from './sharedConnection';
import { l10n } from '../l10n';
import { iconLabelField } from '../../shared/visibleText';

export interface MssqlCommandDeps {
  store: ConnectionStore;
  connections: Pick<ConnectionManager, 'connect'>;
  output: vscode.LogOutputChannel;
  /** Our extension id: mssql remembers its sharing permission per extension id. */
  extensionId: string;
}

// Button labels, translated when shown (activation installs vscode.l10n.t after this module loads); the choice is
// compared with the same call, so it matches in every display language.
const ADD = () => l10n.t('Add Connection');
const IMPORT = () => l10n.t('Import mssql Connections');
const PICK = () => l10n.t('Pick an mssql Connection…');
const PERMISSION = () => l10n.t('Change mssql Permission');
const NTLM = () => l10n.t('Use NTLM with a Password…');

/** mssql.connections entries (user settings only, as Import does) that carry the id the API names them by. */
function mssqlProfiles(): { id: string; entry: Record<string, unknown>; index: number; label: string; detail: string }[] {
  const raw = vscode.workspace.getConfiguration('mssql').inspect<unknown[]>('connections')?.globalValue;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry, index) => {
    const e = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
    if (typeof e.id !== 'string' || e.id === '') return [];
    const server = typeof e.server === 'string' ? e.server : l10n.t('(connection string)');
    const label = typeof e.profileName === 'string' && e.profileName ? e.profileName : `${server}${typeof e.database === 'string' && e.database ? ` / ${e.database}` : ''}`;
    return [{ id: e.id, entry: e, index, label, detail: `${server} · ${typeof e.authenticationType === 'string' ? e.authenticationType : 'SqlLogin'}` }];
  });
}

export class MssqlConnectionFlow {
  constructor(private readonly deps: MssqlCommandDeps) {}

  private log(text: string): void {
    this.deps.output.info(`mssql connection: ${text}`);
  }

  /** mssql missing, too old or without the API: say so and offer the fallbacks; null when it is ready. */
  private async ready(): Promise<Extract<MssqlPresence, { status: 'ready' }> | null> {
    const presence = await detectMssql();
    if (presence.status === 'ready') return presence;
    const text = presence.status === 'missing'
      ? l10n.t(`Durability Lens: the mssql extension ({0}) is not installed, so there is no mssql connection to use. Nothing was changed. Add the connection to Durability Lens instead.`, MSSQL_EXTENSION_ID)
      : l10n.t(`Durability Lens: this mssql extension ({0}) offers no connection sharing (it needs {1} or later, and a later mssql may have retired it). Nothing was changed. Import its saved connections or add the connection instead.`, presence.version, MIN_SHARING_VERSION);
    this.log(text);
    await this.fallback(await vscode.window.showWarningMessage(text, ...(presence.status === 'missing' ? [ADD()] : [IMPORT(), ADD()])));
    return null;
  }

  private async fallback(choice: string | undefined): Promise<void> {
    if (choice === ADD()) await vscode.commands.executeCommand(ConnectionCommands.addConnection);
    else if (choice === IMPORT()) await vscode.commands.executeCommand(ConnectionCommands.importMssqlConnections);
    else if (choice === PICK()) await this.pick();
    else if (choice === PERMISSION()) await vscode.commands.executeCommand(MssqlCommands.editPermissions, this.deps.extensionId);
  }

  /** mssql refused or failed: its own words, what it means, and the ways on. */
  private async refused(err: unknown): Promise<void> {
    if (!(err instanceof MssqlSharingError)) throw err;
    const text = err.permission
      ? l10n.t(`Durability Lens: the mssql extension did not share its connections ({0}). Nothing was changed. You can allow it in mssql, or add the connection to Durability Lens yourself.`, err.message)
      : l10n.t(`Durability Lens: the mssql extension could not hand over the connection: {0} Nothing was changed.`, err.message);
    this.log(text);
    await this.fallback(await vscode.window.showWarningMessage(text, ...(err.permission ? [PERMISSION(), ADD()] : [PICK(), ADD()])));
  }

  /** The mssql connection of the active editor. Returns true when Durability Lens is connected afterwards. */
  async useEditorConnection(): Promise<boolean> {
    const presence = await this.ready();
    if (!presence) return false;
    let id: string | undefined;
    try {
      // mssql asks the user here, once, whether Durability Lens may use its connections.
      id = await callMssql<string | undefined>(MssqlCommands.getActiveEditorConnectionId, this.deps.extensionId);
    } catch (err) {
      await this.refused(err);
      return false;
    }
    if (!id) {
      const text = l10n.t('Durability Lens: the active editor has no mssql connection (connect it with mssql first), so there is nothing to use. Nothing was changed.');
      this.log(text);
      await this.fallback(await vscode.window.showInformationMessage(text, PICK(), ADD()));
      return false;
    }
    return this.useConnection(id, presence);
  }

  /** A quick pick of mssql's saved connections (its mssql.connections user setting), then the same as above. */
  async pick(): Promise<boolean> {
    const presence = await this.ready();
    if (!presence) return false;
    const profiles = mssqlProfiles();
    if (profiles.length === 0) {
      const text = l10n.t('Durability Lens: mssql has no saved connections in your user settings. Nothing was changed.');
      this.log(text);
      await this.fallback(await vscode.window.showInformationMessage(text, ADD()));
      return false;
    }
    // mssql's names (its settings) as written: a quick pick renders $(icon) syntax.
    const picked = await vscode.window.showQuickPick(profiles.map((p) => ({ label: iconLabelField(p.label), detail: iconLabelField(p.detail), id: p.id })), { placeHolder: l10n.t('Use which mssql connection in Durability Lens?'), ignoreFocusOut: true });
    if (!picked) return false;
    return this.useConnection(picked.id, presence);
  }

  private async useConnection(id: string, presence: Extract<MssqlPresence, { status: 'ready' }>): Promise<boolean> {
    const saved = mssqlProfiles().find((p) => p.id === id);
    const name = `${saved?.label ?? l10n.t('mssql connection {0}', id.slice(0, 8))} (mssql)`;
    let shared: SharedConnection;
    if (presence.connectionString) {
      let text: string | undefined;
      try {
        text = await callMssql<string | undefined>(MssqlCommands.getConnectionString, this.deps.extensionId, id);
      } catch (err) {
        await this.refused(err);
        return false;
      }
      if (!text) {
        const message = l10n.t(`Durability Lens: mssql returned no connection string for "{0}". Nothing was changed.`, name);
        this.log(message);
        await this.fallback(await vscode.window.showWarningMessage(message, IMPORT(), ADD()));
        return false;
      }
      shared = fromMssqlConnectionString(name, text);
    } else if (saved) {
      // mssql 1.34–1.36: no getConnectionString; its saved profile says the same (without a saved password).
      shared = fromMssqlProfile({ ...saved.entry, profileName: name }, saved.index);
    } else {
      const message = l10n.t(`Durability Lens: this mssql ({0}) cannot hand over a connection string (1.37.0 or later can), and the connection is not among its saved ones in your user settings. Nothing was changed.`, presence.version);
      this.log(message);
      await this.fallback(await vscode.window.showWarningMessage(message, ADD()));
      return false;
    }
    return this.apply(name, shared);
  }

  private async apply(name: string, shared: SharedConnection): Promise<boolean> {
    if (!shared.ok && shared.reason === 'integrated') return this.offerNtlm(name, shared.server);
    if (!shared.ok) {
      const text = l10n.t(`Durability Lens: the mssql connection "{0}" cannot be used as it is: {1} Nothing was changed.`, name, shared.message);
      this.log(text);
      await this.fallback(await vscode.window.showWarningMessage(text, ADD()));
      return false;
    }
    for (const note of shared.notes) this.log(`"${name}": ${note}`);
    let secret = shared.secret;
    if (shared.askSecret) {
      // mssql keeps a saved password in its own credential store; the connection string it shares may not carry it.
      secret = await vscode.window.showInputBox({
        title: l10n.t(`Durability Lens: password for "{0}"`, name),
        prompt: shared.profile.user
          ? l10n.t(`mssql did not hand over the password of {0} on {1}. Enter it once: Durability Lens keeps it in VS Code's secret storage, never in settings.`, shared.profile.user, shared.profile.server)
          : l10n.t("mssql did not hand over the password of this login on {0}. Enter it once: Durability Lens keeps it in VS Code's secret storage, never in settings.", shared.profile.server),
        password: true,
        ignoreFocusOut: true,
      });
      if (secret === undefined) {
        this.log(`"${name}": no password entered; nothing was saved or changed.`);
        return false;
      }
    }
    return this.saveAndConnect(shared.profile, secret);
  }

  /** Integrated security: the same server as NTLM with an explicit account and password, if the user wants that. */
  private async offerNtlm(name: string, server: ServerPart): Promise<boolean> {
    // One sentence with the name in it (sharedConnection.ts's INTEGRATED_MESSAGE, the same words in English).
    const text = l10n.t("Durability Lens: the mssql connection \"{0}\" uses Windows integrated authentication (the signed-in Windows user, no password). Durability Lens measures over its own two connections, and its driver (tedious 20) cannot log in as the signed-in user: it has no Kerberos or SSPI. It can log in with NTLM when you give your domain, user name and password (kept in VS Code's secret storage), or with a SQL login. Nothing was changed.", name);
    this.log(text);
    const choice = await vscode.window.showWarningMessage(text, NTLM(), ADD());
    if (choice !== NTLM()) {
      await this.fallback(choice);
      return false;
    }
    const suggestion = process.env.USERDOMAIN && process.env.USERNAME ? `${process.env.USERDOMAIN}\\${process.env.USERNAME}` : '';
    const account = await vscode.window.showInputBox({
      title: l10n.t(`Durability Lens: Windows account for "{0}" (NTLM)`, name),
      prompt: l10n.t('DOMAIN\\user (or user@domain) that SQL Server knows as a Windows login'),
      value: suggestion,
      ignoreFocusOut: true,
      validateInput: (v) => {
        const p = ntlmProfileOf(name, server, v);
        return typeof p === 'string' ? p : null;
      },
    });
    if (account === undefined) return false;
    const profile = ntlmProfileOf(`${name.replace(/ \(mssql\)$/, '')} (mssql, NTLM)`, server, account);
    if (typeof profile === 'string') return false;
    const password = await vscode.window.showInputBox({
      title: l10n.t(`Durability Lens: password of {0}\\{1}`, profile.domain ?? '', profile.user ?? ''),
      prompt: l10n.t('Kept in VS Code\'s secret storage, never in settings. Sent to SQL Server only inside the NTLM exchange, over TLS.'),
      password: true,
      ignoreFocusOut: true,
    });
    if (password === undefined) return false;
    return this.saveAndConnect(profile, password);
  }

  private async saveAndConnect(profile: StoredProfile, secret: string | undefined): Promise<boolean> {
    await this.deps.store.save(profile, secret);
    this.log(`saved "${profile.name}" (${profile.authenticationType}${secret !== undefined ? ', secret in secret storage' : ''}); connecting.`);
    return this.deps.connections.connect(profile);
  }
}

export function registerMssqlCommands(deps: MssqlCommandDeps): vscode.Disposable[] {
  const flow = new MssqlConnectionFlow(deps);
  return [
    vscode.commands.registerCommand(MssqlConnectionCommands.useEditorConnection, () => flow.useEditorConnection()),
    vscode.commands.registerCommand(MssqlConnectionCommands.pickConnection, () => flow.pick()),
  ];
}
