// Publishes diagnostics per document: right away on open, debounced while the user types, always for the
// latest version (a stale computation is dropped, never published over a newer one).
import type { Connection, Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';

/** Typing produces a change per keystroke; analysing after a short pause keeps the server idle meanwhile. */
export const TYPING_DEBOUNCE_MS = 150;

export type ComputeDiagnostics = (document: TextDocument) => Promise<Diagnostic[]>;

export class DiagnosticsPublisher {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly connection: Connection,
    private readonly latest: (uri: string) => TextDocument | undefined,
    private readonly compute: ComputeDiagnostics,
  ) {}

  /** Publish soon (after the debounce), e.g. after a change. */
  schedule(uri: string): void {
    this.cancel(uri);
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        void this.publishNow(uri);
      }, TYPING_DEBOUNCE_MS),
    );
  }

  async publishNow(uri: string): Promise<void> {
    this.cancel(uri);
    const document = this.latest(uri);
    if (!document) return;
    let diagnostics: Diagnostic[];
    try {
      diagnostics = await this.compute(document);
    } catch (error) {
      // An analyzer bug must not take the server down; leave the previous diagnostics and say why in the log.
      this.connection.console.error(`Analysis of ${uri} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return;
    }
    const current = this.latest(uri);
    if (!current || current.version !== document.version) return; // a newer version will publish itself
    await this.connection.sendDiagnostics({ uri, version: document.version, diagnostics });
  }

  /** Document closed: cancel pending work and clear what the editor shows. */
  async clear(uri: string): Promise<void> {
    this.cancel(uri);
    await this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  private cancel(uri: string): void {
    const timer = this.timers.get(uri);
    if (timer) clearTimeout(timer);
    this.timers.delete(uri);
  }
}
