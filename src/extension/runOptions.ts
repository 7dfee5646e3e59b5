// Reads the run settings from VS Code and turns them into the core's options (profileRun / runComparison), so the
// controller, the ad-hoc trace and the connection manager all honour the same `durabilityLens.*` values.
import * as vscode from 'vscode';
import type { BenignWaitOptions } from '../probes';
import { readRunSettings, type RunSettingKey, type RunSettings } from '../shared/runSettings';
import { SETTINGS_SECTION } from '../shared/settings';

export function currentRunSettings(): RunSettings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return readRunSettings((key: RunSettingKey) => config.get(key));
}

/**
 * Options both profileRun and runComparison take. Sampling and the workload time limit are spread in (not written
 * as literal keys) so this compiles against a profile layer that does not declare them yet.
 */
export function coreRunOptions(s: RunSettings) {
  const extra: Record<string, unknown> = {
    sampling: { enabled: true, intervalMs: s.samplingIntervalMs },
    ...(s.requestTimeoutMs > 0 ? { workloadTimeoutMs: s.requestTimeoutMs } : {}),
  };
  return { xe: { enabled: s.xeEnabled, target: s.xeTarget }, waits: benignWaitOptions(s), ...extra };
}

/**
 * durabilityLens.waits.benign.include / .exclude as the core's benign-wait options: the server-wait diff itself
 * un-hides the included types and hides the excluded ones, so the panel, exports and history all agree.
 */
export function benignWaitOptions(s: RunSettings): BenignWaitOptions {
  return { include: [...s.benignInclude], exclude: [...s.benignExclude] };
}

/** Comparison defaults from settings: modes, repetitions, warm-up. */
export function comparisonDefaults(s: RunSettings) {
  return { modes: [...s.compareModes], repetitions: s.compareRepetitions, warmup: s.compareWarmup };
}
