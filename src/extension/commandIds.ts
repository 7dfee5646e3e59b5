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
