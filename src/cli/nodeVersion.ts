// The CLI's connected commands need Node 22 (tedious 20 calls Promise.withResolvers and other Node 22 APIs). Started
// by an older `node` (`node dist/cli.js profile …` on a machine whose Node is 20), they would fail deep inside the
// driver with "Promise.withResolvers is not a function"; this says what to run instead, before anything connects.

/**
 * Commands that work on any Node: they never connect (`trace read` reads saved Extended Events files). `mcp` without
 * --allow-run is one too (below). The others — profile, compare, record, doctor, top-log, mcp --allow-run — open a
 * connection with tedious, which calls Node 22 APIs (Promise.withResolvers).
 */
const OFFLINE_COMMANDS = new Set(['analyze', 'trace', 'help', '--help', '-h', '--version', '-v', 'version']);

export const MIN_NODE_MAJOR = 22;

/** The message to print and exit with, or null when this Node can run the command. */
export function nodeVersionProblem(argv: readonly string[], nodeVersion: string): string | null {
  const major = Number(nodeVersion.replace(/^v/, '').split('.')[0]);
  if (!Number.isFinite(major) || major >= MIN_NODE_MAJOR) return null;
  const command = argv[0];
  // Help is the command's own only before '--' (as src/cli/dispatch.ts reads it): `record -- npm test --help` runs.
  const end = argv.indexOf('--');
  const own = end < 0 ? argv : argv.slice(0, end);
  if (command === undefined || OFFLINE_COMMANDS.has(command) || own.includes('--help') || own.includes('-h')) return null;
  // `mcp` without --allow-run only analyzes files and reads results (no connection): any Node. With it, the profile
  // and compare tools connect, so the driver's Node 22 is needed before the server starts, not at the first call.
  if (command === 'mcp' && !own.includes('--allow-run')) return null;
  const what = command === 'mcp' ? 'mcp --allow-run' : command;
  // The arguments are not repeated: a --connection string can hold a password, and joined unquoted a ';' or a space
  // in them would split the suggested line in the user's shell.
  return (
    `durability-lens ${what}: needs Node ${MIN_NODE_MAJOR} or later (it connects to SQL Server, and the driver uses Node ${MIN_NODE_MAJOR} APIs); this is Node ${nodeVersion.replace(/^v/, '')}.\n` +
    `Install Node ${MIN_NODE_MAJOR} (https://nodejs.org) and run it again. In a clone of the project, the launcher starts the\n` +
    `Node ${MIN_NODE_MAJOR} that \`npm ci\` installed there: bin/durability-lens ${command} with the same arguments.\n` +
    (command === 'mcp' ? `Without --allow-run, \`durability-lens mcp\` (analyze and results only) runs on this Node.\n` : '') +
    `Nothing was run.\n`
  );
}
