// The bundle's entry: times what VS Code's Running Extensions view calls activation — loading our code, then the
// activate() call — and hands the figures out with the extension's API, so the end-to-end suite can read them from
// the real extension host (test/e2e/host) and the bench can hold them to their target.
// `import = require` keeps the order: the clock starts before the rest of the extension's modules are evaluated.
const loadStartMs = performance.now();
import implementation = require('./extension');
const codeLoadingMs = performance.now() - loadStartMs;

import type * as vscode from 'vscode';
import type { ActivatedApi, ActivationTiming } from './api';

export async function activate(context: vscode.ExtensionContext): Promise<ActivatedApi & { activationTiming: ActivationTiming }> {
  const activateStartMs = performance.now();
  const api = await implementation.activate(context);
  const activateMs = performance.now() - activateStartMs;
  const activationTiming: ActivationTiming = { codeLoadingMs, activateMs, totalMs: codeLoadingMs + activateMs };
  api.output.info(`Activated in ${activationTiming.totalMs.toFixed(1)} ms (code loading ${codeLoadingMs.toFixed(1)} ms, activate ${activateMs.toFixed(1)} ms).`);
  return { ...api, activationTiming };
}

export const deactivate = implementation.deactivate;
