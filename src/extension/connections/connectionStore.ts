// Reads and writes connection profiles (settings, global scope) and their secrets (SecretStorage, one key per
// profile identity: name + server + user + authentication type). Nothing secret ever goes to settings.
import * as vscode from 'vscode';
import {
  CONNECTIONS_SETTING,
  needsSecret,
  readStoredProfiles,
  removeProfile,
  legacySecretKey,
  secretKey,
  secretLabel,
  upsertProfile,
  type StoredProfile,
} from '../../db/storedProfiles';
import { l10n } from '../l10n';

export class ConnectionStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  private config(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('durabilityLens');
  }

  read(): { profiles: StoredProfile[]; problems: string[] } {
    return readStoredProfiles(this.config().get<unknown>(CONNECTIONS_SETTING));
  }

  find(name: string): StoredProfile | undefined {
    return this.read().profiles.find((p) => p.name.toLowerCase() === name.toLowerCase());
  }

  private raw(): unknown[] {
    const inspected = this.config().inspect<unknown[]>(CONNECTIONS_SETTING);
    const value = inspected?.globalValue;
    return Array.isArray(value) ? value : [];
  }

  /** Profiles go to user settings: a connection is personal, and workspace settings are often committed. */
  async save(profile: StoredProfile, secret?: string): Promise<void> {
    await this.config().update(CONNECTIONS_SETTING, upsertProfile(this.raw(), profile), vscode.ConfigurationTarget.Global);
    if (secret !== undefined) await this.storeSecret(profile, secret);
  }

  async remove(name: string): Promise<void> {
    const profile = this.find(name);
    await this.config().update(CONNECTIONS_SETTING, removeProfile(this.raw(), name), vscode.ConfigurationTarget.Global);
    if (profile) await this.secrets.delete(secretKey(profile));
    await this.secrets.delete(legacySecretKey(name));
  }

  async getSecret(profile: StoredProfile): Promise<string | undefined> {
    return this.secrets.get(secretKey(profile));
  }

  async forgetSecret(profile: StoredProfile): Promise<void> {
    await this.secrets.delete(secretKey(profile));
    await this.secrets.delete(legacySecretKey(profile.name));
  }

  /** A name-only key of an older version is dropped rather than moved: it cannot say which server it was for. */
  private async storeSecret(profile: StoredProfile, secret: string): Promise<void> {
    await this.secrets.store(secretKey(profile), secret);
    await this.secrets.delete(legacySecretKey(profile.name));
  }

  /** The stored secret, or asks for it (and stores it) when the type needs one; undefined when the user cancelled. */
  async secretFor(profile: StoredProfile, ask = true): Promise<{ secret: string | undefined } | undefined> {
    if (!needsSecret(profile.authenticationType)) return { secret: undefined };
    const stored = await this.getSecret(profile);
    if (stored !== undefined) return { secret: stored };
    if (!ask) return undefined;
    const label = secretLabel(profile.authenticationType);
    const entered = await vscode.window.showInputBox({
      title: l10n.t(`Durability Lens: {0} for "{1}"`, label, profile.name),
      prompt: profile.user ? l10n.t("{0} on {1}. Kept in VS Code's secret storage, never in settings.", profile.user, profile.server) : l10n.t("{0}. Kept in VS Code's secret storage, never in settings.", profile.server),
      password: true,
      ignoreFocusOut: true,
    });
    if (entered === undefined) return undefined;
    await this.storeSecret(profile, entered);
    return { secret: entered };
  }
}
