// The CLI process around a run that may change a database: SIGINT, SIGTERM, SIGHUP and a broken stdout (EPIPE) cancel
// the run — which restores DELAYED_DURABILITY and drops the event session before the command returns — and the exit
// code then says which signal ended it (128 + its number, as shells report it). A second signal forces the exit
// after saying what is left on the server and the exact ALTER to run.
import { constants } from 'node:os';
import { ownedByThisProcess, type RestoreJournal } from '../../profile';
import type { ConnectedCliIO } from './shared';
import { listenForStopSignals } from '../processSignals';

export type StopReason = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'EPIPE';

/** 128 + signal number (SIGHUP 129, SIGINT 130, SIGTERM 143); a broken stdout counts as SIGPIPE (141). */
export function signalExitCode(reason: StopReason): number {
  const n = reason === 'EPIPE' ? constants.signals.SIGPIPE : constants.signals[reason];
  return 128 + n;
}

/** What a forced exit leaves: the journal's restore statements of this process, and how to find our event sessions. */
export const LEFTOVER_SESSIONS_HINT =
  "Event sessions of this run, if any are left: SELECT name FROM sys.server_event_sessions WHERE name LIKE 'durability[_]lens[_]%'; then DROP EVENT SESSION [name] ON SERVER; (Azure SQL Database: sys.database_event_sessions, ON DATABASE).";

export interface RunLifecycle {
  signal: AbortSignal;
  /** The signal (or EPIPE) that cancelled the run, or null. */
  readonly stoppedBy: StopReason | null;
  dispose(): void;
}

export interface LifecycleOptions {
  /** The journal whose entries of this process a forced exit prints. */
  journal?: RestoreJournal;
  /** How the second signal ends the process (tests replace it). */
  exit?: (code: number) => void;
  /** What a stop does now, for its message (undefined: compare's "stopping the workload, restoring …"). */
  stopping?: () => string | undefined;
}

const STOPPING = 'stopping the workload, restoring DELAYED_DURABILITY and dropping the event session before exiting';

// One process-wide stdout 'error' listener, installed once: it hands the error to the latest run's handler. A listener
// per run would stay for the life of the process (see below) and pile up when one process runs many commands (tests).
let stdoutErrorHandler: ((err: NodeJS.ErrnoException) => void) | null = null;
let stdoutListenerInstalled = false;
function onProcessStdoutError(handler: (err: NodeJS.ErrnoException) => void): void {
  stdoutErrorHandler = handler;
  if (stdoutListenerInstalled) return;
  stdoutListenerInstalled = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => stdoutErrorHandler?.(err));
  // A closed stderr (`compare … 2>&1 | head`) too: without a listener its EPIPE would end the process mid-run, leaving
  // the journal entry and the owner marker behind. It cancels and restores as a closed stdout does (exit 141).
  process.stderr.on('error', (err: NodeJS.ErrnoException) => stdoutErrorHandler?.(err));
}

export function runLifecycle(io: ConnectedCliIO, options: LifecycleOptions = {}): RunLifecycle {
  if (io.signal) return { signal: io.signal, stoppedBy: null, dispose: () => undefined };
  const controller = new AbortController();
  let stoppedBy: StopReason | null = null;
  let forcing = false;
  const exit = options.exit ?? ((code: number) => process.exit(code));

  const forceExit = async (reason: StopReason) => {
    if (forcing) return;
    forcing = true;
    const code = signalExitCode(reason);
    const lines = [`Second ${reason}: exiting now, before the restore finished.`];
    try {
      const mine = (await options.journal?.list())?.filter((e) => ownedByThisProcess(e.owner)) ?? [];
      for (const e of mine) {
        lines.push(`DELAYED_DURABILITY of ${e.database} on ${e.server} may still be ${e.lastApplied ?? 'changed'} (it was ${e.originalSetting}). Run: ${e.restoreStatement}`);
      }
      if (mine.length === 0) lines.push('The restore journal holds no unfinished change of this run.');
      else lines.push('The journal keeps these entries; the next run with --yes restores them once this process is gone.');
    } catch (err) {
      lines.push(`The restore journal could not be read (${(err as Error).message}).`);
    }
    lines.push(LEFTOVER_SESSIONS_HINT);
    io.stderr(`${lines.join('\n')}\n`);
    exit(code);
  };

  const stop = (reason: StopReason) => {
    if (stoppedBy !== null) {
      void forceExit(reason);
      return;
    }
    stoppedBy = reason;
    io.stderr(
      `${reason === 'EPIPE' ? 'Standard output was closed (EPIPE)' : `Received ${reason}`}: ${options.stopping?.() ?? STOPPING} (exit code ${signalExitCode(reason)}). Send the signal again to exit at once.\n`,
    );
    controller.abort();
  };
  // The process's own signals, or — under bin/durability-lens on an older Node — the launcher's, each once.
  const stopListening = listenForStopSignals(stop);
  // A closed pipe (`durability-lens compare … | head`) must not kill the process: during the run it cancels (and
  // restores) like a signal; after it — the report is the last thing written — it is said and sets the exit code.
  // The handler stays current after dispose (until the next run replaces it): a write's EPIPE is emitted after the
  // write returned.
  let stdoutBroken = false;
  let disposed = false;
  const onStdoutError = (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' || stdoutBroken) return;
    stdoutBroken = true;
    if (!disposed) {
      stop('EPIPE');
      return;
    }
    io.stderr('Standard output was closed (EPIPE) before the report was written in full; the run itself had ended (its outcome is above).\n');
    process.exitCode = signalExitCode('EPIPE');
  };
  onProcessStdoutError(onStdoutError);
  return {
    signal: controller.signal,
    get stoppedBy() {
      return stoppedBy;
    },
    dispose: () => {
      disposed = true;
      stopListening();
    },
  };
}
