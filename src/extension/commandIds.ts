// Command ids of the connection UI (the profiling command ids live in src/shared/commands.ts, shared with the
// language server's lenses). Plain data so the package.json test can check them without vscode.
export const ConnectionCommands = {
  addConnection: 'durabilityLens.addConnection',
  importMssqlConnections: 'durabilityLens.importMssqlConnections',
  connect: 'durabilityLens.connect',
  disconnect: 'durabilityLens.disconnect',
  switchDatabase: 'durabilityLens.switchDatabase',
  removeConnection: 'durabilityLens.removeConnection',
  restorePendingSettings: 'durabilityLens.restorePendingSettings',
} as const;

/** Titles as the Command Palette shows them (category "Durability Lens"); the e2e tests rely on them. */
export const CONNECTION_COMMAND_TITLES: Record<(typeof ConnectionCommands)[keyof typeof ConnectionCommands], string> = {
  'durabilityLens.addConnection': 'Add Connection',
  'durabilityLens.importMssqlConnections': 'Import mssql Connections',
  'durabilityLens.connect': 'Connect',
  'durabilityLens.disconnect': 'Disconnect',
  'durabilityLens.switchDatabase': 'Switch Database',
  'durabilityLens.removeConnection': 'Remove Connection',
  'durabilityLens.restorePendingSettings': 'Restore Durability Settings Left by an Unfinished Comparison',
};

/** Internal: the status bar item's click (a quick pick of switch database / switch connection / disconnect). */
export const STATUS_BAR_COMMAND = 'durabilityLens.connectionMenu';

/** Run history, export and ad-hoc log-flush tracing (issue 4 item 5, issue 5 items 2 and 5). */
export const HistoryCommands = {
  showRunHistory: 'durabilityLens.showRunHistory',
  exportRun: 'durabilityLens.exportRun',
  startLogFlushTrace: 'durabilityLens.startLogFlushTrace',
  stopLogFlushTrace: 'durabilityLens.stopLogFlushTrace',
  dropLeftoverSessions: 'durabilityLens.dropLeftoverSessions',
  openComparisonFile: 'durabilityLens.openComparisonFile',
} as const;

export const HISTORY_COMMAND_TITLES: Record<(typeof HistoryCommands)[keyof typeof HistoryCommands], string> = {
  'durabilityLens.showRunHistory': 'Show Run History',
  'durabilityLens.exportRun': 'Export Run',
  'durabilityLens.startLogFlushTrace': 'Start Log-Flush Trace',
  'durabilityLens.stopLogFlushTrace': 'Stop Trace and Show',
  'durabilityLens.dropLeftoverSessions': 'Drop Leftover Event Sessions',
  'durabilityLens.openComparisonFile': 'Open Comparison File…',
};

/** The read-only readiness check (issue 11): the same report as `durability-lens doctor`. */
export const ReadinessCommands = {
  checkServerReadiness: 'durabilityLens.checkServerReadiness',
} as const;

export const READINESS_COMMAND_TITLES: Record<(typeof ReadinessCommands)[keyof typeof ReadinessCommands], string> = {
  'durabilityLens.checkServerReadiness': 'Check Server Readiness',
};

/** Recording what another tool (a test suite) does to the connected database (issue 17). */
export const RecordingCommands = {
  startRecording: 'durabilityLens.startRecording',
  stopRecording: 'durabilityLens.stopRecording',
} as const;

export const RECORDING_COMMAND_TITLES: Record<(typeof RecordingCommands)[keyof typeof RecordingCommands], string> = {
  'durabilityLens.startRecording': 'Start Recording',
  'durabilityLens.stopRecording': 'Stop Recording and Show',
};

/** The consent view's memory (issue 25): what the user confirmed to run, per file and text, in this workspace. */
export const ConsentCommands = {
  forgetRunConfirmations: 'durabilityLens.forgetRunConfirmations',
} as const;

export const CONSENT_COMMAND_TITLES: Record<(typeof ConsentCommands)[keyof typeof ConsentCommands], string> = {
  'durabilityLens.forgetRunConfirmations': 'Forget Run Confirmations',
};

/** The Getting Started walkthrough's "open a sample" (the samples ship in the extension, not the workspace; issue 27). */
export const WalkthroughCommands = {
  openSample: 'durabilityLens.openSample',
} as const;

export const WALKTHROUGH_COMMAND_TITLES: Record<(typeof WalkthroughCommands)[keyof typeof WalkthroughCommands], string> = {
  'durabilityLens.openSample': 'Open a Sample Script…',
};

/** The mssql extension's connection through its Connection Sharing API (issue 31; src/extension/mssql). */
export const MssqlConnectionCommands = {
  useEditorConnection: 'durabilityLens.useMssqlConnection',
  pickConnection: 'durabilityLens.pickMssqlConnection',
} as const;

export const MSSQL_COMMAND_TITLES: Record<(typeof MssqlConnectionCommands)[keyof typeof MssqlConnectionCommands], string> = {
  'durabilityLens.useMssqlConnection': 'Use the mssql Connection of This Editor',
  'durabilityLens.pickMssqlConnection': 'Use an mssql Connection…',
};
