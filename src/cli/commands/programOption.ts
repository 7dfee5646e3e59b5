// The program a measuring command runs instead of a T-SQL file (`compare --command "npm test"` or `compare -- npm
// test`): parsing, usage text, and the per-run lines that report each run's exit code and mark a failing run.
import { commandFailureText, type CommandSpec, type RunResult } from '../../profile';
import { formatDuration } from '../../report';
import { section, text, usageLines } from '../options';

/** `--command "LINE"` (compare, record; `-- PROGRAM [ARGS...]` is the parser's, see parse.ts). */
export function programSection(help: string, after: string) {
  return section('Program (instead of a T-SQL file)', {
    command: text('--command', { placeholder: '"COMMAND LINE"', help, needs: 'the command line to run', once: true }),
  }, after);
}

/** compare's program: one run per mode and repetition. */
export const PROGRAM = programSection(
  'run this program (through the shell, as typed) once per mode and repetition;\nit connects with its own configuration (never our password); its output\ngoes to stderr',
  [
    ...usageLines('-- PROGRAM [ARGS...]', 'the same, run as given (no shell); must come last'),
    "  Each run's exit code is printed and kept in the JSON (command, exitCode, durationMs, recording); a failing",
    '  run is marked FAILED and the command exits 4 after restoring the database. Server waits are server-wide.',
  ].join('\n'),
);

/** The program `--command LINE` or `-- PROGRAM [ARGS...]` named, null for neither, or why both cannot be. */
export function programOf(command: string | null, argv: readonly string[] | null): CommandSpec | null | string {
  if (command !== null && argv !== null) return "give the program either with --command or after '--', not both";
  if (command !== null) return { kind: 'shell', line: command };
  return argv === null ? null : { kind: 'argv', argv: [...argv] };
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
