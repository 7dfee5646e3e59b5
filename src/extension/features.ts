// Everything Durability Lens does beyond starting up: the connection UI (profiles, SecretStorage, status bar), the
// profiling/comparison commands, the comparison panel, run history, traces and recordings, Heaviest Log Writers, the
// mssql connection commands and the agent tools. extension.ts loads this module as a chunk of its own
// (dist/extension.features.js) in the turn after activate() returns, or at once when a command, a restored panel or
// an agent tool needs it first; until then its commands are stand-ins that wait for it (see deferred.ts).
import * as vscode from 'vscode';
import { KeyValueRestoreJournal, setJournalOwnerSession } from '../profile/restoreJournal';
import { registerCommands, ProfilingController, StatementHints, registerReadinessCommand } from './profiling';
import { registerWalkthrough } from './walkthrough';
import { registerConnectionCommands, ConnectionManager, ConnectionStore, type ActiveConnection } from './connections';
import { ComparisonPanels } from './panel';
import { ProcedureParameterStore, ProcedureRunner } from './procedures';
import { AdhocTrace, RecordingWindow } from './recording';
import { ConsentCommands, HistoryCommands, RecordingCommands } from './commandIds';
import { ConsentGate, ConsentStore } from './consent';
import { registerHistoryCommands, RunHistory } from './history';
import { offerOrphanCleanup, HEARTBEAT_MS, SessionLedger } from './sessions';
import { currentRunSettings } from './runOptions';
import { registerHeaviestLogWriters } from './topLog';
import { lmToolImplementations } from './lm';
import { registerMssqlCommands } from './mssql';
import { within, type DurabilityLensApi } from './api';
import { l10n } from './l10n';
import { sessionScopeOf } from '../xe';

/** What the start-up code (extension.ts) needs of the loaded features. */
export interface Features {
  /** Restores a comparison panel VS Code kept over a reload (the serializer extension.ts registered). */
  restorePanel(panel: vscode.WebviewPanel, state: unknown): Promise<void>;
  /** The agent tools' implementations by tool name (extension.ts registered the tools; none without the lm API). */
  lmTools: Readonly<Record<string, vscode.LanguageModelTool<never>>>;
  /**
   * The running comparison's restore first, then the ad-hoc trace, each within what is left of `left()` ms
   * (deactivation's budget: extension.ts stops the language client after these).
   */
  stop(left: () => number): Promise<void>;
}

/**
 * Registers the commands, views and providers and starts what runs in the background (the session heartbeat, the
 * offer to restore settings an interrupted comparison left). Everything it registers goes into context.subscriptions.
 */
export function activateFeatures(context: vscode.ExtensionContext, { output, setDatabaseContext }: DurabilityLensApi): Features {
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
  const controller = new ProfilingController(output, connections, panels, journal, history, ledger, hints, consent);
  const trace = new AdhocTrace({ output, connections, panels, history, ledger });
  const recording = new RecordingWindow({ output, connections, panels, history, ledger });
  const checkOrphans = (active: ActiveConnection, reportNone: boolean) => {
    const source = connections.connectionSource();
    if (!source) return Promise.resolve();
    if (controller.isRunning) {
      // A run's own session would look like a leftover while it runs: look again at the next connect.
      if (reportNone) void vscode.window.showInformationMessage(l10n.t('Durability Lens: a run is in progress; look for leftover event sessions after it ends.'));
      return Promise.resolve();
    }
    const scope = sessionScopeOf(active.engineEdition);
    // This window's running captures: the ad-hoc trace and the recording window (their companions go with them).
    const liveNames = [trace.sessionName, recording.sessionName].filter((n): n is string => n !== null);
    return offerOrphanCleanup({ source, scope, liveNames, output, reportNone, ledger }).then(() => undefined);
  };
  context.subscriptions.push(
    connections,
    panels,
    controller,
    trace,
    ...registerCommands(output, controller),
    // Parameter values live in workspaceState (values only, checked against the types at each use; never SQL text).
    ...new ProcedureRunner(output, connections, controller, new ProcedureParameterStore(context.workspaceState)).register(),
    ...registerWalkthrough(context.extensionUri),
    ...registerConnectionCommands(store, connections, output),
    // The mssql extension's connection (Connection Sharing API, issue 31); the agent tools are extension.ts's stand-ins.
    ...registerMssqlCommands({ store, connections, output, extensionId: context.extension.id }),
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

  // Not awaited: the prompt is modal and must not hold up anything else.
  void connections.offerPendingRestores();

  return {
    restorePanel: (panel, state) => panels.restore(panel, state),
    lmTools: lmToolImplementations({ output, controller, connections, history }),
    async stop(left) {
      // First the running comparison: it cancels, closes its workload session and restores DELAYED_DURABILITY.
      await controller.stop(left());
      // Then an ad-hoc trace must not outlive the window: stop and drop it in what is left of the budget.
      await within(trace.shutdown(), left);
    },
  };
}
