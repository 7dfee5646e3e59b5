// One statement's figures over a run (issue 16), the shape every view of per-statement attribution reads: the panel's
// Statements tab, the Markdown table, inline hints, the JSON, `trace read`. Types only.

/** One statement of the script: where it is and what it cost over the run. */
export interface StatementFigure {
  /** 1-based line in the file that was run (the statement's first line). */
  line: number;
  /** The statement as sent (collapsed whitespace, at most 200 characters). */
  text: string;
  executions: number;
  /** null when not measured (see notMeasured): never a 0 that was not measured. */
  durationMs: number | null;
  writelogWaits: number;
  /** null when not measured (see notMeasured). */
  writelogMs: number | null;
  /** null when not measured (see notMeasured). */
  rows: number | null;
  /** 0-based batch of the run; -1 for a statement inside a procedure (`module`). */
  batchIndex: number;
  /** The procedure (as the event named it) whose definition holds the statement; absent for the batches we sent. */
  module?: string;
  /** Statements inside nested modules / dynamic SQL whose figures were folded into this one. */
  nestedStatements: number;
  /**
   * Where executions and writelogWaits come from: 'exact' = the server's histograms by sqlserver.query_hash (every
   * execution of the run), 'sample' = the events the ring buffer / event_file kept. Absent in older results (sample).
   */
  counts?: 'exact' | 'sample';
  /** durationMs, writelogMs and rows are ≈: the exact counts × this statement's averages in the sample (false when the sample held every execution and wait). */
  approx?: boolean;
  /**
   * Set when the row's counts themselves are approximate, with why ("approximate — …"): a histogram that may have
   * folded statements into shared slots, or plan-less statements (query_hash 0) whose server-side total was shared
   * out by their sampled shares.
   */
  approximate?: string;
  /** sqlserver.query_hash (decimal) the server counted this statement under; "0" for a plan-less statement (never a key). */
  queryHash?: string;
  /** Every file line whose statement has this hash (identical text): the counts are theirs together. */
  sharedLines?: number[];
  /** false: the hash was counted on the server but never appeared in the sample, so its line is unknown (line 0). */
  located?: boolean;
  /** Figures of this row that are not measured (null, and "not measured" in every view): a not-located row's durationMs and rows have no sample. */
  notMeasured?: Array<'durationMs' | 'rows' | 'writelogMs'>;
}

/** A statement's figures while the sample is folded: every sum is a number (nulls appear only in the result). */
export type SampledFigure = StatementFigure & { durationMs: number; writelogMs: number; rows: number };
