// The CLI's subcommands, in the order `--help` lists them. Each lives in its own file under commands/.
// Commands that connect are loaded when run: their modules pull in the TDS driver (tedious), the MCP SDK and the
// profiling core, which `analyze` never needs. They share one chunk beside the CLI, dist/cli.commands.js (2.6 MB that
// `analyze` would otherwise read and compile at every start); dist/cli.js keeps `analyze` and the dispatch.

import type { CliCommand } from '../io';
import { analyzeCommand } from './analyze';

/** A command whose module is loaded only when it runs (or when the overall help needs its summary). */
export interface LazyCliCommand {
  name: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly (CliCommand | LazyCliCommand)[] = [
  analyzeCommand,
  { name: 'profile', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './profile')).profileCommand },
  { name: 'compare', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './compare')).compareCommand },
  { name: 'record', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './record')).recordCommand },
  { name: 'doctor', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './doctor')).doctorCommand },
  { name: 'trace', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './trace')).traceCommand },
  { name: 'top-log', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './topLog')).topLogCommand },
  { name: 'mcp', load: async () => (await import(/* webpackChunkName: "commands", webpackMode: "lazy" */ './mcp')).mcpCommand },
];
