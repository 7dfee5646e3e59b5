// The agent tools over the CLI core, for the stdio MCP server: analyze a .sql file and read results (always), profile
// and compare (only when the server was started with --allow-run and a connection — the user's consent given on the
// command line). Files are read under one root folder only; one run at a time; a run's result says in its first lines
// what it did to the database. No MCP types here: server.ts speaks the protocol.
import { eventSessionsText } from '../commands/profilePlan';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentField } from '../../agent/agentText';
import { comparisonFileAnswer } from '../../agent/comparisonFile';
import { analysisText, summarizeAnalysis } from '../../agent/analysisSummary';
import { resultText, summarizeResult, type ResultInput } from '../../agent/resultSummary';
import { AgentTools, checkRunInput, type AgentToolName, type GetResultsInput, type RunToolInput } from '../../agent/toolDefinitions';
import { selectWorkload, workloadText, type SelectedWorkload } from '../../agent/workloadSelection';
import { connectionFailureText } from '../commands/shared';
import { describePlan, pendingRestores, profileConnectionSource, profileRun, runComparison, SetupMarkerError, traceOverheadPlanText, type ProgressEvent, type RestoreJournal } from '../../profile';
import { buildComparisonModel, comparisonDocument } from '../../report';
import { progressLine } from '../../report/progress';
import type { ConnectionProfile } from '../../db/types';
import type { CliIO } from '../io';
import { byCodeUnits } from '../../shared/textOrder';
import { CANNOT_ASK, DECLINED, MAX_CONFIRMED_LINES, runConfirmationText, tooLongToConfirm, workloadLineCount, type AskUser } from './runConfirmation';

export interface ToolResult {
  text: string;
  isError: boolean;
}

export interface RunConsent {
  profile: ConnectionProfile;
  secret: string | undefined;
  journal: RestoreJournal;
  /** Modes and measured runs per mode of compare (the CLI's defaults unless the server was started with others). */
  modes: ('DISABLED' | 'ALLOWED' | 'FORCED')[];
  repetitions: number;
  /** True unless started with --no-confirm: each run is shown to the user and confirmed through the client first. */
  confirmEachRun: boolean;
}

export interface ToolHostOptions {
  /** Files are read under this folder only (the server's working folder unless --root names another). */
  root: string;
  io: CliIO;
  /** Set only with --allow-run and a connection: the profile and compare tools run; null: they refuse. */
  run: RunConsent | null;
  /**
   * Aborted when the server process is told to stop (SIGTERM, SIGINT, SIGHUP: an MCP client stops its server with
   * SIGTERM): a run in progress is cancelled, which restores DELAYED_DURABILITY and drops its event sessions.
   */
  stop?: AbortSignal;
}

export const REFUSED_WITHOUT_ALLOW_RUN =
  'Refused: this MCP server was started without --allow-run, so it runs nothing against a database (only durability_lens_analyze_file and durability_lens_get_results work). Nothing was run and nothing was changed. To allow it, the user restarts the server with `durability-lens mcp --allow-run --connection NAME` (docs/agents.md).';

/** True when `target` lies strictly inside `folder` (a name beginning with ".." inside it is inside). */
export function isInside(folder: string, target: string): boolean {
  const relative = path.relative(folder, target);
  return relative !== '' && relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

const ok = (text: string): ToolResult => ({ text, isError: false });
const fail = (text: string): ToolResult => ({ text, isError: true });

export class McpToolHost {
  private running = false;
  /** The run in progress, if any: settled() waits for it (its restore) before the process exits. */
  private inflight: Promise<ToolResult> | null = null;
  private latest: { profile: ResultInput | null; comparison: ResultInput | null } = { profile: null, comparison: null };

  /** The root with its links resolved: what a file's real path must lie under. */
  private readonly realRoot: string;

  constructor(private readonly options: ToolHostOptions) {
    let realRoot = options.root;
    try {
      realRoot = fs.realpathSync.native(options.root);
    } catch {
      // A root that does not exist holds no file: every read fails with "no such file".
    }
    this.realRoot = realRoot;
  }

  /** Resolves once no run started by this server is in progress (after its restore, when it was cancelled). */
  async settled(): Promise<void> {
    await this.inflight?.catch(() => undefined);
  }

  get allowsRun(): boolean {
    return this.options.run !== null;
  }

  /** True when each run is confirmed by the user in the client first (not started with --no-confirm). */
  get confirmsEachRun(): boolean {
    return this.options.run?.confirmEachRun ?? true;
  }

  async call(name: string, input: unknown, signal?: AbortSignal, onProgress?: (text: string) => void, askUser?: AskUser): Promise<ToolResult> {
    switch (name as AgentToolName) {
      case AgentTools.analyzeFile:
        return this.analyze(input);
      case AgentTools.getResults:
        return this.results(input);
      case AgentTools.profile:
      case AgentTools.compareDurability: {
        if (!this.options.run) return fail(REFUSED_WITHOUT_ALLOW_RUN);
        const checked = checkRunInput(input, name === AgentTools.profile ? 'profile' : 'compare');
        if (typeof checked === 'string') return fail(checked);
        if (this.options.stop?.aborted) return fail('Refused: this MCP server is stopping. Nothing was run.');
        const stop = this.options.stop;
        const combined = stop && signal ? AbortSignal.any([signal, stop]) : (stop ?? signal);
        const call = this.runTool(name === AgentTools.profile ? 'profile' : 'compare', checked, this.options.run, combined, onProgress, askUser);
        if (!this.inflight) {
          const tracked: Promise<ToolResult> = call.catch((err: unknown) => fail(String(err))).finally(() => {
            if (this.inflight === tracked) this.inflight = null;
          });
          this.inflight = tracked;
        }
        return call;
      }
      default:
        return fail(`Unknown tool "${name}".`);
    }
  }

  /**
   * `file` resolved under the root, with the extension it must have; a sentence when it is not allowed or missing. The
   * check is made twice: on the path as written (`..` segments resolved) and on the real path the read opens, so a
   * symbolic link (or junction) inside the root that points out of it is refused too.
   */
  private resolve(file: string, extension: '.sql' | '.json'): string | { problem: string } {
    const outside = (how: string) => ({ problem: `${agentField(file)} is outside the folder this server reads (${agentField(this.options.root)})${how}; nothing was read.` });
    const full = path.resolve(this.options.root, file);
    if (!isInside(this.options.root, full)) return outside('');
    if (path.extname(full).toLowerCase() !== extension) return { problem: `${agentField(file)} is not a ${extension} file; this tool reads only ${extension} files.` };
    let real: string;
    try {
      real = fs.realpathSync.native(full);
    } catch (err) {
      return { problem: `cannot read ${agentField(file)}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : agentField((err as Error).message)}.` };
    }
    if (!isInside(this.realRoot, real)) return outside(': it is a link to a file out of it');
    if (path.extname(real).toLowerCase() !== extension) return { problem: `${agentField(file)} is a link to a file that is not ${extension}; this tool reads only ${extension} files.` };
    return real;
  }

  private read(file: string, extension: '.sql' | '.json'): { full: string; text: string } | { problem: string } {
    const full = this.resolve(file, extension);
    if (typeof full !== 'string') return full;
    try {
      return { full, text: this.options.io.readFile(full) };
    } catch (err) {
      return { problem: `cannot read ${agentField(file)}: ${agentField((err as Error).message)}` };
    }
  }

  private analyze(input: unknown): ToolResult {
    const file = (input as { path?: unknown } | null)?.path;
    if (typeof file !== 'string' || file.trim() === '') return fail('"path" (the .sql file to analyse) is required here (there is no active editor).');
    const read = this.read(file, '.sql');
    if ('problem' in read) return fail(read.problem);
    const summary = summarizeAnalysis(file, read.text);
    return ok(analysisText(summary));
  }

  private results(input: unknown): ToolResult {
    const i = (input ?? {}) as GetResultsInput;
    if (typeof i.file === 'string' && i.file !== '') {
      const read = this.read(i.file, '.json');
      if ('problem' in read) return fail(read.problem);
      const answer = comparisonFileAnswer(i.file, read.text);
      return answer.isError ? fail(answer.text) : ok(answer.text);
    }
    const kind = i.kind ?? 'any';
    const candidates = [kind !== 'comparison' ? this.latest.profile : null, kind !== 'profile' ? this.latest.comparison : null].filter((r): r is ResultInput => r !== null);
    const newest = candidates.sort((a, b) => byCodeUnits(b.createdAt, a.createdAt))[0];
    if (!newest) {
      return fail(`No ${kind === 'any' ? 'profile or comparison' : kind} has run in this MCP server yet. ${this.allowsRun ? 'Run durability_lens_profile or durability_lens_compare_durability first,' : 'This server was started without --allow-run, so it runs none;'} or pass "file" with a comparison JSON written by \`durability-lens compare --out FILE.json\`.`);
    }
    return ok(resultText(summarizeResult(newest)));
  }

  private async runTool(mode: 'profile' | 'compare', input: RunToolInput, run: RunConsent, signal?: AbortSignal, onProgress?: (text: string) => void, askUser?: AskUser): Promise<ToolResult> {
    const read = this.read(input.path, '.sql');
    if ('problem' in read) return fail(read.problem);
    const text = read.text.charCodeAt(0) === 0xfeff ? read.text.slice(1) : read.text;
    const workload = selectWorkload(text, input);
    if (typeof workload === 'string') return fail(`${workload} Nothing was run.`);
    if (run.confirmEachRun) {
      if (!askUser) return fail(CANNOT_ASK);
      const lines = workloadLineCount(workload);
      if (lines > MAX_CONFIRMED_LINES) return fail(tooLongToConfirm(lines));
    }
    if (this.running) return fail('A profile or comparison started by this server is still running; wait for it (one run at a time). Nothing was run.');
    this.running = true;
    try {
      return mode === 'profile' ? await this.profile(input.path, workload, input.traceOverheadRuns, run, signal, onProgress, askUser) : await this.compare(input.path, workload, run, signal, onProgress, askUser);
    } catch (err) {
      if (err instanceof SetupMarkerError) return fail(`${err.message} Nothing was run.`);
      if ((err as Error).name === 'AbortError') return fail('Cancelled before anything was measured; the event session was dropped and DELAYED_DURABILITY was not changed.');
      return fail(`The run failed: ${agentField(connectionFailureText(err) ?? (err as Error).message ?? String(err))}`);
    } finally {
      this.running = false;
    }
  }

  private where(run: RunConsent): string {
    const p = run.profile;
    return agentField(`database ${p.database} on ${p.server}${p.port !== undefined ? `,${p.port}` : p.instanceName ? `\\${p.instanceName}` : ''}`);
  }

  private progress(onProgress?: (text: string) => void): (e: ProgressEvent) => void {
    return (e) => {
      const line = progressLine(e);
      this.options.io.stderr(`… ${line}\n`);
      onProgress?.(line);
    };
  }

  private async profile(file: string, workload: SelectedWorkload, overheadRuns: number | undefined, run: RunConsent, signal?: AbortSignal, onProgress?: (text: string) => void, askUser?: AskUser): Promise<ToolResult> {
    const what = `${workloadText(workload)} of ${agentField(file)}`;
    // Asked for (traceOverheadRuns, as profile --trace-overhead): the plan says the workload runs 2×N times.
    const times = overheadRuns === undefined ? '' : `; it ${traceOverheadPlanText(overheadRuns)}`;
    const sessions = eventSessionsText(true, 'log flushes, and the statements of the workload sessions', overheadRuns ?? null);
    this.options.io.stderr(`durability-lens mcp: profiling ${what} on ${this.where(run)}${times} (${run.confirmEachRun ? 'asking the user first' : '--allow-run --no-confirm'}).\n${sessions}\n`);
    const refused = await this.asked(run, askUser, `Durability Lens (MCP server, asked by an agent): profile ${what} on ${this.where(run)}${times}. Its statements execute for real: any INSERT, UPDATE, DELETE or DDL in them changes the database.`, workload, sessions);
    if (refused) return refused;
    const result = await profileRun({
      connections: profileConnectionSource(run.profile, run.secret),
      batches: workload.batches,
      target: { kind: workload.kind, label: file },
      xe: { enabled: true, statements: true },
      sampling: { enabled: true },
      traceOverheadRuns: overheadRuns,
      onProgress: this.progress(onProgress),
      signal,
    });
    const model = buildComparisonModel([result]);
    const entry: ResultInput = { kind: 'profile', title: `Profile of ${what}`, createdAt: new Date().toISOString(), workload: what, status: result.status, error: result.errors[0] ? `SQL error ${result.errors[0].number}: ${result.errors[0].message}` : null, restore: null, model };
    this.latest.profile = entry;
    const made = Math.max(1, result.traceOverhead?.runs.length ?? 1);
    const count = overheadRuns === undefined ? '' : ` ${made} time(s) (traceOverheadRuns ${overheadRuns}: ${overheadRuns} with the per-statement trace and ${overheadRuns} without, alternating${made < overheadRuns * 2 ? `; it stopped after run ${made}` : ''})`;
    const ran = `This call RAN ${what} against ${this.database(run)}${count} (${consentText(run)}): its statements executed for real, so any INSERT, UPDATE, DELETE or DDL in it changed the database${overheadRuns === undefined ? '' : ' each time'}.${result.workloadDurabilityChange ? ` ${result.workloadDurabilityChange.message}` : ' DELAYED_DURABILITY was not changed.'}${workload.adHocIn ? ` The lines lie inside ${workload.adHocIn}: they ran on their own, as an ad-hoc batch, not as the ${workload.adHocIn.split(' ')[0]}.` : ''}`;
    return { text: `${ran}\n\n${resultText(summarizeResult(entry))}`, isError: result.status === 'workload-error' };
  }

  /** Asks the user when this server confirms each run: null when the run may start, else the refusal to return. */
  private async asked(run: RunConsent, askUser: AskUser | undefined, headline: string, workload: SelectedWorkload, plan: string): Promise<ToolResult | null> {
    if (!run.confirmEachRun) return null;
    const answer = askUser ? await askUser(runConfirmationText(headline, workload, plan)) : 'unsupported';
    this.options.io.stderr(`durability-lens mcp: the user ${answer === 'confirmed' ? 'confirmed the run' : answer === 'declined' ? 'declined the run: nothing was sent' : 'could not be asked: nothing was sent'}.\n`);
    return answer === 'confirmed' ? null : fail(answer === 'declined' ? DECLINED : CANNOT_ASK);
  }

  private database(run: RunConsent): string {
    return this.where(run);
  }

  private async compare(file: string, workload: SelectedWorkload, run: RunConsent, signal?: AbortSignal, onProgress?: (text: string) => void, askUser?: AskUser): Promise<ToolResult> {
    const what = `${workloadText(workload)} of ${agentField(file)}`;
    const source = profileConnectionSource(run.profile, run.secret);
    // A crashed run's leftover setting would be taken for the original: refuse until it is restored (CLI compare --yes).
    const pending = (await pendingRestores(run.journal, source.serverLabel)).filter((e) => e.database.toLowerCase() === run.profile.database.toLowerCase());
    if (pending.length > 0) {
      return fail(`Refused: ${agentField(run.profile.database)} still has an unfinished restore in the restore journal (a comparison that did not finish). Nothing was run and nothing was changed. Restore it first: \`durability-lens compare --connection … --yes\` restores it, or run: ${agentField(pending.map((e) => e.restoreStatement).join(' '))}`);
    }
    this.options.io.stderr(`durability-lens mcp: comparing DELAYED_DURABILITY ${run.modes.join(', ')} for ${what} on ${this.where(run)} (${run.confirmEachRun ? 'asking the user first' : '--allow-run --no-confirm'}).\n`);
    let declined: ToolResult | null = null;
    const result = await runComparison({
      connections: source,
      batches: workload.batches,
      modes: run.modes,
      repetitions: run.repetitions,
      warmup: true,
      workloadHasDelayedCommits: workload.hasDelayedCommits,
      journal: run.journal,
      xe: { enabled: true, statements: false },
      sampling: { enabled: true },
      // The user confirms this plan in the client (or gave --allow-run --no-confirm): printed on stderr, said in the result.
      confirm: async (plan) => {
        this.options.io.stderr(`${describePlan(plan)}\n\n${run.confirmEachRun ? 'Asking the user to confirm it in the MCP client.' : 'Confirmed by --allow-run --no-confirm.'}\n`);
        declined = await this.asked(run, askUser, `Durability Lens (MCP server, asked by an agent): compare DELAYED_DURABILITY ${run.modes.join(', ')} for ${what} on ${this.where(run)}: the workload runs ${plan.order.length} time(s), and the database's DELAYED_DURABILITY is switched and then restored. Its statements execute for real each time.`, workload, describePlan(plan));
        return declined === null;
      },
      onProgress: this.progress(onProgress),
      signal,
    });
    if (result.status === 'declined' && declined) return declined;
    if (result.status === 'refused') return fail(`Refused: ${agentField(result.error?.message ?? describePlan(result.plan))} Nothing was changed.`);
    const doc = comparisonDocument({ runs: result.runs, status: result.status, plan: result.plan, restore: result.restore, error: result.error });
    const restore = result.restore ? { ok: result.restore.status === 'restored' || result.restore.status === 'already-original', message: result.restore.message, originalSetting: result.restore.originalSetting, verifiedSetting: result.restore.verifiedSetting } : null;
    const entry: ResultInput = { kind: 'comparison', title: `Durability comparison of ${what}`, createdAt: doc.createdAt, workload: what, status: result.status, error: result.error?.message ?? null, restore, model: doc.model };
    if (result.runs.some((r) => !r.warmup)) this.latest.comparison = entry;
    const switched = result.restore
      ? `switched DELAYED_DURABILITY of ${agentField(run.profile.database)} between ${run.modes.join(' and ')} while it ran (while FORCED, recent commits of every session in that database could have been lost on a crash), then ${restore?.ok ? `restored it to ${result.restore.verifiedSetting ?? result.restore.originalSetting ?? 'its original setting'} (verified)` : `could NOT restore it: ${agentField(result.restore.message)} Run: ${agentField(result.restore.restoreStatement ?? '')}`}`
      : 'did not switch DELAYED_DURABILITY (it stopped before the first change)';
    const ran = `This call RAN ${what} against ${this.database(run)} ${result.runs.length} time(s) (${consentText(run)}): its statements executed for real, so any INSERT, UPDATE, DELETE or DDL in it changed the database each time. It ${switched}.`;
    return { text: `${ran}\n\n${resultText(summarizeResult(entry))}`, isError: result.status !== 'completed' || restore?.ok === false };
  }
}

/** How the run was consented to, for its plan line and its result. */
function consentText(run: RunConsent): string {
  return run.confirmEachRun ? 'confirmed by the user in the MCP client' : 'allowed by --allow-run --no-confirm, without asking';
}
