// What a CLI command may touch: output streams and files, injected so commands are tested without a process.

import * as fs from 'node:fs';
import { terminalSafe } from './terminalText';
import { DEFAULT_LEGACY_ENCODING, decodeScript } from './textDecoding';

export interface ReadOptions {
  /** Code page for files that are neither UTF-16 nor valid UTF-8 (a WHATWG label); default windows-1252, with a warning. */
  encoding?: string | null;
}

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /**
   * Reads a text file: UTF-8/UTF-16 by byte order mark, UTF-16 by its zero bytes, else UTF-8, else the legacy code page
   * (see textDecoding.ts). Throws (with the OS error, or NotTextError for a binary file) when it cannot.
   */
  readFile(path: string, options?: ReadOptions): string;
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

/**
 * Writes to stdout without touching process.stdout while it can: that getter loads node:stream and the stream classes
 * (about a fifth of `analyze`'s cold start). Each text goes to fd 1 with fs.writeSync; the first write that cannot
 * finish at once (a non-blocking pipe that is full, a closed pipe) hands the rest, and every later text, to
 * process.stdout, which then reports EPIPE as an 'error' event as before. Windows consoles and pipes keep the stream.
 */
export function directStdout(fd = 1, stream: () => NodeJS.WritableStream = () => process.stdout, platform = process.platform): (text: string) => void {
  let viaStream = platform === 'win32';
  return (text) => {
    if (viaStream) {
      stream().write(text);
      return;
    }
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      while (written < bytes.length) {
        const n = fs.writeSync(fd, bytes, written);
        if (n <= 0) break;
        written += n;
      }
    } catch {
      // EAGAIN, EPIPE…: the stream writes what is left and reports a failure its own way.
    }
    if (written === bytes.length) return;
    viaStream = true;
    stream().write(bytes.subarray(written));
  };
}

/** Exit code of a process whose stdout was closed under it: 128 + SIGPIPE, as shells report it (docs/cli.md). */
const CLOSED_STDOUT_EXIT = 141;

let closedStdoutHandled = false;

/**
 * process.stdout, for directStdout's fallback. A closed pipe (`analyze … | head -1`) sets exit code 141 and ends the
 * output instead of an uncaught 'error' event (a Node stack trace, exit 1): unless something else listens — a run's
 * lifecycle (commands/lifecycle.ts) cancels and restores on it, and says it its own way.
 */
function stdoutStream(): NodeJS.WritableStream {
  const stream = process.stdout;
  if (!closedStdoutHandled) {
    closedStdoutHandled = true;
    let closed = false;
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (closed || stream.listenerCount('error') > 1) return;
      if (err.code !== 'EPIPE') throw err;
      closed = true;
      process.exitCode = CLOSED_STDOUT_EXIT;
    });
  }
  return stream;
}

export function processIO(): CliIO {
  return {
    stdout: directStdout(1, stdoutStream),
    stderr: (text) => process.stderr.write(text),
    // The note names a file path: through the same terminal filter as every other line the CLI prints.
    readFile: (path, options) => readTextFile(path, options, (text) => process.stderr.write(terminalSafe(text))),
  };
}

/** Reads and decodes a text file (see textDecoding.ts); `warn` gets the note when the legacy code page was guessed. */
export function readTextFile(path: string, options: ReadOptions | undefined, warn: (text: string) => void): string {
  const named = options?.encoding ?? null;
  const decoded = decodeScript(fs.readFileSync(path), named ?? DEFAULT_LEGACY_ENCODING);
  if (decoded.detectedBy === 'fallback' && named === null) {
    warn(`durability-lens: warning: ${path} is not valid UTF-8 and has no byte order mark; read it as ` +
      `${decoded.encoding}. Name its code page with --encoding if that is wrong.\n`);
  }
  return decoded.text;
}

/**
 * A usage error as the problem, the usage synopsis and where the options are, not the whole help (issue 20):
 * "durability-lens compare: --repeat must be … .\nUsage: durability-lens compare --connection …\nSee … --help".
 */
export function shortUsage(command: string, message: string, usage: string): string {
  const lines = usage.split('\n');
  // The synopsis is the first line and the indented lines that continue it (up to the first blank line).
  const end = lines.findIndex((l, i) => i > 0 && !/^\s+\S/.test(l));
  const synopsis = lines.slice(0, end < 0 ? lines.length : end);
  return `durability-lens ${command}: ${message.replace(/\.$/, '')}.\n${synopsis.join('\n')}\nSee \`durability-lens ${command} --help\` for every option.\n`;
}
