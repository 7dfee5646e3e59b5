// The connection commands: Add Connection (quick inputs or an ADO.NET connection string), Import mssql
// Connections, Connect, Disconnect, Switch Database, Remove Connection, and the status bar menu.
import * as vscode from 'vscode';
import { parseDataSource } from '../../db/connectionString';
import { CONNECTION_COMMAND_TITLES, ConnectionCommands, STATUS_BAR_COMMAND } from '../commandIds';
import { AUTHENTICATION_TYPES, importMssqlConnection, needsSecret, profileFromAdoNet, secretLabel, validateStoredProfile, type AuthenticationType, type StoredProfile } from '../../db/storedProfiles';
import type { ConnectionManager } from './connectionManager';
import type { ConnectionStore } from './connectionStore';
import { l10n } from '../l10n';

// Translated when shown (activation installs vscode.l10n.t after this module loads).
const AUTH_LABELS = (): Record<AuthenticationType, string> => ({
  sql: l10n.t('SQL Server login'),
  ntlm: l10n.t('Windows (NTLM) with domain'),
  'entra-password': l10n.t('Microsoft Entra password'),
  'entra-default': l10n.t('Microsoft Entra default credential chain'),
  'entra-access-token': l10n.t('Microsoft Entra access token'),
  'entra-service-principal': l10n.t('Microsoft Entra service principal (client secret)'),
  'entra-msi-vm': l10n.t('Microsoft Entra managed identity (VM)'),
  'entra-msi-app-service': l10n.t('Microsoft Entra managed identity (App Service)'),
});

function ask(title: string, prompt: string, options: Partial<vscode.InputBoxOptions> = {}): Thenable<string | undefined> {
  return vscode.window.showInputBox({ title: l10n.t(`Durability Lens: Add Connection — {0}`, title), prompt, ignoreFocusOut: true, ...options });
}

async function askUnique(store: ConnectionStore, suggestion: string): Promise<string | undefined> {
  return ask(l10n.t('name'), l10n.t('A name for this connection'), {
    value: suggestion,
    validateInput: (v) => (!v.trim() ? l10n.t('A name is required.') : store.find(v.trim()) ? l10n.t('"{0}" exists already; choose another name.', v.trim()) : null),
  });
}

async function addFromDetails(store: ConnectionStore): Promise<{ profile: StoredProfile; secret: string | undefined } | undefined> {
  const serverText = await ask(l10n.t('server'), l10n.t('Server: host, host,port or host\\instance'), {
    validateInput: (v) => {
      try {
        if (!v.trim()) return l10n.t('A server is required.');
        parseDataSource(v);
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  if (!serverText) return undefined;
  const source = parseDataSource(serverText);
  const database = await ask(l10n.t('database'), l10n.t('Database the workload runs in'), { value: 'master' });
  if (database === undefined) return undefined;
  const auth = await vscode.window.showQuickPick(
    AUTHENTICATION_TYPES.map((t) => ({ label: AUTH_LABELS()[t], type: t })),
    { title: l10n.t('Durability Lens: Add Connection — authentication'), ignoreFocusOut: true },
  );
  if (!auth) return undefined;
  const raw: Record<string, unknown> = { ...source, database: database.trim() || 'master', authenticationType: auth.type };
  if (auth.type === 'sql' || auth.type === 'ntlm' || auth.type === 'entra-password') {
    const user = await ask(l10n.t('user'), l10n.t('User name'));
    if (!user) return undefined;
    raw.user = user;
  }
  if (auth.type === 'ntlm') {
    const domain = await ask(l10n.t('domain'), l10n.t('Windows domain'));
    if (!domain) return undefined;
    raw.domain = domain;
  }
  if (auth.type.startsWith('entra-') && auth.type !== 'entra-access-token') {
    const required = auth.type === 'entra-password' || auth.type === 'entra-service-principal';
    const clientId = await ask(l10n.t('client id'), required ? l10n.t('Application (client) id') : l10n.t('Application (client) id (optional)'));
    if (clientId === undefined || (required && !clientId)) return undefined;
    if (clientId) raw.clientId = clientId;
    if (auth.type === 'entra-service-principal' || auth.type === 'entra-password') {
      const tenantId = await ask(l10n.t('tenant id'), auth.type === 'entra-password' ? l10n.t('Tenant id (optional)') : l10n.t('Tenant id'));
      if (tenantId === undefined) return undefined;
      if (tenantId) raw.tenantId = tenantId;
    }
  }
  const encrypt = await vscode.window.showQuickPick(
    [
      { label: l10n.t('Encrypt (verify certificate)'), value: true as boolean | 'strict', trust: false },
      { label: l10n.t('Strict (TDS 8.0, TLS first)'), value: 'strict' as const, trust: false },
      { label: l10n.t('Encrypt, trust the server certificate'), value: true, trust: true },
      { label: l10n.t('No encryption'), value: false, trust: false },
    ],
    { title: l10n.t('Durability Lens: Add Connection — encryption'), ignoreFocusOut: true },
  );
  if (!encrypt) return undefined;
  raw.encrypt = encrypt.value;
  raw.trustServerCertificate = encrypt.trust;
  const development = await vscode.window.showQuickPick(
    [
      { label: l10n.t('Shared or production database'), detail: l10n.t('Ask for confirmation before every durability comparison'), dev: false },
      { label: l10n.t('Development database'), detail: l10n.t('Compare without the confirmation dialog'), dev: true },
    ],
    { title: l10n.t('Durability Lens: Add Connection — kind of database'), ignoreFocusOut: true },
  );
  if (!development) return undefined;
  raw.development = development.dev;
  const name = await askUnique(store, `${source.server}${raw.database !== 'master' ? ` / ${String(raw.database)}` : ''}`);
  if (!name) return undefined;
  raw.name = name.trim();
  const checked = validateStoredProfile(raw);
  if (!checked.ok) {
    await vscode.window.showErrorMessage(l10n.t(`Durability Lens: the connection was not saved: {0}`, checked.errors.join(' ')));
    return undefined;
  }
  let secret: string | undefined;
  if (needsSecret(checked.profile.authenticationType)) {
    secret = await ask(secretLabel(checked.profile.authenticationType), l10n.t("Kept in VS Code's secret storage, never in settings."), { password: true });
    if (secret === undefined) return undefined;
  }
  return { profile: checked.profile, secret };
}

async function addFromConnectionString(store: ConnectionStore): Promise<{ profile: StoredProfile; secret: string | undefined } | undefined> {
  const text = await ask(l10n.t('connection string'), l10n.t('ADO.NET connection string (Server=…;Database=…;User Id=…;Password=…). The password goes to secret storage.'), { password: true });
  if (!text) return undefined;
  let parsed: ReturnType<typeof profileFromAdoNet>;
  try {
    parsed = profileFromAdoNet('pending', text);
  } catch (err) {
    await vscode.window.showErrorMessage(l10n.t(`Durability Lens: that connection string could not be read: {0}`, (err as Error).message));
    return undefined;
  }
  for (const note of parsed.notes) void vscode.window.showInformationMessage(l10n.t(`Durability Lens: {0}`, note));
  const name = await askUnique(store, `${parsed.profile.server} / ${parsed.profile.database}`);
  if (!name) return undefined;
  return { profile: { ...parsed.profile, name: name.trim() }, secret: parsed.secret };
}

export function registerConnectionCommands(store: ConnectionStore, manager: ConnectionManager, output: vscode.LogOutputChannel): vscode.Disposable[] {
  const add = async () => {
    const paste = l10n.t('Paste an ADO.NET connection string');
    const how = await vscode.window.showQuickPick([l10n.t('Enter server, database and login'), paste], { title: l10n.t(`Durability Lens: {0}`, CONNECTION_COMMAND_TITLES[ConnectionCommands.addConnection]) });
    if (!how) return;
    const added = how === paste ? await addFromConnectionString(store) : await addFromDetails(store);
    if (!added) return;
    await store.save(added.profile, added.secret);
    output.info(`Saved connection "${added.profile.name}" (${added.secret !== undefined ? 'secret in secret storage' : 'no secret'}).`);
    await manager.connect(added.profile);
  };

  const importMssql = async () => {
    // User (global) settings only: a workspace's .vscode/settings.json could add a look-alike profile for its own server.
    const raw = vscode.workspace.getConfiguration('mssql').inspect<unknown[]>('connections')?.globalValue ?? [];
    if (!Array.isArray(raw) || raw.length === 0) {
      await vscode.window.showInformationMessage(l10n.t('Durability Lens: there are no mssql.connections to import.'));
      return;
    }
    let imported = 0;
    for (const [i, entry] of raw.entries()) {
      const result = importMssqlConnection(entry, i);
      if (!result.ok) {
        output.warn(`Skipped mssql connection "${result.name}": ${result.reason}`);
        continue;
      }
      for (const note of result.notes) output.info(`mssql connection "${result.profile.name}": ${note}`);
      let profile = result.profile;
      if (store.find(profile.name)) profile = { ...profile, name: `${profile.name} (mssql)` };
      if (store.find(profile.name)) {
        output.info(`Skipped mssql connection "${result.profile.name}": already imported.`);
        continue;
      }
      let secret = result.secret;
      if (result.askForSecret) {
        secret = await vscode.window.showInputBox({
          title: l10n.t(`Durability Lens: Import mssql Connections ({0} of {1})`, i + 1, raw.length),
          prompt: l10n.t(`{0} for "{1}" ({2} on {3}); leave empty to be asked on connect`, secretLabel(profile.authenticationType), profile.name, profile.user ?? '', profile.server),
          password: true,
          ignoreFocusOut: true,
        });
        if (secret === undefined) break; // Escape stops the whole import
        if (secret === '') secret = undefined;
      }
      await store.save(profile, secret);
      imported++;
    }
    output.info(`Imported ${imported} of ${raw.length} mssql connection(s).`);
    await vscode.window.showInformationMessage(l10n.t(`Durability Lens: imported {0} of {1} mssql connection(s); skipped ones are explained in the output.`, imported, raw.length));
  };

  const remove = async () => {
    const picked = await manager.pickProfile(l10n.t('Remove which connection?'));
    if (!picked || picked === 'add') return;
    const yes = await vscode.window.showWarningMessage(l10n.t(`Remove the connection "{0}" and its stored secret?`, picked.name), { modal: true }, l10n.t('Remove'));
    if (yes !== l10n.t('Remove')) return;
    if (manager.current?.profile.name === picked.name) await manager.disconnect();
    await store.remove(picked.name);
    output.info(`Removed connection "${picked.name}".`);
  };

  return [
    vscode.commands.registerCommand(ConnectionCommands.addConnection, add),
    vscode.commands.registerCommand(ConnectionCommands.importMssqlConnections, importMssql),
    vscode.commands.registerCommand(ConnectionCommands.connect, () => manager.connect()),
    vscode.commands.registerCommand(ConnectionCommands.disconnect, () => manager.disconnect()),
    vscode.commands.registerCommand(ConnectionCommands.switchDatabase, () => manager.switchDatabase()),
    vscode.commands.registerCommand(ConnectionCommands.removeConnection, remove),
    vscode.commands.registerCommand(ConnectionCommands.restorePendingSettings, () => manager.offerPendingRestores()),
    vscode.commands.registerCommand(STATUS_BAR_COMMAND, () => manager.connectionMenu()),
  ];
}
