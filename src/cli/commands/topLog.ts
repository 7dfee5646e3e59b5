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
import { choice, declareCommand, flag, numberOption, section, type ParsedCommandLine, type UsageFailure } from '../options';
import { CONNECTION, outOption } from './sections';
import { EXIT, failureExit, resolveCliConnection, type ConnectedCliIO } from './shared';

const WINDOW = section('Window and ranking', {
  hours: numberOption('--hours', {
    placeholder: 'N',
    help: `how far back to read (default ${DEFAULT_WINDOW_HOURS}; up to ${MAX_WINDOW_HOURS}); Query Store aggregates per
interval, so the span read starts at the interval holding the window's start`,
    rule: { above: 0, max: MAX_WINDOW_HOURS, unit: 'hours' },
    initial: DEFAULT_WINDOW_HOURS,
  }),
  by: choice<TopLogRanking>('--by', {
    placeholder: 'log|wait|alone',
    help: `log: total log bytes (default) · wait: log-IO wait time · alone: executions that
each commit on their own (many executions, small log each, waiting on the flush)`,
  }, { log: 'log', wait: 'wait', alone: 'alone' }, 'log'),
  top: numberOption('--top', { placeholder: 'N', help: `rows to return (default ${DEFAULT_TOP}, at most ${MAX_TOP})`, rule: { integer: true, min: 1, max: MAX_TOP }, initial: DEFAULT_TOP }),
});

const OUTPUT = section('Output', {
  json: flag('--json', { help: 'print the document described in docs/run-result-schema.md ("Heaviest log writers")' }),
  out: outOption('also write that JSON to PATH'),
});

const SECTIONS = [CONNECTION, WINDOW, OUTPUT] as const;

async function runTopLog({ options: parsed }: ParsedCommandLine<typeof SECTIONS>, io: ConnectedCliIO, usageError: UsageFailure): Promise<number> {
  const resolved = resolveCliConnection(io, parsed);
  if (typeof resolved === 'string') return usageError(resolved);
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

export const topLogCommand = declareCommand({
  name: 'top-log',
  summary: 'rank the database\'s procedures and statements by the log they wrote, from Query Store (read-only)',
  synopsis: `Usage: durability-lens top-log --connection NAME|CONNECTION_STRING [--hours N] [--by log|wait|alone]
                               [--top N] [--json] [--out PATH]`,
  about: `Ranks the connected database's queries and their procedures by the transaction log they wrote, from Query
Store's history (SQL Server 2016+, Azure SQL Database, Managed Instance). Read-only: nothing is created or
changed on the server. Each row: the procedure (schema.name) or "ad hoc", the statement, query_id and
query_hash, executions (per day over an hour or more), log bytes in total and per execution, log-IO wait
(Query Store wait category "Tran Log IO", SQL Server 2017+), duration, first and last seen.`,
  sections: SECTIONS,
  epilog: `Exit codes: 0 done (figures the server does not keep read "not measured", with why), 1 unexpected failure
(also: the read failed part way, e.g. a dropped connection),
2 usage error, 3 could not connect, 5 Query Store cannot be read here (off, in error, or the login lacks
VIEW DATABASE STATE / VIEW DATABASE PERFORMANCE STATE): the output names the statement that fixes it.`,
  run: runTopLog,
});
