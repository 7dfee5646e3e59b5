// Extension entry point: the language client, output channel and language-status item, the connection UI
// (profiles, SecretStorage, status bar), the profiling/comparison commands and the comparison panel.
import * as vscode from 'vscode';
import { KeyValueRestoreJournal, setJournalOwnerSession } from '../profile/restoreJournal';
import type { DatabaseContextParams } from '../shared/protocol';
import { registerCommands, ProfilingController, StatementHints, registerReadinessCommand } from './profiling';
import { registerWalkthrough } from './walkthrough';
import { useTranslator } from './l10n';
import { registerConnectionCommands, ConnectionManager, ConnectionStore, type ActiveConnection } from './connections';
import { type LanguageService, DurabilityLanguageStatus, loadLanguageClient } from './language';
import { ComparisonPanels } from './panel';
import { ProcedureParameterStore, ProcedureRunner } from './procedures';
import { AdhocTrace, RecordingWindow } from './recording';
import { ConsentCommands, HistoryCommands, RecordingCommands } from './commandIds';
import { ConsentGate, ConsentStore } from './consent';
import { registerHistoryCommands, RunHistory } from './history';
import { offerOrphanCleanup, HEARTBEAT_MS, SessionLedger } from './sessions';
import { currentRunSettings } from './runOptions';
import { registerHeaviestLogWriters } from './topLog';
import { registerLmTools } from './lm';
import { registerMssqlCommands } from './mssql';
import { l10n } from './l10n';

let languageService: Promise<LanguageService | undefined> | undefined;
let profiling: ProfilingController | undefined;
let adhocTrace: AdhocTrace | undefined;

/**
 * Deactivation's whole budget: VS Code gives deactivate() about 5 s before it stops the extension host, so the
 * running comparison's restore goes first and the ad-hoc trace and language client share what is left.
 */
export const DEACTIVATE_BUDGET_MS = 4_500;

/** How long activation took, as VS Code's Running Extensions view splits it (entry.ts measures it). */
export interface ActivationTiming {
  /** Evaluating the bundle's modules, before activate() was called. */
  codeLoadingMs: number;
  /** activate() until its promise resolved (the language server starts after that, in the background). */
  activateMs: number;
  totalMs: number;
}

/** What other parts of the extension use: the output channel and a way to tell the server the database context. */
export interface DurabilityLensApi {
  output: vscode.LogOutputChannel;
  setDatabaseContext(context: DatabaseContextParams | null): Promise<void>;
}

export async function activate(context: vscode.ExtensionContext): Promise<DurabilityLensApi> {
  // Runtime text (uiText.ts and the modules that use l10n.t) in the display language: package.json "l10n" bundles.
  // (vscode.l10n.t closes over this extension's id; it does not use `this`.)
  useTranslator(vscode.l10n.t);
  const output = vscode.window.createOutputChannel('Durability Lens', { log: true });
  const status = new DurabilityLanguageStatus();
  context.subscriptions.push(output, status);

  // The server keeps the database context in memory; after a crash the client restarts it, so it is sent again.
  let database: DatabaseContextParams | null = null;
  // Loaded and started after activate() returns (a chunk of its own): lenses and diagnostics arrive when it runs,
  // and the language status item says "starting" until then.
  // (A bundled import() of a chunk evaluates it at once, so it waits for the next turn of the event loop.)
  const service: Promise<LanguageService | undefined> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(loadLanguageClient)
    .then(({ startLanguageService }) => startLanguageService(context, output, (state) => status.setState(state), () => database))
    .catch((error: unknown) => {
      status.setState('failed');
      output.error(`The Durability Lens language client did not load: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
  languageService = service;
  const setDatabaseContext = async (next: DatabaseContextParams | null) => {
    database = next;
    status.setDatabase(next);
    await (await service)?.setDatabaseContext(next);
  };

  // The journal lives in globalState: a comparison interrupted in one window is offered for restore in the next.
  // Its entries name this window, so recovery can tell them from a run still going in another.
  setJournalOwnerSession(String(vscode.env.sessionId));
  const journal = new KeyValueRestoreJournal(context.globalState);
  const store = new ConnectionStore(context.secrets);
  const connections = new ConnectionManager(store, output, journal, setDatabaseContext);
  // "Copy GRANTs" of an opened comparison file grants to the connected login, never to one the file names.
  const panels = new ComparisonPanels(context, () => connections.current?.preflight ?? null);
  // Per workspace, bounded by durabilityLens.history.size (read at each add, so a change applies at the next run).
  const history = new RunHistory(context.workspaceState, () => currentRunSettings().historySize);
  // Which window owns which event session (globalState: shared by this machine's windows), with a heartbeat.
  const ledger = new SessionLedger(context.globalState);
  const heartbeat = setInterval(() => void ledger.heartbeat(), HEARTBEAT_MS);
  context.subscriptions.push({ dispose: () => clearInterval(heartbeat) });
  // Per-statement figures of the last run at the end of its hot lines (issue 16); cleared when the document changes.
  const hints = new StatementHints();
  context.subscriptions.push(hints);
  // What the user confirmed to run (file, text, connection), per workspace; an edit of the file revokes it.
  const consent = new ConsentGate(new ConsentStore(context.workspaceState), output);
  profiling = new ProfilingController(output, connections, panels, journal, history, ledger, hints, consent);
  const trace = new AdhocTrace({ output, connections, panels, history, ledger });
  adhocTrace = trace;
  const recording = new RecordingWindow({ output, connections, panels, history, ledger });
  const controller = profiling;
  const checkOrphans = (active: ActiveConnection, reportNone: boolean) => {
    const source = connections.connectionSource();
    if (!source) return Promise.resolve();
    if (controller.isRunning) {
      // A run's own session would look like a leftover while it runs: look again at the next connect.
      if (reportNone) void vscode.window.showInformationMessage(l10n.t('Durability Lens: a run is in progress; look for leftover event sessions after it ends.'));
      return Promise.resolve();
    }
    const scope = active.engineEdition === 5 || active.engineEdition === 12 ? 'database' : 'server';
    return offerOrphanCleanup({ source, scope, liveNames: trace.sessionName ? [trace.sessionName] : [], output, reportNone, ledger }).then(() => undefined);
  };
  context.subscriptions.push(
    connections,
    panels,
    profiling,
    trace,
    ...registerCommands(output, profiling),
    // Parameter values live in workspaceState (values only, checked against the types at each use; never SQL text).
    ...new ProcedureRunner(output, connections, profiling, new ProcedureParameterStore(context.workspaceState)).register(),
    ...registerWalkthrough(context.extensionUri),
    ...registerConnectionCommands(store, connections, output),
    // The mssql extension's connection (Connection Sharing API) and the agent tools (issue 31).
    ...registerMssqlCommands({ store, connections, output, extensionId: context.extension.id }),
    ...registerLmTools({ output, controller, connections, history }),
    ...registerHistoryCommands(history, panels),
    registerReadinessCommand(connections, output),
    ...registerHeaviestLogWriters(connections, output, history),
    vscode.commands.registerCommand(HistoryCommands.startLogFlushTrace, () => trace.start()),
    vscode.commands.registerCommand(HistoryCommands.stopLogFlushTrace, () => trace.stop()),
    recording,
    vscode.commands.registerCommand(RecordingCommands.startRecording, () => recording.start()),
    vscode.commands.registerCommand(RecordingCommands.stopRecording, () => recording.stop()),
    vscode.commands.registerCommand(ConsentCommands.forgetRunConfirmations, async () => {
      const files = consent.store.files().length;
      await consent.store.revokeAll();
      void vscode.window.showInformationMessage(files === 1 ? l10n.t('Durability Lens: forgot the run confirmations of 1 file in this workspace; the next run that changes data or schema shows its text again.') : l10n.t('Durability Lens: forgot the run confirmations of {0} files in this workspace; the next run that changes data or schema shows its text again.', files));
    }),
    vscode.commands.registerCommand(HistoryCommands.dropLeftoverSessions, async () => {
      if (!connections.current && !(await connections.connect())) return;
      await checkOrphans(connections.current!, true);
    }),
    // Not awaited: the prompt is modal and must not hold up the connect command.
    connections.onDidConnect((active) => void checkOrphans(active, false)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('durabilityLens.history.size')) void history.trim();
    }),
  );

  // Not awaited: the prompt is modal and activation must not wait for the user.
  void connections.offerPendingRestores();

  return { output, setDatabaseContext };
}

export async function deactivate(): Promise<void> {
  const deadline = Date.now() + DEACTIVATE_BUDGET_MS;
  const left = () => Math.max(0, deadline - Date.now());
  const within = (work: Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, left())))]).finally(() => clearTimeout(timer));
  };
  const controller = profiling;
  profiling = undefined;
  // First the running comparison: it cancels, closes its workload session and restores DELAYED_DURABILITY.
  if (controller) await controller.stop(left());
  const trace = adhocTrace;
  adhocTrace = undefined;
  // Then an ad-hoc trace must not outlive the window: stop and drop it in what is left of the budget.
  if (trace) await within(trace.shutdown());
  const service = languageService;
  languageService = undefined;
  if (service) await within(service.then((running) => running?.stop()));
}
