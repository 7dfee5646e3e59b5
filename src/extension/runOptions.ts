// Reads the run settings from VS Code and turns them into the core's options (profileRun / runComparison), so the
// controller, the ad-hoc trace and the connection manager all honour the same `durabilityLens.*` values.
import * as vscode from 'vscode';
import type { BenignWaitOptions } from '../probes';
import { networkPathServer, readRunSettings, type ReadRunSettingsOptions, type RunSettingKey, type RunSettings } from '../shared/runSettings';
import { SETTINGS_SECTION } from '../shared/settings';
import { l10n } from './l10n';

/**
 * Settings that make SQL Server write somewhere (the event-file target and its path), and the one that runs the
 * workload several times (xe.traceOverheadRuns), are read from the user's settings only — never from a workspace's .vscode/settings.json, which a cloned repository controls. package.json
 * also gives them machine scope and lists them in restrictedConfigurations.
 */
const USER_LEVEL_ONLY: readonly RunSettingKey[] = ['xe.target', 'xe.eventFilePath', 'xe.traceOverheadRuns'];

export function currentRunSettings(options: ReadRunSettingsOptions = {}): RunSettings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return readRunSettings((key: RunSettingKey) => {
    if (!USER_LEVEL_ONLY.includes(key)) return config.get(key);
    const inspected = config.inspect(key);
    return inspected?.globalValue ?? inspected?.defaultValue;
  }, options);
}

const confirmedNetworkPaths = new Set<string>();

/**
 * The settings for a run that is about to start: a network event-file path (typed into the user settings) is used
 * only after a modal confirmation that shows the full path, once per path and window; otherwise the ring buffer.
 */
export async function runSettingsForRun(log: (line: string) => void): Promise<RunSettings> {
  const first = currentRunSettings();
  if (!first.xeTargetRefused) return first;
  const allowed = currentRunSettings({ allowNetworkEventFile: true });
  const path = allowed.xeTarget.kind === 'event_file' ? allowed.xeTarget.path : '';
  if (confirmedNetworkPaths.has(path)) return allowed;
  const use = l10n.t('Use This Network Path');
  const choice = await vscode.window.showWarningMessage(
    l10n.t(`Durability Lens: write the log-flush trace to the network path {0}?`, path),
    { modal: true, detail: networkDetail(path) },
    use,
  );
  if (choice === use) {
    confirmedNetworkPaths.add(path);
    log(`Event-file target: network path ${path} confirmed.`);
    return allowed;
  }
  log(first.xeTargetRefused);
  return first;
}

/** The modal's detail: the server the service account would authenticate to, by name when the path names one. */
function networkDetail(path: string): string {
  const server = networkPathServer(path)?.server;
  return server
    ? l10n.t("SQL Server's service account will connect to the server {0} and authenticate to it to write the event file. Only confirm for a share you control. Path: {1}", server, path)
    : l10n.t("SQL Server's service account will follow this device path to whatever server it leads to and authenticate there to write the event file. Only confirm for a path you control. Path: {0}", path);
}

/** One line for confirmations and the output: where the trace goes, with the full path of an event file. */
export function traceTargetText(s: RunSettings): string {
  if (!s.xeEnabled) return 'Log-flush trace: off.';
  return s.xeTarget.kind === 'event_file' ? `Log-flush trace: event file on the server at ${s.xeTarget.path}` : 'Log-flush trace: in memory (ring_buffer).';
}

/** Options both profileRun and runComparison take, built once from the settings (a time limit of 0 means none). */
export function coreRunOptions(s: RunSettings) {
  return {
    xe: { enabled: s.xeEnabled, target: s.xeTarget, statements: s.xeStatements },
    waits: benignWaitOptions(s),
    sampling: { enabled: true, intervalMs: s.samplingIntervalMs },
    workloadTimeoutMs: s.requestTimeoutMs > 0 ? s.requestTimeoutMs : undefined,
  };
}

/**
 * durabilityLens.waits.benign.include / .exclude as the core's benign-wait options: the server-wait diff itself
 * un-hides the included types and hides the excluded ones, so the panel, exports and history all agree.
 */
export function benignWaitOptions(s: RunSettings): BenignWaitOptions {
  return { include: [...s.benignInclude], exclude: [...s.benignExclude] };
}

/**
 * Runs each way of the trace-overhead measurement for a Profile (issue 28), or undefined: off, or nothing to measure
 * (the per-statement trace is off). Only Profile takes it; comparisons run without the trace.
 */
export function traceOverheadRunsOf(s: RunSettings): number | undefined {
  return s.xeTraceOverheadRuns > 0 && s.xeEnabled && s.xeStatements ? s.xeTraceOverheadRuns : undefined;
}

/** Comparison defaults from settings: modes, repetitions, warm-up, and the concurrency sweep's levels when set. */
export function comparisonDefaults(s: RunSettings) {
  return { modes: [...s.compareModes], repetitions: s.compareRepetitions, warmup: s.compareWarmup, sessions: s.compareSessions.length > 0 ? [...s.compareSessions] : undefined };
}
