// Runs the install and build commands of the e2e run: output streamed with a prefix, a clear error on failure.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { nodeBin, nodeDir } from './paths';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Keep stdout+stderr and return them (they are still streamed). */
  capture?: boolean;
  /** Print output only when the command fails (noisy npm/apt runs). */
  quiet?: boolean;
}

/** Environment for npm/node-gyp: Node 22 first on PATH, its bundled headers as nodedir (no header download). */
export function node22Env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PATH: `${path.dirname(nodeBin)}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    ...extra,
  };
}

export class CommandError extends Error {
  constructor(message: string, readonly output: string) {
    super(message);
  }
}

export function run(cmd: string, args: string[], opts: RunOptions = {}): Promise<string> {
  const label = [cmd, ...args].join(' ');
  console.log(`e2e$ ${label}${opts.cwd ? `   (in ${opts.cwd})` : ''}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      if (opts.capture || opts.quiet) output += text;
      if (!opts.quiet) process.stdout.write(text);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(output);
      if (opts.quiet) process.stdout.write(output.slice(-8000));
      reject(new CommandError(`command failed (${signal ?? `exit ${code}`}): ${label}`, output));
    });
  });
}
