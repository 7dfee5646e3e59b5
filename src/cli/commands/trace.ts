// `durability-lens trace read FILE... [--json]`: offline analysis of Extended Events data a DBA saved on a production
// server (issue 33): event counts per name, log-flush aggregates, per-statement rows with their WRITELOG waits.
// No connection: the files are read, nothing else. A file that is not XE data, or is malformed, stops the command
// with the file and the line (exit 2); no partial figures are printed.

import { jsonText } from '../../report/jsonText';
import { analyzeTraceFiles, type OfflineTrace } from '../../xe/offlineTrace';
import { TraceFileError } from '../../xe/traceFile';
import { EXIT_OK, EXIT_USAGE, type CliIO } from '../io';
import { declareCommand, flag, section, type ParsedCommandLine, type UsageFailure } from '../options';
import { encodingOption } from './sections';
import { terminalField } from '../terminalText';
import { NotTextError } from '../textDecoding';


/** "not measured" for a figure the files had no source for (null), never a 0. */
const figure = (v: number | null, unit = '') => (v === null ? 'not measured' : `${v}${unit}`);

/** The text report. Every string that came from a file (names, statements, paths, values) is one field: terminalField. */
function describe(t: OfflineTrace): string {
  const f = terminalField;
  const out: string[] = [];
  out.push(`Files: ${t.files.map((x) => `${f(x.file)} (${x.kind === 'events' ? 'event_file rows' : x.kind}, ${x.events} events)`).join('; ')}`);
  out.push('', `Events read: ${t.eventCount}`);
  for (const [name, n] of Object.entries(t.events)) out.push(`  ${f(name)}: ${n}`);
  if (t.counterTarget) {
    out.push('', 'event_counter (exact counts kept by the server):');
    for (const [name, n] of Object.entries(t.counterTarget)) out.push(`  ${f(name)}: ${n}`);
  }
  for (const h of t.histograms) {
    out.push('', `Histogram ${f(h.file)} (${h.buckets ?? 'unknown'} slots, ${h.slots.length} used):`);
    for (const s of h.slots.slice(0, 20)) out.push(`  ${f(s.value)}: ${s.count}`);
    if (h.slots.length > 20) out.push(`  … ${h.slots.length - 20} more slots (see --json)`);
  }
  out.push('');
  if (t.logFlush.measured) {
    const l = t.logFlush;
    out.push(`Log flushes (${f(l.flushEvent)}): ${figure(l.flushes)}; bytes: ${figure(l.bytes)}` + (l.latencyMs ? `; latency p50 ${l.latencyMs.p50} ms, p95 ${l.latencyMs.p95} ms, max ${l.latencyMs.max} ms` : ''));
    for (const n of l.notes) out.push(`  - ${f(n)}`);
  } else out.push(`Log flushes: not measured — ${f(t.logFlush.reason)}`);
  out.push('', `Statements: ${t.statements.length}`);
  for (const s of t.statements.slice(0, 50)) {
    const where = [s.module === undefined ? null : f(s.module), s.lines ? `line ${s.lines.join(', ')}` : null].filter((x) => x).join(' ');
    const writelog = s.writelogWaits === null ? 'WRITELOG not measured' : `${s.writelogWaits} WRITELOG (${s.writelogMs === null ? 'ms not measured' : `${s.writelogMs} ms`})`;
    out.push(`  ${s.executions} × ${writelog}  hash ${s.queryHash === null ? 'none' : f(s.queryHash)}${where ? `  ${where}` : ''}  ${f(s.statement)}`);
  }
  if (t.statements.length > 50) out.push(`  … ${t.statements.length - 50} more statements (see --json)`);
  if (t.notes.length > 0) out.push('', 'Notes:', ...t.notes.map((n) => `  - ${f(n)}`));
  return out.join('\n') + '\n';
}

const OPTIONS = section('Options', {
  json: flag('--json', {
    help: `print the analysis as JSON: files, events {name: count}, counterTarget, histograms,
logFlush, statements [{queryHash, statement, executions, writelogWaits, writelogMs,
lines?}], notes (queryHash is a string, null when the events carry none)`,
  }),
  encoding: encodingOption('code page of files that are neither UTF-16 nor valid UTF-8 (default windows-1252)'),
});

const SECTIONS = [OPTIONS] as const;

async function readTraces({ options: { json, encoding }, operands }: ParsedCommandLine<typeof SECTIONS>, io: CliIO, usageError: UsageFailure): Promise<number> {
  const [sub, ...paths] = operands;
  if (sub !== 'read') return usageError(terminalField(sub === undefined ? 'name a subcommand: read' : `unknown subcommand '${sub}' (subcommands: read)`));
  if (paths.length === 0) return usageError('name at least one FILE');
  const files: Array<{ name: string; text: string }> = [];
  for (const name of paths) {
    try {
      files.push({ name, text: io.readFile(name, { encoding }) });
    } catch (err) {
      const why = err instanceof NotTextError ? `not a text file (${err.message}); a .xel file is binary: export its rows with sys.fn_xe_file_target_read_file and save the event_data column` : (err as Error).message;
      io.stderr(`durability-lens trace read: ${terminalField(name)}: cannot read it: ${terminalField(why)}.\n`);
      return EXIT_USAGE;
    }
  }
  let trace: OfflineTrace;
  try {
    trace = analyzeTraceFiles(files);
  } catch (err) {
    if (!(err instanceof TraceFileError)) throw err;
    io.stderr(`durability-lens trace read: ${terminalField(err.message)}\nNothing was analysed. See \`durability-lens trace --help\` for the forms it reads.\n`);
    return EXIT_USAGE;
  }
  io.stdout(json ? `${jsonText(trace)}\n` : describe(trace));
  return EXIT_OK;
}

export const traceCommand = declareCommand({
  name: 'trace',
  summary: 'read Extended Events data saved from a server (trace read FILE...): events, log flushes, statements',
  synopsis: `Usage: durability-lens trace read FILE... [--json] [--encoding NAME]`,
  about: `Reads Extended Events data saved from a server and prints, for all the files together: the events per event name,
log-flush aggregates (flushes, bytes, latencies) when the files hold log-flush events, and one row per statement
(sql_statement_completed / sp_statement_completed) with its executions and the WRITELOG waits that preceded its
completion in its session. Nothing connects to a server.

What a FILE may hold (the kind is taken from the root element; anything else is refused with the file and line):
  <RingBufferTarget …>          a ring_buffer target's target_data (sys.dm_xe_session_targets)
  <HistogramTarget …>           a histogram target's target_data (its slots are listed as they are)
  <CounterTarget …>             an event_counter target's target_data (exact counts per event)
  <event …> … <event …>         event_file rows: the event_data column of sys.fn_xe_file_target_read_file, one or
                                many per file, one after another (a .xel file itself is binary: export it first)
Files may be UTF-8 or UTF-16, with or without a byte order mark (SSMS saves UTF-16).

Statements: a statement is its sqlserver.query_hash, except query_hash 0 — SQL Server's value on statements without
a plan (EXECUTE, EXEC inside a procedure, COMMIT, SET…) — which is matched by its text, offsets and line instead.
WRITELOG ms come from wait_info (milliseconds); wait_completed's unit is not documented, so its ms are not measured.
Files without any wait event leave WRITELOG per statement not measured (never 0). An event read twice — the same
event_sequence, timestamp, event and session_id, in one file or in two overlapping exports — counts once.
Refused with the file and the event: a log-flush write_size or duration below zero, and an <event> inside another
<event> (system_health's sp_server_diagnostics_component_result holds some in its data: leave that event out).`,
  sections: SECTIONS,
  // `read` and the files: the subcommand is the first operand.
  operands: { label: 'FILE', max: Infinity },
  epilog: `Exit codes: 0 done, 2 usage error, or a file that cannot be read or is not Extended Events data.`,
  run: readTraces,
});

/** `durability-lens trace …` with its argv (tests call it directly). */
export function runTrace(args: readonly string[], io: CliIO): Promise<number> {
  return traceCommand.run(args, io);
}
