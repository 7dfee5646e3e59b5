// What the profile and compare commands share: connection options (--connection NAME|CONNECTION_STRING or the
// older --server/--user flags), password from the environment, journal recovery, output writing and exit codes.
import * as fs from 'node:fs';
import { resolveConnection } from '../connectionOption';
import { ConnectionFailure } from '../../db/errors';
import type { ConnectionProfile } from '../../db/types';
import type { BenignWaitOptions } from '../../probes';
import { FileRestoreJournal, NotAJournalError } from '../../profile';
import { formatFromPath, jsonText as safeJson, toCsv, toJson, toMarkdown, type ComparisonModel, type VerdictContext } from '../../report';
import { progressLine } from '../../report/progress';
import type { ProgressEvent } from '../../profile/types';
import { chooseWorkload, isRoutineBody, type ChosenBatch } from '../../profile/workloadChoice';
import { EXIT_OK, EXIT_USAGE, shortUsage, type CliIO } from '../io';

/** Exit codes of profile and compare (documented in both usages). */
export const EXIT = {
  ok: EXIT_OK,
  unexpected: 1,
  usage: EXIT_USAGE,
  connection: 3,
  workloadError: 4,
  refused: 5,
  restoreFailed: 6,
  durabilityChangeFailed: 7,
  speedupBelowThreshold: 8,
  externalChange: 9,
  ownershipLost: 11,
  cancelled: 130,
} as const;

export const EXIT_CODES_TEXT = `Exit codes: 0 done, 1 unexpected failure, 2 usage error or unreadable file, 3 could not connect,
4 the workload raised an SQL error, 5 refused (plan not confirmed, or the database may not be changed),
6 DELAYED_DURABILITY could NOT be restored (the exact ALTER to run is printed), 7 the setting could not be
changed (nothing changed), 8 --fail-if-speedup-below: FORCED was not at least X times faster than
DISABLED (the report is still printed), 9 another session changed DELAYED_DURABILITY during the comparison (that
run was discarded; the change was left, not overwritten), 11 the monitor connection (which holds the
database) was lost: the comparison took its claim back, stopped changing the database and restored it,
130 cancelled (Ctrl+C or --timeout; the database is restored first). Ended by a signal after the restore: 129 SIGHUP, 130 SIGINT, 143 SIGTERM, 141 closed stdout
(EPIPE); a second signal exits at once with the same code after printing the exact ALTER still to run.`;

export const CONNECTION_USAGE = `Connection:
  --connection NAME|STRING      a profile name from the durabilityLens.connections setting, or an ADO.NET
                                connection string ("Server=host,1433;Database=lab;User Id=me;Encrypt=true")
  --settings PATH               settings file holding durabilityLens.connections (default: VS Code's
                                user settings.json; a folder's .vscode/settings.json is never read)
  --connect-timeout SECONDS     give up connecting after this long (default 15)
  Or, instead of --connection:
  --server HOST                 server name or address
  --port N                      TCP port (default 1433)
  --database NAME               database to run in
  --user NAME                   SQL login
  --password-env VAR            read the password from environment variable VAR
                                (default: DURABILITY_LENS_PASSWORD); passwords are never taken as arguments
  --encrypt true|false|strict   TLS mode (default true; strict = TDS 8.0)
  --trust-server-certificate    accept a certificate this machine does not trust
  --journal PATH                restore journal folder, one file per entry
                                (default ~/.durability-lens/restore-journal)`;

/** The CLI IO plus what connected commands need; absent members fall back to the process. */
export interface ConnectedCliIO extends CliIO {
  env?: Readonly<Record<string, string | undefined>>;
  writeFile?(path: string, text: string): void;
  /** Cancels the run (tests); the process wires Ctrl+C instead. */
  signal?: AbortSignal;
  /** The working folder (default: process.cwd()); its .vscode/settings.json is only reported as ignored. */
  cwd?: string;
  /** VS Code's user settings.json (default: the platform's path); tests point it elsewhere. */
  userSettings?: string;
  /** Answers the journal-recovery question (tests); default: the terminal, or no answer without one. */
  ask?: AskYesNo;
}

export interface ConnectionArgs {
  server: string | null;
  port: number | null;
  database: string | null;
  user: string | null;
  passwordEnv: string;
  encrypt: boolean | 'strict';
  trustServerCertificate: boolean;
  journal: string | null;
  connection: string | null;
  settings: string | null;
  connectTimeoutMs: number | null;
}

export function newConnectionArgs(): ConnectionArgs {
  return { server: null, port: null, database: null, user: null, passwordEnv: 'DURABILITY_LENS_PASSWORD', encrypt: true, trustServerCertificate: false, journal: null, connection: null, settings: null, connectTimeoutMs: null };
}

/** Consumes one connection option at args[i]; returns how many items it used (0 = not a connection option) or an error. */
export function takeConnectionArg(args: readonly string[], i: number, into: ConnectionArgs): number | string {
  const arg = args[i]!;
  if (arg === '--trust-server-certificate') {
    into.trustServerCertificate = true;
    return 1;
  }
  if (arg === '--password' || arg.startsWith('--password=')) return 'passwords are not accepted on the command line; put it in an environment variable (--password-env VAR)';
  const valued = ['--server', '--port', '--database', '--user', '--password-env', '--encrypt', '--journal', '--connection', '--settings', '--connect-timeout'];
  if (!valued.includes(arg)) return 0;
  const value = args[i + 1];
  if (value === undefined) return `${arg} needs a value`;
  switch (arg) {
    case '--server': into.server = value; break;
    case '--port': {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 65535) return `--port must be 1..65535, not '${value}'`;
      into.port = n;
      break;
    }
    case '--database': into.database = value; break;
    case '--user': into.user = value; break;
    case '--password-env': into.passwordEnv = value; break;
    case '--encrypt': {
      const v = value.toLowerCase();
      if (v !== 'true' && v !== 'false' && v !== 'strict') return `--encrypt must be true, false or strict, not '${value}'`;
      into.encrypt = v === 'strict' ? 'strict' : v === 'true';
      break;
    }
    case '--journal': into.journal = value; break;
    case '--connection': into.connection = value; break;
    case '--settings': into.settings = value; break;
    case '--connect-timeout': {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0) return `--connect-timeout must be a positive number of seconds, not '${value}'`;
      into.connectTimeoutMs = Math.round(n * 1000);
      break;
    }
  }
  return 2;
}

export function connectionProfileOf(c: ConnectionArgs): ConnectionProfile | string {
  if (!c.server) return '--connection (or --server) is required';
  if (!c.database) return '--database is required';
  if (!c.user) return '--user is required';
  return {
    server: c.server,
    port: c.port ?? undefined,
    database: c.database,
    authentication: { type: 'sql', user: c.user },
    encrypt: c.encrypt,
    trustServerCertificate: c.trustServerCertificate,
    appName: 'Durability Lens CLI',
  };
}

/** A resolved connection: the profile, its secret, and whether the settings entry marks a development server. */
export interface CliConnection {
  profile: ConnectionProfile;
  secret: string | undefined;
  development: boolean;
}

/**
 * --connection (profile name or connection string) or the --server/--database/--user flags → profile + secret.
 * Warnings go to stderr; a string is a usage error.
 */
export function resolveCliConnection(io: ConnectedCliIO, c: ConnectionArgs): CliConnection | string {
  let profile: ConnectionProfile;
  let secret: string | null;
  let development = false;
  if (c.connection !== null) {
    if (c.server || c.user) return '--connection cannot be combined with --server/--user';
    const env = io.env ?? process.env;
    const resolved = resolveConnection(c.connection, {
      readFile: (p) => io.readFile(p),
      exists: (p) => fs.existsSync(p),
      cwd: io.cwd ?? process.cwd(),
      env,
      settingsPath: c.settings,
      passwordEnv: c.passwordEnv,
      userSettings: io.userSettings,
    });
    if (typeof resolved === 'string') return resolved;
    for (const w of resolved.warnings) io.stderr(`${w}\n`);
    profile = resolved.profile;
    secret = resolved.secret;
    development = resolved.development;
    if (c.database) profile = { ...profile, database: c.database };
  } else {
    const p = connectionProfileOf(c);
    if (typeof p === 'string') return p;
    profile = p;
    secret = passwordFrom(io, c);
  }
  if (c.connectTimeoutMs !== null) profile = { ...profile, connectTimeoutMs: c.connectTimeoutMs };
  const needsSecret = ['sql', 'ntlm', 'entra-password', 'entra-access-token', 'entra-service-principal'].includes(profile.authentication.type);
  if (needsSecret && secret === null) return `no password: set the environment variable ${c.passwordEnv}`;
  // tedious has no login-only encryption: with encrypt false the password itself crosses the network readable.
  if (needsSecret && profile.encrypt === false) io.stderr(`Warning: encryption is off for ${profile.server}: the ${profile.authentication.type === 'entra-access-token' ? 'token' : 'password'} is sent in clear text. Use --encrypt true (or "encrypt": true in the profile) unless this is a lab server on a trusted network.\n`);
  return { profile, secret: secret ?? undefined, development };
}

export function passwordFrom(io: ConnectedCliIO, c: ConnectionArgs): string | null {
  const env = io.env ?? process.env;
  const value = env[c.passwordEnv];
  return value === undefined || value === '' ? null : value;
}

/**
 * Reads FILE and splits it into batches (BOM dropped, as the analyze command does), as written: naming the file chooses
 * exactly that text, as a selection of all of it does in the editor (docs/selection.md); the run honours its setup markers.
 */
export function readBatches(io: CliIO, file: string): { batches: ChosenBatch[]; hasDelayedCommits: boolean } | string {
  let text: string;
  try {
    text = io.readFile(file);
  } catch (error) {
    return `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const chosen = chooseWorkload(text, { kind: 'selection', start: 0, end: text.length });
  if (!chosen || isRoutineBody(chosen) || chosen.kind !== 'selection') return `${file} holds only comments or blank lines: there is nothing to run. Nothing was run.`;
  return { batches: chosen.batches, hasDelayedCommits: chosen.hasDelayedCommits };
}

export { recoverPending, terminalAsk, type AskYesNo, type RecoveryVerdict } from './recovery';
import type { AskYesNo } from './recovery';

export function journalOf(c: ConnectionArgs): FileRestoreJournal {
  return c.journal ? new FileRestoreJournal(c.journal) : new FileRestoreJournal();
}

/**
 * Writes the report to --out (format from the extension) and/or stdout. JSON is `jsonDocument` when given (the
 * RunResult or the comparison document, whose keys are documented), else the model with `raw`.
 */
export function emitReport(io: ConnectedCliIO, model: ComparisonModel, options: { json: boolean; out: string | null; title: string; raw: Record<string, unknown>; jsonDocument?: unknown; verdict?: VerdictContext }): string | null {
  const jsonText = () => (options.jsonDocument !== undefined ? `${safeJson(options.jsonDocument)}\n` : toJson(model, options.raw));
  if (options.out) {
    const format = formatFromPath(options.out);
    if (!format) return `--out must end in .md, .csv or .json, not '${options.out}'`;
    const text = format === 'markdown' ? toMarkdown(model, options.title, options.verdict) : format === 'csv' ? toCsv(model) : jsonText();
    (io.writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8')))(options.out, text);
  }
  io.stdout(options.json ? jsonText() : toMarkdown(model, options.title, options.verdict));
  return null;
}

export function connectionFailureText(err: unknown): string | null {
  // The extension's advice points at its output channel; a terminal has none, so it gets the driver message itself.
  if (err instanceof ConnectionFailure) return `${err.info.message} ${/output channel/i.test(err.info.action) ? `Driver message: ${err.info.driverMessage}` : err.info.action}`;
  return null;
}

/** The last resort of a command that connects: a connection failure (with its advice) or an unexpected error, one line. */
export function failureExit(io: CliIO, command: string, err: unknown): number {
  const failure = connectionFailureText(err);
  io.stderr(`durability-lens ${command}: ${failure ?? (err as Error).message ?? String(err)}\n`);
  if (err instanceof NotAJournalError) return EXIT.usage; // a --journal that names the user's own file
  return failure ? EXIT.connection : EXIT.unexpected;
}

/** How often the CLI prints live workload progress (the extension's notification updates every 250 ms). */
export const CLI_LIVE_PROGRESS_MS = 2000;

/**
 * Progress on stderr in words ("… Run 3 of 7: FORCED — Running the workload: batch 1 of 1 — 4.20 s, 1,234 log
 * flushes, 4.82 MiB of log"), live figures at most every CLI_LIVE_PROGRESS_MS so a long run shows it is alive.
 */
export function progressPrinter(io: CliIO, now: () => number = Date.now): (e: ProgressEvent) => void {
  let lastLive = 0;
  return (e) => {
    if (e.step === 'workload-progress') {
      if (now() - lastLive < CLI_LIVE_PROGRESS_MS) return;
      lastLive = now();
    }
    io.stderr(`… ${progressLine(e)}\n`);
  };
}

/** A usage error is the problem, the usage line and where the options are, not the whole help (issue 20). */
export function usageError(io: CliIO, command: string, message: string, text: string): number {
  io.stderr(shortUsage(command, message, text));
  return EXIT.usage;
}


/** --timeout SECONDS / --sample-interval MS / --no-sampling / --benign-include|exclude, shared by profile and compare. */
export interface RunArgs {
  workloadTimeoutMs: number | null;
  sampleIntervalMs: number | null;
  sampling: boolean;
  benignInclude: string[];
  benignExclude: string[];
  /** --no-statements: no per-statement event session. */
  statements: boolean;
}

export function newRunArgs(): RunArgs {
  return { workloadTimeoutMs: null, sampleIntervalMs: null, sampling: true, benignInclude: [], benignExclude: [], statements: true };
}

export const RUN_USAGE = `Run:
  --timeout SECONDS             cancel the workload after this long (the run is reported as cancelled)
  --sample-interval MS          sample per-file IO and log flushes every MS ms while it runs (default 1000)
  --no-sampling                 no samples during the run
  --no-xe                       do not create the log-flush (nor the per-statement) event session
  --no-statements               do not trace the workload's statements (no per-statement attribution)
  --benign-include W1,W2        show these wait types although the shipped benign list hides them
                                (e.g. PREEMPTIVE_OS_FLUSHFILEBUFFERS)
  --benign-exclude W1,W2        hide these wait types from the server waits as benign`;

export function takeRunArg(args: readonly string[], i: number, into: RunArgs): number | string {
  const arg = args[i]!;
  if (arg === '--no-sampling') {
    into.sampling = false;
    return 1;
  }
  if (arg === '--no-statements') {
    into.statements = false;
    return 1;
  }
  if (arg === '--benign-include' || arg === '--benign-exclude') {
    const names = (args[i + 1] ?? '').split(',').map((w) => w.trim()).filter((w) => w.length > 0);
    if (names.length === 0) return `${arg} needs a comma-separated list of wait types`;
    (arg === '--benign-include' ? into.benignInclude : into.benignExclude).push(...names);
    return 2;
  }
  if (arg !== '--timeout' && arg !== '--sample-interval') return 0;
  const value = args[i + 1];
  const n = Number(value);
  if (value === undefined || !Number.isFinite(n) || n <= 0) return `${arg} needs a positive number, not '${value ?? ''}'`;
  if (arg === '--timeout') into.workloadTimeoutMs = Math.round(n * 1000);
  else into.sampleIntervalMs = Math.round(n);
  return 2;
}

/** The run options the flags set, built once; what a flag did not set is undefined and the runner's default applies. */
export function runOptionsOf(r: RunArgs): { sampling: { enabled: boolean; intervalMs: number | undefined }; workloadTimeoutMs: number | undefined; waits: BenignWaitOptions | undefined } {
  const benign = r.benignInclude.length > 0 || r.benignExclude.length > 0;
  return {
    sampling: { enabled: r.sampling, intervalMs: r.sampleIntervalMs ?? undefined },
    workloadTimeoutMs: r.workloadTimeoutMs ?? undefined,
    waits: benign ? { include: [...r.benignInclude], exclude: [...r.benignExclude] } : undefined,
  };
}

/** A connection or run option at args[i]: items used (0 = neither), or a usage error. */
export function takeOption(args: readonly string[], i: number, conn: ConnectionArgs, run: RunArgs): number | string {
  const used = takeConnectionArg(args, i, conn);
  if (used !== 0) return used;
  return takeRunArg(args, i, run);
}
