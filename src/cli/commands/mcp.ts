// `durability-lens mcp [--allow-run --connection NAME|STRING] [--root DIR]`: a stdio MCP server exposing the agent tools
// (src/agent) over the CLI core. Read-only by default (analyze a .sql file, read results); the profile and compare tools
// exist only with --allow-run and a connection named on the command line — the user's consent, given where they start
// the server, since an MCP client has no Durability Lens dialog to show the T-SQL in.
import * as path from 'node:path';
import { DURABILITY_MODES, type DurabilityMode } from '../../profile';
import { EXIT_OK, type CliCommand } from '../io';
import { McpToolHost, type RunConsent } from '../mcp/toolHost';
import { runLifecycle, signalExitCode } from './lifecycle';
import { CONNECTION_USAGE, journalOf, newConnectionArgs, resolveCliConnection, takeConnectionArg, usageError, type ConnectedCliIO } from './shared';

/** The package version the server reports in its MCP `initialize` answer. */
export const MCP_SERVER_VERSION = '0.1.0';

const usage = `Usage: durability-lens mcp [--root DIR]
       durability-lens mcp --allow-run --connection NAME|CONNECTION_STRING [--root DIR] [--modes LIST] [--repeat N]

Serves the Durability Lens agent tools to an MCP client (VS Code, Claude Desktop, any Model Context Protocol
client) over stdin/stdout. Configure the client to start this command; see docs/mcp.md.

Tools, always:
  durability_lens_analyze_file        batches, loops, COMMITs and durability diagnostics of a .sql file (reads only)
  durability_lens_get_results         verdict, causes, consistency and not-measured figures of the latest run of
                                      this server, or of a comparison JSON file (reads only)
Tools, only with --allow-run:
  durability_lens_profile             RUNS T-SQL from a .sql file on the connection, measured
  durability_lens_compare_durability  RUNS it repeatedly under DELAYED_DURABILITY DISABLED and FORCED, switching the
                                      database's setting with ALTER DATABASE and restoring it

--allow-run is your consent: an MCP client shows no Durability Lens confirmation, so with it the agent may run any
.sql file under --root on the named connection, and compare may switch DELAYED_DURABILITY (while FORCED, recent
commits of every session in that database can be lost on a crash). Give it only for a database you would let the
agent change — a development database. Without it, the two run tools are not listed and refuse when called.

Options:
  --allow-run                   list and allow the profile and compare tools (needs a connection)
  --root DIR                    the only folder whose files the tools read (default: the working folder)
  --modes LIST                  compare's modes (default DISABLED,FORCED)
  --repeat N                    compare's measured runs per mode (default 3, at most 20)

${CONNECTION_USAGE}

Progress and every message go to stderr; stdout carries the protocol only. The server ends when the client
closes stdin. With --allow-run, SIGTERM (how MCP clients stop a server), SIGINT or SIGHUP first cancels the run in
progress, restoring DELAYED_DURABILITY and dropping its event sessions. Exit codes: 0 the client closed the session,
2 usage error, 129/130/143 ended by SIGHUP/SIGINT/SIGTERM after restoring.
`;

export async function runMcp(args: readonly string[], io: ConnectedCliIO): Promise<number> {
  const conn = newConnectionArgs();
  let allowRun = false;
  let root: string | null = null;
  let modes: DurabilityMode[] = ['DISABLED', 'FORCED'];
  let repetitions = 3;
  for (let i = 0; i < args.length; i++) {
    const used = takeConnectionArg(args, i, conn);
    if (typeof used === 'string') return usageError(io, 'mcp', used, usage);
    if (used > 0) {
      i += used - 1;
      continue;
    }
    const arg = args[i]!;
    if (arg === '--allow-run') allowRun = true;
    else if (arg === '--root') {
      root = args[++i] ?? null;
      if (root === null || root === '') return usageError(io, 'mcp', '--root needs a folder', usage);
    } else if (arg === '--modes') {
      const list = (args[++i] ?? '').split(',').map((m) => m.trim().toUpperCase()).filter(Boolean);
      const wrong = list.find((m) => !DURABILITY_MODES.includes(m as DurabilityMode));
      if (list.length < 2 || wrong) return usageError(io, 'mcp', wrong ? `--modes: '${wrong}' is not DISABLED, ALLOWED or FORCED` : '--modes needs at least two modes', usage);
      modes = [...new Set(list)] as DurabilityMode[];
    } else if (arg === '--repeat') {
      const n = Number(args[++i]);
      if (!Number.isInteger(n) || n < 1 || n > 20) return usageError(io, 'mcp', '--repeat must be a whole number from 1 to 20', usage);
      repetitions = n;
    } else return usageError(io, 'mcp', `unknown option '${arg}'`, usage);
  }
  const named = conn.connection !== null || conn.server !== null;
  if (allowRun && !named) return usageError(io, 'mcp', '--allow-run needs a connection named on the command line (--connection NAME|STRING)', usage);
  let run: RunConsent | null = null;
  if (allowRun) {
    const resolved = resolveCliConnection(io, conn);
    if (typeof resolved === 'string') return usageError(io, 'mcp', resolved, usage);
    run = { profile: resolved.profile, secret: resolved.secret, journal: journalOf(conn), modes, repetitions };
    io.stderr(`durability-lens mcp: --allow-run: the profile and compare tools run T-SQL on database ${resolved.profile.database} of ${resolved.profile.server}.\n`);
  } else {
    if (named) io.stderr('durability-lens mcp: a connection was given without --allow-run: it is not used, and the profile and compare tools are off.\n');
    io.stderr('durability-lens mcp: read-only (analyze and results); start with --allow-run --connection NAME to allow runs.\n');
  }
  // With runs allowed, SIGTERM/SIGINT/SIGHUP cancel the run in progress — which restores DELAYED_DURABILITY and drops
  // its event sessions — before the process exits with the signal's code (a second signal: at once, saying what is
  // left), as compare and profile do. MCP clients stop their servers with SIGTERM.
  const lifecycle = run ? runLifecycle(io, { journal: run.journal }) : null;
  try {
    const host = new McpToolHost({ root: path.resolve(io.cwd ?? process.cwd(), root ?? '.'), io, run, stop: lifecycle?.signal });
    // Loaded here: the SDK is needed only by this command.
    const { serveStdio } = await import(/* webpackMode: "eager" */ '../mcp/server');
    await serveStdio(host, MCP_SERVER_VERSION, lifecycle?.signal);
    return lifecycle?.stoppedBy ? signalExitCode(lifecycle.stoppedBy) : EXIT_OK;
  } finally {
    lifecycle?.dispose();
  }
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'serve the agent tools (analyze, results; profile and compare with --allow-run) over MCP on stdio',
  usage,
  run: (args, io) => runMcp(args, io),
};
