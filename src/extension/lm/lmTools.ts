// The agent tools as VS Code language-model tools (vscode.lm.registerTool, declared in package.json's
// languageModelTools): analyze a file and read the latest results (read-only), profile and compare (through the same
// ProfilingController flow a lens uses: Restricted Mode runs nothing, the consent view shows the exact T-SQL before
// anything that changes data or schema, the comparison's switch is confirmed). An agent never changes a database the
// user has not seen. Hosts without the lm API (older VS Code forks) get no tools, and the log says so.
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { agentField } from '../../agent/agentText';
import { comparisonFileAnswer } from '../../agent/comparisonFile';
import { decodeScript } from '../../cli/textDecoding';
import { analysisText, summarizeAnalysis } from '../../agent/analysisSummary';
import { resultText, summarizeResult } from '../../agent/resultSummary';
import { AGENT_TOOLS, AgentTools, checkRunInput, type AnalyzeFileInput, type GetResultsInput, type RunToolInput } from '../../agent/toolDefinitions';
import { selectWorkload, workloadText } from '../../agent/workloadSelection';
import type { ConnectionManager } from '../connections';
import type { ProfilingController, RunOutcome } from '../profiling';
import type { HistoryEntry, RunHistory } from '../history';
import { comparisonDefaults, currentRunSettings, traceOverheadRunsOf } from '../runOptions';
import { comparisonRunTotal } from '../consent';
import { resultInputOfEntry } from './historyResult';
import { runConfirmation, runInvocationMessage } from './runConfirmation';
import { l10n } from '../l10n';

export interface LmToolDeps {
  output: vscode.LogOutputChannel;
  controller: Pick<ProfilingController, 'runWorkload' | 'isRunning' | 'stop'>;
  connections: Pick<ConnectionManager, 'current'>;
  history: Pick<RunHistory, 'list'>;
}

// What a tool returns is for the model and stays English in every display language (it is not UI); what the user sees
// — invocation lines and confirmations — goes through l10n.t (runConfirmation.ts).
const text = (t: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(t)]);

/** A workspace-relative or absolute path, or a URI string, as a Uri (the first workspace folder anchors relative paths). */
function uriOf(path: string): vscode.Uri {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(path)) return vscode.Uri.parse(path);
  const absolute = /^(?:[\\/]|[A-Za-z]:[\\/])/.test(path);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!absolute && folder) return vscode.Uri.joinPath(folder, path);
  return vscode.Uri.file(path);
}

/** The real path of a file on disk (links resolved), or the path itself when it does not exist (opening then fails). */
function realPath(p: string): string {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return nodePath.resolve(p);
  }
}

/** True when `target` lies strictly inside `folder`, both in the same path flavour. */
function isInside(folder: string, target: string, flavour: typeof nodePath.posix): boolean {
  const relative = flavour.relative(folder, target);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${flavour.sep}`) && !flavour.isAbsolute(relative);
}

/**
 * Where an agent may read: a document open in this window (the user has it in front of them), or a file inside one of
 * the workspace folders — judged on the real path for files on disk, so `..` segments and a symbolic link (or junction)
 * inside the workspace that points out of it are refused. A window without a folder reads open documents only.
 */
function locate(path: string): { uri: vscode.Uri; open: vscode.TextDocument | undefined } | string {
  const uri = uriOf(path);
  const key = uri.toString();
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key || d.fileName === path);
  if (open) return { uri, open };
  const folders = vscode.workspace.workspaceFolders ?? [];
  const inside = folders.some((f) => {
    if (uri.scheme === 'file' && f.uri.scheme === 'file') return isInside(realPath(f.uri.fsPath), realPath(uri.fsPath), nodePath);
    // A remote or virtual workspace: the same scheme and authority, the path under the folder's once `..` is resolved.
    return uri.scheme === f.uri.scheme && uri.authority === f.uri.authority && isInside(nodePath.posix.normalize(f.uri.path), nodePath.posix.normalize(uri.path), nodePath.posix);
  });
  if (inside) return { uri, open: undefined };
  return `${agentField(path)} is outside this window's workspace folders${folders.length === 0 ? ' (no folder is open: only open documents are read)' : ''}; the Durability Lens tools read nothing outside them. Nothing was read.`;
}

/** The open document for `path` (unsaved edits included), else opened from disk; only SQL files, only where locate allows. */
async function sqlDocument(path: string): Promise<vscode.TextDocument | string> {
  const where = locate(path);
  if (typeof where === 'string') return where;
  let document: vscode.TextDocument;
  try {
    document = where.open ?? (await vscode.workspace.openTextDocument(where.uri));
  } catch (err) {
    return `Cannot open ${agentField(path)}: ${agentField((err as Error).message)}`;
  }
  if (document.languageId !== 'sql' && !/\.sql$/i.test(document.fileName ?? where.uri.toString())) return `${agentField(path)} is not a SQL file; the Durability Lens tools read T-SQL files only.`;
  return document;
}

function nameOf(document: vscode.TextDocument): string {
  return vscode.workspace.asRelativePath(document.uri, false);
}

class AnalyzeFileTool implements vscode.LanguageModelTool<AnalyzeFileInput> {
  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<AnalyzeFileInput>): vscode.PreparedToolInvocation {
    const path = options.input.path;
    return { invocationMessage: path ? l10n.t('Analyzing {0} for commit and log-flush problems', agentField(path)) : l10n.t('Analyzing the active SQL file for commit and log-flush problems') };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<AnalyzeFileInput>): Promise<vscode.LanguageModelToolResult> {
    let document: vscode.TextDocument | string;
    if (options.input.path) document = await sqlDocument(options.input.path);
    else {
      const active = vscode.window.activeTextEditor?.document;
      document = active && active.languageId === 'sql' ? active : 'There is no active SQL editor: pass "path" with the .sql file to analyse.';
    }
    if (typeof document === 'string') throw new Error(document);
    const summary = summarizeAnalysis(nameOf(document), document.getText());
    return text(analysisText(summary));
  }
}

class GetResultsTool implements vscode.LanguageModelTool<GetResultsInput> {
  constructor(private readonly deps: LmToolDeps) {}

  prepareInvocation(): vscode.PreparedToolInvocation {
    return { invocationMessage: l10n.t('Reading the latest Durability Lens results') };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<GetResultsInput>): Promise<vscode.LanguageModelToolResult> {
    const input = options.input ?? {};
    if (input.file) {
      if (!/\.json$/i.test(input.file)) return text(`${agentField(input.file)} is not a .json file: "file" names a comparison JSON document (durability-lens compare --out, or exported from the panel). Nothing was read.`);
      const where = locate(input.file);
      if (typeof where === 'string') return text(where);
      let raw: string;
      try {
        // UTF-8, UTF-16 with or without a byte order mark, as the CLI and the MCP server read files.
        raw = where.open ? where.open.getText() : decodeScript(await vscode.workspace.fs.readFile(where.uri)).text;
      } catch (err) {
        return text(`Cannot read ${agentField(input.file)}: ${agentField((err as Error).message)}`);
      }
      return text(comparisonFileAnswer(input.file, raw).text);
    }
    const entry = latestEntry(this.deps.history.list(), input.kind ?? 'any');
    if (!entry) {
      return text(`No ${input.kind && input.kind !== 'any' ? input.kind : 'profile or comparison'} in this workspace's run history yet. Run durability_lens_profile or durability_lens_compare_durability (or a lens), or pass "file" with a comparison JSON document.`);
    }
    return text(resultText(summarizeResult(resultInputOfEntry(entry))));
  }
}

/** The newest profile or comparison (traces are not results of a run), newest first as the history keeps them. */
export function latestEntry(entries: readonly HistoryEntry[], kind: 'any' | 'comparison' | 'profile'): HistoryEntry | undefined {
  return entries.find((e) => (kind === 'any' ? e.kind !== 'trace' : e.kind === kind));
}

class RunTool implements vscode.LanguageModelTool<RunToolInput> {
  constructor(
    private readonly deps: LmToolDeps,
    private readonly mode: 'profile' | 'compare',
  ) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<RunToolInput>): vscode.PreparedToolInvocation {
    const i = options.input ?? ({} as RunToolInput);
    // Nothing to confirm for what invoke refuses anyway (bad input, a file outside the workspace): it says why.
    const checked = checkRunInput(i, this.mode);
    const where = typeof checked === 'string' ? checked : (traceOffProblem(checked) ?? locate(checked.path));
    if (typeof where === 'string') return { invocationMessage: l10n.t('Durability Lens refuses this request: {0}', agentField(where)) };
    // The agent's count, or the user's setting: a Profile measuring the trace's cost runs the workload 2×N times.
    const overhead = this.mode === 'profile' ? ((checked as RunToolInput).traceOverheadRuns ?? traceOverheadRunsOf(currentRunSettings())) : undefined;
    // A comparison's modes and runs are the user's settings (durabilityLens.compare.*): said as they are, not as a fixed text.
    const settings = this.mode === 'compare' ? comparisonDefaults(currentRunSettings()) : undefined;
    const compare = settings ? { modes: settings.modes, repetitions: settings.repetitions, warmup: settings.warmup, total: comparisonRunTotal(settings) } : undefined;
    const active = this.deps.connections.current;
    // The path (the agent's) and the names (the server's, a setting's) are text, never Markdown: runConfirmation escapes them.
    return {
      invocationMessage: runInvocationMessage(this.mode, agentField(String(i.path))),
      confirmationMessages: runConfirmation({ mode: this.mode, path: String(i.path), startLine: i.startLine, endLine: i.endLine, overheadRuns: overhead, compare, connection: active ? { database: active.database, serverLabel: active.serverLabel } : null }),
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<RunToolInput>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const input = checkRunInput(options.input, this.mode);
    if (typeof input === 'string') throw new Error(input);
    const traceOff = traceOffProblem(input);
    if (traceOff) return text(traceOff);
    if (this.deps.controller.isRunning) return text('A Durability Lens run is already in progress in this window; wait for it to finish (or cancel it in its notification). Nothing was run.');
    const document = await sqlDocument(input.path);
    if (typeof document === 'string') throw new Error(document);
    const selected = selectWorkload(document.getText(), input);
    if (typeof selected === 'string') return text(selected.endsWith('Nothing was run.') ? selected : `${selected} Nothing was run.`);
    const what = `${workloadText(selected)} of ${agentField(nameOf(document))}`;
    const before = this.deps.history.list()[0]?.id;
    const trusted = vscode.workspace.isTrusted;
    const cancel = token.onCancellationRequested(() => void this.deps.controller.stop(10_000));
    let outcome: RunOutcome;
    try {
      // The lens's own flow: Restricted Mode, connect, the consent view, the comparison confirmation, the panel.
      outcome = await this.deps.controller.runWorkload(document, { ...selected, consent: undefined }, this.mode, { traceOverheadRuns: input.traceOverheadRuns });
    } finally {
      cancel.dispose();
    }
    const newest = this.deps.history.list()[0];
    if (!newest || newest.id === before) {
      if (!trusted) return text(`Nothing ran: this workspace is in Restricted Mode, where Durability Lens sends no file's T-SQL to a server. The user can trust the workspace (Manage Workspace Trust) and ask again.`);
      // Why, as the user was told: a refusal names who owns the database since when and its original setting.
      const why = outcome.kind === 'nothing' ? agentField(outcome.reason) : 'the result could not be kept in the run history.';
      return text(`Nothing was measured for ${what}: ${why} Nothing that needed confirmation was run without it.`);
    }
    const summary = summarizeResult(resultInputOfEntry(newest));
    const overhead = summary.traceOverhead?.runsEach != null ? summary.traceOverhead : null;
    const times = overhead ? ` ${overhead.runsMade} times (traceOverheadRuns ${overhead.runsEach}: alternating with and without the per-statement trace)` : '';
    const changed = this.mode === 'compare'
      ? `It ran ${what} on ${agentField(summary.database ?? 'the database')} after the user confirmed it, switching DELAYED_DURABILITY while it ran. ${agentField(summary.databaseState)}`
      : `It ran ${what} on ${agentField(summary.database ?? 'the database')}${times} after the user confirmed anything that changes data or schema. ${agentField(summary.databaseState)}`;
    return text(`${changed}\n\n${resultText(summary)}`);
  }
}

/**
 * traceOverheadRuns measures the per-statement trace, which the user's settings may switch off (as the CLI refuses
 * --trace-overhead with --no-statements): then nothing runs, rather than a run whose asked-for figure is missing.
 */
function traceOffProblem(input: RunToolInput): string | null {
  if (input.traceOverheadRuns === undefined) return null;
  const s = currentRunSettings();
  if (s.xeEnabled && s.xeStatements) return null;
  const off = !s.xeEnabled ? 'durabilityLens.xe.enabled is false' : 'durabilityLens.xe.statements is false';
  return `"traceOverheadRuns" measures what the per-statement trace costs, and the user's setting ${off}, so there is no trace to measure. Nothing was run. Ask again without traceOverheadRuns, or the user turns the setting back on.`;
}

/** The four tools' implementations by tool name (package.json's languageModelTools names). */
export function lmToolImplementations(deps: LmToolDeps): Record<string, vscode.LanguageModelTool<never>> {
  return {
    [AgentTools.analyzeFile]: new AnalyzeFileTool() as vscode.LanguageModelTool<never>,
    [AgentTools.getResults]: new GetResultsTool(deps) as vscode.LanguageModelTool<never>,
    [AgentTools.profile]: new RunTool(deps, 'profile') as vscode.LanguageModelTool<never>,
    [AgentTools.compareDurability]: new RunTool(deps, 'compare') as vscode.LanguageModelTool<never>,
  };
}

/** Registers the four tools; none when this VS Code has no language-model tool API. */
export function registerLmTools(deps: LmToolDeps): vscode.Disposable[] {
  const lm = (vscode as { lm?: { registerTool?: typeof vscode.lm.registerTool } }).lm;
  if (typeof lm?.registerTool !== 'function') {
    deps.output.info('This VS Code has no language-model tool API (vscode.lm.registerTool): the Durability Lens agent tools are not registered.');
    return [];
  }
  const implementations = lmToolImplementations(deps);
  return AGENT_TOOLS.map((t) => lm.registerTool!(t.name, implementations[t.name]!));
}
