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
  /** Comparison only: null when nothing was changed. */
  restore: { ok: boolean; message: string; statement: string | null } | null;
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
  flushSizes: { labels: string[]; series: Series[] } | null;
  flushTimeline: { bucketMs: number; series: Series[] } | null;
}

export interface PanelData {
  kind: 'comparison' | 'profile';
  title: string;
  /** ISO time the data was made (shown, and lets a restored panel say how old it is). */
  createdAt: string;
  header: PanelHeader;
  /** Non-null whenever any figure came from the stand-in: shown as a banner. */
  standInLabel: string | null;
  model: ComparisonModel;
  charts: ChartsData;
  files: FileIoRow[];
  waits: WaitRowView[];
  missing: MissingRow[];
  grantScript: string;
}

export type ToWebview = { type: 'show'; data: PanelData } | { type: 'notice'; text: string };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'export'; format: ExportFormat }
  | { type: 'copyMarkdown' }
  | { type: 'copyGrants' };

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
    default:
      return false;
  }
}
