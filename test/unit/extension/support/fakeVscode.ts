// A small scripted stand-in for the `vscode` module, enough for ConnectionManager, ConnectionStore and
// ProfilingController: answers to prompts are queued by the test, everything shown is recorded.
import Module from 'node:module';
import { readFileSync } from 'node:fs';

export interface Shown {
  kind: 'info' | 'warning' | 'error';
  message: string;
  detail?: string;
  modal: boolean;
  items: string[];
}

export class FakeVscode {
  shown: Shown[] = [];
  /** Answers for showInformation/Warning/ErrorMessage, in order (undefined = dismissed). */
  messageAnswers: (string | undefined)[] = [];
  quickPickAnswers: ((items: { label: string }[]) => unknown)[] = [];
  inputAnswers: (string | undefined)[] = [];
  settings: Record<string, unknown> = {};
  /** Values from the workspace's .vscode/settings.json: `get` prefers them, `inspect` reports them apart. */
  workspaceSettings: Record<string, unknown> = {};
  secrets = new Map<string, string>();
  statusText = '';
  /** Text of status bar items other than the connection item, by id ('' once hidden). */
  statusItems = new Map<string, string>();
  /** What showSaveDialog answers (a path), and the files written through workspace.fs. */
  saveAnswers: (string | undefined)[] = [];
  written = new Map<string, string>();
  /** Files whose bytes workspace.fs.readFile returns as they are (another encoding than UTF-8). */
  writtenBytes = new Map<string, Uint8Array>();
  /** Files read through workspace.fs.readFile, in order. */
  fileReads: string[] = [];
  /** Sizes fs.stat reports instead of the written text's (a huge file without allocating it). */
  fileSizes = new Map<string, number>();
  /** What showOpenDialog answers (a path; files are read from `written`). */
  openAnswers: (string | undefined)[] = [];
  /** Placeholders of the quick picks shown, in order (the e2e tests drive them by placeholder). */
  quickPickPlaceholders: string[] = [];
  clipboard = '';
  diagnostics = new Map<string, { message: string; line: number }[]>();
  progress: string[] = [];
  /** Titles of the progress shown through window.withProgress, in order. */
  progressTitles: string[] = [];
  /** The user presses the notification's Cancel when a progress message matches (then the pattern is cleared). */
  cancelWhenProgress: RegExp | null = null;
  private contentProvider: { provideTextDocumentContent(uri: unknown): string } | null = null;
  private configListeners: ((e: { affectsConfiguration(section: string): boolean }) => void)[] = [];
  /** What workspace.textDocuments returns (lens targets find their document here). */
  documents: unknown[] = [];
  /** Inlay hint and hover providers registered through languages.* (statement hints). */
  inlayProviders: unknown[] = [];
  hoverProviders: unknown[] = [];
  /** Language status items created through languages.createLanguageStatusItem, as the code left them. */
  languageStatusItems: Record<string, unknown>[] = [];
  /** Listeners of workspace.onDidChangeTextDocument / onDidCloseTextDocument: call them to simulate an edit or close. */
  changeListeners: ((e: { document: { uri: { toString(): string } }; contentChanges: unknown[] }) => void)[] = [];
  closeListeners: ((d: { uri: { toString(): string } }) => void)[] = [];
  /** workspace.isTrusted: false simulates Restricted Mode. */
  trusted = true;
  /**
   * Answer the consent view (a modal starting "Durability Lens: confirm what runs —") with its confirm button without
   * taking an answer from messageAnswers: tests about other things need not script it; it is still recorded in
   * `shown`. Consent tests set it false and answer it themselves.
   */
  autoConsent = true;
  /** Virtual documents opened (the consent view's read-only tab): their URI and text. */
  previews: { uri: string; text: string }[] = [];
  commandsRun: string[] = [];
  /**
   * Commands another extension registered (a test double of the mssql extension): executeCommand calls them and
   * returns their result; getCommands lists them. Other ids are only recorded, as before.
   */
  externalCommands = new Map<string, (...args: unknown[]) => unknown>();
  /** Commands the code under test registered (vscode.commands.registerCommand), by id; dispose() removes one. */
  registeredCommands = new Map<string, (...args: unknown[]) => unknown>();
  /** Other installed extensions by id (vscode.extensions.getExtension). */
  extensions = new Map<string, { id: string; packageJSON: Record<string, unknown>; isActive: boolean; activate(): Promise<unknown>; exports?: unknown }>();
  /** Language-model tools registered through vscode.lm.registerTool, by name; null: this VS Code has no lm API. */
  lmTools: Map<string, unknown> | null = new Map();
  /** vscode.window.activeTextEditor. */
  activeEditor: unknown = undefined;
  /** workspace.openTextDocument reads file: URIs from disk (UTF-8); the paths it opened, in order. */
  openFromDisk = false;
  opened: string[] = [];
  /** vscode.workspace.workspaceFolders. */
  workspaceFolders: { uri: { toString(): string; path: string; scheme?: string; authority?: string; fsPath?: string } }[] | undefined = undefined;
  /** Lines written to output channels made by window.createOutputChannel, as `level text`. */
  outputLines: string[] = [];
  /** Webview panel serializers registered through window.registerWebviewPanelSerializer, by view type. */
  panelSerializers = new Map<string, unknown>();
  /** What window.createTreeView throws (the fake draws no tree views); null: a view that shows nothing. */
  treeViewError: Error | null = new Error('the fake vscode has no tree views');

  module(): Record<string, unknown> {
    const self = this;
    class Position {
      constructor(readonly line: number, readonly character: number) {}
    }
    class Range {
      constructor(readonly start: Position, readonly end: Position) {}
      get isEmpty() {
        return this.start.line === this.end.line && this.start.character === this.end.character;
      }
    }
    class Selection extends Range {}
    class Diagnostic {
      source?: string;
      code?: unknown;
      constructor(readonly range: Range, readonly message: string, readonly severity: number) {}
    }
    class InlayHint {
      paddingLeft?: boolean;
      tooltip?: string;
      constructor(readonly position: Position, readonly label: string) {}
    }
    class MarkdownString {
      constructor(public value = '') {}
      appendMarkdown(t: string) {
        this.value += t;
        return this;
      }
      /** Like VS Code: the text is escaped so it cannot be read as Markdown. */
      appendText(t: string) {
        this.value += t.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
        return this;
      }
    }
    class Hover {
      constructor(readonly contents: MarkdownString) {}
    }
    class LanguageModelTextPart {
      constructor(readonly value: string) {}
    }
    class LanguageModelToolResult {
      constructor(readonly content: unknown[]) {}
    }
    class CancellationTokenSource {
      private listeners: (() => void)[] = [];
      token = { isCancellationRequested: false, onCancellationRequested: (l: () => void) => (this.listeners.push(l), { dispose() {} }) };
      cancel() {
        this.token.isCancellationRequested = true;
        for (const l of this.listeners) l();
      }
      dispose() {}
    }
    class EventEmitter<T> {
      private listeners: ((v: T) => void)[] = [];
      event = (l: (v: T) => void) => {
        this.listeners.push(l);
        return { dispose() {} };
      };
      fire(v: T) {
        for (const l of this.listeners) l(v);
      }
      dispose() {}
    }
    const message = (kind: Shown['kind']) => async (msg: string, ...rest: unknown[]) => {
      let modal = false;
      let detail: string | undefined;
      if (rest.length > 0 && typeof rest[0] === 'object' && rest[0] !== null) {
        const options = rest.shift() as { modal?: boolean; detail?: string };
        modal = !!options.modal;
        detail = options.detail;
      }
      self.shown.push({ kind, message: msg, ...(detail !== undefined ? { detail } : {}), modal, items: rest as string[] });
      if (self.autoConsent && modal && msg.startsWith('Durability Lens: confirm what runs —')) return rest[0];
      return self.messageAnswers.shift();
    };
    return {
      Disposable: { from: (...all: { dispose(): unknown }[]) => ({ dispose: () => all.forEach((d) => d.dispose()) }) },
      Position,
      Range,
      Selection,
      InlayHint,
      MarkdownString,
      Hover,
      Diagnostic,
      LanguageModelTextPart,
      LanguageModelToolResult,
      CancellationTokenSource,
      EventEmitter,
      DiagnosticSeverity: { Error: 0, Warning: 1 },
      StatusBarAlignment: { Left: 1, Right: 2 },
      LanguageStatusSeverity: { Information: 0, Warning: 1, Error: 2 },
      ProgressLocation: { Notification: 15 },
      ConfigurationTarget: { Global: 1 },
      TextEditorRevealType: { InCenter: 2 },
      ViewColumn: { One: 1, Beside: -2 },
      Uri: {
        // scheme, authority, path and fsPath as VS Code's Uri has them (no normalisation of `..`, like VS Code).
        parse: (s: string) => {
          const m = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(.*)$/i.exec(s);
          const path = m ? decodeURIComponent(m[3]!) : s;
          return { toString: () => s, scheme: m ? m[1]!.toLowerCase() : '', authority: m ? m[2]! : '', path, fsPath: path };
        },
        file: (p: string) => ({ toString: () => `file://${p.startsWith('/') ? '' : '/'}${p.replace(/\\/g, '/')}`, scheme: 'file', authority: '', path: p, fsPath: p }),
        from: (c: { scheme: string; path: string; query?: string }) => ({ toString: () => `${c.scheme}:${c.path}${c.query ? `?${c.query}` : ''}` }),
        joinPath: (base: { toString(): string; scheme?: string; authority?: string; path?: string }, ...parts: string[]) => {
          const path = [base.path ?? '', ...parts].join('/');
          return { toString: () => [base.toString(), ...parts].join('/'), scheme: base.scheme ?? '', authority: base.authority ?? '', path, fsPath: path };
        } },
      env: { clipboard: { writeText: async (t: string) => void (self.clipboard = t) } },
      // A placeholder without an argument stays as it is (the English text formatMessage gives, src/extension/l10n.ts).
      l10n: { t: (text: string, ...args: unknown[]) => text.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)) },
      commands: {
        executeCommand: async (id: string, ...args: unknown[]) => {
          self.commandsRun.push(id);
          const handler = self.externalCommands.get(id);
          return handler ? handler(...args) : undefined;
        },
        getCommands: async () => [...self.externalCommands.keys()],
        registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
          self.registeredCommands.set(id, handler);
          return { dispose: () => void (self.registeredCommands.get(id) === handler && self.registeredCommands.delete(id)) };
        },
      },
      extensions: { getExtension: (id: string) => self.extensions.get(id) },
      get lm() {
        const tools = self.lmTools;
        return tools ? { registerTool: (name: string, tool: unknown) => (tools.set(name, tool), { dispose: () => void tools.delete(name) }) } : undefined;
      },
      languages: {
        createLanguageStatusItem: (id: string, selector: unknown) => {
          const item: Record<string, unknown> = { id, selector, dispose: () => void (item.disposed = true) };
          self.languageStatusItems.push(item);
          return item;
        },
        registerInlayHintsProvider: (_selector: unknown, provider: unknown) => (self.inlayProviders.push(provider), { dispose: () => void (self.inlayProviders = self.inlayProviders.filter((p) => p !== provider)) }),
        registerCodeLensProvider: () => ({ dispose() {} }), // registered by the wired features; no test asks it yet
        registerHoverProvider: (_selector: unknown, provider: unknown) => (self.hoverProviders.push(provider), { dispose: () => void (self.hoverProviders = self.hoverProviders.filter((p) => p !== provider)) }),
        createDiagnosticCollection: () => ({
          set: (uri: { toString(): string }, list: Diagnostic[]) => self.diagnostics.set(uri.toString(), list.map((d) => ({ message: d.message, line: d.range.start.line }))),
          delete: (uri: { toString(): string }) => self.diagnostics.delete(uri.toString()),
          dispose() {},
        }),
      },
      workspace: {
        get textDocuments() {
          return self.documents;
        },
        get isTrusted() {
          return self.trusted;
        },
        registerTextDocumentContentProvider: (_scheme: string, provider: { provideTextDocumentContent(uri: unknown): string }) => {
          self.contentProvider = provider;
          return { dispose() {} };
        },
        fs: {
          writeFile: async (uri: { toString(): string }, bytes: Uint8Array) => void self.written.set(uri.toString(), new TextDecoder().decode(bytes)),
          stat: async (uri: { toString(): string }) => {
            const text = self.written.get(uri.toString());
            const size = self.fileSizes.get(uri.toString()) ?? (text === undefined ? undefined : new TextEncoder().encode(text).byteLength);
            if (size === undefined) throw new Error(`no such file: ${uri.toString()}`);
            return { type: 1, size, ctime: 0, mtime: 0 };
          },
          readFile: async (uri: { toString(): string }) => {
            self.fileReads.push(uri.toString());
            const bytes = self.writtenBytes.get(uri.toString());
            if (bytes) return bytes;
            const text = self.written.get(uri.toString());
            if (text === undefined) throw new Error(`no such file: ${uri.toString()}`);
            return new TextEncoder().encode(text);
          },
        },
        asRelativePath: (uri: { toString(): string }) => uri.toString(),
        get workspaceFolders() {
          return self.workspaceFolders;
        },
        openTextDocument: async (uri?: { toString(): string }) => {
          if (uri && self.contentProvider && uri.toString().startsWith('durability-lens-consent:')) {
            const text = self.contentProvider.provideTextDocumentContent(uri);
            self.previews.push({ uri: uri.toString(), text });
            return { uri, getText: () => text };
          }
          // A file on disk, read as UTF-8 (VS Code's own encoding detection is not the fake's to play).
          if (uri && (uri as { scheme?: string }).scheme === 'file' && self.openFromDisk) {
            const fsPath = (uri as unknown as { fsPath: string }).fsPath;
            const text = readFileSync(fsPath, 'utf8');
            self.opened.push(fsPath);
            return { uri, fileName: fsPath, languageId: /\.sql$/i.test(fsPath) ? 'sql' : 'plaintext', version: 1, lineCount: text.split('\n').length, getText: () => text };
          }
          throw new Error('the fake opens no documents from disk');
        },
        getConfiguration: (section: string) => ({
          get: (key: string) => self.workspaceSettings[`${section}.${key}`] ?? self.settings[`${section}.${key}`],
          inspect: (key: string) => ({ globalValue: self.settings[`${section}.${key}`], workspaceValue: self.workspaceSettings[`${section}.${key}`] }),
          update: async (key: string, value: unknown) => self.setSetting(`${section}.${key}`, value),
        }),
        onDidChangeTextDocument: (listener: FakeVscode['changeListeners'][number]) => (self.changeListeners.push(listener), { dispose: () => void (self.changeListeners = self.changeListeners.filter((l) => l !== listener)) }),
        onDidCloseTextDocument: (listener: FakeVscode['closeListeners'][number]) => (self.closeListeners.push(listener), { dispose: () => void (self.closeListeners = self.closeListeners.filter((l) => l !== listener)) }),
        onDidChangeConfiguration: (listener: (e: { affectsConfiguration(section: string): boolean }) => void) => {
          self.configListeners.push(listener);
          return { dispose: () => void (self.configListeners = self.configListeners.filter((l) => l !== listener)) };
        },
      },
      window: {
        get activeTextEditor() {
          return self.activeEditor;
        },
        createOutputChannel: () => ({ ...fakeOutput(self.outputLines), dispose() {} }),
        registerWebviewPanelSerializer: (viewType: string, serializer: unknown) => {
          self.panelSerializers.set(viewType, serializer);
          return { dispose: () => void self.panelSerializers.delete(viewType) };
        },
        createTreeView: () => {
          if (self.treeViewError) throw self.treeViewError;
          return { dispose: () => undefined };
        },
        createStatusBarItem: (id?: string) => {
          if (id === undefined || id === 'durabilityLens.connection') {
            const item = { name: '', tooltip: '', command: '', show() {}, hide() {}, dispose() {} } as Record<string, unknown>;
            Object.defineProperty(item, 'text', { set: (t: string) => void (self.statusText = t), get: () => self.statusText });
            return item;
          }
          let text = '';
          return {
            name: '',
            tooltip: '',
            command: '',
            get text() {
              return text;
            },
            set text(t: string) {
              text = t;
            },
            show: () => void self.statusItems.set(id, text),
            hide: () => void self.statusItems.set(id, ''),
            dispose() {},
          };
        },
        showOpenDialog: async () => {
          const path = self.openAnswers.shift();
          return path === undefined ? undefined : [{ toString: () => path }];
        },
        showSaveDialog: async () => {
          const path = self.saveAnswers.shift();
          return path === undefined ? undefined : { toString: () => path };
        },
        showTextDocument: async (document: unknown) => ({ document }),
        showInformationMessage: message('info'),
        showWarningMessage: message('warning'),
        showErrorMessage: message('error'),
        showQuickPick: async (items: { label: string }[] | Thenable<{ label: string }[]>, options?: { placeHolder?: string }) => {
          self.quickPickPlaceholders.push(options?.placeHolder ?? '');
          const answer = self.quickPickAnswers.shift();
          return answer ? answer(await items) : undefined;
        },
        showInputBox: async () => self.inputAnswers.shift(),
        withProgress: async (options: { title?: string }, task: (p: { report(v: { message?: string }): void }, t: { onCancellationRequested(f: () => void): void }) => Promise<unknown>) => {
          if (options.title !== undefined) self.progressTitles.push(options.title);
          const listeners: (() => void)[] = [];
          const report = (v: { message?: string }) => {
            if (!v.message) return;
            self.progress.push(v.message);
            if (self.cancelWhenProgress?.test(v.message)) {
              self.cancelWhenProgress = null;
              for (const l of listeners) l();
            }
          };
          return task({ report }, { onCancellationRequested: (f: () => void) => (listeners.push(f), { dispose() {} }) });
        },
      },
    };
  }

  /** Clears queued answers and recorded output (settings and secrets stay: tests set what they rely on). */
  reset(): void {
    this.shown = [];
    this.messageAnswers = [];
    this.quickPickAnswers = [];
    this.inputAnswers = [];
    this.progress = [];
    this.progressTitles = [];
    this.cancelWhenProgress = null;
    this.quickPickPlaceholders = [];
    this.saveAnswers = [];
    this.openAnswers = [];
    this.written.clear();
    this.writtenBytes.clear();
    this.fileSizes.clear();
    this.fileReads = [];
    this.trusted = true;
    this.autoConsent = true;
    this.previews = [];
    this.commandsRun = [];
    this.externalCommands.clear();
    this.registeredCommands.clear();
    this.extensions.clear();
    this.lmTools = new Map();
    this.activeEditor = undefined;
    this.workspaceFolders = undefined;
    this.openFromDisk = false;
    this.opened = [];
    this.outputLines = [];
    this.panelSerializers.clear();
    this.treeViewError = new Error('the fake vscode has no tree views');
  }

  /** Changes a setting and tells the listeners, the way VS Code does after settings.json changes. */
  setSetting(key: string, value: unknown): void {
    this.settings[key] = value;
    for (const l of this.configListeners) l({ affectsConfiguration: (section: string) => key === section || key.startsWith(`${section}.`) });
  }

  secretStorage() {
    return {
      get: async (k: string) => this.secrets.get(k),
      store: async (k: string, v: string) => void this.secrets.set(k, v),
      delete: async (k: string) => void this.secrets.delete(k),
      onDidChange: () => ({ dispose() {} }),
    };
  }
}

/**
 * One fake for every test file: the modules under test are loaded once per mocha process and keep the `vscode`
 * object they first got, so all files must drive the same fake (reset() between files).
 */
export const sharedFake = new FakeVscode();

/** Makes `require('vscode')` return the fake until the returned function is called. */
export function installFakeVscode(fake: FakeVscode): () => void {
  const mod = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = mod._load;
  const api = fake.module();
  mod._load = function (request: string, parent: unknown, isMain: boolean) {
    if (request === 'vscode') return api;
    return original.call(this, request, parent, isMain);
  };
  return () => void (mod._load = original);
}

/** A LogOutputChannel that keeps its lines. */
export function fakeOutput(lines: string[]) {
  const push = (level: string) => (text: string) => void lines.push(`${level} ${text}`);
  return { info: push('info'), warn: push('warn'), error: push('error'), debug: push('debug'), trace: push('trace'), show() {}, appendLine: push('line') };
}

/** In a describe(): the fake `vscode` installed for the suite, its user and workspace settings cleared after it. */
export function useFakeVscodeWithSettings(fake: FakeVscode): void {
  let uninstall: (() => void) | undefined;
  before(() => {
    uninstall = installFakeVscode(fake);
  });
  after(() => {
    uninstall?.();
    fake.settings = {};
    fake.workspaceSettings = {};
  });
}

/**
 * For a describe block: resets and installs the shared fake before its tests, imports `load` once it is installed
 * (a module that imports 'vscode' must see the fake), and uninstalls it after. Returns the imported module's getter.
 */
export function useSharedFake<T>(load: () => Promise<T>): () => T {
  let loaded: T | undefined;
  let uninstall: (() => void) | undefined;
  before(async () => {
    sharedFake.reset();
    uninstall = installFakeVscode(sharedFake);
    loaded = await load();
  });
  after(() => uninstall?.());
  return () => loaded!;
}
