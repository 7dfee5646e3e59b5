// Decides what a command profiles, from plain text and offsets (vscode-free, unit-tested): the selection, else the
// batch under the cursor, else the whole document; and for a lens, the batch it sits in, re-found if the text moved.
import { analyze } from '../tsql';
import type { Batch } from '../tsql';

export type TargetKind = 'selection' | 'batch' | 'document';

export interface WorkloadTarget {
  kind: TargetKind;
  /** Batches with document lines (firstLine is 0-based in the whole document). */
  batches: (Pick<Batch, 'text' | 'repeat' | 'firstLine' | 'empty' | 'index'>)[];
  /** True when a measured batch has COMMIT ... WITH (DELAYED_DURABILITY = ON) (ALLOWED then differs from DISABLED). */
  hasDelayedCommits: boolean;
  /** 1-based lines for messages: "lines 3–9". */
  description: string;
}

function linesText(first: number, last: number): string {
  return first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
}

function lineOfOffset(text: string, offset: number): number {
  let line = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) line++;
  }
  return line;
}

function usable(batches: readonly Batch[]): boolean {
  return batches.some((b) => !b.empty);
}

/**
 * `selection` is [start, end) in UTF-16 offsets, or null/empty for none; `cursor` is an offset. A selection is
 * analysed on its own (its GO lines split it) and its lines shifted to document lines.
 */
export function resolveEditorTarget(documentText: string, selection: { start: number; end: number } | null, cursor: number): WorkloadTarget | null {
  if (selection && selection.end > selection.start) {
    const text = documentText.slice(selection.start, selection.end);
    const analysis = analyze(text);
    if (usable(analysis.batches)) {
      const shift = lineOfOffset(documentText, selection.start);
      const last = lineOfOffset(documentText, selection.end);
      return {
        kind: 'selection',
        batches: analysis.batches.map((b) => ({ index: b.index, text: b.text, repeat: b.repeat, empty: b.empty, firstLine: b.firstLine + shift })),
        hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
        description: `the selection (${linesText(shift, last)})`,
      };
    }
  }
  const analysis = analyze(documentText);
  if (!usable(analysis.batches)) return null;
  // The batch whose text holds the cursor; on a GO line (between batches) the batch the GO ends.
  let under: Batch | undefined = analysis.batches.find((b) => cursor >= b.startOffset && cursor <= b.endOffset && !b.empty);
  if (!under) under = [...analysis.batches].reverse().find((b) => b.endOffset <= cursor && !b.empty);
  if (under && analysis.batches.filter((b) => !b.empty).length > 1) {
    return {
      kind: 'batch',
      batches: [{ index: under.index, text: under.text, repeat: under.repeat, empty: false, firstLine: under.firstLine }],
      hasDelayedCommits: analysis.commits.some((c) => c.batchIndex === under!.index && c.delayedDurability === 'ON'),
      description: `batch ${under.index + 1} (${linesText(under.range.start.line, under.range.end.line)})${under.repeat > 1 ? ` (GO ${under.repeat})` : ''}`,
    };
  }
  const nonEmpty = analysis.batches.filter((b) => !b.empty);
  return {
    kind: 'document',
    batches: analysis.batches.map((b) => ({ index: b.index, text: b.text, repeat: b.repeat, empty: b.empty, firstLine: b.firstLine })),
    hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
    description: `the whole document (${linesText(nonEmpty[0]!.range.start.line, nonEmpty[nonEmpty.length - 1]!.range.end.line)})`,
  };
}

/**
 * A lens target names a batch by index and by the line it started on when the lens was computed. When the
 * document changed since, the batch that now contains that line is taken (the index may have shifted).
 */
export function resolveLensTarget(documentText: string, target: { batchIndex: number; batchRange: { start: { line: number } }; version: number }, currentVersion: number): WorkloadTarget | null {
  const analysis = analyze(documentText);
  let batch: Batch | undefined = analysis.batches[target.batchIndex];
  if (currentVersion !== target.version || !batch || batch.empty) {
    const line = target.batchRange.start.line;
    batch = analysis.batches.find((b) => !b.empty && b.range.start.line <= line && line <= b.range.end.line) ?? batch;
  }
  if (!batch || batch.empty) return null;
  const b = batch;
  return {
    kind: 'batch',
    batches: [{ index: b.index, text: b.text, repeat: b.repeat, empty: false, firstLine: b.firstLine }],
    hasDelayedCommits: analysis.commits.some((c) => c.batchIndex === b.index && c.delayedDurability === 'ON'),
    description: `batch ${b.index + 1} (${linesText(b.range.start.line, b.range.end.line)})${b.repeat > 1 ? ` (GO ${b.repeat})` : ''}`,
  };
}
