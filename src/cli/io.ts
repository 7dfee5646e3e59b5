// What a CLI command may touch: output streams and files, injected so commands are tested without a process.

import * as fs from 'node:fs';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads a UTF-8 file; throws (with the OS error) when it cannot. */
  readFile(path: string): string;
}

/** One subcommand: `durability-lens <name> ...`. Add new ones to commands/index.ts. */
export interface CliCommand {
  name: string;
  /** One line for the command list in `--help`. */
  summary: string;
  /** Full usage text for `durability-lens <name> --help`. */
  usage: string;
  /** Returns the process exit code: 0 ok, 2 usage error or unreadable input; others are the command's to define. */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

export const EXIT_OK = 0;
export const EXIT_USAGE = 2;

export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readFile: (path) => fs.readFileSync(path, 'utf8'),
  };
}
