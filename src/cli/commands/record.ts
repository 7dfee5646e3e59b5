// `durability-lens record --connection … -- <program> [args]`: measures what another program (a test suite) does to
// the server — snapshots, log-flush trace and samples around its run — and prints the same report as a profile, with
// its exit code and duration; without a program it records until Ctrl+C or --duration. Gates CI with a baseline.
import { profileConnectionSource, recordWindow, type CommandSpec, type RunResult } from '../../profile';
import { buildComparisonModel, formatDuration, runFigures } from '../../report';
import { runCausesJson } from '../../report/causes';
import type { CliCommand } from '../io';
import { applyGates, EXIT_GATE_REGRESSION, GATE_USAGE, newGateArgs, readBaselineArg, takeGateArg } from './gateOptions';
import { runLifecycle, signalExitCode, type RunLifecycle } from './lifecycle';
import {
  CONNECTION_USAGE,
  failureExit,
  emitReport,
  EXIT,
  newConnectionArgs,
  newRunArgs,
  resolveCliConnection,
  RUN_USAGE,
  runOptionsOf,
  takeOption,
  usageError,
  type ConnectedCliIO,
} from './shared';

const usage = `Usage: durability-lens record --connection NAME|CONNECTION_STRING [options] -- PROGRAM [ARGS...]
       durability-lens record --connection NAME|CONNECTION_STRING [options] --command "COMMAND LINE"
       durability-lens record --connection NAME|CONNECTION_STRING [options] [--duration SECONDS]

Measures what another program does to the database while it runs: a before-snapshot, the log-flush trace and
samples, the program (a separate process, run as given after '--', or COMMAND LINE through the shell), then the
after-snapshot. Without a program it records until Ctrl+C (or --duration). Prints the same report as profile,
with the program's exit code and duration. The program connects with its own configuration; nothing of ours
(no password) is passed to it. Its output goes to stderr.

Server waits are server-wide and file IO, log counters and the trace cover the whole database: every session
working there adds to them, not just the program's. Per-session waits do not apply (its sessions are not ours).
Nothing on the server is changed except by the program itself.

${CONNECTION_USAGE}

${RUN_USAGE}
  --duration SECONDS            without a program: stop recording after this long

Output:
  --markdown                    print the Markdown report (default)
  --json                        print the RunResult as JSON (docs/run-result-schema.md): also command,
                                exitCode, durationMs, recording
  --out PATH                    also write the report to PATH (.md, .csv or .json)

${GATE_USAGE}

Exit codes: 0 done, 1 unexpected failure, 2 usage error, 3 could not connect, 4 the program failed (non-zero
exit, killed, or could not start; the report is still printed), ${EXIT_GATE_REGRESSION} a gate of --baseline regressed,
130 cancelled (Ctrl+C or --timeout while a program ran; the program is stopped, the figures cover what ran).
`;

/** One line per figure the gates use, so a CI log shows them without the JSON. */
export function recordingSummary(run: RunResult): string {
  const f = runFigures(run);
  const n = (v: number | null, digits = 0) => (v === null ? 'not measured' : v.toFixed(digits));
  const program = run.command ? `${run.command}: ${run.recording?.ended === 'exit' ? `exit code ${run.exitCode ?? '?'}` : run.recording?.ended ?? '?'}` : 'window';
  return [
    `Recorded ${program} in ${formatDuration(run.durationMs ?? run.elapsedMs)}${run.recording?.failed ? ' — the program FAILED' : ''}.`,
    `  Log flushes: ${n(f.logFlushes)} · write transactions: ${n(f.writeTransactions)} · WRITELOG waits (server-wide): ${n(f.writelogWaits)}`,
    `  Per write transaction: ${n(f.logFlushesPerWriteTransaction, 3)} flushes, ${n(f.logBytesPerWriteTransaction)} log bytes, ${n(f.writelogWaitsPerWriteTransaction, 3)} WRITELOG waits`,
    '',
  ].join('\n');
}

export async function runRecord(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  const runArgs = newRunArgs();
  const gates = newGateArgs();
  let json = false;
  let out: string | null = null;
  let xe = true;
  let durationMs: number | null = null;
  let command: CommandSpec | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      const argv = args.slice(i + 1);
      if (argv.length === 0) return usageError(io, 'record', "'--' must be followed by the program to run", usage);
      if (command) return usageError(io, 'record', "give the program either after '--' or with --command, not both", usage);
      command = { kind: 'argv', argv };
      break;
    }
    const used = takeOption(args, i, conn, runArgs);
    const gateUsed = used === 0 ? takeGateArg(args, i, gates) : 0;
    for (const u of [used, gateUsed]) if (typeof u === 'string') return usageError(io, 'record', u, usage);
    if ((used as number) > 0 || (gateUsed as number) > 0) {
      i += (used as number) + (gateUsed as number) - 1;
      continue;
    }
    if (arg === '--json') json = true;
    else if (arg === '--markdown') json = false;
    else if (arg === '--no-xe') xe = false;
    else if (arg === '--out' || arg === '--command' || arg === '--duration') {
      const value = args[++i];
      if (value === undefined || value === '') return usageError(io, 'record', `${arg} needs a value`, usage);
      if (arg === '--out') out = value;
      else if (arg === '--command') {
        if (command) return usageError(io, 'record', "give the program either after '--' or with --command, not both", usage);
        command = { kind: 'shell', line: value };
      } else {
        const n = Number(value);
        if (!Number.isFinite(n) || n <= 0) return usageError(io, 'record', `--duration needs a positive number of seconds, not '${value}'`, usage);
        durationMs = Math.round(n * 1000);
      }
    } else return usageError(io, 'record', `unknown option '${arg}' (put the program after '--')`, usage);
  }
  if (command && durationMs !== null) return usageError(io, 'record', '--duration is for a window without a program; use --timeout to limit a program', usage);
  if (gates.junit && !gates.baseline) return usageError(io, 'record', '--junit writes the gates of --baseline: give --baseline FILE too', usage);
  const baseline = readBaselineArg(io, gates);
  if (typeof baseline === 'string') return usageError(io, 'record', baseline, usage);
  const resolved = resolveCliConnection(io, conn);
  if (typeof resolved === 'string') return usageError(io, 'record', resolved, usage);

  const source = profileConnectionSource(resolved.profile, resolved.secret);
  const runOptions = runOptionsOf(runArgs);
  // With a program, a signal cancels it (its process group is stopped, the after-snapshot still taken, the trace
  // dropped) and the exit code names the signal. Without one, Ctrl+C (or --duration) is the window's normal end.
  const lifecycle: RunLifecycle = command ? runLifecycle(io) : windowLifecycle(io);
  const { signal } = lifecycle;
  const stop = new AbortController();
  const onStop = () => stop.abort();
  const windowTimer = !command && durationMs !== null ? setTimeout(onStop, durationMs) : null;
  if (!command) signal.addEventListener('abort', onStop, { once: true });
  if (!command && durationMs === null) io.stderr('Recording until Ctrl+C…\n');
  try {
    const run = await recordWindow({
      connections: source,
      command,
      stop: stop.signal,
      signal: command ? signal : undefined,
      timeoutMs: command ? (runArgs.workloadTimeoutMs ?? undefined) : undefined,
      xe: { enabled: xe },
      sampling: runOptions.sampling,
      waits: runOptions.waits,
      onOutput: (_stream, text) => io.stderr(text),
      // The program never inherits the variable the password came from (nor the default one).
      secretEnv: [conn.passwordEnv],
      onProgress: (e) => io.stderr(`… ${e.step}${e.detail ? ` ${e.detail}` : ''}\n`),
    });
    const title = command ? `Recording of ${run.command}` : 'Recording window';
    const model = buildComparisonModel([run]);
    const problem = emitReport(io, model, { json, out, title, raw: { run }, jsonDocument: { ...run, ...runCausesJson(model), diagnosis: model.diagnosis } });
    if (problem) return usageError(io, 'record', problem, usage);
    io.stderr(recordingSummary(run));
    for (const m of run.missing) io.stderr(`Not measured: ${m.reason}${m.grant ? `\n  To enable: ${m.grant.replace(/\n/g, ' ')}` : ''}\n`);
    for (const note of run.notes.filter((n) => /^The program /.test(n))) io.stderr(`${note}\n`);
    const gate = applyGates(io, gates, baseline, [run], null, title);
    if (run.status === 'cancelled') return lifecycle.stoppedBy ? signalExitCode(lifecycle.stoppedBy) : EXIT.cancelled;
    if (run.recording?.failed) return EXIT.workloadError;
    return gate.regressed ? EXIT_GATE_REGRESSION : EXIT.ok;
  } catch (err) {
    if ((err as Error).name === 'AbortError') {
      io.stderr('Cancelled before anything was measured; the event session was dropped.\n');
      return lifecycle.stoppedBy ? signalExitCode(lifecycle.stoppedBy) : EXIT.cancelled;
    }
    return failureExit(io, 'record', err);
  } finally {
    if (windowTimer) clearTimeout(windowTimer);
    signal.removeEventListener('abort', onStop);
    lifecycle.dispose();
  }
}

/** A window recorded until Ctrl+C: SIGINT/SIGTERM end the window (a completed recording), nothing is cancelled. */
function windowLifecycle(io: ConnectedCliIO): RunLifecycle {
  if (io.signal) return { signal: io.signal, stoppedBy: null, dispose: () => undefined };
  const controller = new AbortController();
  const end = () => {
    io.stderr('Ending the recording window: taking the after-snapshot…\n');
    controller.abort();
  };
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
  return {
    signal: controller.signal,
    stoppedBy: null,
    dispose: () => {
      process.removeListener('SIGINT', end);
      process.removeListener('SIGTERM', end);
    },
  };
}

export const recordCommand: CliCommand = {
  name: 'record',
  summary: 'measure what another program (a test suite) does to the database while it runs; gate CI on it',
  usage,
  run: (args, io) => runRecord(args, io),
};
