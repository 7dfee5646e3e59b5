// A subcommand declared once: its name, summary, usage prose and option sections. Its `--help` is generated from the
// sections, its argv parsed by the one parser, and a usage error printed the same way for every command (exit 2).
import { EXIT_USAGE, shortUsage, type CliCommand, type CliIO } from '../io';
import { terminalField } from '../terminalText';
import { parseCommandLine, type CommandLineSpec, type ParsedCommandLine } from './parse';
import { Invalid, type Section } from './spec';
import { commandUsage, type UsageText } from './usage';

/** Prints a usage error (the problem, the synopsis, where the options are) and returns the usage exit code. */
export type UsageFailure = (message: string) => number;

export interface CommandDeclaration<S extends readonly Section[], IO extends CliIO> extends CommandLineSpec<S>, UsageText {
  readonly name: string;
  /** One line for the overall `--help`. */
  readonly summary: string;
  /** Runs the parsed command line; `usageError` is for problems found after parsing (a file missing, a conflict). */
  run(line: ParsedCommandLine<S>, io: IO, usageError: UsageFailure): Promise<number>;
}

/** A declared command as the dispatcher sees it, with its declaration kept for tests and docs. */
export interface DeclaredCommand<S extends readonly Section[], IO extends CliIO> extends CliCommand {
  readonly declaration: CommandDeclaration<S, IO>;
  run(args: readonly string[], io: IO): Promise<number>;
}

export function declareCommand<const S extends readonly Section[], IO extends CliIO>(d: CommandDeclaration<S, IO>): DeclaredCommand<S, IO> {
  const usage = commandUsage(d, d);
  return {
    name: d.name,
    summary: d.summary,
    usage,
    declaration: d,
    run: async (args, io) => {
      // The problem is one line, and may quote an argument or a file name: its line breaks are shown, not obeyed.
      const usageError = (message: string) => {
        io.stderr(shortUsage(d.name, terminalField(message), usage));
        return EXIT_USAGE;
      };
      const line = parseCommandLine(d, args);
      return line instanceof Invalid ? usageError(line.message) : d.run(line, io, usageError);
    },
  };
}
