// Language server entry point: wires documents, settings, the analysis cache and the database context
// to diagnostics, code lenses, hovers and quick fixes. Transport (--stdio / --node-ipc) comes from the command line.
import {
  CodeActionKind,
  CodeLensRefreshRequest,
  DidChangeConfigurationNotification,
  TextDocumentSyncKind,
  TextDocuments,
  createConnection,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DatabaseContextNotification } from '../shared/protocol';
import { disabledCodes, type DurabilityLensSettings } from '../shared/settings';
import type { Analysis, DatabaseDurabilityContext } from '../tsql/types';
import { AnalysisCache } from './analysisCache';
import { buildCodeActions, type EditSupport } from './codeActions';
import { buildCodeLenses } from './codeLenses';
import { toLspDiagnostics } from './diagnostics';
import { DiagnosticsPublisher } from './diagnosticsPublisher';
import { hoverAt } from './hovers';
import { SettingsCache } from './settingsCache';

const connection = createConnection();
const documents = new TextDocuments(TextDocument);
const settings = new SettingsCache(connection);
const analyses = new AnalysisCache();
let database: DatabaseDurabilityContext | null = null;
let dynamicConfigurationChange = false;
let codeLensRefresh = false;
let editSupport: EditSupport = { documentChanges: false, snippets: false };

function analysisFor(document: TextDocument, current: DurabilityLensSettings): Analysis {
  return analyses.get(document, database, disabledCodes(current));
}

const publisher = new DiagnosticsPublisher(
  connection,
  (uri) => documents.get(uri),
  async (document) => {
    const current = await settings.get(document.uri);
    const disabled = disabledCodes(current);
    return toLspDiagnostics(analyses.get(document, database, disabled), disabled, current.codeLens.enabled);
  },
);

function republishAll(): void {
  for (const document of documents.all()) void publisher.publishNow(document.uri);
}

connection.onInitialize((params): InitializeResult => {
  const capabilities = params.capabilities;
  settings.supported = capabilities.workspace?.configuration === true;
  dynamicConfigurationChange = capabilities.workspace?.didChangeConfiguration?.dynamicRegistration === true;
  codeLensRefresh = capabilities.workspace?.codeLens?.refreshSupport === true;
  const workspaceEdit = capabilities.workspace?.workspaceEdit;
  editSupport = { documentChanges: workspaceEdit?.documentChanges === true, snippets: workspaceEdit?.snippetEditSupport === true };
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      codeLensProvider: { resolveProvider: false },
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
    },
    serverInfo: { name: 'Durability Lens' },
  };
});

connection.onInitialized(() => {
  if (dynamicConfigurationChange) {
    void connection.client.register(DidChangeConfigurationNotification.type, { section: 'durabilityLens' });
  }
});

connection.onDidChangeConfiguration(() => {
  settings.clear();
  republishAll();
  if (codeLensRefresh) void connection.sendRequest(CodeLensRefreshRequest.type);
});

connection.onNotification(DatabaseContextNotification.type, (params) => {
  database = params ? { database: params.database, delayedDurability: params.delayedDurability } : null;
  republishAll();
});

// TextDocuments fires onDidChangeContent right after onDidOpen for the same version; the open
// handler publishes at once, so that first content event is skipped rather than debounced again.
const justOpened = new Set<string>();
documents.onDidOpen((event) => {
  justOpened.add(event.document.uri);
  void publisher.publishNow(event.document.uri);
});
documents.onDidChangeContent((event) => {
  if (justOpened.delete(event.document.uri)) return;
  publisher.schedule(event.document.uri);
});
documents.onDidClose((event) => {
  analyses.forget(event.document.uri);
  settings.forget(event.document.uri);
  void publisher.clear(event.document.uri);
});

connection.onCodeLens(async (params) => {
  const document = documents.get(params.textDocument.uri);
  if (!document) return [];
  const current = await settings.get(document.uri);
  if (!current.codeLens.enabled) return [];
  // Lenses always reflect the version the editor has now (no debounce here).
  const latest = documents.get(document.uri) ?? document;
  return buildCodeLenses(analysisFor(latest, current), latest.uri, latest.version);
});

connection.onHover(async (params) => {
  const document = documents.get(params.textDocument.uri);
  if (!document) return null;
  const current = await settings.get(document.uri);
  const latest = documents.get(document.uri) ?? document;
  return hoverAt(latest, analyses.tokens(latest), analysisFor(latest, current), params.position, database);
});

connection.onCodeAction(async (params) => {
  const document = documents.get(params.textDocument.uri);
  if (!document) return [];
  const current = await settings.get(document.uri);
  const latest = documents.get(document.uri) ?? document;
  return buildCodeActions({
    document: latest, analysis: analysisFor(latest, current), tokens: analyses.tokens(latest), params, database, support: editSupport,
  });
});

documents.listen(connection);
connection.listen();
