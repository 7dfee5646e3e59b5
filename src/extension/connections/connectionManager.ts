// The active connection: connect (secret from SecretStorage, classified failures with the trust-certificate retry),
// permission preflight, the status bar item (server · database · DELAYED_DURABILITY), switch database, disconnect,
// and the restore-journal prompt on activation and connect.
import * as vscode from 'vscode';
import { ConnectionFailure } from '../../db/errors';
import { loadDriver } from '../../db/loadDriver';
import type { SqlSession } from '../../db/types';
import { captureServerIdentity, preflightPermissions, type PreflightResult } from '../../probes';
import { describeServer, figureSourceOf, pendingRestores, profileConnectionSource, readDurability, readTargetDatabase, recoverFromJournal, type ConnectionSource, type DurabilityMode, type RestoreEntry, type RestoreJournal } from '../../profile';
import type { DatabaseContextParams } from '../../shared/protocol';
import { STATUS_BAR_COMMAND, ConnectionCommands } from '../commandIds';
import { describeStoredServer, FULL_CONNECTIONS_SETTING, toConnectionProfile, type StoredProfile } from '../../db/storedProfiles';
import type { ConnectionStore } from './connectionStore';
import { currentRunSettings } from '../runOptions';
import { connectionFailureText, preflightSummary, restorePrompt } from '../uiText';
import { askToTrustCertificate, confirmClearTextLogin, encryptionStatus, mayOfferCertificateTrust, TRUST_CERTIFICATE_ACTION } from './certificateTrust';
import { l10n } from '../l10n';
import { iconLabelField } from '../../shared/visibleText';

/**
 * Databases this login can open (Learn: sys-databases-transact-sql; HAS_DBACCESS: has-dbaccess-transact-sql).
 * Read-only and cheap; used by Switch Database.
 */
export const LIST_DATABASES_SQL = `SELECT name
FROM sys.databases
WHERE state_desc = N'ONLINE' AND HAS_DBACCESS(name) = 1
ORDER BY name;`;

export interface ActiveConnection {
  profile: StoredProfile;
  database: string;
  secret: string | undefined;
  serverLabel: string;
  delayedDurability: DurabilityMode | null;
  preflight: PreflightResult | null;
  /** SERVERPROPERTY('EngineEdition'): 5 and 12 (Azure SQL Database) keep event sessions per database. */
  engineEdition: number | null;
  /** The figures will be the test stand-in's (its @@VERSION says so). */
  standIn: boolean;
}

export class ConnectionManager implements vscode.Disposable {
  private active: ActiveConnection | null = null;
  private readonly statusItem: vscode.StatusBarItem;
  private readonly changed = new vscode.EventEmitter<ActiveConnection | null>();
  readonly onDidChange = this.changed.event;
  private readonly connected = new vscode.EventEmitter<ActiveConnection>();
  /** A new connection (connect, switch database, reconnect): not fired by refresh. */
  readonly onDidConnect = this.connected.event;
  private readonly configListener: vscode.Disposable;

  constructor(
    private readonly store: ConnectionStore,
    private readonly output: vscode.LogOutputChannel,
    private readonly journal: RestoreJournal,
    private readonly setDatabaseContext: (context: DatabaseContextParams | null) => Promise<void>,
  ) {
    this.statusItem = vscode.window.createStatusBarItem('durabilityLens.connection', vscode.StatusBarAlignment.Left, 50);
    this.statusItem.name = l10n.t('Durability Lens connection');
    this.render();
    this.statusItem.show();
    // Editing settings.json by hand: a removed profile disconnects; an edited one (e.g. `development`) applies.
    this.configListener = vscode.workspace.onDidChangeConfiguration((event) => {
      if (!this.active || !event.affectsConfiguration(FULL_CONNECTIONS_SETTING)) return;
      const name = this.active.profile.name;
      const now = this.store.find(name);
      if (now) {
        this.active = { ...this.active, profile: now };
        this.render();
        return;
      }
      void this.disconnect().then(() => vscode.window.showInformationMessage(l10n.t(`Durability Lens: the connection "{0}" is no longer in {1}; disconnected.`, name, FULL_CONNECTIONS_SETTING)));
    });
  }

  get current(): ActiveConnection | null {
    return this.active;
  }

  dispose(): void {
    this.configListener.dispose();
    this.statusItem.dispose();
    this.changed.dispose();
    this.connected.dispose();
  }

  connectionSource(): ConnectionSource | null {
    const a = this.active;
    return a ? profileConnectionSource(this.profileFor(a.profile, a.database), a.secret) : null;
  }

  /** The db layer's profile with the connect timeout of the `durabilityLens.timeouts.connectMs` setting. */
  private profileFor(profile: StoredProfile, database?: string) {
    return { ...toConnectionProfile(profile, database), connectTimeoutMs: currentRunSettings().connectTimeoutMs };
  }

  private render(): void {
    const a = this.active;
    if (!a) {
      this.statusItem.text = l10n.t('$(debug-disconnect) Durability Lens: not connected');
      this.statusItem.tooltip = l10n.t('Connect to a SQL Server to profile and compare durability modes');
      this.statusItem.command = ConnectionCommands.connect;
      return;
    }
    this.statusItem.text = `$(database) ${iconLabelField(describeStoredServer(a.profile))} · ${iconLabelField(a.database)} · ${a.delayedDurability ?? l10n.t('DELAYED_DURABILITY unknown')}`;
    this.statusItem.tooltip = l10n.t(`Durability Lens: connection "{0}". DELAYED_DURABILITY of {1} is {2}. Click to switch database or connection.`, a.profile.name, a.database, a.delayedDurability ?? l10n.t('unknown'));
    this.statusItem.command = STATUS_BAR_COMMAND;
  }

  private async publish(): Promise<void> {
    this.render();
    this.changed.fire(this.active);
    const a = this.active;
    await this.setDatabaseContext(a && a.delayedDurability ? { database: a.database, delayedDurability: a.delayedDurability } : null);
  }

  async pickProfile(placeHolder: string): Promise<StoredProfile | 'add' | undefined> {
    const { profiles, problems } = this.store.read();
    for (const p of problems) this.output.warn(`durabilityLens.connections: ${p}`);
    type Item = vscode.QuickPickItem & { profile?: StoredProfile };
    const items: Item[] = profiles.map((p) => ({ label: iconLabelField(p.name), description: `${iconLabelField(describeStoredServer(p))} · ${iconLabelField(p.database)}`, detail: p.development ? l10n.t('development database (no confirmation before comparisons)') : undefined, profile: p }));
    items.push({ label: l10n.t('$(add) Add Connection…') });
    const picked = await vscode.window.showQuickPick(items, { placeHolder, ignoreFocusOut: true });
    if (!picked) return undefined;
    return picked.profile ?? 'add';
  }

  /** Connects with `profile` (or asks which); returns true when connected. */
  async connect(profile?: StoredProfile, database?: string): Promise<boolean> {
    let chosen: StoredProfile | 'add' | undefined = profile;
    if (!chosen) chosen = await this.pickProfile(l10n.t('Connect Durability Lens to…'));
    if (chosen === 'add') {
      await vscode.commands.executeCommand(ConnectionCommands.addConnection);
      return this.active !== null;
    }
    if (!chosen) return false;
    return this.connectWith(chosen, database ?? chosen.database);
  }

  private async connectWith(profile: StoredProfile, database: string): Promise<boolean> {
    if (!(await confirmClearTextLogin(profile))) return false;
    const secret = await this.store.secretFor(profile);
    if (!secret) return false;
    const connectionProfile = this.profileFor(profile, database);
    let session: SqlSession | null = null;
    try {
      session = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: l10n.t(`Durability Lens: connecting to {0}…`, describeStoredServer(profile)), cancellable: true },
        async (_progress, token) => {
          const abort = new AbortController();
          token.onCancellationRequested(() => abort.abort());
          return (await loadDriver()).connect(connectionProfile, secret.secret, { role: 'monitor', signal: abort.signal });
        },
      );
      const identity = await captureServerIdentity(session);
      const target = await readTargetDatabase(session);
      let delayedDurability: DurabilityMode | null = null;
      try {
        delayedDurability = await readDurability(session, target.databaseName);
      } catch (err) {
        this.output.warn(`Could not read DELAYED_DURABILITY of ${target.databaseName}: ${(err as Error).message}`);
      }
      let preflight: PreflightResult | null = null;
      try {
        preflight = await preflightPermissions(session, { majorVersion: identity.majorVersion, engineEdition: identity.engineEdition, databaseName: target.databaseName });
      } catch (err) {
        this.output.warn(`Permission preflight failed: ${(err as Error).message}`);
      }
      const encryption = encryptionStatus(session, profile);
      this.output.info(`Connected "${profile.name}": ${describeStoredServer(profile)}, database ${target.databaseName}, ${identity.productVersion} ${identity.edition}, ${encryption}, DELAYED_DURABILITY ${delayedDurability ?? 'unknown'}.`);
      this.active = {
        profile,
        database: target.databaseName,
        secret: secret.secret,
        serverLabel: describeServer(connectionProfile),
        delayedDurability,
        preflight,
        engineEdition: identity.engineEdition,
        standIn: figureSourceOf(identity.versionText) === 'stand-in',
      };
      await this.publish();
      this.connected.fire(this.active);
      if (preflight) void this.showPreflight(preflight);
      void this.offerPendingRestores(this.active.serverLabel);
      return true;
    } catch (err) {
      await this.handleConnectFailure(err, profile, database);
      return this.active?.profile.name === profile.name;
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  private async handleConnectFailure(err: unknown, profile: StoredProfile, database: string): Promise<void> {
    if (!(err instanceof ConnectionFailure)) {
      this.output.error(`Connecting "${profile.name}" failed: ${(err as Error)?.message ?? String(err)}`);
      await vscode.window.showErrorMessage(l10n.t(`Durability Lens could not connect with "{0}": {1} Nothing was changed on the server.`, profile.name, (err as Error)?.message ?? String(err)));
      return;
    }
    const info = err.info;
    if (info.kind === 'cancelled') return;
    this.output.error(`${connectionFailureText(info, profile.name)} [driver: ${info.driverMessage}]`);
    const trust = TRUST_CERTIFICATE_ACTION();
    const reenter = l10n.t('Re-enter Password');
    const settings = l10n.t('Open Settings');
    const show = l10n.t('Show Output');
    const actions = [...(mayOfferCertificateTrust(info, profile) ? [trust] : []), ...(info.kind === 'login-failed' ? [reenter] : []), settings, show];
    const choice = await vscode.window.showErrorMessage(connectionFailureText(info, profile.name), ...actions);
    if (choice === trust) {
      const trusted = await askToTrustCertificate(profile, this.profileFor(profile, database), (line) => this.output.info(line));
      if (!trusted) return;
      await this.store.save(trusted);
      this.output.info(`"${profile.name}": trusting the certificate with SHA-256 ${trusted.certificateSha256} (this profile only); retrying.`);
      await this.connectWith(trusted, database);
    } else if (choice === reenter) {
      await this.store.forgetSecret(profile);
      await this.connectWith(profile, database);
    } else if (choice === settings) {
      await vscode.commands.executeCommand('workbench.action.openSettingsJson');
    } else if (choice === show) {
      this.output.show(true);
    }
  }

  private async showPreflight(preflight: PreflightResult): Promise<void> {
    const summary = preflightSummary(preflight);
    this.output.info(summary.log);
    if (!summary.message) return;
    const copy = l10n.t('Copy GRANTs');
    const show = l10n.t('Show Output');
    const choice = await vscode.window.showWarningMessage(l10n.t(`Durability Lens: {0}`, summary.message), copy, show);
    if (choice === copy) {
      await vscode.env.clipboard.writeText(summary.grantScript);
      void vscode.window.showInformationMessage(l10n.t('Durability Lens: the GRANT statements are on the clipboard.'));
    } else if (choice === show) this.output.show(true);
  }

  async disconnect(): Promise<void> {
    if (!this.active) return;
    this.output.info(`Disconnected "${this.active.profile.name}".`);
    this.active = null;
    await this.publish();
  }

  /** Re-reads DELAYED_DURABILITY (after a comparison, or when the user asks) and updates the status bar and server. */
  async refresh(): Promise<void> {
    const source = this.connectionSource();
    if (!source || !this.active) return;
    let session: SqlSession | null = null;
    try {
      session = await source.open('monitor');
      this.active = { ...this.active, delayedDurability: await readDurability(session, this.active.database) };
      await this.publish();
    } catch (err) {
      this.output.warn(`Could not re-read DELAYED_DURABILITY: ${(err as Error).message}`);
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  async switchDatabase(): Promise<void> {
    if (!this.active && !(await this.connect())) return;
    const a = this.active!;
    const source = this.connectionSource()!;
    let names: string[] = [];
    let session: SqlSession | null = null;
    try {
      session = await source.open('monitor');
      names = (await session.query(LIST_DATABASES_SQL)).map((r) => String(r.name));
    } catch (err) {
      this.output.warn(`Could not list databases: ${(err as Error).message}`);
    } finally {
      await session?.close().catch(() => undefined);
    }
    // The server's names as written in the list (iconLabelField), each item keeping the name itself.
    const picked = names.length > 0
      ? await vscode.window.showQuickPick(names.map((n) => ({ label: iconLabelField(n), description: n === a.database ? l10n.t('current') : undefined, name: n })), { placeHolder: l10n.t(`Database on {0}`, describeStoredServer(a.profile)) })
      : await vscode.window.showInputBox({ prompt: l10n.t('Database name (the list of databases could not be read)'), value: a.database }).then((v) => (v ? { name: v } : undefined));
    if (!picked || picked.name === a.database) return;
    await this.connectWith(a.profile, picked.name);
  }

  async connectionMenu(): Promise<void> {
    const [database, connection, disconnect, connect] = [l10n.t('Switch Database'), l10n.t('Switch Connection'), l10n.t('Disconnect'), l10n.t('Connect')];
    const choice = await vscode.window.showQuickPick(this.active ? [database, connection, disconnect] : [connect], { placeHolder: l10n.t('Durability Lens connection') });
    if (choice === database) await this.switchDatabase();
    else if (choice === connection || choice === connect) await this.connect();
    else if (choice === disconnect) await this.disconnect();
  }

  /** The profile that reaches the server an entry names, if any. */
  private profileForServer(server: string): StoredProfile | undefined {
    if (this.active && this.active.serverLabel.toLowerCase() === server.toLowerCase()) return this.active.profile;
    return this.store.read().profiles.find((p) => describeServer(toConnectionProfile(p)).toLowerCase() === server.toLowerCase());
  }

  /** Asks to restore what an unfinished comparison left switched (all entries, or those of one server). */
  async offerPendingRestores(server?: string): Promise<void> {
    let entries: RestoreEntry[];
    try {
      entries = await pendingRestores(this.journal, server);
    } catch (err) {
      this.output.error(`Could not read the restore journal: ${(err as Error).message}`);
      return;
    }
    if (entries.length === 0) return;
    const text = restorePrompt(entries);
    this.output.warn(`${text.message}\n${text.detail}`);
    const choice = await vscode.window.showWarningMessage(text.message, { modal: true, detail: text.detail }, l10n.t('Restore Now'), l10n.t('Later'));
    if (choice !== l10n.t('Restore Now')) return;
    await this.restoreEntries(entries);
  }

  async restoreEntries(entries: readonly RestoreEntry[]): Promise<void> {
    const outcomes = await recoverFromJournal(
      this.journal,
      async (entry) => {
        const profile = this.profileForServer(entry.server);
        if (!profile) throw new Error(`no saved connection reaches ${entry.server}; add one (Durability Lens: Add Connection) and try again`);
        // Every path that sends the password asks first when it would travel in clear text (issue 25 N6).
        if (!(await confirmClearTextLogin(profile))) throw new Error(`encryption is off in "${profile.name}", so the password would reach ${entry.server} in clear text, and that was not confirmed: nothing was sent`);
        // The active connection's secret is known to work; the stored one may have been changed since.
        const active = this.active && this.active.profile.name === profile.name ? this.active : null;
        const secret = active ? { secret: active.secret } : await this.store.secretFor(profile);
        if (!secret) throw new Error('no password was given');
        return (await loadDriver()).connect(toConnectionProfile(profile, entry.database), secret.secret, { role: 'monitor' });
      },
      entries,
    );
    for (const o of outcomes) {
      if (o.status === 'failed') {
        this.output.error(o.message);
        const copy = l10n.t('Copy Statement');
        void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, o.message), copy).then((c) => (c === copy ? vscode.env.clipboard.writeText(o.restoreStatement) : undefined));
      } else {
        this.output.info(o.message);
        void vscode.window.showInformationMessage(l10n.t(`Durability Lens: {0}`, o.message));
      }
    }
    if (this.active) await this.refresh();
  }
}
