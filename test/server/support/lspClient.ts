// A minimal LSP client for tests: spawns the real language server over stdio (node --import tsx),
// answers workspace/configuration from a settings map, and lets tests wait for diagnostics with a deadline.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import {
  CodeActionRequest,
  CodeLensRequest,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  HoverRequest,
  InitializeRequest,
  InitializedNotification,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  ConfigurationRequest,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
  type CodeAction,
  type CodeActionContext,
  type CodeLens,
  type Hover,
  type InitializeResult,
  type Position,
  type Range,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type TextDocumentContentChangeEvent,
} from 'vscode-languageserver-protocol/node';
import { DatabaseContextNotification, type DatabaseContextParams } from '../../../src/shared/protocol';

const repoRoot = path.resolve(__dirname, '../../..');
// DURABILITY_LENS_TEST_BUNDLE=1 runs the same tests against the webpack bundle VS Code would start.
const bundled = process.env.DURABILITY_LENS_TEST_BUNDLE === '1';
const serverArgs = bundled
  ? [path.join(repoRoot, 'dist/server.js'), '--stdio']
  : ['--import', 'tsx', path.join(repoRoot, 'src/server/server.ts'), '--stdio'];

interface Waiter {
  matches: (p: PublishDiagnosticsParams) => boolean;
  resolve: (p: PublishDiagnosticsParams) => void;
}

export interface StartOptions {
  /** Whether the client claims workspace/configuration support (default true). */
  configuration?: boolean;
  /** What the client claims it can apply in a WorkspaceEdit (default: neither versioned edits nor snippets). */
  workspaceEdit?: { documentChanges?: boolean; snippetEditSupport?: boolean };
}

export class LspTestClient {
  /** Raw `durabilityLens` section returned for every scope URI (VS Code nests dotted keys the same way). */
  settings: Record<string, unknown> = {};
  /** Scope URIs the server asked configuration for, in order. */
  readonly configurationRequests: string[] = [];
  /** Every publishDiagnostics received, oldest first. */
  readonly published: PublishDiagnosticsParams[] = [];
  private readonly waiters = new Set<Waiter>();
  private stderr = '';

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
  ) {
    child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.push(params);
      for (const waiter of [...this.waiters]) {
        if (waiter.matches(params)) {
          this.waiters.delete(waiter);
          waiter.resolve(params);
        }
      }
    });
    connection.onRequest(ConfigurationRequest.type, (params) =>
      params.items.map((item) => {
        this.configurationRequests.push(item.scopeUri ?? '');
        return item.section === 'durabilityLens' ? this.settings : null;
      }),
    );
  }

  static async start(options: StartOptions = {}): Promise<{ client: LspTestClient; initialize: InitializeResult }> {
    const child = spawn(process.execPath, serverArgs, { cwd: repoRoot, stdio: 'pipe' });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new LspTestClient(child, connection);
    connection.listen();
    const initialize = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders: null,
      capabilities: {
        workspace: { configuration: options.configuration ?? true, workspaceEdit: options.workspaceEdit ?? {} },
        textDocument: { publishDiagnostics: { versionSupport: true } },
      },
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return { client, initialize };
  }

  /** Resolves with the first publish (already received or future) for `uri` that `matches`; rejects after the deadline. */
  waitForDiagnostics(
    uri: string,
    matches: (p: PublishDiagnosticsParams) => boolean = () => true,
    timeoutMs = 10_000,
    after = 0,
  ): Promise<PublishDiagnosticsParams> {
    const seen = this.published.slice(after).find((p) => p.uri === uri && matches(p));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        matches: (p) => p.uri === uri && matches(p),
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        const last = this.published.filter((p) => p.uri === uri).at(-1);
        reject(new Error(`no matching diagnostics for ${uri} within ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${this.stderr}`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Waits for the diagnostics of exactly `version` (the server publishes with versions). */
  diagnosticsOfVersion(uri: string, version: number, after = 0): Promise<PublishDiagnosticsParams> {
    return this.waitForDiagnostics(uri, (p) => p.version === version, 10_000, after);
  }

  async open(uri: string, text: string, version = 1): Promise<void> {
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'sql', version, text },
    });
  }

  async change(uri: string, version: number, contentChanges: TextDocumentContentChangeEvent[]): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges });
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  async codeLenses(uri: string): Promise<CodeLens[]> {
    return (await this.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
  }

  async codeActions(uri: string, range: Range, context: CodeActionContext): Promise<CodeAction[]> {
    const result = (await this.connection.sendRequest(CodeActionRequest.type, { textDocument: { uri }, range, context })) ?? [];
    return result.filter((a): a is CodeAction => 'title' in a && !('command' in a && typeof a.command === 'string'));
  }

  async hover(uri: string, position: Position): Promise<Hover | null> {
    return this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position });
  }

  async setDatabase(params: DatabaseContextParams | null): Promise<void> {
    await this.connection.sendNotification(DatabaseContextNotification.type, params);
  }

  async configurationChanged(): Promise<void> {
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    try {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    } finally {
      const deadline = setTimeout(() => this.child.kill(), 5_000);
      await exited;
      clearTimeout(deadline);
      this.connection.dispose();
    }
  }
}
