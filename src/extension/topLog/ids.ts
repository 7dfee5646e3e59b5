// Command and view ids of Heaviest Log Writers (issue 30). Plain data so the package.json test checks them without vscode.
export const TopLogCommands = {
  show: 'durabilityLens.showHeaviestLogWriters',
  refresh: 'durabilityLens.refreshHeaviestLogWriters',
  rankBy: 'durabilityLens.rankHeaviestLogWriters',
  open: 'durabilityLens.openLogWriter',
  openFromServer: 'durabilityLens.openLogWriterFromServer',
  reviewFix: 'durabilityLens.reviewQueryStoreFix',
  labVersusProduction: 'durabilityLens.showLabVersusProduction',
} as const;

export const TOP_LOG_COMMAND_TITLES: Record<(typeof TopLogCommands)[keyof typeof TopLogCommands], string> = {
  'durabilityLens.showHeaviestLogWriters': 'Show Heaviest Log Writers (Query Store)',
  'durabilityLens.refreshHeaviestLogWriters': 'Refresh Heaviest Log Writers',
  'durabilityLens.rankHeaviestLogWriters': 'Rank Heaviest Log Writers By…',
  'durabilityLens.openLogWriter': 'Open Log Writer',
  'durabilityLens.openLogWriterFromServer': 'Open Definition from Server',
  'durabilityLens.reviewQueryStoreFix': 'Review the Query Store Fix',
  'durabilityLens.showLabVersusProduction': 'Show Lab vs Production',
};

/** Commands reached only from the view, its rows and lenses (hidden from the Command Palette). */
export const TOP_LOG_INTERNAL_COMMANDS: readonly string[] = [TopLogCommands.open, TopLogCommands.openFromServer, TopLogCommands.reviewFix, TopLogCommands.labVersusProduction];

/** The tree view in the Explorer, shown once the command has run (context key TOP_LOG_LOADED_CONTEXT). */
export const TOP_LOG_VIEW = 'durabilityLens.heaviestLogWriters';
export const TOP_LOG_LOADED_CONTEXT = 'durabilityLens.topLog.loaded';
/** Read-only documents holding a definition as the server keeps it (OBJECT_DEFINITION) or an ad hoc statement. */
export const SERVER_DEFINITION_SCHEME = 'durability-lens-server';
