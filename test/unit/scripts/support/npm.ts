// Runs npm from a test on any platform: through the npm that started the test run (npm_execpath, a JavaScript file)
// with this Node, else the `npm` on PATH (npm.cmd on Windows needs a shell to start).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';

export interface NpmOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The Node that runs npm (default: this process's). */
  node?: string;
  timeoutMs?: number;
}

export function npmCommand(node = process.execPath): { file: string; prefix: string[]; shell: boolean } {
  const cli = process.env.npm_execpath;
  if (cli && /\.[cm]?js$/.test(cli)) return { file: node, prefix: [cli], shell: false };
  return { file: 'npm', prefix: [], shell: process.platform === 'win32' };
}

export function runNpm(args: readonly string[], options: NpmOptions): SpawnSyncReturns<string> {
  const { file, prefix, shell } = npmCommand(options.node);
  return spawnSync(file, [...prefix, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    encoding: 'utf8',
    shell,
    timeout: options.timeoutMs ?? 300_000,
    maxBuffer: 64 * 1024 * 1024,
  });
}
