// `durability-lens compare --connection … --file workload.sql --modes DISABLED,FORCED --repeat 5 [--json]
// [--fail-if-speedup-below X]`: runs the file under each DELAYED_DURABILITY mode (alternating, repeated), restores
// the database, prints the comparison table or the comparison document, and can gate a CI pipeline on the speed-up.
import { describePlan, DURABILITY_MODES, MAX_SESSIONS_DEFAULT, parseSessionLevels, pendingRestores, profileConnectionSource, runComparison, SetupMarkerError, type CommandSpec, type DurabilityMode, type RunResult } from '../../profile';
import { comparisonDocument, formatRatio } from '../../report';
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
import { CommandWorkload } from '../../profile/recording';
import { applyGates, EXIT_GATE_REGRESSION, GATE_USAGE, newGateArgs, readBaselineArg, takeGateArg } from './gateOptions';
import { COMMAND_USAGE, programRunLines, takeProgramArg } from './programOption';

const usage = `Usage: durability-lens compare --connection NAME|CONNECTION_STRING --file workload.sql
         [--modes DISABLED,FORCED] [--repeat N] [--markdown|--json] [--fail-if-speedup-below X] [--yes]
       durability-lens compare --connection NAME|CONNECTION_STRING [options] --command "COMMAND LINE" | -- PROGRAM [ARGS...]

Runs the T-SQL file under each DELAYED_DURABILITY mode, repeated in alternating order (A B B A …) after an
uncounted warm-up, and prints median and min–max per mode with ratios and a diagnosis. The setting is
changed with ALTER DATABASE … WITH NO_WAIT from a separate connection, journalled before the first change,
and restored and verified at the end — also after an error or Ctrl+C. While FORCED, commits can be lost on a
crash: do not use it on a database whose recent commits matter.

Confirmation: the plan (server, database, current setting, the ALTERs, the data-loss caveat) is printed;
nothing changes without --yes, unless the named connection is marked "development": true in the settings.

Setup: lines between '-- durability-lens: setup' and '-- durability-lens: measure' (or the batches up to one
holding '-- durability-lens: setup-end', or the first N with --setup-batches N) run before every measured
run and are not measured (e.g. recreate the table). FILE may also be given without --file.

${CONNECTION_USAGE}

${RUN_USAGE}

Comparison:
  --modes LIST                  comma-separated DISABLED, ALLOWED, FORCED (default DISABLED,FORCED);
                                ALLOWED delays only COMMITs written WITH (DELAYED_DURABILITY = ON)
  --repeat N                    measured runs per mode (default 3)
  --no-warmup                   no uncounted warm-up run
  --setup-batches N             the first N batches are setup
  --allow-availability-group    accept a database in an availability group (no durability guarantee)
  --yes                         confirm the plan; without it the plan is printed and nothing runs
                                (also restores what a killed run left in the journal, or a gone run's
                                ownership marker on the database, once that run is gone)
  --owner-grace SECONDS         how long recovery waits for a comparison on another machine that holds no
                                connection to come back before it restores that run's database (default 90)
  --fail-if-speedup-below X     exit 8 when FORCED is not at least X times faster than DISABLED
                                (median elapsed; needs both modes) — a CI gate for test suites
  --sessions LIST               concurrency sweep, e.g. 1,4,16: the plan runs once per level, each run on
                                that many workload connections released together (at most ${MAX_SESSIONS_DEFAULT}; checked
                                against the server's user connections). '-- durability-lens: session-param
                                @session' in the script fills @session with 1..N (a typed int parameter)

Output:
  --markdown                    print the Markdown table (default)
  --json                        print the comparison document: originalSetting, restoredSetting,
                                modes [{mode, runs, median}], ratios, speedup, concurrency
                                [{sessions, mode, commitsPerSec, flushesPerCommit, writelogMsPerCommit, …}]
                                (docs/run-result-schema.md)
  --out PATH                    also write the report to PATH (.md, .csv or .json)

${COMMAND_USAGE}

${GATE_USAGE}

${EXIT_CODES_TEXT} ${EXIT_GATE_REGRESSION}: a gate of --baseline regressed.
`;

function parseModes(value: string): DurabilityMode[] | string {
  const modes = value.split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
  if (modes.length === 0) return '--modes needs at least one mode';
  for (const m of modes) if (!DURABILITY_MODES.includes(m as DurabilityMode)) return `--modes: '${m}' is not DISABLED, ALLOWED or FORCED`;
  return [...new Set(modes)] as DurabilityMode[];
}

function positiveInt(value: string | undefined, name: string, min: number): number | string {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n >= min ? n : `${name} must be a whole number ≥ ${min}, not '${value ?? ''}'`;
}

export async function runCompare(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  const runArgs = newRunArgs();
  let failBelow: number | null = null;
  let file: string | null = null;
  let json = false;
  let out: string | null = null;
  let xe = true;
  let yes = false;
  let warmup = true;
  let allowAg = false;
  let modes: DurabilityMode[] = ['DISABLED', 'FORCED'];
  let repeat = 3;
  let setupBatches: number | undefined;
  let sessions: number[] | undefined;
  let ownerGraceMs: number | null = null;
  const program = { command: null as CommandSpec | null };
  const gates = newGateArgs();
  for (let i = 0; i < args.length; i++) {
    const used = takeOption(args, i, conn, runArgs);
    if (typeof used === 'string') return usageError(io, 'compare', used, usage);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    const extra = takeProgramArg(args, i, program) || takeGateArg(args, i, gates);
    if (typeof extra === 'string') return usageError(io, 'compare', extra, usage);
    if (extra > 0) {
      i += extra - 1;
      continue;
    }
    if (arg === '--json') json = true;
    else if (arg === '--markdown') json = false;
    else if (arg === '--no-xe') xe = false;
    else if (arg === '--yes') yes = true;
    else if (arg === '--no-warmup') warmup = false;
    else if (arg === '--allow-availability-group') allowAg = true;
    else if (arg === '--out') {
      out = args[++i] ?? null;
      if (out === null) return usageError(io, 'compare', '--out needs a value', usage);
    } else if (arg === '--file') {
      const value = args[++i];
      if (value === undefined) return usageError(io, 'compare', '--file needs a value', usage);
      if (file !== null) return usageError(io, 'compare', `only one FILE, got '${file}' and '${value}'`, usage);
      file = value;
    } else if (arg === '--fail-if-speedup-below') {
      const value = args[++i];
      const n = Number(value);
      if (value === undefined || !Number.isFinite(n) || n <= 0) return usageError(io, 'compare', `--fail-if-speedup-below needs a positive number, not '${value ?? ''}'`, usage);
      failBelow = n;
    } else if (arg === '--modes') {
      const parsed = parseModes(args[++i] ?? '');
      if (typeof parsed === 'string') return usageError(io, 'compare', parsed, usage);
      modes = parsed;
    } else if (arg === '--repeat') {
      const n = positiveInt(args[++i], '--repeat', 1);
      if (typeof n === 'string') return usageError(io, 'compare', n, usage);
      repeat = n;
    } else if (arg === '--sessions') {
      const parsed = parseSessionLevels(args[++i] ?? '');
      if (typeof parsed === 'string') return usageError(io, 'compare', `--${parsed}`, usage);
      sessions = parsed;
    } else if (arg === '--owner-grace') {
      const value = args[++i];
      const n = Number(value);
      if (value === undefined || !Number.isFinite(n) || n < 0) return usageError(io, 'compare', `--owner-grace needs a number of seconds ≥ 0, not '${value ?? ''}'`, usage);
      ownerGraceMs = Math.round(n * 1000);
    } else if (arg === '--setup-batches') {
      const n = positiveInt(args[++i], '--setup-batches', 0);
      if (typeof n === 'string') return usageError(io, 'compare', n, usage);
      setupBatches = n;
    } else if (arg.startsWith('-')) return usageError(io, 'compare', `unknown option '${arg}'`, usage);
    else if (file === null) file = arg;
    else return usageError(io, 'compare', `only one FILE, got '${file}' and '${arg}'`, usage);
  }
  if (file === null && !program.command) return usageError(io, 'compare', '--file is missing (or give a program: --command, or -- PROGRAM)', usage);
  if (file !== null && program.command) return usageError(io, 'compare', 'give either a T-SQL FILE or a program, not both', usage);
  if (sessions && program.command) return usageError(io, 'compare', '--sessions runs a T-SQL file on many connections; a program opens its own', usage);
  if (gates.junit && !gates.baseline) return usageError(io, 'compare', '--junit writes the gates of --baseline: give --baseline FILE too', usage);
  const baseline = readBaselineArg(io, gates);
  if (typeof baseline === 'string') return usageError(io, 'compare', baseline, usage);
  // The program never inherits the variable the password came from (nor the default one).
  const workload = program.command ? new CommandWorkload(program.command, { onOutput: (_stream, text) => io.stderr(text), secretEnv: [conn.passwordEnv] }) : null;
  const subject = file ?? workload!.batch.text;
  if (failBelow !== null && !(modes.includes('DISABLED') && modes.includes('FORCED'))) {
    return usageError(io, 'compare', '--fail-if-speedup-below compares FORCED with DISABLED: --modes must include both', usage);
  }
  const resolved = resolveCliConnection(io, conn);
  if (typeof resolved === 'string') return usageError(io, 'compare', resolved, usage);
  const { profile, secret, development } = resolved;
  const confirmed = yes || development;
  const script = workload ? { batches: [workload.batch], hasDelayedCommits: false } : readBatches(io, file!);
  if (typeof script === 'string') return usageError(io, 'compare', script, usage);

  const source = profileConnectionSource(profile, secret);
  const journal = journalOf(conn);
  const lifecycle = runLifecycle(io, { journal });
  const { signal } = lifecycle;
  try {
    const recovery = await recoverPending(io, journal, profile, secret, source, { yes, checkMarker: true, ask: io.ask, ownerGraceMs: ownerGraceMs ?? undefined });
    if (recovery === 'failed') return EXIT.restoreFailed;
    if (recovery === 'declined' && (await pendingRestores(journal, source.serverLabel)).some((e) => e.database.toLowerCase() === profile.database.toLowerCase())) {
      // Its setting may be that run's leftover: a comparison now would take it for the original.
      io.stderr(`Refused: ${profile.database} still has an unfinished restore in the journal; restore it first (re-run with --yes). Nothing was changed.\n`);
      return EXIT.refused;
    }
    const result = await runComparison({
      connections: source,
      batches: script.batches,
      modes,
      repetitions: repeat,
      warmup,
      workloadHasDelayedCommits: script.hasDelayedCommits,
      sessions,
      allowAvailabilityGroup: allowAg,
      journal,
      xe: { enabled: xe, statements: runArgs.statements },
      ...runOptionsOf(runArgs),
      // A program instead of T-SQL: the same plan, lock, journal and restore; its executor runs the program.
      setupBatches: workload ? 0 : setupBatches,
      executor: workload?.executor,
      finishRun: workload ? (run: RunResult) => workload.finishRun(run) : undefined,
      signal,
      confirm: (plan) => {
        io.stderr(`${describePlan(plan)}\n\n`);
        if (!yes && development) io.stderr('Confirmed without --yes: the connection is marked as a development server.\n');
        if (!confirmed) io.stderr('Not confirmed: nothing was changed. Re-run with --yes to go ahead with this plan.\n');
        return confirmed;
      },
      onProgress: progressPrinter(io),
    });
    if (result.status === 'refused' || result.status === 'declined') {
      if (result.status === 'refused') io.stderr(`${describePlan(result.plan)}\n\nRefused: nothing was changed.\n`);
      return EXIT.refused;
    }
    let speedupTooLow = false;
    let commandFailed = false;
    let gateRegressed = false;
    let outputError = false;
    let speedup: ReturnType<typeof comparisonDocument>['speedup'] = null;
    if (result.runs.length > 0) {
      const doc = comparisonDocument({ runs: result.runs, status: result.status, plan: result.plan, restore: result.restore, error: result.error });
      const restore = result.restore ? { ok: result.restore.status === 'restored' || result.restore.status === 'already-original', originalSetting: result.restore.originalSetting, verifiedSetting: result.restore.verifiedSetting, message: result.restore.message } : null;
      try {
        const problem = emitReport(io, doc.model, { json, out, title: `Durability comparison of ${subject}`, raw: {}, jsonDocument: doc, verdict: { restore } });
        if (problem) io.stderr(`durability-lens compare: ${problem}\n`);
      } catch (err) {
        // A closed stdout is the lifecycle's to report (EPIPE); a file that cannot be written is said here.
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') throw err;
        io.stderr(`durability-lens compare: the report could not be written (${(err as Error).message}).\n`);
        outputError = true;
      }
      if (failBelow !== null && result.status === 'completed') {
        const s = doc.speedup;
        if (!s) {
          io.stderr(`--fail-if-speedup-below ${failBelow}: no elapsed figure for both DISABLED and FORCED, so the speed-up is unknown.\n`);
          speedupTooLow = true;
        } else {
          const verdict = s.elapsed >= failBelow ? 'meets' : 'is BELOW';
          io.stderr(`Speed-up FORCED vs DISABLED: ×${formatRatio(s.elapsed)} (runs' range ×${s.min !== null ? formatRatio(s.min) : '?'}–×${s.max !== null ? formatRatio(s.max) : '?'}; ${s.conclusive ? 'conclusive' : `not conclusive: ${s.conclusiveWhy}`}) ${verdict} the threshold ×${formatRatio(failBelow)}.\n`);
          speedupTooLow = s.elapsed < failBelow;
        }
      }
      if (workload) {
        io.stderr(programRunLines(result.runs));
        commandFailed = result.runs.some((r) => r.recording?.failed);
      }
      speedup = doc.speedup;
    }
    // What the database is now comes before anything that may still fail (the gates, their files).
    if (result.error) io.stderr(`${result.error.message}\n`);
    const restore = result.restore;
    if (restore) io.stderr(`${restore.message}\n`);
    if (result.runs.length > 0) {
      try {
        gateRegressed = applyGates(io, gates, baseline, result.runs, speedup, `durability-lens compare ${subject}`).regressed;
      } catch (err) {
        io.stderr(`durability-lens compare: the gates could not be checked or written (${(err as Error).message}); the report above and the database state stand.\n`);
        outputError = true;
      }
    }
    if (restore?.status === 'failed') {
      io.stderr(`\nThe database was NOT restored. Run this on ${restore.server}:\n  ${restore.restoreStatement}\n`);
      return EXIT.restoreFailed;
    }
    const stoppedBy = lifecycle.stoppedBy;
    if (stoppedBy) {
      io.stderr(`Stopped by ${stoppedBy}: ${stopSummary(result)}\n`);
      return signalExitCode(stoppedBy);
    }
    if (restore?.status === 'external-change' || result.error?.kind === 'external-change') return EXIT.externalChange;
    switch (result.status) {
      case 'completed':
        return commandFailed ? EXIT.workloadError : outputError ? EXIT.unexpected : gateRegressed ? EXIT_GATE_REGRESSION : speedupTooLow ? EXIT.speedupBelowThreshold : EXIT.ok;
      case 'cancelled':
        return EXIT.cancelled;
      case 'workload-error':
        return EXIT.workloadError;
      default:
        if (result.error?.kind === 'ownership-lost') return EXIT.ownershipLost;
        return result.error?.kind === 'durability-change' ? EXIT.durabilityChangeFailed : EXIT.unexpected;
    }
  } catch (err) {
    if (err instanceof SetupMarkerError) return usageError(io, 'compare', err.message, usage);
    return failureExit(io, 'compare', err);
  } finally {
    lifecycle.dispose();
  }
}

/** The state a signal leaves: the setting (verified) and the event sessions of the runs. */
function stopSummary(result: Awaited<ReturnType<typeof runComparison>>): string {
  const restore = result.restore;
  const setting =
    restore === null
      ? `nothing was changed on ${result.plan.database}`
      : restore.status === 'restored' || restore.status === 'already-original'
        ? `${result.plan.database} is ${restore.verifiedSetting} as it started (verified)`
        : restore.message;
  const leftSessions = result.runs.flatMap((r) => r.notes.filter((n) => /could not be dropped/.test(n)));
  return `${setting}; ${leftSessions.length === 0 ? 'no event session of this run is left' : leftSessions.join(' ')}.`;
}

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'run a T-SQL file under DELAYED_DURABILITY modes side by side and restore the database',
  usage,
  run: (args, io) => runCompare(args, io),
};
