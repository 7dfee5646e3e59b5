// The CLI's subcommands, in the order `--help` lists them. Each lives in its own file under commands/.
// Commands that connect are loaded when run: their modules pull in the TDS driver (tedious), which `analyze` never needs
// and which is most of the start-up time. webpackMode "eager" keeps them in dist/cli.js (no extra chunk file to ship)
// while still evaluating them only on import().

import type { CliCommand } from '../io';
import { analyzeCommand } from './analyze';

/** A command whose module is loaded only when it runs (or when the overall help needs its summary). */
export interface LazyCliCommand {
  name: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly (CliCommand | LazyCliCommand)[] = [
  analyzeCommand,
  { name: 'profile', load: async () => (await import(/* webpackMode: "eager" */ './profile')).profileCommand },
  { name: 'compare', load: async () => (await import(/* webpackMode: "eager" */ './compare')).compareCommand },
  { name: 'record', load: async () => (await import(/* webpackMode: "eager" */ './record')).recordCommand },
  { name: 'doctor', load: async () => (await import(/* webpackMode: "eager" */ './doctor')).doctorCommand },
  { name: 'trace', load: async () => (await import(/* webpackMode: "eager" */ './trace')).traceCommand },
  { name: 'top-log', load: async () => (await import(/* webpackMode: "eager" */ './topLog')).topLogCommand },
  { name: 'mcp', load: async () => (await import(/* webpackMode: "eager" */ './mcp')).mcpCommand },
];
