// The shape of a comparison as every reader sees it (panel, exports, verdict, diagnosis, agent tools): one row per
// metric, one column per mode, with the diagnosis's findings. Types only: comparison.ts builds it, diagnosis.ts and
// verdict.ts read it, and none of them has to import the builder to name it.
import type { TraceOverhead } from '../profile/traceOverhead';
import type { FigureSource, MissingMeasurement, WorkloadDurabilityChange } from '../profile/types';
import type { CauseAssessment } from './causes';
import type { ConcurrencyModel } from './concurrency';
import type { ConsistencySummary, RowDisagreement } from './consistency';
import type { EnvironmentInfo } from './environment';
import type { MetricUnit } from './metrics';
import type { StatementsView } from './statements';
import type { Better, RatioCell, Summary } from './stats';

export interface MetricRow {
  id: string;
  label: string;
  unit: MetricUnit;
  better: Better;
  source: string;
  /** Keyed by column (mode); null when no run of that mode had the figure. */
  cells: Record<string, Summary | null>;
  /** Keyed by non-baseline column; null when either side has no figure. */
  ratios: Record<string, RatioCell | null>;
  /**
   * Set when no run has the figure because its source was not measured (denied, empty, unsupported): the row reads
   * "not measured" with this reason and GRANT — never a zero. Null when measured (or merely absent, like an average
   * over no events).
   */
  notMeasured: MissingMeasurement | null;
  /** Cross-checks that disagree about this row's figures (report/consistency.ts): shown beside the row. Absent in older data. */
  consistency?: RowDisagreement[];
}

export interface ComparisonModel {
  schemaVersion: 1;
  source: FigureSource;
  /** Non-null whenever any figure came from the stand-in: the UI shows it beside every table. */
  sourceLabel: string | null;
  server: string | null;
  database: string | null;
  /** Column keys in display order: modes as run (DISABLED first when present), or "RUN" for a plain profile. */
  columns: string[];
  baseline: string;
  runsPerColumn: Record<string, number>;
  rows: MetricRow[];
  diagnosis: Finding[];
  notes: string[];
  /** Measurements some run could not make, once each, with the GRANT that would enable them. */
  missing: MissingMeasurement[];
  /** Trace flags 3979/3982, VLF count, log size, recovery model (from the first measured run); null without runs. */
  environment: EnvironmentInfo | null;
  /** The first SQL error a measured run's workload raised (it leads the verdict and the diagnosis); null when none. */
  failure: WorkloadFailure | null;
  /** Measured runs that were cancelled (the user or the time limit): their figures cover only what ran. Absent when none. */
  cancelled?: CancelledRuns;
  /** A concurrency sweep's curve (report/concurrency.ts); absent for a comparison on one session. */
  concurrency?: ConcurrencyModel;
  /** Per-statement figures of one run (the baseline's first, issue 16); null/absent when no run traced statements. */
  statements?: StatementsView | null;
  /** Independent sources reconciled per check over the runs (issue 33); [] for runs that predate it, absent in older data. */
  consistency?: ConsistencySummary[];
  /**
   * Who is to blame for commit time, per column (issue 29, report/causes): every cause with its share, evidence and
   * whether delayed durability helps. A sweep's columns describe its first level. Absent in older data.
   */
  causes?: Record<string, CauseAssessment>;
  /** A profile's per-statement trace cost, or why it was not measured (report/traceOverheadText.ts); null/absent otherwise. */
  traceOverhead?: TraceOverhead | null;
  /** A profile whose script (or another session) changed DELAYED_DURABILITY during the run; absent otherwise. */
  workloadDurabilityChange?: WorkloadDurabilityChange;
  /** A comparison whose runs ran without the per-statement trace: said next to its figures. Absent in older data. */
  untracedComparison?: boolean;
}

export interface CancelledRuns {
  /** How many measured runs ended cancelled. */
  runs: number;
  /** Why the first of them was cancelled, and when (ms after its workload started). */
  reason: 'user' | 'timeout';
  atMs: number;
}

export interface WorkloadFailure {
  number: number;
  message: string;
  /** 0-based document line; null when unknown (inside a procedure). */
  line: number | null;
}

export interface Evidence {
  metric: string;
  column: string;
  value: number;
}

export interface Finding {
  id:
    | 'workload-failed'
    | 'top-wait'
    | 'restart-invalid'
    | 'writelog-internal-contention'
    | 'too-many-log-flushes'
    | 'commit-per-row'
    | 'no-gain-set-based'
    | 'logbuffer-high'
    | 'delayed-durability-gain'
    | 'delayed-durability-inconclusive'
    | 'delayed-durability-indicative'
    | 'writelog-share'
    | 'flushes-per-commit';
  severity: 'info' | 'warning' | 'error';
  title: string;
  detail: string;
  suggestion: string | null;
  evidence: Evidence[];
}
