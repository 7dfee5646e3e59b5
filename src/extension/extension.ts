// Activation: the output channel, the language-status item and the language client, and stand-ins for what the
// features chunk (features.ts: connections, profiling, the panel, history, traces, agent tools) registers. Activation
// loads only this module and the few it imports; the language client and the features are chunks of their own,
// loaded after activate() returns (or at once when a command, a restored panel or an agent tool needs the features).
import * as vscode from 'vscode';
import type { DatabaseContextParams } from '../shared/protocol';
import { within, type ActivatedApi, type DurabilityLensApi } from './api';
import { PANEL_VIEW_TYPE } from '../shared/webviewProtocol';
import { l10n, useTranslator } from './l10n';
import { type LanguageService, DurabilityLanguageStatus, loadLanguageClient, neutralOutputChannel } from './language';
import { activationTargets, featuresLoader, registerCommandStandIns, registerPanelSerializer, registerToolStandIns, type FeaturesLoader } from './deferred';

let languageService: Promise<LanguageService | undefined> | undefined;
let features: FeaturesLoader | undefined;

/**
 * Deactivation's whole budget: VS Code gives deactivate() about 5 s before it stops the extension host, so the
 * running comparison's restore goes first and the ad-hoc trace and language client share what is left.
 */
export const DEACTIVATE_BUDGET_MS = 4_500;

/** The next turn of the event loop: a bundled import() of a chunk evaluates it at once, inside the caller's turn. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function activate(context: vscode.ExtensionContext): Promise<ActivatedApi> {
  // Runtime text (uiText.ts and the modules that use l10n.t) in the display language: package.json "l10n" bundles.
  // (vscode.l10n.t closes over this extension's id; it does not use `this`.)
  useTranslator(vscode.l10n.t);
  // Every feature writes server- and file-provided text here: neutralised once, for all of them (language/outputChannel.ts).
  const output = neutralOutputChannel(vscode.window.createOutputChannel('Durability Lens', { log: true }));
  const status = new DurabilityLanguageStatus();
  context.subscriptions.push(output, status);

  // The server keeps the database context in memory; after a crash the client restarts it, so it is sent again.
  let database: DatabaseContextParams | null = null;
  // Lenses and diagnostics arrive when the server runs; the language status item says "starting" until then.
  const service: Promise<LanguageService | undefined> = nextTurn()
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
  const api: DurabilityLensApi = { output, setDatabaseContext };

  // Every command that can activate the extension exists from here on; the features replace these stand-ins.
  const manifest = context.extension.packageJSON as { activationEvents?: string[] };
  const loader = featuresLoader(async () => {
    const { activateFeatures } = await import(/* webpackChunkName: "features" */ './features');
    return () => activateFeatures(context, api);
  }, () => standIns);
  const loadFeatures = () => loader.load();
  const standIns = registerCommandStandIns(activationTargets(manifest, 'onCommand:'), loadFeatures);
  features = loader;
  context.subscriptions.push(
    standIns,
    registerPanelSerializer(PANEL_VIEW_TYPE, loadFeatures),
    ...registerToolStandIns(activationTargets(manifest, 'onLanguageModelTool:'), loadFeatures, output),
  );
  // The connection status item, the offer to restore what an interrupted comparison left, Heaviest Log Writers:
  // the features start them in the next turn, unless a command asked for them sooner (or deactivate() came first).
  // The host spends that time right after activation (VS Code's activation time leaves it out): measured, not hidden.
  const ready = nextTurn().then(async () => {
    const startMs = performance.now();
    if (features !== loader) return NaN;
    await loadFeatures();
    const ms = performance.now() - startMs;
    output.info(`Commands ready ${ms.toFixed(1)} ms after activation (dist/extension.features.js loaded and wired).`);
    return ms;
  });
  ready.catch((error: unknown) => void reportLoadFailure(error, loader, output));
  return { ...api, featuresLoaded: ready.catch(() => NaN) };
}

/** Said once, for the load in the turn after activation: what failed, that nothing ran, and how to try again. */
async function reportLoadFailure(error: unknown, loader: FeaturesLoader, output: vscode.LogOutputChannel): Promise<void> {
  output.error(`Durability Lens did not load its commands: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  const reason = error instanceof Error ? error.message : String(error);
  // A chunk that did not load is loaded again by the next command; a failed activation needs a new extension host.
  const message = loader.started() === undefined
    ? l10n.t('Durability Lens did not load its commands: {0}. Nothing ran on a database. The next Durability Lens command tries again; if it fails too, reload the window.', reason)
    : l10n.t('Durability Lens did not load its commands: {0}. Nothing ran on a database. Reload the window to try again; the Durability Lens output has the details.', reason);
  const reload = l10n.t('Reload Window');
  if ((await vscode.window.showErrorMessage(message, reload)) === reload) await vscode.commands.executeCommand('workbench.action.reloadWindow');
}

export async function deactivate(): Promise<void> {
  const deadline = Date.now() + DEACTIVATE_BUDGET_MS;
  const left = () => Math.max(0, deadline - Date.now());
  // Only features that loaded can have started anything: a load that never began is not begun now.
  const loaded = features?.started();
  features = undefined;
  // The running comparison restores DELAYED_DURABILITY first, then the ad-hoc trace is dropped (features.ts).
  if (loaded) await loaded.then((f) => f.stop(left), () => undefined);
  const service = languageService;
  languageService = undefined;
  if (service) await within(service.then((running) => running?.stop()), left);
}
