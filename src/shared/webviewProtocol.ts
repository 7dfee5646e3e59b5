// Messages between the extension and the "Durability comparison" webview, declared once as discriminated unions,
// plus the PanelData the webview renders (plain JSON: it is also what workspaceState keeps for a restored panel).
import type { ComparisonModel } from '../report/comparison';

export const PANEL_VIEW_TYPE = 'durabilityLens.comparison';

export type ExportFormat = 'markdown' | 'csv' | 'json';

export interface PanelHeader {
  server: string | null;
  version: string | null;
  edition: string | null;
  hostPlatform: string | null;
  database: string | null;
  recoveryModel: string | null;
  /** Comparison only: null when nothing was changed. The settings are absent in data saved by older versions. */
  restore: { ok: boolean; message: string; statement: string | null; originalSetting?: string | null; verifiedSetting?: string | null } | null;
  /** What ran: "the script's measured batch 3 (lines 17–24), after setup batches 1–2" or the file name; absent in older data. */
  workload?: string | null;
  status: string;
  /** Why the run/comparison stopped early. */
  error: string | null;
}

export interface FileIoRow {
  mode: string;
  file: string;
  kind: string;
  writes: number;
  bytesWritten: number;
  msPerWrite: number | null;
  avgBytesPerWrite: number | null;
  reads: number;
  /** Absent in data saved by older versions. */
  bytesRead?: number;
  msPerRead?: number | null;
  /** Bytes read / written per second of the run's elapsed time. */
  readBytesPerSec?: number | null;
  writeBytesPerSec?: number | null;
}

export interface WaitRowView {
  mode: string;
  waitType: string;
  waitingTasks: number;
  waitTimeMs: number;
  percent: number | null;
}

export interface MissingRow {
  measurement: string;
  reason: string;
  grant: string | null;
}

export interface Series {
  label: string;
  values: (number | null)[];
}

export interface ChartsData {
  /** x labels "rep 1", "rep 2"…; one series per mode. */
  repetitions: string[];
  elapsedMs: Series[];
  writelogMs: Series[];
  /** Log writes (x) vs log bytes (y): one point per run, one series per mode. */
  writesVsBytes: { label: string; points: { x: number; y: number }[] }[];
  /** `sources`: per series, where its counts come from ("exact (histogram)" or a sample) and what it missed. */
  flushSizes: { labels: string[]; series: Series[]; sources?: string[] } | null;
  /** `coverage`: per series, how much of its run the timeline draws ("sample: the last 725 of 10,000 flushes …"). */
  flushTimeline: { bucketMs: number; series: Series[]; coverage?: string[] } | null;
  /** Bytes written per file (x = file), one series per mode, from the first measured run of each mode. */
  fileIo: { labels: string[]; series: Series[] } | null;
  /** Read and written bytes per second per file (one series per mode and direction), first measured run of each mode;
   *  absent in data saved by older versions. */
  fileThroughput?: { labels: string[]; series: Series[] } | null;
  /** Sampled time series of the first measured run (x = seconds since the run started); null when not sampled. */
  samples: { labels: string[]; series: Series[] } | null;
  /** "LABEL: number" figures the workload PRINTed (S4's per-iteration timings), x = occurrence; `perPoint` > 1 when
   *  long series were reduced to their maximum per that many occurrences. */
  printSeries: { labels: string[]; series: Series[]; perPoint: number } | null;
}

/** Environment block: what shapes log flushing besides the workload (reference: trace flags 3979/3982, VLFs). */
export interface EnvironmentView {
  /** "on (global)", "off", or null when DBCC TRACESTATUS was not readable. */
  traceFlag3979: string | null;
  traceFlag3982: string | null;
  vlfCount: number | null;
  logSizeMb: number | null;
  recoveryModel: string | null;
  delayedDurability: string | null;
  /**
   * Why a null figure above was not measured, with the GRANT or setting that fixes it (report prose, English): the
   * panel shows "not measured — why", never a bare "unknown". Absent in panels saved before it existed.
   */
  notMeasured?: { traceFlags: string | null; vlfCount: string | null; logSize: string | null };
}

/** A before/after pair of the database's log (single-run view). */
export interface LogBeforeAfterRow {
  figure: string;
  before: string;
  after: string;
}

export interface CounterRowView {
  counter: string;
  /** "delta" (cumulative), "after" (point in time), "ratio". */
  kind: string;
  value: string;
  perSecond: string | null;
}

/** Figures of the log-flush trace (XE) of one run or an ad-hoc trace. */
export interface TraceFigureRow {
  figure: string;
  value: string;
}

/** The single-run view's extra tables (profile runs and ad-hoc traces). */
export interface RunDetails {
  logCounters: CounterRowView[];
  log: LogBeforeAfterRow[];
  trace: TraceFigureRow[];
  traceNotes: string[];
  notes: string[];
}

export interface PanelData {
  kind: 'comparison' | 'profile' | 'trace';
  title: string;
  /** ISO time the data was made (shown, and lets a restored panel say how old it is). */
  createdAt: string;
  header: PanelHeader;
  /** Non-null whenever any figure came from the stand-in: shown as a banner. */
  standInLabel: string | null;
  model: ComparisonModel;
  charts: ChartsData;
  files: FileIoRow[];
  /** Waits of the workload session (measured run), top per mode. */
  waits: WaitRowView[];
  /** Server-wide waits over the same interval (benign ones filtered), top per mode. */
  serverWaits: WaitRowView[];
  environment: EnvironmentView;
  /** Single-run view (profile, trace); null for a comparison. */
  details: RunDetails | null;
  missing: MissingRow[];
  grantScript: string;
  /** The document that ran (its URI), so the Statements tab can go to a line; absent for traces and older data. */
  documentUri?: string | null;
}

/** A run in progress: the panel shows it instead of the previous result (which stays in the webview state). */
export interface RunningView {
  title: string;
  /** "Run 3 of 7: FORCED · workload batch 3 · GO iteration 120 of 500". */
  step: string;
  elapsedMs: number;
  /** Live figures from the sampler (null until the first sample). */
  logFlushes: number | null;
  logBytes: number | null;
}

export type ToWebview = { type: 'show'; data: PanelData } | { type: 'running'; view: RunningView } | { type: 'runEnded' } | { type: 'notice'; text: string };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'export'; format: ExportFormat }
  | { type: 'copyMarkdown' }
  | { type: 'copyGrants' }
  /** Statements tab: go to this 1-based line of the document that ran (the host knows which document). */
  | { type: 'openLine'; line: number };

/** The webview's message handler gets anything; only well-formed messages are acted on. */
export function isFromWebview(value: unknown): value is FromWebview {
  const v = value as { type?: unknown; format?: unknown } | null;
  if (typeof v !== 'object' || v === null) return false;
  switch (v.type) {
    case 'ready':
    case 'copyMarkdown':
    case 'copyGrants':
      return true;
    case 'export':
      return v.format === 'markdown' || v.format === 'csv' || v.format === 'json';
    case 'openLine': {
      const line = (v as { line?: unknown }).line;
      return typeof line === 'number' && Number.isInteger(line) && line >= 1 && line <= 10_000_000;
    }
    default:
      return false;
  }
}
