// Group commit: one log writer per database, one flush in flight at a time. Commits that ask for a flush while one is
// being written join the next flush, which goes out as soon as the one in flight completes — so under concurrency
// several commits share a write and flushes per commit fall below 1. The group is bounded by the 60 KB log block:
// Durability.appendLog writes a full block out on its own (Learn, "SQL Server transaction log architecture and
// management guide": a log block is at most 60 KB). Modelling choice; the timing of the join is NOT CONFIRMED.
import type { Database } from './state';

export interface LogWriterState {
  /** Resolves when the flush being written completes; null when the writer is idle. */
  inFlight: Promise<void> | null;
  /** The group forming behind `inFlight`: its one flush starts when `inFlight` completes. */
  next: Promise<void> | null;
}

const writers = new WeakMap<Database, LogWriterState>();

export function logWriterOf(db: Database): LogWriterState {
  let w = writers.get(db);
  if (!w) {
    w = { inFlight: null, next: null };
    writers.set(db, w);
  }
  return w;
}

/**
 * A flush lasting `realMs` real milliseconds: a timer when it is worth one (timers are ~1 ms granular), otherwise
 * the next turn of the event loop — long enough for commits of other connections that arrive meanwhile to join the
 * next group, which is what makes the group-commit curve appear even with speedFactor 0.
 */
export function flightOf(w: LogWriterState, realMs: number): Promise<void> {
  const flight = new Promise<void>((resolve) => {
    if (realMs >= 1) setTimeout(resolve, realMs);
    else setImmediate(resolve);
  }).then(() => {
    if (w.inFlight === flight) w.inFlight = null;
  });
  w.inFlight = flight;
  return flight;
}
