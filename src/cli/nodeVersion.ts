// The CLI's connected commands need Node 22 (tedious 20 calls Promise.withResolvers and other Node 22 APIs). Started
// by an older `node` (`node dist/cli.js profile …` on a machine whose Node is 20), they would fail deep inside the
// driver with "Promise.withResolvers is not a function"; this says what to run instead, before anything connects.

/** Commands that work on any Node: they never load the driver. */
const OFFLINE_COMMANDS = new Set(['analyze', 'help', '--help', '-h', '--version', '-v', 'version']);

export const MIN_NODE_MAJOR = 22;

/** The message to print and exit with, or null when this Node can run the command. */
export function nodeVersionProblem(argv: readonly string[], nodeVersion: string): string | null {
  const major = Number(nodeVersion.replace(/^v/, '').split('.')[0]);
  if (!Number.isFinite(major) || major >= MIN_NODE_MAJOR) return null;
  const command = argv[0];
  if (command === undefined || OFFLINE_COMMANDS.has(command) || argv.includes('--help') || argv.includes('-h')) return null;
  return (
    `durability-lens ${command}: needs Node ${MIN_NODE_MAJOR} or later (the SQL Server driver uses Node ${MIN_NODE_MAJOR} APIs); this is Node ${nodeVersion.replace(/^v/, '')}.\n` +
    `Install Node ${MIN_NODE_MAJOR} (https://nodejs.org) and run it again. In a clone of the project, the launcher starts the\n` +
    `Node ${MIN_NODE_MAJOR} that \`npm ci\` installed there:\n` +
    `  bin/durability-lens ${argv.join(' ')}\n` +
    `Nothing was run.\n`
  );
}
