// The cause model's contract (issue 29): who is to blame for commit time, by how much of the session's time, on what
// evidence, and whether delayed durability is the lever. JSON-safe; no imports beyond types, so the webview can read it.

/** The causes a run's commit time can be split into; `not-log` is time that went anywhere but the commit path. */
export type CauseId =
  | 'log-disk'
  | 'tiny-flushes'
  | 'group-commit'
  | 'log-writer-limit'
  | 'ag-sync-commit'
  | 'log-rate-governor'
  | 'hyperscale-log-service'
  | 'tempdb'
  | 'not-log';

/** Every cause, in the order ties are ranked. */
export const CAUSE_IDS: readonly CauseId[] = ['log-disk', 'tiny-flushes', 'group-commit', 'log-writer-limit', 'ag-sync-commit', 'log-rate-governor', 'hyperscale-log-service', 'tempdb', 'not-log'];

/** Whether DELAYED_DURABILITY removes this cause's time, per Learn (each cause says why in `helpsWhy`). */
export type DelayedDurabilityHelp = true | false | 'partly';

/** A source the cause needed and could not read: why, and the GRANT (or setting) that fixes it. */
export interface CauseNotMeasured {
  reason: string;
  grant: string | null;
}

export interface Cause {
  cause: CauseId;
  label: string;
  /** The cause with its deciding figure, as the verdict's first line starts ("log-rate governance caps … at 12 MiB/s"). */
  summary: string;
  /**
   * Part of the session's time (0–1) this cause took: its wait time ÷ the larger of the session's time (elapsed, or
   * all its waits when they add up to more) and its commit-related waits. null: not measured (`notMeasured` says why).
   */
  share: number | null;
  /** The time attributed to the cause (ms); null when not measured. */
  ms: number | null;
  /** The figures the attribution rests on, in words, each with its source. */
  evidence: string[];
  helpsDelayedDurability: DelayedDurabilityHelp;
  /** Why delayed durability does or does not help this cause (Learn). */
  helpsWhy: string;
  /** What removes the cause. */
  fix: string;
  /** The Learn pages the rule follows. */
  learn: string[];
  notMeasured: CauseNotMeasured | null;
}

/** What the shares are parts of, so a reader can redo the arithmetic. */
export interface CauseBasis {
  /** 'session': the workload session's own waits; 'server-wide': a recording's (every session adds to them). */
  scope: 'session' | 'server-wide' | null;
  /** The session's time: Σ over runs of its waits + its CPU, or (CPU not read) of max(elapsed, its waits). */
  sessionTimeMs: number;
  /** 'waits-and-cpu': the session's time on the server; 'elapsed': the client's clock bounds it (network and client included). */
  timeBasis: 'waits-and-cpu' | 'elapsed';
  /** The session's CPU (ms, sys.dm_exec_sessions.cpu_time); null when not read. */
  cpuMs: number | null;
  /** WRITELOG + LOGBUFFER + HADR_SYNC_COMMIT + log-rate governor + Hyperscale RBIO waits. */
  commitWaitMs: number | null;
  elapsedMs: number;
  runs: number;
  /** Workload sessions at once (a concurrency sweep level); the waits are session 1's then. */
  sessions: number;
}

export interface CauseAssessment {
  /** Measured causes by share, largest first (ties in CAUSE_IDS order), then the ones not measured. */
  causes: Cause[];
  /** The largest measured cause with time; null when nothing was measured or no time was attributed. */
  dominant: CauseId | null;
  basis: CauseBasis;
  notes: string[];
}
