// `durability-lens record --connection … -- <program> [args]`: measures what another program (a test suite) does to
// the server — snapshots, log-flush trace and samples around its run — and prints the same report as a profile, with
// its exit code and duration; without a program it records until Ctrl+C or --duration. Gates CI with a baseline.
import { listenForStopSignals } from '../processSignals';
import { displayCommand, profileConnectionSource, recordWindow, type RunResult } from '../../profile';
import { recordPlanText } from './profilePlan';
import { buildComparisonModel, formatDuration, runFigures } from '../../report';
import { runCausesJson } from '../../report/causes';
import { declareCommand, numberOption, section, TIMER_LIMIT_SECONDS, usageLines, type ParsedCommandLine, type UsageFailure } from '../options';
import { applyGates, EXIT_GATE_REGRESSION, gateArgsProblem, GATES, readBaselineArg } from './gateOptions';
import { runLifecycle, signalExitCode, type RunLifecycle } from './lifecycle';
import { programOf, programSection } from './programOption';
import { failureExit, emitReport, EXIT, notMeasuredLines, resolveCliConnection, runOptionsOf, type ConnectedCliIO } from './shared';
import { CONNECTION, formatFlags, outOption, runSection } from './sections';

const RUN = runSection({
  durationMs: numberOption('--duration', { placeholder: 'SECONDS', help: 'without a program: stop recording after this long', rule: { above: 0, max: TIMER_LIMIT_SECONDS, unit: 'seconds' }, initial: null, scale: (n) => Math.round(n * 1000) }),
});

const OUTPUT = section('Output', {
  format: formatFlags('print the Markdown report (default)', 'print the RunResult as JSON (docs/run-result-schema.md): also command,\nexitCode, durationMs, recording'),
  out: outOption(),
});

const PROGRAM = programSection(
  'run this program through the shell, as typed; it connects with its own\nconfiguration (never our password); its output goes to stderr',
  usageLines('-- PROGRAM [ARGS...]', 'the same, run as given (no shell); must come last').join('\n'),
);

const SECTIONS = [CONNECTION, RUN, OUTPUT, PROGRAM, GATES] as const;

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

async function runRecord({ options: o, program: after }: ParsedCommandLine<typeof SECTIONS>, io: ConnectedCliIO, usageError: UsageFailure): Promise<number> {
  const command = programOf(o.command, after);
  if (typeof command === 'string') return usageError(command);
  const { durationMs } = o;
  if (command && durationMs !== null) return usageError('--duration is for a window without a program; use --timeout to limit a program');
  const gateProblem = gateArgsProblem(o);
  if (gateProblem) return usageError(gateProblem);
  const baseline = readBaselineArg(io, o);
  if (typeof baseline === 'string') return usageError(baseline);
  const resolved = resolveCliConnection(io, o);
  if (typeof resolved === 'string') return usageError(resolved);

  const source = profileConnectionSource(resolved.profile, resolved.secret);
  const runOptions = runOptionsOf(o);
  // With a program, a signal cancels it (its process group is stopped, the after-snapshot still taken, the trace
  // dropped) and the exit code names the signal. Without one, Ctrl+C (or --duration) is the window's normal end.
  const lifecycle: RunLifecycle = command ? runLifecycle(io) : windowLifecycle(io);
  const { signal } = lifecycle;
  const stop = new AbortController();
  const onStop = () => stop.abort();
  const windowTimer = !command && durationMs !== null ? setTimeout(onStop, durationMs) : null;
  if (!command) signal.addEventListener('abort', onStop, { once: true });
  io.stderr(`${recordPlanText({ what: command ? displayCommand(command) : null, server: resolved.profile.server, database: resolved.profile.database, xe: o.xe })}\n`);
  if (!command && durationMs === null) io.stderr('Recording until Ctrl+C…\n');
  try {
    const run = await recordWindow({
      connections: source,
      command,
      stop: stop.signal,
      signal: command ? signal : undefined,
      timeoutMs: command ? (o.workloadTimeoutMs ?? undefined) : undefined,
      xe: { enabled: o.xe },
      sampling: runOptions.sampling,
      waits: runOptions.waits,
      onOutput: (_stream, text) => io.stderr(text),
      // The program never inherits the variable the password came from (nor the default one).
      secretEnv: [o.passwordEnv],
      onProgress: (e) => io.stderr(`… ${e.step}${e.detail ? ` ${e.detail}` : ''}\n`),
    });
    const title = command ? `Recording of ${run.command}` : 'Recording window';
    const model = buildComparisonModel([run]);
    const problem = emitReport(io, model, { json: o.format === 'json', out: o.out, title, raw: { run }, jsonDocument: { ...run, ...runCausesJson(model), diagnosis: model.diagnosis } });
    if (problem) return usageError(problem);
    io.stderr(recordingSummary(run));
    if (run.missing.length > 0) io.stderr(notMeasuredLines(run.missing));
    for (const note of run.notes.filter((n) => /^The program /.test(n))) io.stderr(`${note}\n`);
    const gate = applyGates(io, o, baseline, [run], null, title);
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
  // Once: the first signal ends the window; a second one is the signal's own (the listener is gone by then).
  const stopListening = listenForStopSignals(() => {
    stopListening();
    io.stderr('Ending the recording window: taking the after-snapshot…\n');
    controller.abort();
  });
  return { signal: controller.signal, stoppedBy: null, dispose: stopListening };
}

export const recordCommand = declareCommand({
  name: 'record',
  summary: 'measure what another program (a test suite) does to the database while it runs; gate CI on it',
  synopsis: `Usage: durability-lens record --connection NAME|CONNECTION_STRING [options] -- PROGRAM [ARGS...]
       durability-lens record --connection NAME|CONNECTION_STRING [options] --command "COMMAND LINE"
       durability-lens record --connection NAME|CONNECTION_STRING [options] [--duration SECONDS]`,
  about: `Measures what another program does to the database while it runs: a before-snapshot, the log-flush trace and
samples, the program (a separate process, run as given after '--', or COMMAND LINE through the shell), then the
after-snapshot. Without a program it records until Ctrl+C (or --duration). Prints the same report as profile,
with the program's exit code and duration. The program connects with its own configuration; nothing of ours
(no password) is passed to it. Its output goes to stderr.

Server waits are server-wide and file IO, log counters and the trace cover the whole database: every session
working there adds to them, not just the program's. Per-session waits do not apply (its sessions are not ours).
Besides what the program does, the only change on the server is the log-flush trace's Extended Events session,
created for the recording and dropped after it (--no-xe: none); the plan printed on stderr first says so.`,
  sections: SECTIONS,
  program: true,
  operandHint: "put the program after '--'",
  epilog: `Exit codes: 0 done, 1 unexpected failure, 2 usage error, 3 could not connect, 4 the program failed (non-zero
exit, killed, or could not start; the report is still printed), ${EXIT_GATE_REGRESSION} a gate of --baseline regressed,
130 cancelled (Ctrl+C or --timeout while a program ran; the program is stopped, the figures cover what ran).`,
  run: runRecord,
});
