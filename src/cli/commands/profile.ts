// `durability-lens profile --connection NAME|STRING --file workload.sql [--json|--markdown]`: runs a T-SQL file once
// between snapshots and prints the report (Markdown) or the RunResult (JSON, docs/run-result-schema.md).
import { parseSessionLevels, profileConnectionSource, profileRun, SetupFailedError, SetupMarkerError, traceOverheadPlanText, traceOverheadRunsProblem } from '../../profile';
import { traceOverheadHeadline } from '../../report/traceOverheadText';
import { terminalField } from '../terminalText';
import { buildComparisonModel } from '../../report';
import { runCausesJson } from '../../report/causes';
import type { CliCommand } from '../io';
import { runLifecycle, signalExitCode } from './lifecycle';
import {
  CONNECTION_USAGE,
  failureExit,
  emitReport,
  progressPrinter,
  EXIT,
  EXIT_CODES_TEXT,
  journalOf,
  newConnectionArgs,
  newRunArgs,
  readBatches,
  recoverPending,
  resolveCliConnection,
  RUN_USAGE,
  runOptionsOf,
  takeOption,
  usageError,
  type ConnectedCliIO,
} from './shared';
import { limitMessages } from '../../shared/messageFlood';
import type { WorkloadMessage } from '../../db/types';

// Kept for importers of the phase-1 module layout.
export * from './shared';

const usage = `Usage: durability-lens profile --connection NAME|CONNECTION_STRING --file workload.sql [--json|--markdown]

Runs the T-SQL file once on a WORKLOAD connection, wrapped in before/after snapshots taken on a MONITOR
connection (per-file IO, waits of the session and the server, log counters, log space/VLFs, an Extended
Events log-flush trace when permitted, and samples every second while it runs), and prints the
measurements and a diagnosis. Nothing is changed on the server except what the script itself does.

Setup: lines between '-- durability-lens: setup' and '-- durability-lens: measure' run first and are not
measured (also: batches up to one holding '-- durability-lens: setup-end'). FILE may also be given
without --file.

${CONNECTION_USAGE}

${RUN_USAGE}

  --yes                         restore what a killed comparison left in the journal (once that run is gone)
                                without asking
  --sessions N                  run the workload on N connections released together (1–64; checked against the
                                server's user connections); '-- durability-lens: session-param @session' fills
                                @session with 1..N. For a curve over several counts, see compare --sessions
  --trace-overhead N            also measure what the per-statement trace costs: run the workload 2×N times
                                on the same connections, N with the trace and N without, alternating (N 2–10;
                                the setup part before each run). It runs the script's DML 2×N times: use it
                                where that is fine. The report and JSON ("traceOverhead") show elapsed with vs
                                without; without this flag "traceOverhead" says not measured

Output:
  --markdown                    print the Markdown report (default)
  --json                        print the RunResult as JSON (docs/run-result-schema.md) with the diagnosis
  --out PATH                    also write the report to PATH (.md, .csv or .json)

${EXIT_CODES_TEXT}
`;

export async function runProfile(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  const runArgs = newRunArgs();
  let file: string | null = null;
  let json = false;
  let out: string | null = null;
  let xe = true;
  let yes = false;
  let sessions: number | undefined;
  let traceOverheadRuns: number | undefined;
  const setFile = (f: string): string | null => {
    if (file !== null) return `only one FILE, got '${file}' and '${f}'`;
    file = f;
    return null;
  };
  for (let i = 0; i < args.length; i++) {
    const used = takeOption(args, i, conn, runArgs);
    if (typeof used === 'string') return usageError(io, 'profile', used, usage);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--markdown') json = false;
    else if (arg === '--no-xe') xe = false;
    else if (arg === '--yes') yes = true;
    else if (arg === '--sessions') {
      const parsed = parseSessionLevels(args[++i] ?? '');
      if (typeof parsed === 'string') return usageError(io, 'profile', `--${parsed}`, usage);
      if (parsed.length !== 1) return usageError(io, 'profile', '--sessions takes one count for profile (compare --sessions sweeps a list)', usage);
      sessions = parsed[0];
    } else if (arg === '--trace-overhead') {
      const value = args[++i];
      const n = Number(value);
      const problem = value === undefined ? '--trace-overhead needs a number of runs each way (2–10)' : traceOverheadRunsProblem(n);
      if (problem) return usageError(io, 'profile', problem, usage);
      traceOverheadRuns = n;
    } else if (arg === '--out' || arg === '--file') {
      const value = args[++i];
      if (value === undefined) return usageError(io, 'profile', `${arg} needs a value`, usage);
      if (arg === '--out') out = value;
      else {
        const problem = setFile(value);
        if (problem) return usageError(io, 'profile', problem, usage);
      }
    } else if (arg.startsWith('-')) return usageError(io, 'profile', `unknown option '${arg}'`, usage);
    else {
      const problem = setFile(arg);
      if (problem) return usageError(io, 'profile', problem, usage);
    }
  }
  if (file === null) return usageError(io, 'profile', '--file is missing', usage);
  if (traceOverheadRuns !== undefined && (!xe || !runArgs.statements || sessions !== undefined)) {
    return usageError(io, 'profile', `--trace-overhead measures the per-statement trace, which ${!xe ? '--no-xe' : !runArgs.statements ? '--no-statements' : '--sessions'} leaves out`, usage);
  }
  const resolved = resolveCliConnection(io, conn);
  if (typeof resolved === 'string') return usageError(io, 'profile', resolved, usage);
  const { profile, secret } = resolved;
  const script = readBatches(io, file);
  if (typeof script === 'string') return usageError(io, 'profile', script, usage);

  const source = profileConnectionSource(profile, secret);
  const journal = journalOf(conn);
  const lifecycle = runLifecycle(io, { journal });
  const { signal } = lifecycle;
  const cancelledCode = () => (lifecycle.stoppedBy ? signalExitCode(lifecycle.stoppedBy) : EXIT.cancelled);
  try {
    if ((await recoverPending(io, journal, profile, secret, source, { yes, ask: io.ask })) === 'failed') return EXIT.restoreFailed;
    // Said before anything runs: the flag makes the script's statements run several times.
    if (traceOverheadRuns !== undefined) io.stderr(`--trace-overhead ${traceOverheadRuns}: ${traceOverheadPlanText(traceOverheadRuns)}.\n`);
    const run = await profileRun({
      connections: source,
      batches: script.batches,
      target: { kind: 'document', label: file },
      signal,
      xe: { enabled: xe, statements: runArgs.statements },
      sessions,
      traceOverheadRuns,
      ...runOptionsOf(runArgs),
      onProgress: progressPrinter(io),
      onMessage: limitMessages<WorkloadMessage>((m) => io.stderr(`${m.kind === 'error' ? `Msg ${m.number}` : 'Info'}${m.documentLine !== null ? ` (line ${m.documentLine + 1})` : ''}: ${m.message}
`), (t) => io.stderr(`${t}
`)),
    });
    const model = buildComparisonModel([run]);
    const problem = emitReport(io, model, { json, out, title: `Profile of ${file}`, raw: { run }, jsonDocument: { ...run, ...runCausesJson(model), diagnosis: model.diagnosis } });
    if (problem) return usageError(io, 'profile', problem, usage);
    if (traceOverheadRuns !== undefined && run.traceOverhead) io.stderr(`${terminalField(traceOverheadHeadline(run.traceOverhead))}\n`); // one line: a server's message inside stays on it
    for (const m of run.missing) io.stderr(`Not measured: ${m.reason}${m.grant ? `\n  To enable: ${m.grant.replace(/\n/g, ' ')}` : ''}\n`);
    if (run.status === 'cancelled') {
      io.stderr(run.cancel?.reason === 'timeout' ? 'The workload hit --timeout and was cancelled; the figures cover what ran.\n' : 'Cancelled; the figures cover what ran until the cancel.\n');
      return cancelledCode();
    }
    if (run.status === 'workload-error') return EXIT.workloadError;
    return lifecycle.stoppedBy ? cancelledCode() : EXIT.ok;
  } catch (err) {
    if ((err as Error).name === 'AbortError') {
      io.stderr('Cancelled before anything was measured; the event session was dropped.\n');
      return cancelledCode();
    }
    if (err instanceof SetupMarkerError) return usageError(io, 'profile', err.message, usage);
    if (err instanceof SetupFailedError) {
      io.stderr(`durability-lens profile: ${err.message} Nothing was measured.\n`);
      return EXIT.workloadError;
    }
    return failureExit(io, 'profile', err);
  } finally {
    lifecycle.dispose();
  }
}

export const profileCommand: CliCommand = {
  name: 'profile',
  summary: 'run a T-SQL file between snapshots and report log flushes, WRITELOG and per-file IO',
  usage,
  run: (args, io) => runProfile(args, io),
};
