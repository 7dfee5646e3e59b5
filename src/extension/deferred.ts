// Stand-ins registered at activation for what lives in the features chunk (features.ts), so activation does not load
// it: VS Code runs a command, restores a panel or invokes an agent tool only after activate() returns, and each of
// these must exist by then. A stand-in loads the features (once) and hands the call on.
import * as vscode from 'vscode';
import type { Features } from './features';

/** The extension's package.json fields read here (the manifest VS Code read, so never out of step with it). */
interface Manifest {
  activationEvents?: readonly string[];
}

/** The ids after `prefix` in the manifest's activation events (`onCommand:`, `onLanguageModelTool:`). */
export function activationTargets(manifest: Manifest, prefix: string): string[] {
  return (manifest.activationEvents ?? []).filter((event) => event.startsWith(prefix)).map((event) => event.slice(prefix.length));
}

/**
 * Every command that activates the extension, as a stand-in: the first call loads the features, which register the
 * real command under the same id (the stand-ins are disposed just before that), and the call is then run by it.
 * Returns the stand-ins' disposable; dispose it before the features register their commands.
 */
export function registerCommandStandIns(ids: readonly string[], load: () => Promise<Features>): vscode.Disposable {
  const standIns = ids.map((id) => vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    await load();
    return vscode.commands.executeCommand(id, ...args);
  }));
  return vscode.Disposable.from(...standIns);
}

/** The features chunk's loader (featuresLoader). */
export interface FeaturesLoader {
  /** The features, loaded and activated once; concurrent calls share one load. */
  load(): Promise<Features>;
  /** The load under way or done, if one started and was not given up: what deactivate() stops (it never starts one). */
  started(): Promise<Features> | undefined;
}

/**
 * Loads the features chunk once: `importChunk` evaluates it and hands back its activation, which runs after the
 * command stand-ins are disposed. A chunk that failed to load registered nothing, so its stand-ins stay and the next
 * call tries again — as the driver's chunk does (db/loadDriver.ts: a file replaced during an update need not fail the
 * whole session). An activation that failed is kept as it is: it may have registered part of the features, and a
 * second one would collide with them (the window must be reloaded).
 */
export function featuresLoader(importChunk: () => Promise<() => Features>, standIns: () => vscode.Disposable): FeaturesLoader {
  let loading: Promise<Features> | undefined;
  return {
    load() {
      loading ??= importChunk().then(
        (activate) => {
          standIns().dispose();
          return activate();
        },
        (err: unknown) => {
          loading = undefined;
          throw err;
        },
      );
      return loading;
    },
    started: () => loading,
  };
}

/** The comparison panel's serializer: a panel VS Code kept over a reload is restored by the loaded features. */
export function registerPanelSerializer(viewType: string, load: () => Promise<Features>): vscode.Disposable {
  return vscode.window.registerWebviewPanelSerializer(viewType, {
    deserializeWebviewPanel: async (panel, state: unknown) => (await load()).restorePanel(panel, state),
  });
}

/**
 * The agent tools, each handing its calls to the implementation the features hold. None when this VS Code has no
 * language-model tool API (said on the output channel).
 */
export function registerToolStandIns(names: readonly string[], load: () => Promise<Features>, output: vscode.LogOutputChannel): vscode.Disposable[] {
  const lm = (vscode as { lm?: { registerTool?: typeof vscode.lm.registerTool } }).lm;
  if (typeof lm?.registerTool !== 'function') {
    output.info('This VS Code has no language-model tool API (vscode.lm.registerTool): the Durability Lens agent tools are not registered.');
    return [];
  }
  const implementation = async (name: string) => {
    const tool = (await load()).lmTools[name];
    if (!tool) throw new Error(`Durability Lens has no agent tool named ${name}.`);
    return tool;
  };
  return names.map((name) => lm.registerTool!<never>(name, {
    prepareInvocation: async (options, token) => (await implementation(name)).prepareInvocation?.(options, token),
    invoke: async (options, token) => (await implementation(name)).invoke(options, token),
  }));
}
