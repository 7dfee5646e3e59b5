// Where a run's stop signals come from. Started directly, they are the process's own SIGINT/SIGTERM/SIGHUP. Started by
// bin/durability-lens on a Node older than 22, this process is the launcher's child (DURABILITY_LENS_REEXEC=1, an IPC
// channel): the launcher waits for it and hands each signal it receives over the channel, exactly once. The child then
// ignores the real signals while a run listens — a Ctrl+C in a terminal, `timeout` or a group kill reach both
// processes, and a second delivery would read as the "second signal" that forces the exit before the restore.
// A signal that arrives while no run listens ends the process as the signal would; a launcher that dies (its
// channel closes) stops the run as a hang-up does.
export type ProcessSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export const PROCESS_SIGNALS: readonly ProcessSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** The message the launcher sends for a signal it received (bin/durability-lens writes the same shape). */
export interface LauncherSignalMessage {
  durabilityLensSignal: ProcessSignal;
}

function isLauncherSignal(m: unknown): m is LauncherSignalMessage {
  return typeof m === 'object' && m !== null && PROCESS_SIGNALS.includes((m as LauncherSignalMessage).durabilityLensSignal);
}

/** True when bin/durability-lens started this process and hands signals over its IPC channel. */
export function startedByLauncher(): boolean {
  return process.env.DURABILITY_LENS_REEXEC === '1' && typeof process.send === 'function';
}

let listeners: Array<(name: ProcessSignal) => void> = [];
let channelInstalled = false;

function installChannel(): void {
  if (channelInstalled) return;
  channelInstalled = true;
  process.on('message', (m: unknown) => {
    if (!isLauncherSignal(m)) return;
    const name = m.durabilityLensSignal;
    if (listeners.length > 0) for (const l of [...listeners]) l(name);
    // No run listens: the signal's own default, as if it had come directly.
    else process.kill(process.pid, name);
  });
  process.on('disconnect', () => {
    for (const l of [...listeners]) l('SIGHUP');
  });
  // The channel must not keep a finished command alive (an explicit unref also outlasts the listeners' ref).
  process.channel?.unref();
}

/**
 * Calls `onSignal` for each stop signal until the returned function is called: the process's own signals, or the
 * launcher's over its channel (then the real ones are ignored meanwhile, since the launcher sends them too).
 */
export function listenForStopSignals(onSignal: (name: ProcessSignal) => void): () => void {
  const launched = startedByLauncher();
  if (launched) {
    installChannel();
    listeners.push(onSignal);
  }
  const handlers = PROCESS_SIGNALS.map((name) => {
    const handler = launched ? () => undefined : () => onSignal(name);
    process.on(name, handler);
    return [name, handler] as const;
  });
  return () => {
    listeners = listeners.filter((l) => l !== onSignal);
    for (const [name, handler] of handlers) process.removeListener(name, handler);
  };
}
