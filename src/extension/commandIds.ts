// Command ids of the extension's UI (the profiling command ids live in src/shared/commands.ts, shared with the
// language server's lenses). Plain data so the package.json test can check them without vscode. One table: each
// command's group, id and the title the Command Palette shows (category "Durability Lens"; the e2e tests rely on
// the titles); each group's ids and titles are read from it.

const COMMANDS = {
  // The connection UI.
  addConnection: ['connection', 'durabilityLens.addConnection', 'Add Connection'],
  importMssqlConnections: ['connection', 'durabilityLens.importMssqlConnections', 'Import mssql Connections'],
  connect: ['connection', 'durabilityLens.connect', 'Connect'],
  disconnect: ['connection', 'durabilityLens.disconnect', 'Disconnect'],
  switchDatabase: ['connection', 'durabilityLens.switchDatabase', 'Switch Database'],
  removeConnection: ['connection', 'durabilityLens.removeConnection', 'Remove Connection'],
  restorePendingSettings: ['connection', 'durabilityLens.restorePendingSettings', 'Restore Durability Settings Left by an Unfinished Comparison'],
  // Run history, export and ad-hoc log-flush tracing (issue 4 item 5, issue 5 items 2 and 5).
  showRunHistory: ['history', 'durabilityLens.showRunHistory', 'Show Run History'],
  exportRun: ['history', 'durabilityLens.exportRun', 'Export Run'],
  startLogFlushTrace: ['history', 'durabilityLens.startLogFlushTrace', 'Start Log-Flush Trace'],
  stopLogFlushTrace: ['history', 'durabilityLens.stopLogFlushTrace', 'Stop Trace and Show'],
  dropLeftoverSessions: ['history', 'durabilityLens.dropLeftoverSessions', 'Drop Leftover Event Sessions'],
  openComparisonFile: ['history', 'durabilityLens.openComparisonFile', 'Open Comparison File…'],
  // The read-only readiness check (issue 11): the same report as `durability-lens doctor`.
  checkServerReadiness: ['readiness', 'durabilityLens.checkServerReadiness', 'Check Server Readiness'],
  // Recording what another tool (a test suite) does to the connected database (issue 17).
  startRecording: ['recording', 'durabilityLens.startRecording', 'Start Recording'],
  stopRecording: ['recording', 'durabilityLens.stopRecording', 'Stop Recording and Show'],
  // The consent view's memory (issue 25): what the user confirmed to run, per file and text, in this workspace.
  forgetRunConfirmations: ['consent', 'durabilityLens.forgetRunConfirmations', 'Forget Run Confirmations'],
  // The Getting Started walkthrough's "open a sample" (the samples ship in the extension, not the workspace; issue 27).
  openSample: ['walkthrough', 'durabilityLens.openSample', 'Open a Sample Script…'],
  // The mssql extension's connection through its Connection Sharing API (issue 31; src/extension/mssql).
  useEditorConnection: ['mssql', 'durabilityLens.useMssqlConnection', 'Use the mssql Connection of This Editor'],
  pickConnection: ['mssql', 'durabilityLens.pickMssqlConnection', 'Use an mssql Connection…'],
} as const;

type Table = typeof COMMANDS;
type Group = Table[keyof Table][0];
type NameIn<G extends Group> = { [K in keyof Table]: Table[K][0] extends G ? K : never }[keyof Table];

/** One group's ids (name → command id) and titles (command id → title). */
function commandGroup<G extends Group>(group: G): {
  ids: { readonly [K in NameIn<G>]: Table[K][1] };
  titles: Record<Table[NameIn<G>][1], string>;
} {
  const ids: Record<string, string> = {};
  const titles: Record<string, string> = {};
  for (const [name, [of, id, title]] of Object.entries(COMMANDS)) {
    if (of !== group) continue;
    ids[name] = id;
    titles[id] = title;
  }
  return { ids, titles } as never;
}

export const { ids: ConnectionCommands, titles: CONNECTION_COMMAND_TITLES } = commandGroup('connection');
/** Internal: the status bar item's click (a quick pick of switch database / switch connection / disconnect). */
export const STATUS_BAR_COMMAND = 'durabilityLens.connectionMenu';
export const { ids: HistoryCommands, titles: HISTORY_COMMAND_TITLES } = commandGroup('history');
export const { ids: ReadinessCommands, titles: READINESS_COMMAND_TITLES } = commandGroup('readiness');
export const { ids: RecordingCommands, titles: RECORDING_COMMAND_TITLES } = commandGroup('recording');
export const { ids: ConsentCommands, titles: CONSENT_COMMAND_TITLES } = commandGroup('consent');
export const { ids: WalkthroughCommands, titles: WALKTHROUGH_COMMAND_TITLES } = commandGroup('walkthrough');
export const { ids: MssqlConnectionCommands, titles: MSSQL_COMMAND_TITLES } = commandGroup('mssql');
