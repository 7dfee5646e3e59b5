// Picks the subcommand from argv and runs it; prints the overall help. No vscode imports (runs headless in CI).

import { commands, type LazyCliCommand } from './commands/index';
import { EXIT_OK, EXIT_USAGE, type CliCommand, type CliIO } from './io';
import { terminalSafeSinks } from './terminalText';
// webpack keeps only the field read here (JSON tree shaking); the published package's version, from one place.
import packageJson from '../../package.json';

/** `durability-lens --version` (also `-v`, `version`): no command is loaded, so it runs on any Node the launcher starts on. */
export const VERSION_FLAGS: readonly string[] = ['--version', '-v', 'version'];

function overallHelp(list: readonly CliCommand[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    'Usage: durability-lens <command> [options]',
    '',
    'Commands:',
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `durability-lens <command> --help` for a command\'s options; `durability-lens --version` prints the version.',
    '',
  ].join('\n');
}

type Entry = CliCommand | LazyCliCommand;

async function load(entry: Entry): Promise<CliCommand> {
  return 'load' in entry ? entry.load() : entry;
}

export async function runCli(argv: readonly string[], rawIO: CliIO, entries: readonly Entry[] = commands): Promise<number> {
  // Every printer writes through these: server and file strings reach the terminal with control sequences escaped.
  const io = terminalSafeSinks(rawIO);
  const [name, ...rest] = argv;
  if (name !== undefined && VERSION_FLAGS.includes(name)) {
    io.stdout(`durability-lens ${packageJson.version}\n`);
    return EXIT_OK;
  }
  const entry = entries.find((c) => c.name === name);
  // Only the command asked for is loaded; the overall help lists every summary, so it loads them all.
  if (entry !== undefined) return runCommand(await load(entry), rest, io);
  const list = await Promise.all(entries.map(load));
  if (name === undefined) {
    io.stderr(overallHelp(list));
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(overallHelp(list));
    return EXIT_OK;
  }
  io.stderr(`durability-lens: unknown command '${name}' (commands: ${list.map((c) => c.name).join(', ')}).\nUsage: durability-lens <command> [options]\nSee \`durability-lens --help\`.\n`);
  return EXIT_USAGE;
}

async function runCommand(command: CliCommand, rest: readonly string[], io: CliIO): Promise<number> {
  // Not after '--': `record -- npm test --help` passes --help to the program it runs.
  const end = rest.indexOf('--');
  const own = end < 0 ? rest : rest.slice(0, end);
  if (own.includes('--help') || own.includes('-h')) {
    io.stdout(command.usage);
    return EXIT_OK;
  }
  return command.run(rest, io);
}
