// `durability-lens mcp [--allow-run --connection NAME|STRING] [--root DIR]`: a stdio MCP server exposing the agent tools
// (src/agent) over the CLI core. Read-only by default (analyze a .sql file, read results); the profile and compare tools
// exist only with --allow-run and a connection named on the command line — the user's consent, given where they start
// the server, since an MCP client has no Durability Lens dialog to show the T-SQL in.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DURABILITY_MODES, type DurabilityMode } from '../../profile';
import { EXIT_OK } from '../io';
import { converted, declareCommand, flag, invalid, numberOption, section, text, type ParsedCommandLine, type UsageFailure } from '../options';
import { McpToolHost, type RunConsent } from '../mcp/toolHost';
import { runLifecycle, signalExitCode } from './lifecycle';
import { CONNECTION } from './sections';
import { journalOf, resolveCliConnection, type ConnectedCliIO } from './shared';

/** The package version the server reports in its MCP `initialize` answer. */
export const MCP_SERVER_VERSION = '0.1.0';


const OPTIONS = section('Options', {
  allowRun: flag('--allow-run', { help: 'list and allow the profile and compare tools (needs a connection); each run is shown to the user and confirmed in the MCP client first' }),
  noConfirm: flag('--no-confirm', { help: 'with --allow-run: run without asking each time (for a client that cannot ask; your standing consent to every run)' }),
  root: text('--root', { placeholder: 'DIR', help: 'the only folder whose files the tools read (default: the working folder)', needs: 'a folder' }),
  modes: converted('--modes', { placeholder: 'LIST', help: "compare's modes (default DISABLED,FORCED)", initial: ['DISABLED', 'FORCED'] as DurabilityMode[] }, (raw) => {
    const list = raw.split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
    const wrong = list.find((m) => !DURABILITY_MODES.includes(m as DurabilityMode));
    if (wrong) return invalid(`--modes: '${wrong}' is not DISABLED, ALLOWED or FORCED`);
    const modes = [...new Set(list)] as DurabilityMode[];
    return modes.length < 2 ? invalid('--modes needs at least two modes') : modes;
  }),
  repetitions: numberOption('--repeat', { placeholder: 'N', help: "compare's measured runs per mode (default 3, at most 20)", rule: { integer: true, min: 1, max: 20 }, initial: 3 }),
});

const SECTIONS = [OPTIONS, CONNECTION] as const;

function isFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

async function runMcp({ options: o }: ParsedCommandLine<typeof SECTIONS>, io: ConnectedCliIO, usageError: UsageFailure): Promise<number> {
  const { allowRun, noConfirm, root, modes, repetitions } = o;
  const named = o.connection !== null || o.server !== null;
  if (allowRun && !named) return usageError('--allow-run needs a connection named on the command line (--connection NAME|STRING)');
  if (noConfirm && !allowRun) return usageError('--no-confirm goes with --allow-run (without it nothing runs, so nothing is confirmed)');
  // A root that is not a folder (a client configuration copied with its example path) would only answer "no such
  // file" to every call: said once, at start, where the client shows the server's log.
  const rootDir = path.resolve(io.cwd ?? process.cwd(), root ?? '.');
  if (!isFolder(rootDir)) return usageError(`--root ${rootDir}: no such folder (the tools read files under it only)`);
  let run: RunConsent | null = null;
  if (allowRun) {
    const resolved = resolveCliConnection(io, o);
    if (typeof resolved === 'string') return usageError(resolved);
    run = { profile: resolved.profile, secret: resolved.secret, journal: journalOf(o), modes, repetitions, confirmEachRun: !noConfirm };
    io.stderr(`durability-lens mcp: --allow-run: the profile and compare tools run T-SQL on database ${resolved.profile.database} of ${resolved.profile.server}, ${noConfirm ? 'WITHOUT asking the user each time (--no-confirm)' : 'each run after the user confirms it in the MCP client'}.\n`);
  } else {
    if (named) io.stderr('durability-lens mcp: a connection was given without --allow-run: it is not used, and the profile and compare tools are off.\n');
    io.stderr('durability-lens mcp: read-only (analyze and results); start with --allow-run --connection NAME to allow runs.\n');
  }
  // With runs allowed, SIGTERM/SIGINT/SIGHUP cancel the run in progress — which restores DELAYED_DURABILITY and drops
  // its event sessions — before the process exits with the signal's code (a second signal: at once, saying what is
  // left), as compare and profile do. MCP clients stop their servers with SIGTERM.
  const lifecycle = run ? runLifecycle(io, { journal: run.journal }) : null;
  try {
    const host = new McpToolHost({ root: rootDir, io, run, stop: lifecycle?.signal });
    // Loaded here: the SDK is needed only by this command.
    const { serveStdio } = await import(/* webpackMode: "eager" */ '../mcp/server');
    await serveStdio(host, MCP_SERVER_VERSION, lifecycle?.signal);
    return lifecycle?.stoppedBy ? signalExitCode(lifecycle.stoppedBy) : EXIT_OK;
  } finally {
    lifecycle?.dispose();
  }
}

export const mcpCommand = declareCommand({
  name: 'mcp',
  summary: 'serve the agent tools (analyze, results; profile and compare with --allow-run) over MCP on stdio',
  synopsis: `Usage: durability-lens mcp [--root DIR]
       durability-lens mcp --allow-run --connection NAME|CONNECTION_STRING [--no-confirm] [--root DIR] [--modes LIST] [--repeat N]`,
  about: `Serves the Durability Lens agent tools to an MCP client (VS Code, Claude Desktop, any Model Context Protocol
client) over stdin/stdout. Configure the client to start this command; see docs/agents.md.

Tools, always:
  durability_lens_analyze_file        batches, loops, COMMITs and durability diagnostics of a .sql file (reads only)
  durability_lens_get_results         verdict, causes, consistency and not-measured figures of the latest run of
                                      this server, or of a comparison JSON file (reads only)
Tools, only with --allow-run:
  durability_lens_profile             RUNS T-SQL from a .sql file on the connection, measured (with
                                      traceOverheadRuns N: 2×N times, to measure the per-statement trace's cost)
  durability_lens_compare_durability  RUNS it repeatedly under DELAYED_DURABILITY DISABLED and FORCED, switching the
                                      database's setting with ALTER DATABASE and restoring it

With --allow-run, each run an agent asks for is shown to you first, through the MCP client (MCP elicitation): the
T-SQL that will be sent, numbered as in the file, the database and server, the Extended Events sessions it creates
and drops, and for compare the ALTER DATABASE statements and the restore. Nothing is sent unless you answer yes. A
client that cannot ask (no elicitation) gets a refusal; --no-confirm lets the agent run any .sql file under --root on
the named connection without asking, and compare switch DELAYED_DURABILITY (while FORCED, recent commits of every
session in that database can be lost on a crash): give it only for a database you would let the agent change — a
development database. Without --allow-run, the two run tools are not listed and refuse when called.`,
  sections: SECTIONS,
  epilog: `Progress and every message go to stderr; stdout carries the protocol only. The server ends when the client
closes stdin. With --allow-run, SIGTERM (how MCP clients stop a server), SIGINT or SIGHUP first cancels the run in
progress, restoring DELAYED_DURABILITY and dropping its event sessions. Exit codes: 0 the client closed the session,
2 usage error, 129/130/143 ended by SIGHUP/SIGINT/SIGTERM after restoring.`,
  run: runMcp,
});
