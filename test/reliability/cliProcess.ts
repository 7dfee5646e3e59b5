// A real `durability-lens compare` process (node --import tsx src/cli/main.ts) against the reliability stand-in, with
// its stderr collected so a test can wait for a line instead of sleeping. Shared by the process suites.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { ReliabilityStandin } from './harness';

export const REPO = resolve(__dirname, '../..');

export interface CliChild {
  child: ChildProcess;
  stderr(): string;
  stdout(): string;
  /** Resolves when stderr matches `pattern` (rejects if the process exits first). */
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<number | null>;
}

export interface CompareProcessOptions {
  database: string;
  journal: string;
  /** The T-SQL file; null when `extra` names a program (--command). */
  workload: string | null;
  /** Options added before the workload file (e.g. ['--owner-grace', '0']). */
  extra?: readonly string[];
}

/** DISABLED then FORCED, one repetition, no warm-up, --yes --json: FORCED is in force when the runs end. */
export function startCompare(h: ReliabilityStandin, o: CompareProcessOptions): CliChild {
  const args = [
    '--import', 'tsx', 'src/cli/main.ts', 'compare',
    '--server', '127.0.0.1', '--port', String(h.server.port), '--database', o.database, '--user', 'sa', '--encrypt', 'false',
    '--journal', o.journal, '--modes', 'DISABLED,FORCED', '--repeat', '1', '--no-warmup', '--setup-batches', '1',
    '--sample-interval', '50', '--yes', '--json', ...(o.extra ?? []), ...(o.workload === null ? [] : [o.workload]),
  ];
  return watch(spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, DURABILITY_LENS_PASSWORD: h.secret }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/**
 * The same comparison through bin/durability-lens started by `node` (an older Node than 22): the launcher re-runs itself
 * on the pinned Node 22 and runs dist/cli.js (built by `npm test` before mocha). `detached`: its own process group.
 */
export function startCompareThroughLauncher(h: ReliabilityStandin, o: CompareProcessOptions, node: string): CliChild {
  const args = [
    resolve(REPO, 'bin', 'durability-lens'), 'compare',
    '--server', '127.0.0.1', '--port', String(h.server.port), '--database', o.database, '--user', 'sa', '--encrypt', 'false',
    '--journal', o.journal, '--modes', 'DISABLED,FORCED', '--repeat', '1', '--no-warmup', '--setup-batches', '1',
    '--sample-interval', '50', '--yes', '--json', ...(o.extra ?? []), ...(o.workload === null ? [] : [o.workload]),
  ];
  const env: NodeJS.ProcessEnv = { ...process.env, DURABILITY_LENS_PASSWORD: h.secret };
  delete env.DURABILITY_LENS_REEXEC;
  return watch(spawn(node, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
}

/** Collects a child's output and exit. */
export function watch(child: ChildProcess): CliChild {
  let err = '';
  let out = '';
  let ended = false;
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString('utf8');
    for (const l of [...listeners]) l();
  });
  const exited = new Promise<number | null>((done) =>
    child.on('exit', (code) => {
      ended = true;
      for (const l of [...listeners]) l();
      done(code);
    }),
  );
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exited,
    waitFor: (pattern) =>
      new Promise<void>((ok, fail) => {
        const check = () => {
          if (pattern.test(err)) {
            listeners.delete(check);
            ok();
          } else if (ended) {
            listeners.delete(check);
            fail(new Error(`the CLI exited before stderr matched ${pattern}:\n${err}`));
          }
        };
        listeners.add(check);
        check();
      }),
  };
}
