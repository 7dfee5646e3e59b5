// The profile layer's contracts: how it gets connections and runs batches, what it reports while running, and the
// JSON-serialisable RunResult the report layer and the UI consume.
import type { BatchReport, ConnectionRole, SqlSession, WorkloadBatch, WorkloadMessage } from '../db/types';
import type { DatabaseInfo, HyperscaleLogRate, InMemoryTables, LogRateGovernance, Measurement, PreflightResult, SnapshotDiff } from '../probes';
import type { LogFlushTrace } from '../xe/aggregate';
import type { PrintSeries } from './printSeries';
import type { RunFile, RunLogCounters, RunServer, RunWait } from './runSchema';
import type { Sample } from './sampler';
import type { TraceOverhead } from './traceOverhead';
import type { ModuleSource, StatementAttribution, StatementFigure } from './statementAttribution';

export type DurabilityMode = 'DISABLED' | 'ALLOWED' | 'FORCED';
export const DURABILITY_MODES: readonly DurabilityMode[] = ['DISABLED', 'ALLOWED', 'FORCED'];

/** Where the figures came from: the UI must label stand-in figures (its @@VERSION says so). */
export type FigureSource = 'sql-server' | 'stand-in';

/** Opens WORKLOAD and MONITOR sessions; also used to reconnect the monitor when it dropped. */
export interface ConnectionSource {
  open(role: ConnectionRole, signal?: AbortSignal): Promise<SqlSession>;
  /** Server and port as the user named them (journal entries and messages). */
  readonly serverLabel: string;
}

/** Runs one batch on the workload session (src/db runWorkload over tedious; tests may fake it). */
export interface WorkloadExecutor {
  run(
    session: SqlSession,
    batch: WorkloadBatch,
    options: { onMessage?: ((message: WorkloadMessage) => void) | undefined; signal?: AbortSignal | undefined; onIteration?: ((completed: number) => void) | undefined },
  ): { done: Promise<BatchReport>; cancel(): void };
}

export type ProfileStep =
  | 'connect'
  | 'preflight'
  | 'snapshot-before'
  | 'xe-start'
  | 'setup'
  | 'workload'
  /** Live workload progress (batch, GO iteration, elapsed, sampled log figures): repeats while 'workload' runs. */
  | 'workload-progress'
  | 'cancel'
  | 'snapshot-after'
  | 'xe-read'
  | 'xe-drop'
  | 'plan'
  | 'set-durability'
  | 'restore-durability'
  | 'done';

export interface ProgressEvent {
  step: ProfileStep;
  /** ms since epoch. */
  at: number;
  /** Human-readable detail ("run 3 of 7: FORCED"). */
  detail?: string | undefined;
  /** While the workload runs: where it is and what the sampler has seen so far. */
  live?: LiveProgress;
  /** In a comparison: which run the event belongs to ("run 3 of 7: FORCED"). */
  run?: string;
}

/** Workload progress: batch and GO iteration, elapsed time, and the sampler's cumulative log figures. */
export interface LiveProgress {
  /** 1-based batch being run, of `batches`. */
  batch: number;
  batches: number;
  /** GO n iterations of the current batch completed, of `iterations` (1 without GO n). */
  iterationsDone: number;
  iterations: number;
  /** ms since the workload started. */
  elapsedMs: number;
  /** Since the before-snapshot, from the latest sample; null before the first sample or without sampling. */
  logFlushes: number | null;
  logBytes: number | null;
}

export interface ProfileCallbacks {
  onProgress?: (event: ProgressEvent) => void;
  /** PRINT / RAISERROR / errors of the workload, with timestamps and document lines (src/db WorkloadMessage). */
  onMessage?: (message: WorkloadMessage) => void;
}

export interface XeOptions {
  /** Default true: trace log flushes when the login may create event sessions. */
  enabled?: boolean;
  target?: { kind: 'ring_buffer' } | { kind: 'event_file'; path: string };
  /** A fixed session name (tests); when it is taken, the run falls back to a random name and leaves the other alone. */
  sessionName?: string;
  /** Default true: also trace the workload session's statements and WRITELOG waits (per-statement attribution). */
  statements?: boolean;
  /** Why `statements` is false, for the "not measured" entry (default: turned off for this run). */
  statementsOffReason?: string;
  /** Procedures whose source is in the file that ran: their statements are attributed to the file's lines. */
  modules?: ModuleSource[];
}

/** A measurement the run could not make, why, and the GRANT that would fix it (when it is a permission). */
export interface MissingMeasurement {
  measurement: string;
  reason: string;
  grant: string | null;
  /** The permission (and its scope) `grant` asks for, as data: the panel rebuilds the GRANT from this, not from text. */
  required?: { permission: string; scope: string } | null;
}

export interface RunError {
  number: number;
  message: string;
  /** 0-based document line, null when unknown or inside a procedure. */
  documentLine: number | null;
  batchIndex: number;
  /**
   * True when this error ended the run (lost connection, severity 20 or above); absent/false for a statement error
   * the server continued past (severity 11–19): the remaining statements and GO repetitions ran.
   */
  endedRun?: boolean;
}

export interface MessagesSummary {
  total: number;
  errors: number;
  info: number;
  /** The first messages, as the workload runner kept them. */
  first: WorkloadMessage[];
}

export interface BatchOutcome {
  batchIndex: number;
  firstLine: number;
  repeat: number;
  elapsedMs: number;
  iterationsCompleted: number;
  statements: number;
  /** null: not measured (SET NOCOUNT ON: the server sent no row counts). */
  rowsAffected: number | null;
  rowsReturned: number;
}

export type RunStatus = 'completed' | 'workload-error' | 'cancelled';

/** Sampling while the workload runs (issue 4 item 3). */
export interface SamplingOptions {
  /** Default true. */
  enabled?: boolean;
  /** Default 1000 ms; at least 10. */
  intervalMs?: number;
}

/** Why a run ended as 'cancelled': the user's signal, or the workload time limit. */
export interface CancelInfo {
  reason: 'user' | 'timeout';
  /** ms after the workload started when the attention was sent. */
  atMs: number;
}

export interface RunTarget {
  kind: 'selection' | 'batch' | 'transaction' | 'document';
  /** e.g. "lines 12–40 of s1.sql". */
  label: string;
}

export interface RunResult {
  schemaVersion: 1;
  source: FigureSource;
  status: RunStatus;
  /** Set by the comparison runner. */
  mode: DurabilityMode | null;
  /** 0-based repetition within the mode; null for a plain profile. */
  repetition: number | null;
  warmup: boolean;
  /** Set by profileRun when the caller named the target. */
  target?: RunTarget;
  /** Recordings and `compare --command` runs only (issue 17): the program as typed (null: a window until Stop). */
  command?: string | null;
  /** The program's exit code; null when it was stopped, killed or could not start. Recordings only. */
  exitCode?: number | null;
  /** The program's wall time from start to exit (ms). Recordings only. */
  durationMs?: number;
  /** How the recorded program ended, which figures other sessions share, and the database's transaction counts. */
  recording?: RecordingInfo;
  startedAt: string;
  /** Wall time of the workload batches (sum of their elapsed). */
  workloadElapsedMs: number;
  /** Wall time between the two snapshots. */
  snapshotIntervalMs: number;
  /** ServerInfo plus the flat `version` and `hostPlatform` keys. */
  server: RunServer;
  database: DatabaseInfo | null;
  /** DELAYED_DURABILITY while the workload ran, as read from sys.databases. */
  delayedDurability: DurabilityMode | null;
  /**
   * DELAYED_DURABILITY read right after the workload, with the after-snapshot (a script may change it); null when it
   * could not be read. Absent in results made before it existed.
   */
  delayedDurabilityAfter?: DurabilityMode | null;
  workloadSpid: number;
  batches: BatchOutcome[];
  diff: SnapshotDiff;
  logFlushTrace: LogFlushTrace | null;
  messages: MessagesSummary;
  errors: RunError[];
  missing: MissingMeasurement[];
  preflight: PreflightResult | null;
  notes: string[];

  // ---- Flat, issue-named figures (docs/run-result-schema.md); derived from `diff`, kept in step with it ----
  /** Same as workloadElapsedMs: client wall time of the measured batches. */
  elapsedMs: number;
  files: RunFile[];
  sessionWaits: RunWait[];
  serverWaits: RunWait[];
  logCounters: RunLogCounters;
  /** Cumulative-since-start readings every `sampleIntervalMs` while the workload ran; [] when sampling was off. */
  samples: Sample[];
  sampleIntervalMs: number | null;
  /** Numbers after labels in PRINT lines ("INS: 12 - CHKPT: 3"), one series per label. */
  printSeries: PrintSeries[];
  /** Set when status is 'cancelled'. */
  cancel: CancelInfo | null;
  /** Batches (or marker-delimited fragments) run before the snapshots, unmeasured. */
  setupBatchCount: number;
  /**
   * Set when the workload's session was in, or moved to (USE), a database other than the measured one: the file IO,
   * log counters and trace describe `measured`, while the workload wrote elsewhere. Absent/null when it stayed.
   */
  workloadDatabaseChange?: WorkloadDatabaseChange | null;
  /**
   * A profile only: DELAYED_DURABILITY differed after the run from when it began (the script's ALTER DATABASE, or another
   * session) or could not be read again; the message says which and the statement that restores it. Absent: unchanged.
   */
  workloadDurabilityChange?: WorkloadDurabilityChange;
  /** Concurrency sweep runs only (issue 18): the workload ran on `sessions` connections released together. */
  concurrency?: RunConcurrency;
  /**
   * Per-statement figures (issue 16), sorted by WRITELOG time; [] when not measured (see statementAttribution) or for
   * runs that predate it (absent).
   */
  statements?: StatementFigure[];
  /** How the statements were attributed, the session's WRITELOG total beside them, and what attribution cannot see. */
  statementAttribution?: StatementAttribution | null;
  /**
   * Independent sources of the same quantity reconciled on this run (issue 33): passed / disagrees / not-possible, in
   * the order of CONSISTENCY_CHECK_IDS. Absent in results made before it existed.
   */
  consistency?: ConsistencyCheck[];
  /**
   * The settings that decide a commit's path besides the disk (issue 29), read before the run: Azure SQL Database's
   * log-rate cap, Hyperscale's log-rate limits, SCHEMA_ONLY memory-optimized tables — each measured or "not measured /
   * not supported" with why. The cause model (report/causes) reads them. Absent in results made before they existed.
   */
  commitPath?: CommitPath;
  /**
   * What the per-statement trace cost this profile (issue 28): elapsed with vs without it, alternating runs on the same
   * sessions — or "not measured" with why (not asked for, trace off or refused). Profiles only: null in comparison,
   * sweep and recording runs (they never run the trace), absent in results made before it existed.
   */
  traceOverhead?: TraceOverhead | null;
}

/** What the before-snapshot read of a commit's path (probes/logRateGovernance, hyperscaleLogRate, inMemoryTables). */
export interface CommitPath {
  logRateGovernance: Measurement<LogRateGovernance | null>;
  hyperscaleLogRate: Measurement<HyperscaleLogRate>;
  inMemoryTables: Measurement<InMemoryTables>;
}

/** The cross-checks every run makes between independent sources (src/profile/consistency.ts). */
export type ConsistencyCheckId =
  | 'log-flushes:xe-vs-counter'
  | 'log-flushes:counter-vs-file-writes'
  | 'log-flushes:xe-vs-file-writes'
  | 'log-bytes:xe-vs-file'
  | 'log-bytes:counter-vs-file'
  | 'writelog-waits:statements-vs-session'
  | 'writelog-time:statements-vs-session';

/** passed: within the tolerance · disagrees: outside it (by differencePercent) · not-possible: a source is missing (detail says why). */
export type ConsistencyStatus = 'passed' | 'disagrees' | 'not-possible';

/** One reconciliation of two independent sources of the same quantity (docs/run-result-schema.md "consistency"). */
export interface ConsistencyCheck {
  check: ConsistencyCheckId;
  status: ConsistencyStatus;
  /** The two figures and their difference with the tolerance and why it is that wide, or why the check is not possible. */
  detail: string;
  /** What is compared, in words. */
  label: string;
  /** Metric ids (report/metrics.ts; 'statements' for the per-statement table) whose figures the check is about. */
  concerns: string[];
  /** The two figures compared ([] when not possible). */
  sources: Array<{ source: string; value: number }>;
  /** |a − b| / max(a, b) in percent, one decimal; null when not possible. */
  differencePercent: number | null;
  /** Agreement means |a − b| ≤ max(absolute, relative × max(a, b)); null when not possible. */
  tolerance: { relative: number; absolute: number } | null;
  /** The WRITELOG time check only: the wait event's duration unit as read, and the unit the session's waits fit (null: not inferred). */
  unit?: { event: string | null; used: 'milliseconds' | 'microseconds'; assumed: boolean; inferred: 'milliseconds' | 'microseconds' | null };
}

/** One level of a concurrency sweep as one run saw it (src/profile/concurrency.ts). */
export interface RunConcurrency {
  /** Workload connections that ran the measured batches at once. */
  sessions: number;
  /** ms from the barrier's release until the last session finished (also the run's workloadElapsedMs). */
  wallMs: number;
  /** The session-param marker's variable filled with 1..sessions, or null. */
  parameter: string | null;
  perSession: SessionOutcome[];
  /** WRITELOG summed over the workload sessions (sys.dm_exec_session_wait_stats deltas); null when not measured. */
  writelog: { waits: number; waitTimeMs: number } | null;
  /** Why `writelog` is null (the permission it needs, or the error). */
  writelogNotMeasured?: string;
}

/** What one workload connection of a concurrency run did. */
export interface SessionOutcome {
  /** 1-based session number (the value of the session parameter). */
  session: number;
  spid: number;
  elapsedMs: number;
  statements: number;
  /** null: not measured (SET NOCOUNT ON: the server sent no row counts). */
  rowsAffected: number | null;
  iterationsCompleted: number;
  errors: RunError[];
  cancelled: boolean;
}

/** profile/workloadDurability.ts */
export interface WorkloadDurabilityChange {
  database: string;
  /** The setting when the run began, before its setup. */
  before: DurabilityMode;
  /** The setting after the run; null when it could not be read again (then `message` says why). */
  after: DurabilityMode | null;
  /** The warning as the panel, the Markdown report, the CLI and agent tools show it. */
  message: string;
  /** The statement that restores `before` (shown, never run by the profile). */
  restoreStatement: string;
}

export interface WorkloadDatabaseChange {
  /** The database the snapshots and the trace measure. */
  measured: string;
  /** Databases the workload session was in during the run, in order, other than `measured`. */
  visited: string[];
  /** The warning as shown in the panel, the Markdown report and the CLI. */
  message: string;
}

/** What a recording adds to its RunResult (src/profile/recording.ts; docs/run-result-schema.md "Recordings"). */
export interface RecordingInfo {
  /** 'command': a program ran to its end; 'window': recorded until Stop (or --duration). */
  kind: 'command' | 'window';
  ended: 'exit' | 'stopped' | 'cancelled' | 'timeout' | 'spawn-failed';
  /** The signal that ended the program (after a cancel or time limit); null when it exited by itself. */
  signal: string | null;
  spawnError: string | null;
  /** The program did not succeed: non-zero exit, stopped by a signal, or not started. Marked, never hidden. */
  failed: boolean;
  /** Keys whose figures cover every session on the server (the program's sessions are not ours). */
  serverWide: string[];
  /** Keys whose figures cover every session working in the database, the program's and anyone else's. */
  databaseWide: string[];
  /** Deltas of the database's `Transactions/sec` and `Write Transactions/sec` counters; null when not readable. */
  transactions: number | null;
  writeTransactions: number | null;
}
