// `durability-lens top-log --connection NAME|STRING [--hours 24] [--by log|wait|alone] [--top 25] [--json] [--out PATH]`:
// the heaviest log writers of the connected database from Query Store's history (issue 30) — read-only, one monitor
// connection, two round trips after the server's identity. Query Store off, read-only, in error, or not readable by
// this login: a clear outcome with the exact statement that fixes it and what that costs (never run by us).
import * as fs from 'node:fs';
import { connect, type TediousSession } from '../../db';
import { DEFAULT_TOP, DEFAULT_WINDOW_HOURS, MAX_TOP, MAX_WINDOW_HOURS, readQueryStoreOfConnection } from '../../probes/queryStore';
import type { TopLogRanking } from '../../probes/queryStoreSql';
import { buildTopLogDocument } from '../../report/topLog';
import { jsonText } from '../../report/jsonText';
import { describeTopLog } from '../../report/topLogText';
import type { CliCommand } from '../io';
import { CONNECTION_USAGE, EXIT, failureExit, newConnectionArgs, resolveCliConnection, takeConnectionArg, usageError, type ConnectedCliIO } from './shared';

const usage = `Usage: durability-lens top-log --connection NAME|CONNECTION_STRING [--hours N] [--by log|wait|alone]
                               [--top N] [--json] [--out PATH]

Ranks the connected database's queries and their procedures by the transaction log they wrote, from Query
Store's history (SQL Server 2016+, Azure SQL Database, Managed Instance). Read-only: nothing is created or
changed on the server. Each row: the procedure (schema.name) or "ad hoc", the statement, query_id and
query_hash, executions (per day over an hour or more), log bytes in total and per execution, log-IO wait
(Query Store wait category "Tran Log IO", SQL Server 2017+), duration, first and last seen.

${CONNECTION_USAGE}

Window and ranking:
  --hours N                     how far back to read (default ${DEFAULT_WINDOW_HOURS}; up to ${MAX_WINDOW_HOURS}); Query Store aggregates per
                                interval, so the span read starts at the interval holding the window's start
  --by log|wait|alone           log: total log bytes (default) · wait: log-IO wait time · alone: executions that
                                each commit on their own (many executions, small log each, waiting on the flush)
  --top N                       rows to return (default ${DEFAULT_TOP}, at most ${MAX_TOP})

Output:
  --json                        print the document described in docs/run-result-schema.md ("Heaviest log writers")
  --out PATH                    also write that JSON to PATH

Exit codes: 0 done (figures the server does not keep read "not measured", with why), 1 unexpected failure
(also: the read failed part way, e.g. a dropped connection),
2 usage error, 3 could not connect, 5 Query Store cannot be read here (off, in error, or the login lacks
VIEW DATABASE STATE / VIEW DATABASE PERFORMANCE STATE): the output names the statement that fixes it.
`;

interface TopLogArgs {
  hours: number;
  top: number;
  by: TopLogRanking;
  json: boolean;
  out: string | null;
}

function parseArgs(args: readonly string[], conn: ReturnType<typeof newConnectionArgs>): TopLogArgs | string {
  const parsed: TopLogArgs = { hours: DEFAULT_WINDOW_HOURS, top: DEFAULT_TOP, by: 'log', json: false, out: null };
  for (let i = 0; i < args.length; i++) {
    const used = takeConnectionArg(args, i, conn);
    if (typeof used === 'string') return used;
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    if (arg === '--json') {
      parsed.json = true;
      continue;
    }
    if (!['--hours', '--top', '--by', '--out'].includes(arg)) return `unknown option '${arg}'`;
    const value = args[++i];
    if (value === undefined) return `${arg} needs a value`;
    if (arg === '--hours') {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= 0 || n > MAX_WINDOW_HOURS) return `--hours must be a number of hours above 0 and at most ${MAX_WINDOW_HOURS}, not '${value}'`;
      parsed.hours = n;
    } else if (arg === '--top') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > MAX_TOP) return `--top must be a whole number from 1 to ${MAX_TOP}, not '${value}'`;
      parsed.top = n;
    } else if (arg === '--by') {
      if (value !== 'log' && value !== 'wait' && value !== 'alone') return `--by must be log, wait or alone, not '${value}'`;
      parsed.by = value;
    } else parsed.out = value;
  }
  return parsed;
}

export async function runTopLog(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  const parsed = parseArgs(args, conn);
  if (typeof parsed === 'string') return usageError(io, 'top-log', parsed, usage);
  const resolved = resolveCliConnection(io, conn);
  if (typeof resolved === 'string') return usageError(io, 'top-log', resolved, usage);
  let monitor: TediousSession | null = null;
  try {
    monitor = await connect(resolved.profile, resolved.secret, { role: 'monitor' });
    const { history, standIn } = await readQueryStoreOfConnection(monitor, { windowHours: parsed.hours, top: parsed.top, ranking: parsed.by });
    const doc = buildTopLogDocument(history, { standIn });
    const json = `${jsonText(doc)}\n`;
    if (parsed.out) (io.writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8')))(parsed.out, json);
    io.stdout(parsed.json ? json : describeTopLog(doc));
    const outcome = doc.queryStore.outcome;
    if (outcome !== 'ready' && outcome !== 'read-only' && parsed.json) io.stderr(`durability-lens top-log: ${doc.queryStore.message}\n`);
    // A state the user can fix (off, in error, not permitted) is a refusal; a read that failed (a dropped connection,
    // an unknown state) is a failure.
    if (outcome === 'failed') return EXIT.unexpected;
    return outcome === 'ready' || outcome === 'read-only' ? EXIT.ok : EXIT.refused;
  } catch (err) {
    return failureExit(io, 'top-log', err);
  } finally {
    await monitor?.close().catch(() => undefined);
  }
}

export const topLogCommand: CliCommand = {
  name: 'top-log',
  summary: 'rank the database\'s procedures and statements by the log they wrote, from Query Store (read-only)',
  usage,
  run: (args, io) => runTopLog(args, io),
};
