// The program a measuring command runs instead of a T-SQL file (`compare --command "npm test"` or `compare -- npm
// test`): parsing, usage text, and the per-run lines that report each run's exit code and mark a failing run.
import { commandFailureText, type CommandSpec, type RunResult } from '../../profile';
import { formatDuration } from '../../report';

export const COMMAND_USAGE = `Program (instead of a T-SQL file):
  --command "COMMAND LINE"      run this program (through the shell, as typed) once per mode and repetition;
                                it connects with its own configuration (never our password); its output
                                goes to stderr
  -- PROGRAM [ARGS...]          the same, run as given (no shell); must come last
  Each run's exit code is printed and kept in the JSON (command, exitCode, durationMs, recording); a failing
  run is marked FAILED and the command exits 4 after restoring the database. Server waits are server-wide.`;

export interface ProgramArgs {
  command: CommandSpec | null;
}

/** `--command LINE` or `-- argv…` at args[i]: items used (0 = neither; `--` takes the rest), or a usage error. */
export function takeProgramArg(args: readonly string[], i: number, into: ProgramArgs): number | string {
  const arg = args[i]!;
  if (arg !== '--' && arg !== '--command') return 0;
  if (into.command) return "give the program either with --command or after '--', not both";
  if (arg === '--command') {
    const line = args[i + 1];
    if (line === undefined || line.trim() === '') return '--command needs the command line to run';
    into.command = { kind: 'shell', line };
    return 2;
  }
  const argv = args.slice(i + 1);
  if (argv.length === 0) return "'--' must be followed by the program to run";
  into.command = { kind: 'argv', argv };
  return args.length - i;
}

/** One line per run: its mode, exit code and duration; a failing run is marked, with why. */
export function programRunLines(runs: readonly RunResult[]): string {
  const lines = runs
    .filter((r) => r.recording)
    .map((r, i) => {
      const rec = r.recording!;
      const label = `${r.mode ?? r.delayedDurability ?? '?'}${r.warmup ? ' (warm-up)' : ''}`;
      const outcome = rec.ended === 'exit' && rec.signal === null ? `exit code ${r.exitCode}` : rec.ended === 'exit' ? `ended by ${rec.signal}` : rec.ended;
      const failed = rec.failed ? ` — FAILED: ${commandFailureText(r.command ?? '?', rec, r.exitCode ?? null)}` : '';
      return `  run ${i + 1}, ${label}: ${outcome} in ${formatDuration(r.durationMs ?? r.elapsedMs)}${failed}`;
    });
  return lines.length > 0 ? `Program runs:\n${lines.join('\n')}\n` : '';
}
