// Per-document settings pulled from the client with workspace/configuration (scoped to the document URI,
// so folder settings apply), cached until the client says configuration changed.
import type { Connection } from 'vscode-languageserver/node';
import { SETTINGS_SECTION, defaultSettings, readSettings, type DurabilityLensSettings } from '../shared/settings';

export class SettingsCache {
  private readonly byUri = new Map<string, Promise<DurabilityLensSettings>>();
  /** False when the client cannot answer workspace/configuration: everything runs on defaults. */
  supported = false;

  constructor(private readonly connection: Connection) {}

  get(uri: string): Promise<DurabilityLensSettings> {
    if (!this.supported) return Promise.resolve(defaultSettings());
    let pending = this.byUri.get(uri);
    if (!pending) {
      pending = this.connection.workspace
        .getConfiguration({ scopeUri: uri, section: SETTINGS_SECTION })
        .then(readSettings, (error: unknown) => {
          // A client that fails the request should not switch analysis off; say so and use defaults.
          this.connection.console.warn(`Could not read ${SETTINGS_SECTION} settings for ${uri}: ${String(error)}`);
          this.byUri.delete(uri);
          return defaultSettings();
        });
      this.byUri.set(uri, pending);
    }
    return pending;
  }

  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  clear(): void {
    this.byUri.clear();
  }
}
