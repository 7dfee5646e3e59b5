// `durability-lens compare --connection … --file workload.sql --modes DISABLED,FORCED --repeat 5 [--json]
// [--fail-if-speedup-below X]`: runs the file under each DELAYED_DURABILITY mode (alternating, repeated), restores
// the database, prints the comparison table or the comparison document, and can gate a CI pipeline on the speed-up.
import { describePlan, DURABILITY_MODES, MAX_SESSIONS_DEFAULT, parseSessionLevels, pendingRestores, profileConnectionSource, runComparison, SetupMarkerError, type DurabilityMode, type RunResult } from '../../profile';
import { comparisonDocument, formatRatio } from '../../report';
import { converted, declareCommand, flag, invalid, negatedFlag, numberOption, section, text, TIMER_LIMIT_SECONDS, type ParsedCommandLine, type UsageFailure } from '../options';
import { runLifecycle, signalExitCode } from './lifecycle';
import { failureExit, emitReport, progressPrinter, EXIT, EXIT_CODES_TEXT, journalOf, QuestionInterruptedError, readBatches, recoverPending, resolveCliConnection, runOptionsOf, type ConnectedCliIO } from './shared';
import { CONNECTION, formatFlags, outOption, RUN } from './sections';
import { CommandWorkload } from '../../profile/recording';
import { applyGates, EXIT_GATE_REGRESSION, gateArgsProblem, GATES, readBaselineArg } from './gateOptions';
import { PROGRAM, programOf, programRunLines } from './programOption';
import { logEntryText } from '../../shared/visibleText';
import { changesLine, workloadChanges } from './profileConsent';

function parseModes(value: string): DurabilityMode[] | ReturnType<typeof invalid> {
  const modes = value.split(',').map((m) => m.trim().toUpperCase());
  if (modes.every((m) => m === '')) return invalid('--modes needs at least one mode');
  if (modes.includes('')) return invalid(`--modes: '${value}' has an empty item; write the modes as DISABLED,FORCED`);
  for (const m of modes) if (!DURABILITY_MODES.includes(m as DurabilityMode)) return invalid(`--modes: '${m}' is not DISABLED, ALLOWED or FORCED`);
  const twice = modes.find((m, i) => modes.indexOf(m) !== i);
  if (twice) return invalid(`--modes: ${twice} is given twice`);
  return modes as DurabilityMode[];
}

const COMPARISON = section('Comparison', {
  file: text('--file', { placeholder: 'FILE', help: 'the T-SQL workload (FILE may also be given without --file)', once: true }),
  modes: converted('--modes', {
    placeholder: 'LIST',
    help: 'comma-separated DISABLED, ALLOWED, FORCED (default DISABLED,FORCED);\nALLOWED delays only COMMITs written WITH (DELAYED_DURABILITY = ON)',
    initial: ['DISABLED', 'FORCED'] as DurabilityMode[],
  }, parseModes),
  repeat: numberOption('--repeat', { placeholder: 'N', help: 'measured runs per mode (default 3)', rule: { integer: true, min: 1 }, initial: 3 }),
  warmup: negatedFlag('--no-warmup', { help: 'no uncounted warm-up run' }),
  setupBatches: numberOption('--setup-batches', { placeholder: 'N', help: 'the first N batches are setup', rule: { integer: true, min: 0 }, initial: null }),
  allowAvailabilityGroup: flag('--allow-availability-group', { help: 'accept a database in an availability group (no durability guarantee)' }),
  yes: flag('--yes', {
    help: "confirm the plan; without it the plan is printed and nothing runs\n(also restores what a killed run left in the journal, or a gone run's\nownership marker on the database, once that run is gone)",
  }),
  ownerGraceMs: numberOption('--owner-grace', {
    placeholder: 'SECONDS',
    help: "how long recovery waits for a comparison on another machine that holds no\nconnection to come back before it restores that run's database (default 90)",
    rule: { min: 0, max: TIMER_LIMIT_SECONDS, unit: 'seconds' },
    initial: null,
    scale: (n) => Math.round(n * 1000),
  }),
  failBelow: numberOption('--fail-if-speedup-below', {
    placeholder: 'X',
    help: 'exit 8 when FORCED is not at least X times faster than DISABLED\n(median elapsed; needs both modes) — a CI gate for test suites',
    rule: { above: 0 },
    initial: null,
  }),
  sessions: converted('--sessions', {
    placeholder: 'LIST',
    help: `concurrency sweep, e.g. 1,4,16: the plan runs once per level, each run on
that many workload connections released together (at most ${MAX_SESSIONS_DEFAULT}; checked
against the server's user connections). '-- durability-lens: session-param
@session' in the script fills @session with 1..N (a typed int parameter)`,
  }, (raw) => {
    const levels = parseSessionLevels(raw);
    return typeof levels === 'string' ? invalid(`--${levels}`) : levels;
  }),
});

const OUTPUT = section('Output', {
  format: formatFlags('print the Markdown table (default)', `print the comparison document: originalSetting, restoredSetting,
modes [{mode, runs, median}], ratios, speedup, concurrency
[{sessions, mode, commitsPerSec, flushesPerCommit, writelogMsPerCommit, …}]
(docs/run-result-schema.md)`),
  out: outOption(),
});

const SECTIONS = [CONNECTION, RUN, COMPARISON, OUTPUT, PROGRAM, GATES] as const;

async function runCompare({ options: o, program: after }: ParsedCommandLine<typeof SECTIONS>, io: ConnectedCliIO, usageError: UsageFailure): Promise<number> {
  const program = programOf(o.command, after);
  if (typeof program === 'string') return usageError(program);
  const file = o.file;
  const { modes, repeat, failBelow, yes } = o;
  if (file === null && !program) return usageError('--file is missing (or give a program: --command, or -- PROGRAM)');
  if (file !== null && program) return usageError('give either a T-SQL FILE or a program, not both');
  if (o.sessions && program) return usageError('--sessions runs a T-SQL file on many connections; a program opens its own');
  const gateProblem = gateArgsProblem(o);
  if (gateProblem) return usageError(gateProblem);
  const baseline = readBaselineArg(io, o);
  if (typeof baseline === 'string') return usageError(baseline);
  // The program never inherits the variable the password came from (nor the default one).
  const workload = program ? new CommandWorkload(program, { onOutput: (_stream, text) => io.stderr(text), secretEnv: [o.passwordEnv] }) : null;
  const subject = file ?? workload!.batch.text;
  if (failBelow !== null && !(modes.includes('DISABLED') && modes.includes('FORCED'))) {
    return usageError('--fail-if-speedup-below compares FORCED with DISABLED: --modes must include both');
  }
  const resolved = resolveCliConnection(io, o);
  if (typeof resolved === 'string') return usageError(resolved);
  const { profile, secret, development } = resolved;
  const confirmed = yes || development;
  const fileScript = workload ? null : readBatches(io, file!);
  if (typeof fileScript === 'string') return usageError(fileScript);
  const script = fileScript ?? { batches: [workload!.batch], hasDelayedCommits: false };
  // What the workload itself changes, named in the plan as profile names it: --yes (or development) confirms it too.
  const changes = fileScript ? workloadChanges(fileScript.batches) : [];
  const runsAtLevels = o.sessions && o.sessions.length > 0 ? ', at every --sessions level' : '';

  const source = profileConnectionSource(profile, secret);
  const journal = journalOf(o);
  const lifecycle = runLifecycle(io, { journal });
  const { signal } = lifecycle;
  try {
    const recovery = await recoverPending(io, journal, profile, secret, source, { yes, checkMarker: true, ask: io.ask, ownerGraceMs: o.ownerGraceMs ?? undefined, signal });
    if (recovery === 'failed') return EXIT.restoreFailed;
    if (lifecycle.stoppedBy) {
      // A signal during the recovery (its wait for an owner ends at once): the comparison never starts.
      io.stderr(`Stopped by ${lifecycle.stoppedBy} before the comparison started: it changed nothing on ${profile.database} (what the recovery did is above).\n`);
      return signalExitCode(lifecycle.stoppedBy);
    }
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
      warmup: o.warmup,
      workloadHasDelayedCommits: script.hasDelayedCommits,
      sessions: o.sessions ?? undefined,
      allowAvailabilityGroup: o.allowAvailabilityGroup,
      journal,
      xe: { enabled: o.xe, statements: o.statements },
      ...runOptionsOf(o),
      // A program instead of T-SQL: the same plan, lock, journal and restore; its executor runs the program.
      setupBatches: workload ? 0 : o.setupBatches ?? undefined,
      executor: workload?.executor,
      finishRun: workload ? (run: RunResult) => workload.finishRun(run) : undefined,
      signal,
      confirm: (plan) => {
        io.stderr(`${describePlan(plan)}\n\n`);
        if (changes.length > 0) io.stderr(changesLine(changes, `${plan.order.length * Math.max(1, plan.sessions?.length ?? 0)} times (every run of the order above${runsAtLevels})`));
        if (!yes && development) io.stderr('Confirmed without --yes: the connection is marked as a development server.\n');
        if (!confirmed) io.stderr('Not confirmed: nothing was changed. Re-run with --yes to go ahead with this plan (or use a --connection NAME marked "development": true in the settings).\n');
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
        const problem = emitReport(io, doc.model, { json: o.format === 'json', out: o.out, title: `Durability comparison of ${subject}`, raw: {}, jsonDocument: doc, verdict: { restore } });
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
    if (result.error) io.stderr(`${logEntryText(result.error.message)}\n`);
    const restore = result.restore;
    if (restore) io.stderr(`${logEntryText(restore.message)}\n`);
    if (result.runs.length > 0) {
      try {
        gateRegressed = applyGates(io, o, baseline, result.runs, speedup, `durability-lens compare ${subject}`).regressed;
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
    if (err instanceof SetupMarkerError) return usageError(err.message);
    if (err instanceof QuestionInterruptedError) {
      io.stderr(`\n${err.message}\n`); // after the question's line, which Ctrl+C does not end
      return signalExitCode('SIGINT');
    }
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

export const compareCommand = declareCommand({
  name: 'compare',
  summary: 'run a T-SQL file under DELAYED_DURABILITY modes side by side and restore the database',
  synopsis: `Usage: durability-lens compare --connection NAME|CONNECTION_STRING --file workload.sql
         [--modes DISABLED,FORCED] [--repeat N] [--markdown|--json] [--fail-if-speedup-below X] [--yes]
       durability-lens compare --connection NAME|CONNECTION_STRING [options] --command "COMMAND LINE" | -- PROGRAM [ARGS...]`,
  about: `Runs the T-SQL file under each DELAYED_DURABILITY mode, repeated in alternating order (A B B A …) after an
uncounted warm-up, and prints median and min–max per mode with ratios and a diagnosis. The setting is
changed with ALTER DATABASE … WITH NO_WAIT from a separate connection, journalled before the first change,
and restored and verified at the end — also after an error or Ctrl+C. While FORCED, commits can be lost on a
crash: do not use it on a database whose recent commits matter.

Confirmation: the plan (server, database, current setting, the ALTERs, the event session each run creates, the data-loss caveat) is printed;
nothing changes without --yes, unless the named connection is marked "development": true in the settings.

Setup: lines between '-- durability-lens: setup' and '-- durability-lens: measure' (or the batches up to one
holding '-- durability-lens: setup-end', or the first N with --setup-batches N) run before every measured
run and are not measured (e.g. recreate the table). FILE may also be given without --file.`,
  sections: SECTIONS,
  operands: { label: 'FILE', max: 1, sameAs: 'file' },
  program: true,
  epilog: `${EXIT_CODES_TEXT} ${EXIT_GATE_REGRESSION}: a gate of --baseline regressed.`,
  run: runCompare,
});
