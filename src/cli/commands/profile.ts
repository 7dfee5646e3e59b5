// `durability-lens profile FILE --server H ...`: runs a T-SQL file once between snapshots and prints the report.
// Also holds what profile and compare share: connection options, password from the environment, journal recovery,
// output writing and exit codes.
import * as fs from 'node:fs';
import { ConnectionFailure } from '../../db/errors';
import type { ConnectionProfile } from '../../db/types';
import {
  FileRestoreJournal,
  pendingRestores,
  profileConnectionSource,
  profileRun,
  recoverFromJournal,
  type ConnectionSource,
  type RestoreJournal,
} from '../../profile';
import { connect } from '../../db/connect';
import { buildComparisonModel, formatFromPath, toCsv, toJson, toMarkdown, type ComparisonModel } from '../../report';
import { analyze } from '../../tsql/index';
import type { Batch } from '../../tsql/types';
import { EXIT_OK, EXIT_USAGE, type CliCommand, type CliIO } from '../io';

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
  cancelled: 130,
} as const;

export const EXIT_CODES_TEXT = `Exit codes: 0 done, 1 unexpected failure, 2 usage error or unreadable file, 3 could not connect,
4 the workload raised an SQL error, 5 refused (plan not confirmed, or the database may not be changed),
6 DELAYED_DURABILITY could NOT be restored (the exact ALTER to run is printed), 7 the setting could not be
changed (nothing changed), 130 cancelled (Ctrl+C; the database is restored first).`;

export const CONNECTION_USAGE = `Connection:
  --server HOST                 server name or address (required)
  --port N                      TCP port (default 1433)
  --database NAME               database to run in (required)
  --user NAME                   SQL login (required)
  --password-env VAR            read the password from environment variable VAR
                                (default: DURABILITY_LENS_PASSWORD); passwords are never taken as arguments
  --encrypt true|false|strict   TLS mode (default true; strict = TDS 8.0)
  --trust-server-certificate    accept a certificate this machine does not trust
  --journal PATH                restore journal file (default ~/.durability-lens/restore-journal.json)`;

/** The CLI IO plus what connected commands need; absent members fall back to the process. */
export interface ConnectedCliIO extends CliIO {
  env?: Readonly<Record<string, string | undefined>>;
  writeFile?(path: string, text: string): void;
  /** Cancels the run (tests); the process wires Ctrl+C instead. */
  signal?: AbortSignal;
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
}

export function newConnectionArgs(): ConnectionArgs {
  return { server: null, port: null, database: null, user: null, passwordEnv: 'DURABILITY_LENS_PASSWORD', encrypt: true, trustServerCertificate: false, journal: null };
}

/** Consumes one connection option at args[i]; returns how many items it used (0 = not a connection option) or an error. */
export function takeConnectionArg(args: readonly string[], i: number, into: ConnectionArgs): number | string {
  const arg = args[i]!;
  if (arg === '--trust-server-certificate') {
    into.trustServerCertificate = true;
    return 1;
  }
  if (arg === '--password' || arg.startsWith('--password=')) return 'passwords are not accepted on the command line; put it in an environment variable (--password-env VAR)';
  const valued = ['--server', '--port', '--database', '--user', '--password-env', '--encrypt', '--journal'];
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
  }
  return 2;
}

export function connectionProfileOf(c: ConnectionArgs): ConnectionProfile | string {
  if (!c.server) return '--server is required';
  if (!c.database) return '--database is required';
  if (!c.user) return '--user is required';
  return {
    server: c.server,
    ...(c.port !== null ? { port: c.port } : {}),
    database: c.database,
    authentication: { type: 'sql', user: c.user },
    encrypt: c.encrypt,
    trustServerCertificate: c.trustServerCertificate,
    appName: 'Durability Lens CLI',
  };
}

export function passwordFrom(io: ConnectedCliIO, c: ConnectionArgs): string | null {
  const env = io.env ?? process.env;
  const value = env[c.passwordEnv];
  return value === undefined || value === '' ? null : value;
}

/** Reads FILE and splits it into batches (BOM dropped, as the analyze command does). */
export function readBatches(io: CliIO, file: string): { batches: Batch[]; hasDelayedCommits: boolean } | string {
  let text: string;
  try {
    text = io.readFile(file);
  } catch (error) {
    return `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const analysis = analyze(text);
  return { batches: analysis.batches, hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON') };
}

/**
 * Start of every connected command: entries a crashed run left for this server are restored now. Returns false
 * (after printing the exact statement) when one could not be restored: nothing else should run then.
 */
export async function recoverPending(io: CliIO, journal: RestoreJournal, profile: ConnectionProfile, secret: string, source: ConnectionSource): Promise<boolean> {
  const pending = await pendingRestores(journal, source.serverLabel);
  if (pending.length === 0) return true;
  io.stderr(`Found ${pending.length} unfinished restore(s) in the journal for ${source.serverLabel}; restoring first.\n`);
  const outcomes = await recoverFromJournal(journal, (entry) => connect({ ...profile, database: entry.database }, secret, { role: 'monitor' }), pending);
  let ok = true;
  for (const o of outcomes) {
    io.stderr(`  ${o.message}\n`);
    if (o.status === 'failed') ok = false;
  }
  return ok;
}

export function journalOf(c: ConnectionArgs): FileRestoreJournal {
  return c.journal ? new FileRestoreJournal(c.journal) : new FileRestoreJournal();
}

/** Writes the model to --out (format from the extension) and/or stdout. */
export function emitReport(io: ConnectedCliIO, model: ComparisonModel, options: { json: boolean; out: string | null; title: string; raw: Record<string, unknown> }): string | null {
  if (options.out) {
    const format = formatFromPath(options.out);
    if (!format) return `--out must end in .md, .csv or .json, not '${options.out}'`;
    const text = format === 'markdown' ? toMarkdown(model, options.title) : format === 'csv' ? toCsv(model) : toJson(model, options.raw);
    (io.writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8')))(options.out, text);
  }
  io.stdout(options.json ? toJson(model, options.raw) : toMarkdown(model, options.title));
  return null;
}

/** Ctrl+C cancels the run (which restores the database before exiting); a second Ctrl+C is left to Node. */
export function cancellation(io: ConnectedCliIO): { signal: AbortSignal; dispose(): void } {
  if (io.signal) return { signal: io.signal, dispose: () => undefined };
  const controller = new AbortController();
  const onSigint = () => {
    io.stderr('Cancelling: stopping the workload and restoring the database…\n');
    controller.abort();
  };
  process.once('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => process.removeListener('SIGINT', onSigint) };
}

export function connectionFailureText(err: unknown): string | null {
  if (err instanceof ConnectionFailure) return `${err.info.message} ${err.info.action}`;
  return null;
}

const usage = `Usage: durability-lens profile FILE --server HOST --database NAME --user NAME [options]

Runs the T-SQL file once on a WORKLOAD connection, wrapped in before/after snapshots taken on a MONITOR
connection (per-file IO, waits of the session, log counters, log space/VLFs, and an Extended Events
log-flush trace when permitted), and prints the measurements and a diagnosis. Nothing is changed on the
server except what the script itself does.

${CONNECTION_USAGE}

Output:
  --json                        print the JSON model (with the raw run) instead of Markdown
  --out PATH                    also write the report to PATH (.md, .csv or .json)
  --no-xe                       do not create the log-flush event session

${EXIT_CODES_TEXT}
`;

export async function runProfile(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  let file: string | null = null;
  let json = false;
  let out: string | null = null;
  let xe = true;
  for (let i = 0; i < args.length; i++) {
    const used = takeConnectionArg(args, i, conn);
    if (typeof used === 'string') return usageError(io, 'profile', used, usage);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--no-xe') xe = false;
    else if (arg === '--out') {
      out = args[++i] ?? null;
      if (out === null) return usageError(io, 'profile', '--out needs a value', usage);
    } else if (arg.startsWith('-')) return usageError(io, 'profile', `unknown option '${arg}'`, usage);
    else if (file === null) file = arg;
    else return usageError(io, 'profile', `only one FILE, got '${file}' and '${arg}'`, usage);
  }
  if (file === null) return usageError(io, 'profile', 'FILE is missing', usage);
  const profile = connectionProfileOf(conn);
  if (typeof profile === 'string') return usageError(io, 'profile', profile, usage);
  const secret = passwordFrom(io, conn);
  if (secret === null) return usageError(io, 'profile', `no password: set the environment variable ${conn.passwordEnv}`, usage);
  const script = readBatches(io, file);
  if (typeof script === 'string') return usageError(io, 'profile', script, usage);

  const source = profileConnectionSource(profile, secret);
  const { signal, dispose } = cancellation(io);
  try {
    if (!(await recoverPending(io, journalOf(conn), profile, secret, source))) return EXIT.restoreFailed;
    const run = await profileRun({
      connections: source,
      batches: script.batches,
      target: { kind: 'document', label: file },
      signal,
      xe: { enabled: xe },
      onProgress: (e) => io.stderr(`… ${e.step}${e.detail ? ` ${e.detail}` : ''}\n`),
      onMessage: (m) => io.stderr(`${m.kind === 'error' ? `Msg ${m.number}` : 'Info'}${m.documentLine !== null ? ` (line ${m.documentLine + 1})` : ''}: ${m.message}\n`),
    });
    const model = buildComparisonModel([run]);
    const problem = emitReport(io, model, { json, out, title: `Profile of ${file}`, raw: { run } });
    if (problem) return usageError(io, 'profile', problem, usage);
    for (const m of run.missing) io.stderr(`Not measured: ${m.reason}${m.grant ? `\n  To enable: ${m.grant.replace(/\n/g, ' ')}` : ''}\n`);
    return run.status === 'workload-error' ? EXIT.workloadError : EXIT.ok;
  } catch (err) {
    if ((err as Error).name === 'AbortError') {
      io.stderr('Cancelled. Nothing of the run was kept; the event session was dropped.\n');
      return EXIT.cancelled;
    }
    const failure = connectionFailureText(err);
    if (failure) {
      io.stderr(`durability-lens profile: ${failure}\n`);
      return EXIT.connection;
    }
    io.stderr(`durability-lens profile: ${(err as Error).message ?? String(err)}\n`);
    return EXIT.unexpected;
  } finally {
    dispose();
  }
}

export function usageError(io: CliIO, command: string, message: string, text: string): number {
  io.stderr(`durability-lens ${command}: ${message}.\n\n${text}`);
  return EXIT.usage;
}

export const profileCommand: CliCommand = {
  name: 'profile',
  summary: 'run a T-SQL file between snapshots and report log flushes, WRITELOG and per-file IO',
  usage,
  run: (args, io) => runProfile(args, io),
};
