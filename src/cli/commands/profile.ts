// `durability-lens profile --connection NAME|STRING --file workload.sql [--yes] [--json|--markdown]`: runs a T-SQL file once
// between snapshots and prints the report (Markdown) or the RunResult (JSON, docs/run-result-schema.md).
import { MAX_SESSIONS_DEFAULT, parseSessionLevels, profileConnectionSource, profileRun, profileScript, SetupFailedError, SetupMarkerError, traceOverheadPlanText, traceOverheadRunsProblem } from '../../profile';
import { traceOverheadHeadline } from '../../report/traceOverheadText';
import { terminalField } from '../terminalText';
import { buildComparisonModel } from '../../report';
import { runCausesJson } from '../../report/causes';
import { converted, declareCommand, flag, invalid, section, text, type ParsedCommandLine, type UsageFailure } from '../options';
import { runLifecycle, signalExitCode } from './lifecycle';
import { failureExit, emitReport, progressPrinter, EXIT, EXIT_CODES_TEXT, journalOf, notMeasuredLines, QuestionInterruptedError, readBatches, recoverPending, resolveCliConnection, runOptionsOf, type ConnectedCliIO } from './shared';
import { CONNECTION, formatFlags, outOption, RUN } from './sections';
import { profilePlanText } from './profilePlan';
import { profileRunsText, workloadChanges, workloadConsent } from './profileConsent';
import { limitMessages } from '../../shared/messageFlood';
import { logEntryText } from '../../shared/visibleText';
import type { WorkloadMessage } from '../../db/types';

// Kept for importers of the phase-1 module layout.
export * from './shared';

const PROFILE = section('Profile', {
  file: text('--file', { placeholder: 'FILE', help: 'the T-SQL workload (FILE may also be given without --file)', once: true }),
  yes: flag('--yes', { help: 'run a workload that changes data or schema without asking (without it a\nterminal asks, and without a terminal nothing runs); also restores what a\nkilled comparison left in the journal (once that run is gone)' }),
  sessions: converted('--sessions', {
    placeholder: 'N',
    help: `run the workload on N connections released together (1–${MAX_SESSIONS_DEFAULT}; checked against the
server's user connections); '-- durability-lens: session-param @session' fills
@session with 1..N. For a curve over several counts, see compare --sessions`,
  }, (raw) => {
    const levels = parseSessionLevels(raw);
    if (typeof levels === 'string') return invalid(`--${levels}`);
    return levels.length === 1 ? levels[0]! : invalid('--sessions takes one count for profile (compare --sessions sweeps a list)');
  }),  traceOverhead: converted('--trace-overhead', {
    placeholder: 'N',
    help: `also measure what the per-statement trace costs: run the workload 2×N times
on the same connections, N with the trace and N without, alternating (N 2–10;
the setup part before each run). It runs the script's DML 2×N times: use it
where that is fine. The report and JSON ("traceOverhead") show elapsed with vs
without; without this flag "traceOverhead" says not measured`,
  }, (raw) => {
    // Decimal digits as written (Number() would take 0x3 or 3e0); the range and its wording are the profile's.
    const n = /^\d{1,3}$/.test(raw) ? Number(raw) : Number.NaN;
    const problem = traceOverheadRunsProblem(n, raw);
    return problem ? invalid(problem) : n;
  }),
});

const OUTPUT = section('Output', {
  format: formatFlags('print the Markdown report (default)', 'print the RunResult as JSON (docs/run-result-schema.md) with the diagnosis'),
  out: outOption(),
});

const SECTIONS = [CONNECTION, RUN, PROFILE, OUTPUT] as const;

async function runProfile({ options: o }: ParsedCommandLine<typeof SECTIONS>, io: ConnectedCliIO, usageError: UsageFailure): Promise<number> {
  const file = o.file;
  if (file === null) return usageError('--file is missing');
  if (o.traceOverhead !== null && (!o.xe || !o.statements || o.sessions !== null)) {
    return usageError(`--trace-overhead measures the per-statement trace, which ${!o.xe ? '--no-xe' : !o.statements ? '--no-statements' : '--sessions'} leaves out`);
  }
  const resolved = resolveCliConnection(io, o);
  if (typeof resolved === 'string') return usageError(resolved);
  const { profile, secret, development, named } = resolved;
  const script = readBatches(io, file);
  if (typeof script === 'string') return usageError(script);
  // Markers that leave nothing runnable are bad input, said before any question (a "y" could not make it run).
  const problem = scriptProblem(script.batches);
  if (problem) return usageError(problem);

  const source = profileConnectionSource(profile, secret);
  const journal = journalOf(o);
  // What a signal stops, said when it comes: profile never switches DELAYED_DURABILITY; a restore of the journal runs
  // only in the recovery at the start (compare's wording fits there).
  const stopping = { recovery: undefined, question: 'ending the question; the workload is not run', run: 'stopping the workload and dropping the event session before exiting' };
  let phase: keyof typeof stopping = 'recovery';
  const lifecycle = runLifecycle(io, { journal, stopping: () => stopping[phase] });
  const { signal } = lifecycle;
  const cancelledCode = () => (lifecycle.stoppedBy ? signalExitCode(lifecycle.stoppedBy) : EXIT.cancelled);
  try {
    if ((await recoverPending(io, journal, profile, secret, source, { yes: o.yes, ask: io.ask, signal })) === 'failed') return EXIT.restoreFailed;
    if (lifecycle.stoppedBy) {
      io.stderr(`Stopped by ${lifecycle.stoppedBy} before the run started: nothing was run (what the recovery did is above).\n`);
      return cancelledCode();
    }
    // Said before anything runs: what the run changes besides the script (our event sessions), and how often it runs.
    io.stderr(`${profilePlanText({ what: file, server: profile.server, database: profile.database, xe: o.xe, statements: o.statements, traceOverhead: o.traceOverhead })}\n`);
    if (o.traceOverhead !== null) io.stderr(`--trace-overhead ${o.traceOverhead}: ${traceOverheadPlanText(o.traceOverhead)}.\n`);
    const runs = profileRunsText(o.sessions, o.traceOverhead);
    phase = 'question';
    const consented = await workloadConsent({ changes: workloadChanges(script.batches), yes: o.yes, development, named, runs, ask: io.ask, signal, stderr: (t) => io.stderr(t) });
    if (signal.aborted) {
      // Also a signal that ended the question: the answer no longer matters.
      io.stderr(`Stopped${lifecycle.stoppedBy ? ` by ${lifecycle.stoppedBy}` : ''} before the run started: nothing was run.\n`);
      return cancelledCode();
    }
    if (!consented) return EXIT.refused;
    phase = 'run';
    const run = await profileRun({
      connections: source,
      batches: script.batches,
      target: { kind: 'document', label: file },
      signal,
      xe: { enabled: o.xe, statements: o.statements },
      sessions: o.sessions ?? undefined,
      traceOverheadRuns: o.traceOverhead ?? undefined,
      ...runOptionsOf(o),
      onProgress: progressPrinter(io),
      // The server's text as a log entry: lines after its first are indented, so none can read as a line of ours.
      onMessage: limitMessages<WorkloadMessage>((m) => io.stderr(`${m.kind === 'error' ? `Msg ${m.number}` : 'Info'}${m.documentLine !== null ? ` (line ${m.documentLine + 1})` : ''}: ${logEntryText(m.message)}
`), (t) => io.stderr(`${t}
`)),
    });
    const model = buildComparisonModel([run]);
    const problem = emitReport(io, model, { json: o.format === 'json', out: o.out, title: `Profile of ${file}`, raw: { run }, jsonDocument: { ...run, ...runCausesJson(model), diagnosis: model.diagnosis } });
    if (problem) return usageError(problem);
    if (o.traceOverhead !== null && run.traceOverhead) io.stderr(`${terminalField(traceOverheadHeadline(run.traceOverhead))}\n`); // one line: a server's message inside stays on it
    if (run.workloadDurabilityChange) io.stderr(`Warning: ${terminalField(run.workloadDurabilityChange.message)}\n`);
    if (run.missing.length > 0) io.stderr(notMeasuredLines(run.missing));
    if (run.status === 'cancelled') {
      io.stderr(run.cancel?.reason === 'timeout' ? 'The workload hit --timeout and was cancelled; the figures cover what ran.\n' : 'Cancelled; the figures cover what ran until the cancel.\n');
      return cancelledCode();
    }
    if (run.status === 'workload-error') return EXIT.workloadError;
    return lifecycle.stoppedBy ? cancelledCode() : EXIT.ok;
  } catch (err) {
    if (err instanceof QuestionInterruptedError) {
      io.stderr(`\n${err.message}\n`); // after the question's line, which Ctrl+C does not end
      return signalExitCode('SIGINT');
    }
    if ((err as Error).name === 'AbortError') {
      io.stderr('Cancelled before anything was measured; the event session was dropped.\n');
      return cancelledCode();
    }
    if (err instanceof SetupMarkerError) return usageError(err.message);
    if (err instanceof SetupFailedError) {
      io.stderr(`durability-lens profile: ${logEntryText(`${err.message} Nothing was measured.`)}\n`);
      return EXIT.workloadError;
    }
    return failureExit(io, 'profile', err);
  } finally {
    lifecycle.dispose();
  }
}

/** Why the run would refuse this script before sending anything (its markers), or null. Said with "nothing ran", the
 * setup included, as for a file of comments only. */
function scriptProblem(batches: Parameters<typeof profileScript>[0]): string | null {
  try {
    profileScript(batches);
    return null;
  } catch (err) {
    return `${(err as Error).message} Nothing was run.`;
  }
}

export const profileCommand = declareCommand({
  name: 'profile',
  summary: 'run a T-SQL file between snapshots and report log flushes, WRITELOG and per-file IO',
  synopsis: 'Usage: durability-lens profile --connection NAME|CONNECTION_STRING --file workload.sql [--yes] [--json|--markdown]',
  about: `Runs the T-SQL file once on a WORKLOAD connection, wrapped in before/after snapshots taken on a MONITOR
connection (per-file IO, waits of the session and the server, log counters, log space/VLFs, an Extended
Events log-flush trace when permitted, and samples every second while it runs), and prints the
measurements and a diagnosis. Besides what the script itself does, the only change on the server is the
Extended Events sessions it creates for the run and drops after it (--no-xe: none); the plan printed on
stderr before the first statement says so.

A script that changes data or schema (INSERT, UPDATE, DELETE, DDL, EXEC of a procedure…) runs only when
confirmed: --yes, a "y" at the terminal's question, or a named connection marked "development": true.
Without them and without a terminal, the statements that change are listed, nothing runs, and the exit
code is 5. A script that only reads runs without a question.

Setup: lines between '-- durability-lens: setup' and '-- durability-lens: measure' run first and are not
measured (also: batches up to one holding '-- durability-lens: setup-end'). FILE may also be given
without --file.`,
  sections: SECTIONS,
  operands: { label: 'FILE', max: 1, sameAs: 'file' },
  epilog: EXIT_CODES_TEXT,
  run: runProfile,
});
