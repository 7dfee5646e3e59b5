// The production lens (issue 30, items 2 and 3): over each CREATE/ALTER of a routine that Heaviest Log Writers read,
// "Production (Query Store, last 24 h): 1.2 M executions/day, 4.10 GiB log/day, 38 % of its waits on the log", beside
// the language server's Profile EXEC… / Compare durability lenses; and once that routine was profiled here, "Lab vs
// production (per writing execution): log … vs … · log wait … vs …" — whether the lab reproduces production.
import * as vscode from 'vscode';
import type { RunResult } from '../../profile/types';
import { routineProductions, type RoutineProduction } from '../../report/topLog';
import { labStatementsOf, labVersusProduction, productionLensText, type LabVersusProduction } from '../../report/topLogText';
import { formatBytes, formatDuration } from '../../report/units';
import { analyze } from '../../tsql/index';
import type { LoadedTopLog } from './heaviestLogWriters';
import { TOP_LOG_COMMAND_TITLES, TopLogCommands } from './ids';
import { sameRoutine } from './locate';
import { oneLineField } from '../../shared/visibleText';
import { l10n } from '../l10n';

export class ProductionLenses implements vscode.CodeLensProvider, vscode.Disposable {
  private productions: RoutineProduction[] = [];
  /** The last lab comparison per routine (objectId), from the last profile that ran its statements. */
  private readonly lab = new Map<number, LabVersusProduction>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly output: vscode.LogOutputChannel) {}

  dispose(): void {
    this.changed.dispose();
  }

  /** New production figures (a read finished): the lenses follow; earlier lab comparisons no longer apply. */
  update(loaded: LoadedTopLog | null): void {
    this.productions = loaded ? routineProductions(loaded.doc) : [];
    this.lab.clear();
    this.changed.fire();
  }

  production(objectId: number): RoutineProduction | undefined {
    return this.productions.find((p) => p.objectId === objectId);
  }

  /**
   * A profile finished: for each routine with production figures whose statements the run attributed, the lab next
   * to production (shown at once, and as a lens over the routine until the next read).
   */
  noteRuns(runs: readonly RunResult[]): void {
    const run = [...runs].reverse().find((r) => (r.statements ?? []).length > 0);
    if (!run) return;
    let shown = false;
    for (const p of this.productions) {
      if (labStatementsOf(p, run).length === 0) continue;
      const comparison = labVersusProduction(p, run);
      this.lab.set(p.objectId, comparison);
      this.output.info(`Durability Lens: ${oneLineField(p.label)} — ${comparison.summary}${comparison.notes.length > 0 ? ` (${comparison.notes.join(' ')})` : ''}`);
      if (!shown) {
        shown = true;
        const details = l10n.t('Details');
        void vscode.window.showInformationMessage(l10n.t(`Durability Lens: {0} — {1}`, oneLineField(p.label), comparison.summary), details).then((choice) => {
          if (choice === details) void vscode.commands.executeCommand(TopLogCommands.labVersusProduction, p.objectId);
        });
      }
    }
    if (shown) this.changed.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (this.productions.length === 0) return [];
    const text = document.getText();
    const lower = text.toLowerCase();
    const candidates = this.productions.filter((p) => lower.includes(p.name.toLowerCase()));
    if (candidates.length === 0) return [];
    const lenses: vscode.CodeLens[] = [];
    for (const r of analyze(text).routines ?? []) {
      const parts = r.signature?.nameParts ?? r.name.split('.');
      for (const p of candidates) {
        if (!sameRoutine(parts, p.schema, p.name)) continue;
        const range = new vscode.Range(r.range.start.line, 0, r.range.start.line, 0);
        lenses.push(new vscode.CodeLens(range, { title: productionLensText(p), command: TopLogCommands.labVersusProduction, arguments: [p.objectId], tooltip: l10n.t('Production figures from Query Store (Heaviest Log Writers); click for the details and the lab comparison') }));
        const lab = this.lab.get(p.objectId);
        if (lab) lenses.push(new vscode.CodeLens(range, { title: lab.summary, command: TopLogCommands.labVersusProduction, arguments: [p.objectId] }));
      }
    }
    return lenses;
  }

  /** The details, in the output channel: production figures, then the lab comparison when a profile ran. */
  showDetails(objectId: unknown): void {
    const p = typeof objectId === 'number' ? this.production(objectId) : undefined;
    if (!p) {
      void vscode.window.showInformationMessage(l10n.t(`Durability Lens: no production figures are loaded for this routine. Run "{0}" first.`, TOP_LOG_COMMAND_TITLES[TopLogCommands.show]));
      return;
    }
    const lines = [`${oneLineField(p.label)} — ${productionLensText(p)}`];
    lines.push(`  ${p.statements} statement(s) in Query Store's top rows; ${p.writingExecutions} execution(s) of statements that wrote log: ${p.logBytesPerWritingExecution === null ? 'log not measured' : `${formatBytes(p.logBytesPerWritingExecution)} log`} and ${p.logWaitMsPerWritingExecution === null ? 'log wait not measured' : `${formatDuration(p.logWaitMsPerWritingExecution)} log-IO wait`} per writing execution.`);
    if (p.logBytesNotMeasured) lines.push(`  ${p.logBytesNotMeasured}`);
    if (p.waitsNotMeasured) lines.push(`  ${p.waitsNotMeasured}`);
    const lab = this.lab.get(p.objectId);
    if (lab) {
      lines.push(`  ${lab.summary}`);
      for (const r of lab.rows) lines.push(`    ${r.metric}: lab ${side(r.lab, r.unit)}, production ${side(r.production, r.unit)}${r.note ? ` (${r.note})` : ''}`);
      for (const n of lab.notes) lines.push(`    ${n}`);
    } else lines.push(`  No profile of ${oneLineField(p.label)} ran since these figures were read: use Profile EXEC… on its CREATE line to compare the lab with production.`);
    this.output.info(lines.join('\n'));
    this.output.show(true);
  }
}

function side(v: number | null, unit: 'bytes' | 'ms'): string {
  return v === null ? 'not measured' : unit === 'bytes' ? formatBytes(v) : formatDuration(v);
}
