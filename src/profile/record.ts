// A recording window: what another program (a test suite) does to the server. MONITOR opens, measureRun takes the
// before-snapshot, starts the log-flush trace and the sampler, runs the program as a separate process (or waits for
// Stop), takes the after-snapshot and reads the trace; the result is a profile's RunResult plus the program's exit.
import type { SqlSession } from '../db/types';
import type { BenignWaitOptions } from '../probes';
import type { CommandSpec } from './externalCommand';
import { measureRun, readTargetDatabase } from './measureRun';
import { CommandWorkload } from './recording';
import type { ConnectionSource, ProfileCallbacks, RunResult, SamplingOptions, XeOptions } from './types';

export interface RecordOptions extends ProfileCallbacks {
  connections: ConnectionSource;
  /** The program to run; null records until `stop` fires. */
  command: CommandSpec | null;
  /** Ends a window recording (no command); the result is 'completed'. */
  stop?: AbortSignal;
  /** Cancels: the program's process group is stopped, the after-snapshot still taken, the run is 'cancelled'. */
  signal?: AbortSignal;
  /** Stop the program after this many ms (the run is 'cancelled' with reason 'timeout'). */
  timeoutMs?: number;
  /** Extra environment for the program (its own configuration connects it; we never pass our secret). */
  env?: Readonly<Record<string, string>>;
  /** Our secret variables (the CLI's --password-env): removed from the program's environment. */
  secretEnv?: readonly string[];
  cwd?: string;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  xe?: XeOptions;
  sampling?: SamplingOptions;
  waits?: BenignWaitOptions;
}

/** Opens MONITOR only (the program brings its own connections), records, and closes what it opened. */
export async function recordWindow(options: RecordOptions): Promise<RunResult> {
  const opened: SqlSession[] = [];
  // The cleanup reconnect (after-snapshot, dropping the trace) must work after a cancel: it never takes the signal.
  const open = async (signal?: AbortSignal) => {
    const s = await options.connections.open('monitor', signal);
    opened.push(s);
    return s;
  };
  try {
    options.onProgress?.({ step: 'connect', at: Date.now() });
    const monitor = await open(options.signal);
    const target = await readTargetDatabase(monitor);
    const { stop, env, secretEnv, cwd, onOutput } = options;
    const workload = new CommandWorkload(options.command, { stop, env, secretEnv, cwd, onOutput });
    // measureRun wants a workload session for its spid; the program's sessions are not ours, so the monitor stands in
    // and finishRun drops the session figures (reported as not applicable, with why).
    const run = await measureRun(
      {
        workload: monitor,
        monitor,
        target,
        executor: workload.executor,
        // The stand-in workload session is the monitor: tracing its statements would trace our own queries.
        xe: { ...options.xe, statements: false },
        signal: options.signal,
        onProgress: options.onProgress,
        sampling: options.sampling,
        workloadTimeoutMs: options.timeoutMs,
        waits: options.waits,
        reconnectMonitor: () => open(),
      },
      [workload.batch],
    );
    options.onProgress?.({ step: 'done', at: Date.now() });
    return workload.finishRun(run);
  } finally {
    for (const s of opened) await s.close().catch(() => undefined);
  }
}
