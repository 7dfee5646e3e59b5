// The stdio MCP server (the official TypeScript SDK's low-level Server): tools/list answers the agent tools from
// src/agent/toolDefinitions.ts — the read-only two always, profile and compare only when the run tools are allowed —
// and tools/call hands them to McpToolHost. stdout carries the protocol alone: every other line goes to stderr.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AGENT_TOOLS, type AgentToolDefinition } from '../../agent/toolDefinitions';
import type { McpToolHost } from './toolHost';
import { RUN_CONFIRMATION_SCHEMA, type RunAnswer } from './runConfirmation';

export const MCP_SERVER_NAME = 'durability-lens';

/** What tools/list says for one tool: the shared description, and for a run tool that it changes the database. */
export function mcpToolOf(t: AgentToolDefinition, confirmEachRun = true) {
  const consent = confirmEachRun
    ? 'Allowed because the user started this server with --allow-run and a connection; each call is shown to the user, who confirms it in this client before anything is sent (a declined call runs nothing).'
    : 'Allowed because the user started this server with --allow-run --no-confirm and a connection: that is their consent to run it without asking each time.';
  return {
    name: t.name,
    title: t.displayName,
    description: t.changesDatabase ? `${t.modelDescription} ${consent}` : t.modelDescription,
    inputSchema: t.inputSchema,
    // MCP tool annotations (hints a client may show or act on): the run tools change the database and are not
    // idempotent (every call runs the workload again).
    annotations: t.changesDatabase
      ? { title: t.displayName, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
      : { title: t.displayName, readOnlyHint: true, openWorldHint: false },
  };
}

export function createMcpServer(host: McpToolHost, version: string): Server {
  const server = new Server({ name: MCP_SERVER_NAME, version }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: AGENT_TOOLS.filter((t) => host.allowsRun || !t.changesDatabase).map((t) => mcpToolOf(t, host.confirmsEachRun)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const token = request.params._meta?.progressToken;
    let step = 0;
    const onProgress = token === undefined
      ? undefined
      : (message: string) => void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message } }).catch(() => undefined);
    // The user is asked through the client (MCP elicitation, form mode) when it declared it can ask.
    const askUser = server.getClientCapabilities()?.elicitation ? (message: string) => askThroughClient(server, message, extra.signal) : undefined;
    const result = await host.call(request.params.name, request.params.arguments ?? {}, extra.signal, onProgress, askUser);
    return { content: [{ type: 'text' as const, text: result.text }], isError: result.isError };
  });
  return server;
}

/** The user's answer to one confirmation; a failed or timed-out request (or any answer but yes) is not a yes. */
async function askThroughClient(server: Server, message: string, signal: AbortSignal): Promise<RunAnswer> {
  try {
    // A person reads the T-SQL: up to 30 minutes, not the SDK's 60-second default for a request.
    const answer = await server.elicitInput({ mode: 'form', message, requestedSchema: RUN_CONFIRMATION_SCHEMA }, { signal, timeout: 30 * 60_000 });
    return answer.action === 'accept' && answer.content?.run === true ? 'confirmed' : 'declined';
  } catch {
    return 'declined';
  }
}

/** Serves on this process's stdin/stdout until the client closes them or `stop` aborts; returns after any run's restore. */
export async function serveStdio(host: McpToolHost, version: string, stop?: AbortSignal): Promise<void> {
  const server = createMcpServer(host, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The client ends the session by closing our stdin.
  process.stdin.on('end', () => void server.close());
  // Told to stop (a signal): the run in progress restores first (its own abort, through the host), then the session ends.
  stop?.addEventListener('abort', () => void host.settled().then(() => server.close()), { once: true });
  await closed;
  await host.settled();
}
