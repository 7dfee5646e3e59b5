// Splits a script into setup (run before the snapshots, never measured) and measured parts, from the markers the
// user writes as line comments: `-- durability-lens: setup` … `-- durability-lens: measure` (line level, issue 4),
// or the older batch-level `-- durability-lens: setup-end` (every batch up to and including it is setup).
import type { WorkloadBatch } from '../db/types';

/** Starts a setup section: the lines after it, up to the measure marker, are setup. */
export const SETUP_MARKER = 'durability-lens: setup';
/** Ends a setup section: the lines after it are measured again. */
export const MEASURE_MARKER = 'durability-lens: measure';
/** Batch-level alias kept for the samples: batches up to and including the one holding it are setup. */
export const SETUP_END_MARKER = 'durability-lens: setup-end';

const SETUP_LINE = /^\s*--\s*durability-lens:\s*setup\s*$/i;
const MEASURE_LINE = /^\s*--\s*durability-lens:\s*measure\s*$/i;
const SETUP_END_ANYWHERE = /--\s*durability-lens:\s*setup-end\b/i;

export interface SplitScript<B extends WorkloadBatch> {
  setup: B[];
  measured: B[];
}

/** Thrown when the markers do not pair up; the message names the document line. */
export class SetupMarkerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SetupMarkerError';
  }
}

/** True when the text holds nothing but whitespace and comments (such a fragment is not worth a round trip). */
export function isBlankSql(text: string): boolean {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/--[^\n]*/g, '').trim() === '';
}

/** Whether any batch uses the line-level markers. */
export function hasLineMarkers(batches: readonly WorkloadBatch[]): boolean {
  return batches.some((b) => b.text.split(/\r?\n/).some((l) => SETUP_LINE.test(l) || MEASURE_LINE.test(l)));
}

/**
 * Line-level split. Each batch becomes up to two batches with the same firstLine: the lines of the other part are
 * blanked (not removed), so a server error's line number still maps onto the document line. Sections may span GO
 * separators; a fragment that is only comments and blanks is dropped.
 */
export function splitByLineMarkers<B extends WorkloadBatch>(batches: readonly B[]): SplitScript<B> {
  const setup: B[] = [];
  const measured: B[] = [];
  let inSetup = false;
  let openedAt = -1;
  for (const batch of batches) {
    const lines = batch.text.split('\n');
    const setupLines: string[] = [];
    const measuredLines: string[] = [];
    lines.forEach((line, i) => {
      const bare = line.replace(/\r$/, '');
      const documentLine = batch.firstLine + i;
      if (SETUP_LINE.test(bare)) {
        if (inSetup) throw new SetupMarkerError(`Line ${documentLine + 1}: '-- ${SETUP_MARKER}' inside a setup section that started at line ${openedAt + 1}; end that one with '-- ${MEASURE_MARKER}' first.`);
        inSetup = true;
        openedAt = documentLine;
      } else if (MEASURE_LINE.test(bare)) {
        if (!inSetup) throw new SetupMarkerError(`Line ${documentLine + 1}: '-- ${MEASURE_MARKER}' without a '-- ${SETUP_MARKER}' before it.`);
        inSetup = false;
      }
      // Marker lines are comments: they may stay in either part.
      setupLines.push(inSetup ? line : '');
      measuredLines.push(inSetup ? '' : line);
    });
    const setupText = setupLines.join('\n');
    const measuredText = measuredLines.join('\n');
    if (!isBlankSql(setupText)) setup.push({ ...batch, text: setupText });
    if (!isBlankSql(measuredText)) measured.push({ ...batch, text: measuredText });
  }
  if (inSetup) throw new SetupMarkerError(`Line ${openedAt + 1}: '-- ${SETUP_MARKER}' has no '-- ${MEASURE_MARKER}' after it, so nothing after it would be measured.`);
  return { setup, measured };
}

/**
 * Setup is run (unmeasured) before the snapshots of every run — S1 recreates its table. Precedence: an explicit
 * `setupBatches` count, then the line markers, then the batch-level `setup-end` alias; without any, all is measured.
 */
/** The batches to run: empty ones (comments only) dropped, each reduced to what an executor reads. */
export function usableBatches(batches: readonly (WorkloadBatch & { empty?: boolean })[]): WorkloadBatch[] {
  return batches.filter((b) => !b.empty).map(({ text, repeat, firstLine, call }) => ({ text, repeat, firstLine, call }));
}

export function splitSetup<B extends WorkloadBatch>(batches: readonly B[], setupBatches?: number): SplitScript<B> {
  if (setupBatches === undefined && hasLineMarkers(batches)) return splitByLineMarkers(batches);
  let count = setupBatches;
  if (count === undefined) {
    const markerAt = batches.findIndex((b) => SETUP_END_ANYWHERE.test(b.text));
    count = markerAt >= 0 ? markerAt + 1 : 0;
  }
  if (count < 0 || count > batches.length) throw new RangeError(`Setup batch count ${count} is outside 0..${batches.length}.`);
  return { setup: batches.slice(0, count), measured: batches.slice(count) };
}
