// Runs another program (a test suite, a loader) as a separate OS process while a recording window is open: started in
// its own process group so a cancel stops the whole tree, its output streamed to the caller, its exit code kept.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { windowsInvocation, windowsTreeKill } from './windowsCommand';

/** What to run: an argv (run as is, no shell) or one command line (run by the platform's shell, as typed). */
export type CommandSpec = { kind: 'argv'; argv: readonly string[] } | { kind: 'shell'; line: string };

/** How the program's run ended. */
export type CommandEnd = 'exit' | 'cancelled' | 'timeout' | 'spawn-failed';

export interface CommandOutcome {
  /** The command as shown to people: the shell line, or the argv joined with spaces. */
  display: string;
  /** The program's exit code; null when it was killed by a signal or never started. */
  exitCode: number | null;
  /** The signal that ended it (e.g. "SIGTERM" after a cancel); null when it exited by itself. */
  signal: string | null;
  /** Wall time from spawn to exit (ms). */
  durationMs: number;
  ended: CommandEnd;
  /** Why it could not be started (ENOENT …); null otherwise. */
  spawnError: string | null;
}

export interface RunCommandOptions {
  /** Ends the program: SIGTERM to its process group, SIGKILL after `killGraceMs`. */
  signal?: AbortSignal;
  /** What ended it when `signal` fired (the caller knows whether it was a time limit). */
  abortReason?: () => 'cancelled' | 'timeout';
  /** Extra environment on top of this process's (never secrets: the child's own configuration connects it). */
  env?: Readonly<Record<string, string>> | undefined;
  /** Variables holding our secrets (the CLI's --password-env VAR): removed from what the program inherits. */
  secretEnv?: readonly string[] | undefined;
  cwd?: string | undefined;
  onOutput?: ((stream: 'stdout' | 'stderr', text: string) => void) | undefined;
  killGraceMs?: number;
}

/** The variable the CLI reads the password from by default: never inherited by a program we start. */
export const DEFAULT_SECRET_ENV = 'DURABILITY_LENS_PASSWORD';

/**
 * What the program inherits: this process's environment without our secret variables (DEFAULT_SECRET_ENV and
 * `secretNames`; compared without case on Windows, where variable names are case-insensitive), plus `extra` (whose
 * secret names are dropped too). The program connects with its own configuration (issue 25 N4).
 */
export function childEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> | undefined,
  secretNames: readonly string[] = [],
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const fold = (name: string) => (platform === 'win32' ? name.toUpperCase() : name);
  const secret = new Set([DEFAULT_SECRET_ENV, ...secretNames].map(fold));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...base, ...extra })) {
    if (value !== undefined && !secret.has(fold(name))) env[name] = value;
  }
  return env;
}

export function displayCommand(spec: CommandSpec): string {
  return spec.kind === 'shell' ? spec.line : spec.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/**
 * Stops the child and everything it started: its process group on POSIX (spawned detached); on Windows, where a
 * signal to cmd.exe or a batch file's process would leave what it started running, `taskkill /T /F` on its tree.
 */
function stopTree(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform !== 'win32') {
      process.kill(-child.pid, sig);
      return;
    }
    const kill = windowsTreeKill(child.pid);
    spawn(kill.file, kill.args, { stdio: 'ignore', windowsHide: true }).once('error', () => child.kill(sig));
  } catch {
    // Already gone between the check and the kill.
  }
}

/** What spawn gets: a shell line, or a file and its arguments; or why the program cannot be started as given. */
export type SpawnPlan = { shell: true; line: string } | { shell: false; file: string; args: readonly string[] } | { refused: string };

/** The spawn of `spec` on `platform` (Windows: a .cmd/.bat found on PATH runs through cmd.exe, windowsCommand.ts). */
export function spawnPlan(spec: CommandSpec, platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, cwd: string, exists: (file: string) => boolean): SpawnPlan {
  if (spec.kind === 'shell') return { shell: true, line: spec.line };
  if (platform === 'win32') {
    const how = windowsInvocation(spec.argv, env, cwd, exists);
    if (how.kind === 'refused') return { refused: how.reason };
    if (how.kind === 'cmd') return { shell: true, line: how.line };
  }
  return { shell: false, file: spec.argv[0]!, args: spec.argv.slice(1) };
}

/** Runs the program to its end (or until `signal`); never throws: a program that cannot start is an outcome too. */
export function runExternalCommand(spec: CommandSpec, options: RunCommandOptions = {}): Promise<CommandOutcome> {
  const display = displayCommand(spec);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise<CommandOutcome>((resolve) => {
    if (options.signal?.aborted) {
      resolve({ display, exitCode: null, signal: null, durationMs: 0, ended: options.abortReason?.() ?? 'cancelled', spawnError: null });
      return;
    }
    const spawnOptions = {
      env: childEnvironment(process.env, options.env, options.secretEnv),
      cwd: options.cwd,
      // Own process group: a terminal's Ctrl+C reaches us only, and we stop the whole tree (shell and its children).
      detached: process.platform !== 'win32',
      stdio: ['ignore', 'pipe', 'pipe'] as ('ignore' | 'pipe')[],
      windowsHide: true,
    };
    const plan = spawnPlan(spec, process.platform, spawnOptions.env, options.cwd ?? process.cwd(), existsSync);
    if ('refused' in plan) {
      resolve({ display, exitCode: null, signal: null, durationMs: elapsed(), ended: 'spawn-failed', spawnError: plan.refused });
      return;
    }
    let child: ChildProcess;
    try {
      child = plan.shell ? spawn(plan.line, { ...spawnOptions, shell: true }) : spawn(plan.file, plan.args, spawnOptions);
    } catch (err) {
      resolve({ display, exitCode: null, signal: null, durationMs: elapsed(), ended: 'spawn-failed', spawnError: (err as Error).message });
      return;
    }
    let aborted: 'cancelled' | 'timeout' | null = null;
    let killTimer: ReturnType<typeof setTimeout> | null = null;
    const onAbort = () => {
      aborted = options.abortReason?.() ?? 'cancelled';
      stopTree(child, 'SIGTERM');
      killTimer = setTimeout(() => stopTree(child, 'SIGKILL'), options.killGraceMs ?? 5000);
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.setEncoding('utf8').on('data', (t: string) => options.onOutput?.('stdout', t));
    child.stderr?.setEncoding('utf8').on('data', (t: string) => options.onOutput?.('stderr', t));
    let spawnError: string | null = null;
    child.once('error', (err) => {
      spawnError = err.message;
    });
    child.once('close', (code, sig) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      // A program that could not start still 'closes' (with the negated errno as its code): not an exit code.
      if (spawnError !== null) resolve({ display, exitCode: null, signal: null, durationMs: elapsed(), ended: 'spawn-failed', spawnError });
      else resolve({ display, exitCode: code, signal: sig, durationMs: elapsed(), ended: aborted ?? 'exit', spawnError: null });
    });
  });
}
