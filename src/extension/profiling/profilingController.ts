// Runs "Profile …" and "Compare Durability" against the active connection: resolves the target, asks to connect
// when needed, cancellable progress from the profile API's events, PRINT/errors to the output channel, errors at
// their document line, the consent view before anything that changes data or schema runs (consent/), the
// confirmation before switching DELAYED_DURABILITY, and the result panel. A target inside a routine body is refused
// (its CREATE/ALTER would run) with Profile EXEC… offered instead.
import * as vscode from 'vscode';
import { ConnectionFailure } from '../../db/errors';
import type { WorkloadMessage } from '../../db/types';
import { profileRun, runComparison, ProfileCancelledError, traceOverheadPlanText, type ComparisonPlan, type ProgressEvent, type RestoreJournal, type RunError } from '../../profile';
import { Commands, describeTarget, type ProfileTarget } from '../../shared/commands';
import { procedureTargetOf } from '../../shared/procedureTarget';
import { analyze } from '../../tsql';
import { ConsentGate, partsOfWorkload, type ConsentRequest, footprintNotes, withComparisonRuns, withSweepPart, withTraceOverheadPlan } from '../consent';
import { ConnectionCommands } from '../commandIds';
import type { ConnectionManager } from '../connections';
import { type ComparisonPanels, comparisonContextOf, panelDataFromComparison, panelDataFromRun, type ComparisonContext } from '../panel';
import { progressLine, progressText, type ProfileMode, type ProfilingActions, type RunOutcome } from './profiling';
import { type RunHistory, showAndKeep } from '../history';
import { comparisonDefaults, coreRunOptions, currentRunSettings, runSettingsForRun, traceOverheadRunsOf, traceTargetText } from '../runOptions';
import type { PanelData } from '../../shared/webviewProtocol';
import type { RunResult } from '../../profile/types';
import { isRoutineBody, resolveEditorTarget, resolveLensTarget, targetText, type RoutineBody, type WorkloadTarget } from './targets';
import { comparisonConfirmation, connectionFailureText, formatTimestamp, refusalText, routineBodyText, runErrorDiagnostic, workloadFailedText } from '../uiText';
import { limitMessages } from '../../shared/messageFlood';
import type { SessionLedger } from '../sessions';
import type { StatementHintsSink } from './statementHints';
import { columnOf } from '../../report/comparison';
import { l10n } from '../l10n';

/** The document's file name ("s1.sql"), or its URI's last segment for untitled and virtual documents. */
export function documentName(document: vscode.TextDocument): string {
  return (document.fileName ?? document.uri?.path ?? document.uri?.toString() ?? '').split(/[\\/]/).pop() || 'the document';
}

/** "s1-single-row-inserts.sql: batch 3 (lines 17–24), after setup batches 1–2 (lines 1–16)" for the verdict. */
function workloadLabel(document: vscode.TextDocument, target: WorkloadTarget): string {
  const name = (document.fileName ?? document.uri?.path ?? '').split(/[\\/]/).pop();
  return name ? `${name}: ${targetText(target)}` : targetText(target);
}

export class ProfilingController implements ProfilingActions, vscode.Disposable {
  private running: { abort: AbortController; done: Thenable<void> } | null = null;
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('Durability Lens run');

  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly connections: ConnectionManager,
    private readonly panels: ComparisonPanels,
    private readonly journal: RestoreJournal,
    private readonly history?: RunHistory,
    /** Records this window as the owner of each run's event session (the leftover prompt of other windows skips it). */
    private readonly ledger?: SessionLedger,
    /** Inline per-statement hints in the editor after a run (issue 16). */
    private readonly hints?: StatementHintsSink,
    /** Restricted Mode and the consent view; without one (tests, other hosts) every change is asked, nothing remembered. */
    readonly consent: ConsentGate = new ConsentGate(undefined, output),
  ) {}

  /** True while a profile or comparison runs (its event session is live, so it is no orphan). */
  get isRunning(): boolean {
    return this.running !== null;
  }

  /** Shows a result and keeps it in the run history (a history failure must not hide the result). */
  private async present(data: PanelData, runs: readonly RunResult[], comparison: ComparisonContext | null = null): Promise<void> {
    await showAndKeep({ panels: this.panels, history: this.history, output: this.output }, 'the result', data, runs, comparison);
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.consent.dispose();
  }

  async profileTarget(target: ProfileTarget, mode: ProfileMode): Promise<void> {
    const uri = vscode.Uri.parse(target.uri);
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
    const resolved = resolveLensTarget(document.getText(), target, document.version);
    if (!resolved) {
      await vscode.window.showWarningMessage(l10n.t(`Durability Lens: {0} no longer holds a statement to run (the document changed). Nothing was run.`, describeTarget(target)));
      return;
    }
    if (isRoutineBody(resolved)) return this.offerProcedure(document, resolved, mode);
    // A COMMIT lens runs the batch holding its transaction (its variables and loop live there): the label says both.
    const commit = target.commit && document.version === target.version ? `the transaction committed at line ${target.commit.position.line + 1}: ` : '';
    await this.run(document, { ...resolved, description: `${commit}${resolved.description}` }, mode);
  }

  async profileText(document: vscode.TextDocument, selection: vscode.Range, mode: ProfileMode): Promise<void> {
    const range = selection.isEmpty ? null : { start: document.offsetAt(selection.start), end: document.offsetAt(selection.end) };
    const resolved = resolveEditorTarget(document.getText(), range, document.offsetAt(selection.start));
    if (!resolved) {
      await vscode.window.showWarningMessage(l10n.t('Durability Lens: there is no statement to run here (only comments or blank lines). Nothing was run.'));
      return;
    }
    if (isRoutineBody(resolved)) return this.offerProcedure(document, resolved, mode);
    await this.run(document, resolved, mode);
  }

  /**
   * The target is a routine's batch: running it would run its CREATE/ALTER (redeploying it) and measure that DDL, not
   * the work inside. Nothing runs; for a procedure, Profile EXEC… (the procedure lens's flow) is offered.
   */
  private async offerProcedure(document: vscode.TextDocument, body: RoutineBody, mode: ProfileMode): Promise<void> {
    const r = body.routine;
    const { head, select, viaExec } = routineBodyText(body);
    this.output.info(`${head} ${r.kind === 'PROCEDURE' ? `Offered: EXEC ${r.name}.` : ''}`);
    if (r.kind !== 'PROCEDURE') {
      await vscode.window.showWarningMessage(`${head} ${select}`);
      return;
    }
    const routine = (analyze(document.getText()).routines ?? []).find((x) => x.kind === 'PROCEDURE' && x.range.start.line === r.line && x.name === r.name);
    const button = mode === 'compare' ? l10n.t('Compare EXEC {0}…', r.name) : l10n.t('Profile EXEC {0}…', r.name);
    const choice = await vscode.window.showWarningMessage(`${head} ${viaExec}`, button);
    if (choice !== button || !routine) return;
    await vscode.commands.executeCommand(mode === 'compare' ? Commands.compareProcedure : Commands.profileProcedure, procedureTargetOf(routine, document.uri.toString(), document.version));
  }

  /** Cancels a running profile/comparison and waits (at most `timeoutMs`) for its restore and cleanup. */
  async stop(timeoutMs: number): Promise<void> {
    const running = this.running;
    if (!running) return;
    running.abort.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.resolve(running.done).catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** A workload built elsewhere (procedureRun.ts, lm/lmTools.ts); `asked`: an agent's trace-overhead runs, not the setting's. */
  runWorkload(document: vscode.TextDocument, target: WorkloadTarget, mode: ProfileMode, asked?: { traceOverheadRuns?: number | undefined }): Promise<RunOutcome> {
    return this.run(document, target, mode, asked?.traceOverheadRuns);
  }

  /** Asks to connect when there is no connection; true when there is one afterwards. */
  async ensureConnected(what: string): Promise<boolean> {
    if (this.connections.current) return true;
    const connect = l10n.t('Connect');
    const add = l10n.t('Add Connection');
    const choice = await vscode.window.showInformationMessage(l10n.t(`Durability Lens: {0} needs a SQL Server connection. Nothing was run and no database setting was changed.`, what), connect, add);
    if (choice === connect) return this.connections.connect();
    if (choice === add) {
      await vscode.commands.executeCommand(ConnectionCommands.addConnection);
      return this.connections.current !== null;
    }
    return false;
  }

  private async run(document: vscode.TextDocument, target: WorkloadTarget, mode: ProfileMode, askedOverheadRuns?: number): Promise<RunOutcome> {
    const what = mode === 'compare' ? l10n.t('Compare durability modes for {0}', targetText(target)) : l10n.t('Profile {0}', targetText(target));
    // Restricted Mode: nothing from the workspace's files is sent, so nothing is asked either (not even to connect).
    if (!(await this.consent.trusted(what))) return nothing('this workspace is in Restricted Mode, where no file\'s T-SQL is sent to a server.');
    if (this.running) {
      await vscode.window.showWarningMessage(l10n.t('Durability Lens: a run is in progress; cancel it (in its notification) before starting another.'));
      return nothing('a run is already in progress in this window.');
    }
    // Claimed before the first await: a second command in this window sees it at once (one run per window).
    const abort = new AbortController();
    let finished!: () => void;
    this.running = { abort, done: new Promise<void>((resolve) => (finished = resolve)) };
    try {
      return await this.runClaimed(document, target, mode, what, abort, askedOverheadRuns);
    } finally {
      this.running = null;
      finished();
    }
  }

  private async runClaimed(document: vscode.TextDocument, target: WorkloadTarget, mode: ProfileMode, what: string, abort: AbortController, askedOverheadRuns: number | undefined): Promise<RunOutcome> {
    if (!(await this.ensureConnected(what))) return nothing('there is no SQL Server connection (the user did not connect).');
    if (abort.signal.aborted) return nothing(CANCELLED);
    const source = this.connections.connectionSource()!;
    const active = this.connections.current!;
    // Read before the confirmation, which shows them: a Profile that measures the trace's cost runs the workload 2×N
    // times; a comparison's concurrency sweep runs it on up to N sessions at once, each with its own @session value.
    const shownSettings = currentRunSettings();
    const overheadRuns = mode === 'profile' ? (askedOverheadRuns ?? traceOverheadRunsOf(shownSettings)) : undefined;
    const shownComparison = mode === 'compare' ? comparisonDefaults(shownSettings) : undefined;
    const sweep = shownComparison?.sessions;
    const parts = target.consent ? withSweepPart(target.consent, sweep) : partsOfWorkload(target.batches, mode, sweep);
    const overheadPlan = withTraceOverheadPlan(withComparisonRuns(parts, shownComparison), overheadRuns, askedOverheadRuns !== undefined ? 'agent' : 'setting');
    // The exact text, batch by batch, before anything that changes data or schema is sent (setup included).
    const request: ConsentRequest = {
      action: what.charAt(0).toUpperCase() + what.slice(1),
      file: { uri: document.uri.toString(), name: documentName(document), text: document.getText() },
      connection: { profileName: active.profile.name, server: active.serverLabel, database: active.database },
      parts: overheadPlan.parts,
      confirmLabel: l10n.t('Run'),
      notes: [
        ...(target.adHocIn
          ? [l10n.t('The selection lies inside {0}: it runs on its own, as an ad-hoc batch — not as the {1} (its parameters and anything declared outside the selection are not defined), and its CREATE/ALTER is not run.', target.adHocIn, target.adHocIn.split(' ')[0]!)]
          : footprintNotes(document.getText())),
        ...overheadPlan.notes,
      ],
    };
    if (!(await this.consent.confirm(request))) return nothing('the user did not confirm the T-SQL in the consent view (or the workspace is in Restricted Mode).');
    if (abort.signal.aborted) return nothing(CANCELLED);
    this.diagnostics.delete(document.uri);
    const startedAt = Date.now();
    const runningTitle = l10n.t('Running: {0}', what);
    // The panel shows the run in progress, not the previous result (which comes back if this run yields none).
    // Optional calls: hosts that pass their own panels object (tests' fakes) may have no running view.
    void this.panels.showRunning?.({ title: runningTitle, step: l10n.t('Connecting'), elapsedMs: 0, logFlushes: null, logBytes: null });
    const onProgress = (event: ProgressEvent, progress: vscode.Progress<{ message?: string }>) => {
      const text = progressLine(event);
      progress.report({ message: text });
      if (!event.live) this.output.debug(text);
      void this.panels.showRunning?.({
        title: runningTitle,
        step: `${event.run ? `${event.run} — ` : ''}${progressText(event.step, event.detail)}`,
        elapsedMs: Date.now() - startedAt,
        logFlushes: event.live?.logFlushes ?? null,
        logBytes: event.live?.logBytes ?? null,
      });
    };
    const onMessage = limitMessages((m: WorkloadMessage) => {
      const where = m.documentLine !== null ? `line ${m.documentLine + 1}` : m.procName ? `in ${m.procName}` : 'no line';
      const iteration = m.iteration > 0 ? ` (GO repetition ${m.iteration + 1})` : '';
      const text = `[${formatTimestamp(m.at)} +${Math.round(m.elapsedMs)} ms] ${m.kind === 'error' ? `Msg ${m.number}, Level ${m.class}, ` : ''}${where}${iteration}: ${m.message}`;
      if (m.kind === 'error') this.output.error(text);
      else this.output.info(text);
    }, (t) => this.output.warn(t));
    const settings = await runSettingsForRun((line) => this.output.info(line));
    const base = coreRunOptions(settings);
    const core = this.ledger ? { ...base, xe: { ...base.xe, sessionName: await this.ledger.claim() } } : base;
    this.output.info(`${what} on "${active.profile.name}" (${active.serverLabel}, database ${active.database}).`);
    const done = vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: l10n.t(`Durability Lens: {0}`, what), cancellable: true },
      async (progress, token): Promise<RunOutcome> => {
        token.onCancellationRequested(() => abort.abort());
        const callbacks = { signal: abort.signal, onProgress: (e: ProgressEvent) => onProgress(e, progress), onMessage };
        try {
          if (mode === 'profile') {
            if (overheadRuns !== undefined) this.output.info(`This profile ${traceOverheadPlanText(overheadRuns)} (${askedOverheadRuns !== undefined ? 'asked by an agent tool: traceOverheadRuns' : 'durabilityLens.xe.traceOverheadRuns'}).`);
            const run = await profileRun({ connections: source, batches: target.batches, traceOverheadRuns: overheadRuns, ...core, ...callbacks });
            this.showErrors(document, run.errors);
            const data = panelDataFromRun(run, active.serverLabel);
            data.header.workload = workloadLabel(document, target);
            data.documentUri = document.uri.toString();
            this.hints?.show(document, run);
            await this.present(data, [run]);
            if (run.status === 'cancelled') void vscode.window.showInformationMessage(l10n.t('Durability Lens: the run was cancelled; the figures up to the cancel are shown (the after-snapshot was taken).'));
            return { kind: 'result' };
          } else {
            const result = await runComparison({
              connections: source,
              batches: target.batches,
              journal: this.journal,
              workloadHasDelayedCommits: target.hasDelayedCommits,
              confirm: (plan) => this.confirm(plan, active.profile.name, active.profile.development, `${traceTargetText(settings)}${sweepText(sweep ?? [])}`),
              // The modes, runs, warm-up and sweep levels the consent view showed, even if the settings changed since.
              ...shownComparison,
              ...core,
              ...callbacks,
            });
            return await this.afterComparison(document, result, workloadLabel(document, target));
          }
        } catch (err) {
          return nothing(await this.reportFailure(err, active.profile.name));
        }
      },
    );
    try {
      return await done;
    } finally {
      // No result was shown (declined, refused, failed): the panel returns to the last result.
      await this.panels.runEnded?.();
    }
  }

  private async confirm(plan: ComparisonPlan, profileName: string, development: boolean, traceTarget: string): Promise<boolean> {
    const confirmation = comparisonConfirmation(plan, profileName);
    const text = { ...confirmation, detail: `${confirmation.detail}\n\n${traceTarget}` };
    this.output.info(`${text.message}\n${text.detail}`);
    if (development) {
      this.output.info(`"${profileName}" is marked as a development database: no confirmation asked.`);
      return true;
    }
    const go = l10n.t('Switch and Compare');
    return (await vscode.window.showWarningMessage(text.message, { modal: true, detail: text.detail }, go)) === go;
  }

  private async afterComparison(document: vscode.TextDocument, result: Awaited<ReturnType<typeof runComparison>>, workload: string): Promise<RunOutcome> {
    if (result.status === 'refused') {
      const text = refusalText(result.plan) ?? result.error?.message ?? l10n.t('The comparison was refused; nothing was changed.');
      this.output.warn(text);
      const copy = l10n.t('Copy GRANT');
      // Not awaited: the caller (an agent tool) learns the refusal now, the notification stays for the user.
      void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, text), ...(result.plan.grant ? [copy] : [])).then(async (choice) => {
        if (choice === copy && result.plan.grant) await vscode.env.clipboard.writeText(result.plan.grant);
      });
      return nothing(text);
    }
    if (result.status === 'declined') {
      this.output.info('Comparison declined: nothing was changed.');
      return nothing('the user declined switching DELAYED_DURABILITY; nothing was changed.');
    }
    this.showErrors(document, result.runs.flatMap((r) => r.errors));
    const measured = result.runs.filter((r) => !r.warmup).length;
    if (measured > 0) {
      const data = panelDataFromComparison(result);
      data.header.workload = workload;
      data.documentUri = document.uri.toString();
      // Comparisons trace no statements (compare.ts); should one have, the hints show the run the Statements tab
      // shows (the baseline's first). Otherwise the hints of an earlier profile of this document stay.
      const traced = result.runs.filter((r) => !r.warmup && r.statementAttribution?.status === 'measured');
      const hinted = traced.find((r) => columnOf(r) === data.model.baseline) ?? traced[0];
      if (hinted) this.hints?.show(document, hinted);
      await this.present(data, result.runs, comparisonContextOf(result));
    } else {
      // Nothing measured (stopped in the warm-up, or before): the panel goes back to what it showed.
      await this.panels.runEnded?.();
    }
    if (result.status === 'cancelled') {
      const restored = !!result.restore && result.restore.status !== 'failed';
      void vscode.window.showInformationMessage(
        measured > 0
          ? restored ? l10n.t('Durability Lens: the comparison was cancelled; the {0} measured run(s) so far are shown and the original setting was restored.', measured) : l10n.t('Durability Lens: the comparison was cancelled; the {0} measured run(s) so far are shown.', measured)
          : restored ? l10n.t('Durability Lens: the comparison was cancelled in its warm-up: no run was measured and the original setting was restored.') : l10n.t('Durability Lens: the comparison was cancelled in its warm-up: no run was measured.'),
      );
    }
    const restore = result.restore;
    if (restore?.status === 'failed') {
      this.output.error(restore.message);
      const copy = l10n.t('Copy Statement');
      const choice = await vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, restore.message), copy);
      if (choice === copy) await vscode.env.clipboard.writeText(restore.restoreStatement);
    } else if (restore?.status === 'external-change') {
      this.output.warn(restore.message);
      const copy = l10n.t('Copy Statement');
      const choice = await vscode.window.showWarningMessage(l10n.t(`Durability Lens: {0}`, restore.message), copy);
      if (choice === copy) await vscode.env.clipboard.writeText(restore.restoreStatement);
    } else if (restore) {
      this.output.info(restore.message);
    }
    if (result.error && result.status !== 'cancelled') void vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0}`, result.error.message));
    await this.connections.refresh();
    if (measured > 0) return { kind: 'result' };
    return nothing(result.error?.message ?? (result.status === 'cancelled' ? CANCELLED : `the comparison ended (${result.status}) before a run was measured.`));
  }

  /** Puts workload errors on their document lines and offers to go to the first one. */
  private showErrors(document: vscode.TextDocument, errors: readonly RunError[]): void {
    const located = errors.filter((e) => e.documentLine !== null && e.documentLine < document.lineCount);
    this.diagnostics.set(
      document.uri,
      located.map((e) => {
        const line = document.lineAt(e.documentLine!);
        const d = new vscode.Diagnostic(line.range, runErrorDiagnostic(e), vscode.DiagnosticSeverity.Error);
        d.source = 'Durability Lens run';
        d.code = e.number;
        return d;
      }),
    );
    const first = errors[0];
    if (!first) return;
    const text = workloadFailedText(first);
    const go = l10n.t('Go to Line');
    void vscode.window.showErrorMessage(text, ...(first.documentLine !== null ? [go] : [])).then(async (choice) => {
      if (choice !== go || first.documentLine === null) return;
      const editor = await vscode.window.showTextDocument(document);
      const position = new vscode.Position(first.documentLine, 0);
      editor.selection = new vscode.Selection(position, position);
      editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenter);
    });
  }

  /** Tells the user why the run produced nothing, and returns that reason. */
  private async reportFailure(err: unknown, profileName: string): Promise<string> {
    if (err instanceof ProfileCancelledError) {
      // A profile layer that throws on cancel leaves no figures to show; say so rather than stay silent.
      this.output.info('Cancelled: the event session and connections were cleaned up.');
      void vscode.window.showInformationMessage(l10n.t('Durability Lens: the run was cancelled before it produced figures; the event session and connections were cleaned up.'));
      return CANCELLED;
    }
    if (err instanceof ConnectionFailure) {
      this.output.error(`${connectionFailureText(err.info, profileName)} [driver: ${err.info.driverMessage}]`);
      await vscode.window.showErrorMessage(connectionFailureText(err.info, profileName));
      return connectionFailureText(err.info, profileName);
    }
    const message = (err as Error)?.message ?? String(err);
    this.output.error(`The run failed: ${message}`);
    await vscode.window.showErrorMessage(l10n.t(`Durability Lens: the run failed: {0}`, message), l10n.t('Show Output')).then((c) => (c ? this.output.show(true) : undefined));
    return `the run failed: ${message}`;
  }
}

const CANCELLED = 'the run was cancelled before it produced figures.';

function nothing(reason: string): RunOutcome {
  return { kind: 'nothing', reason };
}

/** The confirmation's line for a concurrency sweep (durabilityLens.compare.sessions): how many connections it opens. */
export function sweepText(levels: readonly number[]): string {
  if (levels.length === 0) return '';
  return `\n\nConcurrency sweep: the plan runs once per level — ${levels.join(', ')} session(s) — on up to ${Math.max(...levels)} workload connections at once (durabilityLens.compare.sessions).`;
}
