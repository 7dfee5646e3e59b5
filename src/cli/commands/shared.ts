// What the commands that connect share: the parsed connection options (sections.ts) turned into a profile and a
// password from the environment, journal recovery, output writing, progress and exit codes.
import * as fs from 'node:fs';
import { resolveConnection } from '../connectionOption';
import { ConnectionFailure } from '../../db/errors';
import type { ConnectionProfile } from '../../db/types';
import type { BenignWaitOptions } from '../../probes';
import { FileRestoreJournal, NotAJournalError } from '../../profile';
import { formatFromPath, jsonText as safeJson, toCsv, toJson, toMarkdown, type ComparisonModel, type VerdictContext } from '../../report';
import { progressLine } from '../../report/progress';
import type { MissingMeasurement, ProgressEvent } from '../../profile/types';
import { chooseWorkload, isRoutineBody, type ChosenBatch } from '../../profile/workloadChoice';
import { EXIT_OK, EXIT_USAGE, type CliIO } from '../io';
import type { ConnectionArgs, RunArgs } from './sections';

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

export const EXIT_CODES_TEXT = `Exit codes: 0 done, 1 unexpected failure, 2 usage error or unreadable file, 3 could not connect, 4 the
workload raised an SQL error, 5 refused (the plan, or a profiled script that changes data, not
confirmed; or the database may not be changed), 6 DELAYED_DURABILITY could NOT be restored (the exact
ALTER to run is printed), 7 the setting could not be changed (nothing changed),
8 --fail-if-speedup-below: FORCED was not at least X times faster than DISABLED (the report is still
printed), 9 another session changed DELAYED_DURABILITY during the comparison (that run was discarded;
the change was left, not overwritten), 11 the monitor connection (which holds the database) was lost:
the comparison took its claim back, stopped changing the database and restored it, 130 cancelled (Ctrl+C
or --timeout; the database is restored first). Ended by a signal after the restore: 129 SIGHUP,
130 SIGINT, 143 SIGTERM, 141 closed stdout (EPIPE); a second signal exits at once with the same code
after printing the exact ALTER still to run.`;

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
  /** The settings entry --connection named (null: a connection string or the --server flags). */
  named: string | null;
}

/**
 * --connection (profile name or connection string) or the --server/--database/--user flags → profile + secret.
 * Warnings go to stderr; a string is a usage error.
 */
export function resolveCliConnection(io: ConnectedCliIO, c: ConnectionArgs): CliConnection | string {
  let profile: ConnectionProfile;
  let secret: string | null;
  let development = false;
  let named: string | null = null;
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
    named = resolved.named;
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
  return { profile, secret: secret ?? undefined, development, named };
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

export { QuestionInterruptedError, recoverPending, terminalAsk, type AskYesNo, type RecoveryVerdict } from './recovery';
import type { AskYesNo } from './recovery';
import { logEntryText } from '../../shared/visibleText';

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
  io.stderr(`durability-lens ${command}: ${logEntryText(failure ?? (err as Error).message ?? String(err))}\n`);
  if (err instanceof NotAJournalError) return EXIT.usage; // a --journal that names the user's own file
  return failure ? EXIT.connection : EXIT.unexpected;
}

/** How often the CLI prints live workload progress (the extension's notification updates every 250 ms). */
export const CLI_LIVE_PROGRESS_MS = 2000;

/**
 * Progress on stderr in words ("… Run 3 of 7: FORCED — Running the workload: batch 1 of 1 — 4.20 s, 1,234 log
 * flushes, 4.82 MiB of log"), live figures at most every CLI_LIVE_PROGRESS_MS so a long run shows it is alive.
 */
/**
 * The stderr "Not measured" lines of profile/record: each reason with its GRANT, once (two traces refused for the same
 * reason print one line), and one "Not measured:" prefix even when the reason already starts with it.
 */
export function notMeasuredLines(missing: readonly MissingMeasurement[]): string {
  const seen = new Set<string>();
  let out = '';
  for (const m of missing) {
    const reason = /^Not measured:/i.test(m.reason) ? m.reason : `Not measured: ${m.reason}`;
    const line = `${reason}${m.grant ? `\n  To enable: ${m.grant.replace(/\r?\n/g, ' ')}` : ''}\n`;
    if (seen.has(line)) continue;
    seen.add(line);
    out += line;
  }
  return out;
}

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

/** The run options the flags set, built once; what a flag did not set is undefined and the runner's default applies. */
export function runOptionsOf(r: RunArgs): { sampling: { enabled: boolean; intervalMs: number | undefined }; workloadTimeoutMs: number | undefined; waits: BenignWaitOptions | undefined } {
  const benign = r.benignInclude.length > 0 || r.benignExclude.length > 0;
  return {
    sampling: { enabled: r.sampling, intervalMs: r.sampleIntervalMs ?? undefined },
    workloadTimeoutMs: r.workloadTimeoutMs ?? undefined,
    waits: benign ? { include: [...r.benignInclude], exclude: [...r.benignExclude] } : undefined,
  };
}
