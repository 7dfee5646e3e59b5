// Heaviest Log Writers in the extension (issue 30): the Explorer view and its commands, the production lens over
// routines, the read-only server definitions, and the lab-versus-production comparison after a profile.
import * as vscode from 'vscode';
import type { ConnectionManager } from '../connections';
import type { RunHistory } from '../history';
import { HeaviestLogWriters, type TopLogElement } from './heaviestLogWriters';
import { SERVER_DEFINITION_SCHEME, TOP_LOG_VIEW, TopLogCommands } from './ids';
import { ProductionLenses } from './productionLens';
import { ServerDefinitions } from './serverDefinition';

export function registerHeaviestLogWriters(connections: ConnectionManager, output: vscode.LogOutputChannel, history: RunHistory): vscode.Disposable[] {
  const definitions = new ServerDefinitions();
  const writers = new HeaviestLogWriters(connections, output, definitions);
  const lenses = new ProductionLenses(output);
  const view = vscode.window.createTreeView<TopLogElement>(TOP_LOG_VIEW, { treeDataProvider: writers, showCollapseAll: false });
  writers.attach(view);
  return [
    definitions,
    writers,
    lenses,
    view,
    writers.onDidLoad((loaded) => lenses.update(loaded)),
    history.onDidAdd((_panel, runs) => lenses.noteRuns(runs)),
    vscode.workspace.registerTextDocumentContentProvider(SERVER_DEFINITION_SCHEME, definitions),
    vscode.languages.registerCodeLensProvider([{ language: 'sql' }], lenses),
    vscode.commands.registerCommand(TopLogCommands.show, () => writers.load()),
    vscode.commands.registerCommand(TopLogCommands.refresh, () => writers.load()),
    vscode.commands.registerCommand(TopLogCommands.rankBy, () => writers.pickRanking()),
    vscode.commands.registerCommand(TopLogCommands.open, (target?: TopLogElement) => writers.open(target)),
    vscode.commands.registerCommand(TopLogCommands.openFromServer, (target?: TopLogElement) => writers.openFromServer(target)),
    vscode.commands.registerCommand(TopLogCommands.reviewFix, (target?: TopLogElement) => writers.reviewFix(target)),
    vscode.commands.registerCommand(TopLogCommands.labVersusProduction, (objectId?: unknown) => lenses.showDetails(objectId)),
  ];
}
