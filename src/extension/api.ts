// What the extension hands out from activate() (VS Code's extension API: the end-to-end suite reads it) and what
// its parts share: the output channel and a way to tell the language server the database context.
import type * as vscode from 'vscode';
import type { DatabaseContextParams } from '../shared/protocol';

/** How long activation took, as VS Code's Running Extensions view splits it (entry.ts measures it). */
export interface ActivationTiming {
  /** Evaluating the bundle's modules, before activate() was called. */
  codeLoadingMs: number;
  /** activate() until its promise resolved (the language server and the features load after that). */
  activateMs: number;
  totalMs: number;
}

/** What other parts of the extension use: the output channel and a way to tell the server the database context. */
export interface DurabilityLensApi {
  output: vscode.LogOutputChannel;
  setDatabaseContext(context: DatabaseContextParams | null): Promise<void>;
}

/** What activate() hands out: the shared parts, and how long the features took once they have loaded. */
export interface ActivatedApi extends DurabilityLensApi {
  /**
   * Resolves, once the features are wired, with the ms from the turn after activation until then (extension.ts; the
   * language client loads in the same turns): start-up work the activation time leaves out. NaN if they failed.
   */
  featuresLoaded: Promise<number>;
}

/**
 * Deactivation's budget, shared by extension.ts and the features: waits for `work` (its failure ignored) but no longer
 * than `left()` ms, so one slow step cannot use up the time VS Code gives deactivate().
 */
export function within(work: Promise<unknown>, left: () => number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work.then(() => undefined, () => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, left())))]).finally(() => clearTimeout(timer));
}
