// Decides what a command profiles, from plain text and offsets (vscode-free, unit-tested): the selection, else — in
// a script with setup markers — its setup followed by its measured batches, else the batch under the cursor, else the
// whole document; and for a lens, the batch it sits in (re-found if the text moved), preceded by the script's setup.
// A batch that holds a CREATE/ALTER of a procedure, function or trigger is never a target: running it would redeploy
// the routine and measure that DDL. The caller offers Profile EXEC… instead; a selection inside a routine body runs
// as an ad-hoc batch and says so (`adHocIn`).
import { splitSetup, SetupMarkerError } from '../../profile/setupMarkers';
import { analyze, LineIndex } from '../../tsql';
import type { Batch } from '../../tsql';
import type { ProcedureCall } from '../../db/types';
import type { ConsentPart } from '../consent';

export type TargetKind = 'selection' | 'batch' | 'document';

/** A batch to run; `call` set: a procedure called as an RPC with typed parameters (procedureRun.ts). */
type TargetBatch = Pick<Batch, 'text' | 'repeat' | 'firstLine' | 'empty' | 'index'> & { call?: ProcedureCall };

export interface WorkloadTarget {
  kind: TargetKind;
  /** Batches with document lines (firstLine is 0-based in the whole document); setup batches first. */
  batches: TargetBatch[];
  /** True when a measured batch has COMMIT ... WITH (DELAYED_DURABILITY = ON) (ALLOWED then differs from DISABLED). */
  hasDelayedCommits: boolean;
  /** 1-based lines for messages: "lines 3–9". */
  description: string;
  /** What runs unmeasured first ("setup batches 1–2 (lines 1–16)"), null without setup: the UI says so. */
  setupDescription: string | null;
  /** Set when a selection inside a routine body runs on its own: "procedure dbo.p" (the consent view says so). */
  adHocIn?: string | null | undefined;
  /** What the consent view shows for this target, when the caller knows better than its batches (a procedure call). */
  consent?: ConsentPart[] | undefined;
}

/** The cursor or lens sits in a routine's batch: its CREATE/ALTER is not run; Profile EXEC… is offered instead. */
export interface RoutineBody {
  kind: 'routine-body';
  routine: { kind: 'PROCEDURE' | 'FUNCTION' | 'TRIGGER'; name: string; number: number | null; line: number };
}

export function isRoutineBody(value: WorkloadTarget | RoutineBody | null): value is RoutineBody {
  return value !== null && value.kind === 'routine-body';
}

/** The routine a batch defines (a CREATE PROCEDURE must be the only statement of its batch), or null. */
function routineOfBatch(analysis: ReturnType<typeof analyze>, batch: Batch): RoutineBody | null {
  const r = (analysis.routines ?? []).find((x) => x.batchIndex === batch.index);
  return r ? { kind: 'routine-body', routine: { kind: r.kind, name: r.name, number: r.number, line: r.range.start.line } } : null;
}

/** "procedure dbo.p" when `offset` lies in a routine after its first token (its header or body), else null. */
function routineAround(analysis: ReturnType<typeof analyze>, documentText: string, offset: number): string | null {
  const starts = new LineIndex(documentText).lineStarts; // the analyzer's line breaks (\r\n, \n, \r)
  const offsetOf = (p: { line: number; character: number }) => (starts[p.line] ?? documentText.length) + p.character;
  const r = (analysis.routines ?? []).find((x) => offset > offsetOf(x.range.start) && offset <= offsetOf(x.range.end));
  return r ? `${r.kind.toLowerCase()} ${r.name}` : null;
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

const plain = (b: Batch): TargetBatch => ({ index: b.index, text: b.text, repeat: b.repeat, empty: b.empty, firstLine: b.firstLine });

function batchesText(batches: readonly Batch[]): string {
  const first = batches[0]!;
  const last = batches[batches.length - 1]!;
  const numbers = first === last ? `batch ${first.index + 1}` : `batches ${first.index + 1}–${last.index + 1}`;
  return `${numbers} (${linesText(first.range.start.line, last.range.end.line)})`;
}

/**
 * The script's setup (the batches a `-- durability-lens: setup-end` or `setup … measure` section covers) and its
 * measured batches, or null when it has no markers. Unbalanced markers are left to the run, which reports them.
 */
export function scriptParts(batches: readonly Batch[]): { setup: Batch[]; measured: Batch[] } | null {
  const nonEmpty = batches.filter((b) => !b.empty);
  let split;
  try {
    split = splitSetup(nonEmpty);
  } catch (err) {
    if (err instanceof SetupMarkerError) return null;
    throw err;
  }
  if (split.setup.length === 0 || split.measured.length === 0) return null;
  const setupIndexes = new Set(split.setup.map((b) => b.index));
  const measuredIndexes = new Set(split.measured.map((b) => b.index));
  return { setup: nonEmpty.filter((b) => setupIndexes.has(b.index)), measured: nonEmpty.filter((b) => measuredIndexes.has(b.index)) };
}

function delayedIn(analysis: ReturnType<typeof analyze>, batches: readonly Batch[]): boolean {
  const indexes = new Set(batches.map((b) => b.index));
  return analysis.commits.some((c) => indexes.has(c.batchIndex) && c.delayedDurability === 'ON');
}

/** One batch, preceded by the script's setup when it has one and the batch is not part of it. */
function batchTarget(analysis: ReturnType<typeof analyze>, batch: Batch): WorkloadTarget {
  const parts = scriptParts(analysis.batches);
  const own = `batch ${batch.index + 1} (${linesText(batch.range.start.line, batch.range.end.line)})${batch.repeat > 1 ? ` (GO ${batch.repeat})` : ''}`;
  const setup = parts && parts.measured.some((b) => b.index === batch.index) ? parts.setup.filter((b) => b.index !== batch.index) : [];
  return {
    kind: 'batch',
    batches: [...setup.map(plain), plain(batch)],
    hasDelayedCommits: delayedIn(analysis, [batch]),
    description: own,
    setupDescription: setup.length > 0 ? `setup ${batchesText(setup)}` : null,
  };
}

/**
 * `selection` is [start, end) in UTF-16 offsets, or null/empty for none; `cursor` is an offset. A selection is
 * analysed on its own (its GO lines split it) and its lines shifted to document lines. Without a selection, a script
 * with setup markers runs whole (setup, then every measured batch): the cursor sits wherever the file opened (line 1,
 * often a `SET NOCOUNT ON` batch), so the batch under it is rarely the workload the user means.
 */
export function resolveEditorTarget(documentText: string, selection: { start: number; end: number } | null, cursor: number): WorkloadTarget | RoutineBody | null {
  if (selection && selection.end > selection.start) {
    const text = documentText.slice(selection.start, selection.end);
    const analysis = analyze(text);
    if (usable(analysis.batches)) {
      const shift = lineOfOffset(documentText, selection.start);
      const last = lineOfOffset(documentText, selection.end);
      // Inside a routine the selected statements run on their own, not as the routine: the consent view says so.
      const adHocIn = routineAround(analyze(documentText), documentText, selection.start);
      return {
        kind: 'selection',
        batches: analysis.batches.map((b) => ({ index: b.index, text: b.text, repeat: b.repeat, empty: b.empty, firstLine: b.firstLine + shift })),
        hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
        description: `the selection (${linesText(shift, last)})`,
        setupDescription: null,
        adHocIn,
      };
    }
  }
  const analysis = analyze(documentText);
  if (!usable(analysis.batches)) return null;
  // The cursor in a routine's batch: never its CREATE/ALTER (nor, with setup markers, the whole script around it).
  const cursorBatch = analysis.batches.find((b) => cursor >= b.startOffset && cursor <= b.endOffset && !b.empty);
  const aroundCursor = cursorBatch ? routineOfBatch(analysis, cursorBatch) : null;
  if (aroundCursor) return aroundCursor;
  const parts = scriptParts(analysis.batches);
  if (parts) {
    return {
      kind: 'document',
      batches: [...parts.setup, ...parts.measured].map(plain),
      hasDelayedCommits: delayedIn(analysis, parts.measured),
      description: `the script's measured ${batchesText(parts.measured)}`,
      setupDescription: `setup ${batchesText(parts.setup)}`,
    };
  }
  // The batch whose text holds the cursor; on a GO line (between batches) the batch the GO ends.
  let under: Batch | undefined = analysis.batches.find((b) => cursor >= b.startOffset && cursor <= b.endOffset && !b.empty);
  if (!under) under = [...analysis.batches].reverse().find((b) => b.endOffset <= cursor && !b.empty);
  if (under && analysis.batches.filter((b) => !b.empty).length > 1) return routineOfBatch(analysis, under) ?? batchTarget(analysis, under);
  const nonEmpty = analysis.batches.filter((b) => !b.empty);
  const only = nonEmpty.length === 1 ? routineOfBatch(analysis, nonEmpty[0]!) : null;
  if (only) return only;
  return {
    kind: 'document',
    batches: analysis.batches.map(plain),
    hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
    description: `the whole document (${linesText(nonEmpty[0]!.range.start.line, nonEmpty[nonEmpty.length - 1]!.range.end.line)})`,
    setupDescription: null,
  };
}

/**
 * A lens target names a batch by index and by the line it started on when the lens was computed. When the
 * document changed since, the batch that now contains that line is taken (the index may have shifted). The script's
 * setup batches run before it (S1's loop needs the table its setup creates). A routine's batch is refused (an older
 * lens, or a command called with a made-up target): running it would redeploy the routine.
 */
export function resolveLensTarget(documentText: string, target: { batchIndex: number; batchRange: { start: { line: number } }; version: number }, currentVersion: number): WorkloadTarget | RoutineBody | null {
  const analysis = analyze(documentText);
  let batch: Batch | undefined = analysis.batches[target.batchIndex];
  if (currentVersion !== target.version || !batch || batch.empty) {
    const line = target.batchRange.start.line;
    batch = analysis.batches.find((b) => !b.empty && b.range.start.line <= line && line <= b.range.end.line) ?? batch;
  }
  if (!batch || batch.empty) return null;
  return routineOfBatch(analysis, batch) ?? batchTarget(analysis, batch);
}

/** "batch 3 (lines 18–25), after setup batches 1–2 (lines 1–16)": what a notification says was picked. */
export function targetText(target: Pick<WorkloadTarget, 'description' | 'setupDescription'>): string {
  return target.setupDescription ? `${target.description}, after ${target.setupDescription}` : target.description;
}
