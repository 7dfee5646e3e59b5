// The procedure lenses ("Profile EXEC…", "Compare durability…"): prompt for each parameter (type and default shown,
// last values and named sets from the workspace), check the deployed definition against the editor's text (offer
// to run the deployed one or to deploy this one — CREATE OR ALTER, only after the consent view showed it with the call
// and the definition the call runs), then hand an RPC call with typed parameters to the profiling controller, which
// asks the same consent gate (already confirmed after a deploy). Nothing runs in Restricted Mode.
import * as vscode from 'vscode';
import type { ConnectionManager } from '../connections';
import { type ProfileMode, type ProfilingController, type WorkloadTarget, documentName } from '../profiling';
import { inputText, procedureCallBatch, procedureCallName, readInput, validateInput, type ParameterInput } from '../../profile/procedureCall';
import { compareDefinitions, definitionStatusText, deployStatement, readDeployedDefinition, type DeployedDefinition } from '../../profile/deployedDefinition';
import { Commands } from '../../shared/commands';
import { isProcedureTarget, procedureTargetOf, type ProcedureParameterArg, type ProcedureTarget } from '../../shared/procedureTarget';
import { analyze } from '../../tsql';
import type { ParameterAnswers, ProcedureParameterStore } from './procedureParameterStore';
import { procedureConsentParts, type CalledDefinition, type ConsentPart } from '../consent';
import { l10n } from '../l10n';
import { oneLineField } from '../../shared/visibleText';

// Button labels, translated when shown (activation installs vscode.l10n.t after this module loads).
export const DEFINITION_CHOICES = {
  runDeployed: () => l10n.t('Run the Deployed Version'),
  deploy: () => l10n.t('Deploy This Version First'),
  confirmDeploy: () => l10n.t('Deploy and Run'),
};

/** Why a deployed definition that can't be read can't be shown (the consent view says it). */
function unreadableReason(deployed: DeployedDefinition): string {
  if (deployed.status === 'hidden') return deployed.reason === 'encrypted' ? l10n.t('it is deployed WITH ENCRYPTION') : l10n.t('the login has no VIEW DEFINITION on it');
  if (deployed.status === 'not-comparable') return deployed.reason === 'numbered' ? l10n.t('a numbered procedure (sys.numbered_procedures is not read)') : l10n.t('a temporary procedure (it lives in tempdb)');
  return l10n.t('it could not be read');
}

/**
 * What the definition modal offers: only Deploy when nothing is deployed; only running the deployed one when the
 * definition can't be compared (numbered/temporary — a deploy could not be read back and verified either).
 */
export function definitionChoices(status: DeployedDefinition['status']): string[] {
  if (status === 'missing') return [DEFINITION_CHOICES.deploy()];
  if (status === 'not-comparable') return [DEFINITION_CHOICES.runDeployed()];
  return [DEFINITION_CHOICES.runDeployed(), DEFINITION_CHOICES.deploy()];
}

function lines(target: ProcedureTarget): string {
  const r = target.range;
  return r.start.line === r.end.line ? `line ${r.start.line + 1}` : `lines ${r.start.line + 1}–${r.end.line + 1}`;
}

/** "@rows int = 10 OUTPUT" for prompts. */
function describeParameter(p: ProcedureParameterArg): string {
  return `${p.name} ${p.type.text}${p.default ? ` = ${p.default.text}` : ''}${p.output ? ' OUTPUT' : ''}`;
}

function summary(answers: ParameterAnswers): string {
  const text = Object.entries(answers).map(([k, v]) => `${k} = ${v}`).join(', ');
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

export class ProcedureRunner {
  constructor(
    private readonly output: vscode.LogOutputChannel,
    private readonly connections: ConnectionManager,
    private readonly profiling: ProfilingController,
    private readonly store: ProcedureParameterStore,
  ) {}

  register(): vscode.Disposable[] {
    return [
      vscode.commands.registerCommand(Commands.profileProcedure, (arg?: unknown) => this.run(arg, 'profile')),
      vscode.commands.registerCommand(Commands.compareProcedure, (arg?: unknown) => this.run(arg, 'compare')),
    ];
  }

  async run(arg: unknown, mode: ProfileMode): Promise<void> {
    if (!isProcedureTarget(arg)) {
      await vscode.window.showWarningMessage(l10n.t('Durability Lens: use the "Profile EXEC…" lens above a CREATE PROCEDURE to profile a procedure. Nothing was run.'));
      return;
    }
    // Restricted Mode: no prompt, no connection, no deploy, no call.
    if (!(await this.profiling.consent.trusted(l10n.t('Profile EXEC {0}', arg.name)))) return;
    const uri = vscode.Uri.parse(arg.uri);
    const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
    const found = this.current(document, arg);
    if (!found) {
      await vscode.window.showWarningMessage(l10n.t(`Durability Lens: {0} is no longer defined in this document (it changed since the lens was drawn). Nothing was run.`, arg.name));
      return;
    }
    const { target, hasDelayedCommits } = found;
    if (target.notPromptable) {
      this.output.warn(`${target.name}: ${target.notPromptable}`);
      await vscode.window.showWarningMessage(l10n.t(`Durability Lens: can't call {0} from the lens — {1}. Nothing was run.`, target.name, target.notPromptable));
      return;
    }
    const answers = await this.askParameters(target, mode);
    if (!answers) {
      this.output.info(`Profile EXEC ${target.name}: parameter entry cancelled; nothing was run.`);
      return;
    }
    const what = `${mode === 'compare' ? 'Compare durability modes for' : 'Profile'} EXEC ${target.name}`;
    if (!(await this.profiling.ensureConnected(what))) return;
    const batch = procedureCallBatch(target, answers);
    const consent = await this.checkDeployed(document, target, batch.text, mode);
    if (!consent) return;
    const workload: WorkloadTarget = {
      kind: 'batch',
      batches: [{ index: target.batchIndex, text: batch.text, repeat: 1, firstLine: batch.firstLine, empty: false, call: batch.call! }],
      hasDelayedCommits,
      description: `${batch.text} (the procedure at ${lines(target)}, called as an RPC)`,
      setupDescription: null,
      consent,
    };
    this.output.info(`${what}: ${batch.text} — sent as an RPC request with typed parameters.`);
    await this.profiling.runWorkload(document, workload, mode);
  }

  /** The procedure as the document holds it now (the lens may be older): same name, nearest to where the lens was. */
  private current(document: vscode.TextDocument, arg: ProcedureTarget): { target: ProcedureTarget; hasDelayedCommits: boolean } | null {
    const analysis = analyze(document.getText());
    const candidates = (analysis.routines ?? []).filter((r) => r.kind === 'PROCEDURE' && r.name.toLowerCase() === arg.name.toLowerCase() && r.number === arg.number);
    if (candidates.length === 0) return null;
    const line = arg.range.start.line;
    const routine = candidates.reduce((a, b) => (Math.abs(b.range.start.line - line) < Math.abs(a.range.start.line - line) ? b : a));
    // A COMMIT ... WITH (DELAYED_DURABILITY = ON) in the body makes ALLOWED differ from DISABLED in a comparison.
    const hasDelayedCommits = analysis.commits.some((c) => c.batchIndex === routine.batchIndex && c.delayedDurability === 'ON');
    return { target: procedureTargetOf(routine, arg.uri, document.version), hasDelayedCommits };
  }

  /** Values per parameter (by name), or null when the user backed out. A parameterless procedure asks nothing. */
  private async askParameters(target: ProcedureTarget, mode: ProfileMode): Promise<Map<string, ParameterInput> | null> {
    if (target.parameters.length === 0) return new Map();
    type Item = vscode.QuickPickItem & { start: ParameterAnswers | null; save: boolean; use: boolean; remove?: boolean };
    let choice: Item | undefined;
    for (;;) {
      const last = this.store.last(target.name, target.number);
      const sets = this.store.sets(target.name, target.number);
      const items: Item[] = [];
      if (last) items.push({ label: l10n.t('$(history) Last values'), description: summary(last), start: last, save: false, use: true });
      for (const [name, answers] of Object.entries(sets)) items.push({ label: `$(bookmark) ${name}`, description: summary(answers), detail: l10n.t('saved parameter set'), start: answers, save: false, use: true });
      const enter: Item = { label: l10n.t('$(edit) Enter values…'), description: last ? l10n.t('starting from the last values') : '', start: last, save: false, use: false };
      items.push(enter);
      items.push({ label: l10n.t('$(save) Enter values and save them as a set…'), start: last, save: true, use: false });
      if (Object.keys(sets).length > 0) items.push({ label: l10n.t('$(trash) Delete a saved set…'), start: null, save: false, use: false, remove: true });
      if (!last && Object.keys(sets).length === 0) {
        choice = enter;
        break;
      }
      choice = await vscode.window.showQuickPick(items, {
        title: mode === 'compare' ? l10n.t('Compare durability for EXEC {0}', target.name) : l10n.t('Profile EXEC {0}', target.name),
        placeHolder: l10n.t('Parameter values: the last ones, a saved set, or new ones'),
        ignoreFocusOut: true,
      });
      if (!choice) return null;
      if (!choice.remove) break;
      const doomed = await vscode.window.showQuickPick(Object.keys(sets), { title: l10n.t(`Delete a saved parameter set of {0}`, target.name), ignoreFocusOut: true });
      if (doomed !== undefined) await this.store.deleteSet(target.name, target.number, doomed);
    }
    if (choice.use && choice.start) {
      const problems = target.parameters.map((p) => [p, validateInput(p, choice!.start![p.name] ?? (p.default ? 'DEFAULT' : ''))] as const).filter(([, e]) => e !== null);
      if (problems.length === 0) {
        const answers = new Map(target.parameters.map((p) => [p.name, readInput(choice!.start![p.name] ?? 'DEFAULT')]));
        await this.store.remember(target.name, target.number, Object.fromEntries([...answers].map(([k, v]) => [k, inputText(v)])));
        return answers;
      }
      // The procedure changed since (a type or a parameter): ask again, starting from these values.
      void vscode.window.showWarningMessage(l10n.t(`Durability Lens: the saved values no longer fit {0} ({1}); enter them again.`, target.name, problems.map(([p, e]) => `${p.name}: ${e}`).join('; ')));
    }
    const answers = await this.enterValues(target, choice.start);
    if (!answers) return null;
    const typed = Object.fromEntries([...answers].map(([k, v]) => [k, inputText(v)]));
    await this.store.remember(target.name, target.number, typed);
    if (choice.save) {
      const name = await vscode.window.showInputBox({
        title: l10n.t(`Save the parameter values of {0}`, target.name),
        prompt: l10n.t('Name of the set (kept in this workspace; values are sent as typed parameters, never as SQL text)'),
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() === '' ? l10n.t('Give the set a name') : v.length > 100 ? l10n.t('At most 100 characters') : null),
      });
      if (name !== undefined) await this.store.saveSet(target.name, target.number, name.trim(), typed);
    }
    return answers;
  }

  private async enterValues(target: ProcedureTarget, start: ParameterAnswers | null): Promise<Map<string, ParameterInput> | null> {
    const answers = new Map<string, ParameterInput>();
    const n = target.parameters.length;
    for (const [i, p] of target.parameters.entries()) {
      const value = await vscode.window.showInputBox({
        title: l10n.t(`EXEC {0} — parameter {1} of {2}`, target.name, i + 1, n),
        prompt: p.default
          ? l10n.t("{0}. Type a value, NULL or DEFAULT (quote a value in '…' to send the word itself).", describeParameter(p))
          : l10n.t("{0}. Type a value, or NULL (quote a value in '…' to send the word itself).", describeParameter(p)),
        value: start?.[p.name] ?? (p.default ? 'DEFAULT' : ''),
        placeHolder: p.type.text,
        ignoreFocusOut: true,
        validateInput: (text) => validateInput(p, text),
      });
      if (value === undefined) return null;
      answers.set(p.name, readInput(value));
    }
    return answers;
  }

  /**
   * The consent view's parts for the call when the run may go ahead (the definitions match, or the user chose the
   * deployed one, or confirmed and deployed this one); null when nothing may run.
   */
  private async checkDeployed(document: vscode.TextDocument, target: ProcedureTarget, callText: string, mode: ProfileMode): Promise<ConsentPart[] | null> {
    const source = this.connections.connectionSource();
    const active = this.connections.current;
    if (!source || !active) return null;
    const quoted = procedureCallName(target);
    const editorText = document.getText(new vscode.Range(target.range.start.line, target.range.start.character, target.range.end.line, target.range.end.character));
    const editor: CalledDefinition = { source: 'editor', text: editorText, firstLine: target.range.start.line };
    let session;
    try {
      session = await source.open('monitor');
    } catch (err) {
      await vscode.window.showErrorMessage(l10n.t(`Durability Lens: could not connect to compare {0} with the deployed definition: {1}. Nothing was run.`, target.name, (err as Error).message));
      return null;
    }
    try {
      const deployed = await readDeployedDefinition(session, quoted);
      const comparison = deployed.status === 'found' ? compareDefinitions(deployed.definition, editorText) : null;
      const problem = definitionStatusText(target.name, quoted, deployed, comparison);
      if (!problem) {
        this.output.info(`${target.name}: the deployed definition matches the editor's text.`);
        return procedureConsentParts({ name: target.name, callText, definition: editor, deploy: null });
      }
      this.output.warn(problem);
      const choices: string[] = definitionChoices(deployed.status);
      // The routine's name is the file's, the database's the server's: each stays on its line in the modal.
      const choice = await vscode.window.showWarningMessage(l10n.t(`Durability Lens: {0}`, oneLineField(problem)), {
        modal: true,
        detail: l10n.t('Database {0} on {1}. Nothing has been run or changed yet.', oneLineField(active.database), oneLineField(active.serverLabel)),
      }, ...choices);
      if (choice === DEFINITION_CHOICES.runDeployed()) {
        this.output.info(`${target.name}: running the deployed version, as chosen.`);
        const definition: CalledDefinition = deployed.status === 'found' ? { source: 'deployed', text: deployed.definition } : { source: 'unknown', reason: unreadableReason(deployed) };
        return procedureConsentParts({ name: target.name, callText, definition, deploy: null });
      }
      if (choice !== DEFINITION_CHOICES.deploy()) {
        this.output.info(`${target.name}: nothing was run or deployed.`);
        return null;
      }
      const statement = deployStatement(editorText);
      const parts = procedureConsentParts({ name: target.name, callText, definition: editor, deploy: { statement, firstLine: target.range.start.line } });
      const confirmed = await this.profiling.consent.confirm({
        action: mode === 'compare' ? l10n.t('Deploy {0} and compare durability modes for {1}', target.name, callText) : l10n.t('Deploy {0} and profile {1}', target.name, callText),
        file: { uri: document.uri.toString(), name: documentName(document), text: document.getText() },
        connection: { profileName: active.profile.name, server: active.serverLabel, database: active.database },
        parts,
        confirmLabel: DEFINITION_CHOICES.confirmDeploy(),
        notes: [],
      });
      if (!confirmed) {
        this.output.info(`${target.name}: deploy not confirmed; nothing was run or changed.`);
        return null;
      }
      this.output.info(`Deploying ${target.name} to ${active.database}:\n${statement}`);
      await session.execute(statement);
      const after = await readDeployedDefinition(session, quoted);
      if (after.status !== 'found' || !compareDefinitions(after.definition, editorText).same) {
        const why = definitionStatusText(target.name, quoted, after, after.status === 'found' ? compareDefinitions(after.definition, editorText) : null) ?? l10n.t('it could not be read back');
        await vscode.window.showErrorMessage(l10n.t(`Durability Lens: {0} was deployed, but reading it back does not match the editor: {1} Nothing was run.`, target.name, why));
        return null;
      }
      this.output.info(`${target.name} deployed; the definition read back matches the editor.`);
      return parts.filter((p) => p.key !== 'deploy');
    } catch (err) {
      const message = (err as Error)?.message ?? String(err);
      this.output.error(`${target.name}: checking or deploying the definition failed: ${message}`);
      await vscode.window.showErrorMessage(l10n.t(`Durability Lens: checking or deploying {0} failed: {1}. Nothing was run.`, target.name, message));
      return null;
    } finally {
      await session.close().catch(() => undefined);
    }
  }
}
