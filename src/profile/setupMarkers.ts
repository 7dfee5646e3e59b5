// Splits a script into setup (run before the snapshots, never measured) and measured parts, from the markers the
// user writes as line comments: `-- durability-lens: setup` … `-- durability-lens: measure` (line level, issue 4),
// or the older batch-level `-- durability-lens: setup-end` (every batch up to and including it is setup).
import type { WorkloadBatch } from '../db/types';
import { lex, TokenKind } from '../tsql';

/** Starts a setup section: the lines after it, up to the measure marker, are setup. */
export const SETUP_MARKER = 'durability-lens: setup';
/** Ends a setup section: the lines after it are measured again. */
export const MEASURE_MARKER = 'durability-lens: measure';
/** Batch-level alias kept for the samples: batches up to and including the one holding it are setup. */
export const SETUP_END_MARKER = 'durability-lens: setup-end';

const SETUP_LINE = /^\s*--\s*durability-lens:\s*setup\s*$/i;
const MEASURE_LINE = /^\s*--\s*durability-lens:\s*measure\s*$/i;
const SETUP_END_COMMENT = /^--\s*durability-lens:\s*setup-end\b/i;
/** The analyzer's line breaks (\r\n, \n, \r), kept by split() so a rebuilt text has the same lines. */
const LINE_BREAK = /(\r\n|\r|\n)/;

/**
 * The line comments of `text` that stand in code, by start offset, from the T-SQL lexer: a `--` inside a block
 * comment (T-SQL nests them), a string or a quoted identifier is no comment there. A marker in a commented-out block
 * or inside a string is text, not a marker (an attack found a commented-out setup section with a DROP TABLE running
 * as setup). The session-param marker (sessionParam.ts) is read the same way.
 */
export function lineComments(text: string): Map<number, string> {
  const { comments } = lex(text);
  const byStart = new Map<number, string>();
  for (let i = 0; i < comments.count; i++) {
    if (comments.kinds[i] === TokenKind.LineComment) byStart.set(comments.starts[i]!, text.slice(comments.starts[i]!, comments.ends[i]!));
  }
  return byStart;
}

/** A marker line: the marker alone on its line, as a line comment that stands in code. */
function markerLines(text: string): { lines: string[]; breaks: string[]; setup: boolean[]; measure: boolean[] } {
  const parts = text.split(LINE_BREAK);
  const lines = parts.filter((_, i) => i % 2 === 0);
  const breaks = parts.filter((_, i) => i % 2 === 1);
  const comments = lineComments(text);
  const isComment: boolean[] = [];
  let offset = 0;
  lines.forEach((line, i) => {
    isComment.push(comments.has(offset + (line.length - line.trimStart().length)));
    offset += line.length + (breaks[i]?.length ?? 0);
  });
  return {
    lines,
    breaks,
    setup: lines.map((l, i) => isComment[i]! && SETUP_LINE.test(l)),
    measure: lines.map((l, i) => isComment[i]! && MEASURE_LINE.test(l)),
  };
}

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
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/--[^\r\n]*/g, '').trim() === '';
}

/** Whether any batch uses the line-level markers. */
export function hasLineMarkers(batches: readonly WorkloadBatch[]): boolean {
  return batches.some((b) => {
    const m = markerLines(b.text);
    return m.setup.some(Boolean) || m.measure.some(Boolean);
  });
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
    const m = markerLines(batch.text);
    const setupLines: string[] = [];
    const measuredLines: string[] = [];
    m.lines.forEach((line, i) => {
      const documentLine = batch.firstLine + i;
      if (m.setup[i]) {
        if (inSetup) throw new SetupMarkerError(`Line ${documentLine + 1}: '-- ${SETUP_MARKER}' inside a setup section that started at line ${openedAt + 1}; end that one with '-- ${MEASURE_MARKER}' first.`);
        inSetup = true;
        openedAt = documentLine;
      } else if (m.measure[i]) {
        if (!inSetup) throw new SetupMarkerError(`Line ${documentLine + 1}: '-- ${MEASURE_MARKER}' without a '-- ${SETUP_MARKER}' before it.`);
        inSetup = false;
      }
      // Marker lines are comments: they may stay in either part.
      setupLines.push(inSetup ? line : '');
      measuredLines.push(inSetup ? '' : line);
    });
    // The same line breaks as the document (\r\n, \n or \r), so server line numbers still map onto it.
    const join = (parts: string[]) => parts.map((l, i) => l + (m.breaks[i] ?? '')).join('');
    const setupText = join(setupLines);
    const measuredText = join(measuredLines);
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
    const markerAt = batches.findIndex((b) => [...lineComments(b.text).values()].some((c) => SETUP_END_COMMENT.test(c)));
    count = markerAt >= 0 ? markerAt + 1 : 0;
  }
  if (count < 0 || count > batches.length) throw new RangeError(`Setup batch count ${count} is outside 0..${batches.length}.`);
  return { setup: batches.slice(0, count), measured: batches.slice(count) };
}
