// `durability-lens compare FILE ... --modes DISABLED,FORCED --repeat 3 --yes`: runs the file under each
// DELAYED_DURABILITY mode (alternating, repeated), restores the database, prints the comparison table.
import { describePlan, DURABILITY_MODES, profileConnectionSource, runComparison, type DurabilityMode } from '../../profile';
import { buildComparisonModel } from '../../report';
import type { CliCommand } from '../io';
import {
  cancellation,
  CONNECTION_USAGE,
  connectionFailureText,
  connectionProfileOf,
  emitReport,
  EXIT,
  EXIT_CODES_TEXT,
  journalOf,
  newConnectionArgs,
  passwordFrom,
  readBatches,
  recoverPending,
  takeConnectionArg,
  usageError,
  type ConnectedCliIO,
} from './profile';

const usage = `Usage: durability-lens compare FILE --server HOST --database NAME --user NAME [options] --yes

Runs the T-SQL file under each DELAYED_DURABILITY mode, repeated in alternating order (A B B A …) after an
uncounted warm-up, and prints median and min–max per mode with ratios and a diagnosis. The setting is
changed with ALTER DATABASE … WITH NO_WAIT from a separate connection, journalled before the first change,
and restored and verified at the end — also after an error or Ctrl+C. While FORCED, commits can be lost on a
crash: do not use it on a database whose recent commits matter.

Setup: batches up to and including the one holding a '-- durability-lens: setup-end' comment (or the first N
with --setup-batches N) run before every measured run and are not measured (e.g. recreate the table).

${CONNECTION_USAGE}

Comparison:
  --modes LIST                  comma-separated DISABLED, ALLOWED, FORCED (default DISABLED,FORCED);
                                ALLOWED delays only COMMITs written WITH (DELAYED_DURABILITY = ON)
  --repeat N                    measured runs per mode (default 3)
  --no-warmup                   no uncounted warm-up run
  --setup-batches N             the first N batches are setup
  --allow-availability-group    accept a database in an availability group (no durability guarantee)
  --no-xe                       do not create log-flush event sessions
  --yes                         confirm the plan; without it the plan is printed and nothing runs

Output:
  --json                        print the JSON model (with plan, runs and restore outcome)
  --out PATH                    also write the report to PATH (.md, .csv or .json)

${EXIT_CODES_TEXT}
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
  for (let i = 0; i < args.length; i++) {
    const used = takeConnectionArg(args, i, conn);
    if (typeof used === 'string') return usageError(io, 'compare', used, usage);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--no-xe') xe = false;
    else if (arg === '--yes') yes = true;
    else if (arg === '--no-warmup') warmup = false;
    else if (arg === '--allow-availability-group') allowAg = true;
    else if (arg === '--out') {
      out = args[++i] ?? null;
      if (out === null) return usageError(io, 'compare', '--out needs a value', usage);
    } else if (arg === '--modes') {
      const parsed = parseModes(args[++i] ?? '');
      if (typeof parsed === 'string') return usageError(io, 'compare', parsed, usage);
      modes = parsed;
    } else if (arg === '--repeat') {
      const n = positiveInt(args[++i], '--repeat', 1);
      if (typeof n === 'string') return usageError(io, 'compare', n, usage);
      repeat = n;
    } else if (arg === '--setup-batches') {
      const n = positiveInt(args[++i], '--setup-batches', 0);
      if (typeof n === 'string') return usageError(io, 'compare', n, usage);
      setupBatches = n;
    } else if (arg.startsWith('-')) return usageError(io, 'compare', `unknown option '${arg}'`, usage);
    else if (file === null) file = arg;
    else return usageError(io, 'compare', `only one FILE, got '${file}' and '${arg}'`, usage);
  }
  if (file === null) return usageError(io, 'compare', 'FILE is missing', usage);
  const profile = connectionProfileOf(conn);
  if (typeof profile === 'string') return usageError(io, 'compare', profile, usage);
  const secret = passwordFrom(io, conn);
  if (secret === null) return usageError(io, 'compare', `no password: set the environment variable ${conn.passwordEnv}`, usage);
  const script = readBatches(io, file);
  if (typeof script === 'string') return usageError(io, 'compare', script, usage);

  const source = profileConnectionSource(profile, secret);
  const journal = journalOf(conn);
  const { signal, dispose } = cancellation(io);
  try {
    if (!(await recoverPending(io, journal, profile, secret, source))) return EXIT.restoreFailed;
    const result = await runComparison({
      connections: source,
      batches: script.batches,
      ...(setupBatches !== undefined ? { setupBatches } : {}),
      modes,
      repetitions: repeat,
      warmup,
      workloadHasDelayedCommits: script.hasDelayedCommits,
      allowAvailabilityGroup: allowAg,
      journal,
      xe: { enabled: xe },
      signal,
      confirm: (plan) => {
        io.stderr(`${describePlan(plan)}\n\n`);
        if (!yes) io.stderr('Not confirmed: nothing was changed. Re-run with --yes to go ahead with this plan.\n');
        return yes;
      },
      onProgress: (e) => io.stderr(`… ${e.step}${e.detail ? ` ${e.detail}` : ''}\n`),
    });
    if (result.status === 'refused' || result.status === 'declined') {
      if (result.status === 'refused') io.stderr(`${describePlan(result.plan)}\n\nRefused: nothing was changed.\n`);
      return EXIT.refused;
    }
    if (result.runs.length > 0) {
      const model = buildComparisonModel(result.runs);
      const problem = emitReport(io, model, { json, out, title: `Durability comparison of ${file}`, raw: { plan: result.plan, status: result.status, restore: result.restore, error: result.error, runs: result.runs } });
      if (problem) io.stderr(`durability-lens compare: ${problem}\n`);
    }
    if (result.error) io.stderr(`${result.error.message}\n`);
    const restore = result.restore;
    if (restore) io.stderr(`${restore.message}\n`);
    if (restore?.status === 'failed') {
      io.stderr(`\nThe database was NOT restored. Run this on ${restore.server}:\n  ${restore.restoreStatement}\n`);
      return EXIT.restoreFailed;
    }
    switch (result.status) {
      case 'completed':
        return EXIT.ok;
      case 'cancelled':
        return EXIT.cancelled;
      case 'workload-error':
        return EXIT.workloadError;
      default:
        return result.error?.kind === 'durability-change' ? EXIT.durabilityChangeFailed : EXIT.unexpected;
    }
  } catch (err) {
    const failure = connectionFailureText(err);
    if (failure) {
      io.stderr(`durability-lens compare: ${failure}\n`);
      return EXIT.connection;
    }
    io.stderr(`durability-lens compare: ${(err as Error).message ?? String(err)}\n`);
    return EXIT.unexpected;
  } finally {
    dispose();
  }
}

export const compareCommand: CliCommand = {
  name: 'compare',
  summary: 'run a T-SQL file under DELAYED_DURABILITY modes side by side and restore the database',
  usage,
  run: (args, io) => runCompare(args, io),
};
