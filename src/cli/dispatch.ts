// Picks the subcommand from argv and runs it; prints the overall help. No vscode imports (runs headless in CI).

import { commands } from './commands/index';
import { EXIT_OK, EXIT_USAGE, type CliCommand, type CliIO } from './io';
import { terminalSafeSinks } from './terminalText';

function overallHelp(list: readonly CliCommand[]): string {
  const width = Math.max(...list.map((c) => c.name.length));
  return [
    'Usage: durability-lens <command> [options]',
    '',
    'Commands:',
    ...list.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `durability-lens <command> --help` for a command\'s options.',
    '',
  ].join('\n');
}

export async function runCli(argv: readonly string[], rawIO: CliIO, list: readonly CliCommand[] = commands): Promise<number> {
  // Every printer writes through these: server and file strings reach the terminal with control sequences escaped.
  const io = terminalSafeSinks(rawIO);
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(overallHelp(list));
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout(overallHelp(list));
    return EXIT_OK;
  }
  const command = list.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr(`durability-lens: unknown command '${name}'.\n\n${overallHelp(list)}`);
    return EXIT_USAGE;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage);
    return EXIT_OK;
  }
  return command.run(rest, io);
}
