// What runs, from a script's text and what the user (or an agent) pointed at — the one rule of docs/selection.md, for
// every command, lens, agent tool and the CLI: a selection runs exactly as selected; nothing selected runs the whole
// document (its setup first) wherever the cursor is, and nothing at all when the document defines a procedure, function
// or trigger; a lens (or an agent's single line) runs the batch it names, after the script's setup. vscode-free.
import { analyze, LineIndex } from '../tsql';
import type { Analysis, Batch, RoutineInfo } from '../tsql';
import { splitSetup, SetupMarkerError } from './setupMarkers';

/** What was pointed at. Offsets are UTF-16 code units into the text; `line` is 0-based. */
export type WorkloadRequest =
  /** A selection: [start, end). An empty or blank one counts as nothing selected. */
  | { kind: 'selection'; start: number; end: number }
  /** Nothing selected (a command from the palette or the context menu, an agent tool without lines). */
  | { kind: 'document' }
  /** A lens's batch (by index), or the batch holding `line` when the index is unknown or stale. */
  | { kind: 'batch'; index?: number | undefined; line: number };

/** One batch to send: document lines (firstLine is 0-based in the whole document). */
export interface ChosenBatch {
  index: number;
  text: string;
  repeat: number;
  firstLine: number;
  empty: boolean;
}

export interface ChosenWorkload {
  kind: 'selection' | 'batch' | 'document';
  /** Exactly what the run receives (and the consent view shows, split by the setup markers as the run splits them). */
  batches: ChosenBatch[];
  /** True when a measured batch has COMMIT ... WITH (DELAYED_DURABILITY = ON) (ALLOWED then differs from DISABLED). */
  hasDelayedCommits: boolean;
  /** "the selection (lines 3–9)", "batch 2 (lines 4–12)", "the whole document (lines 1–40)". */
  description: string;
  /** What runs unmeasured first ("setup batches 1–2 (lines 1–16)"), null without setup. */
  setupDescription: string | null;
  /** A selection inside a routine ("procedure dbo.p"): it runs on its own, as an ad-hoc batch. */
  adHocIn: string | null;
}

/**
 * Nothing runs: running the batch (`scope: 'batch'`) or the document (`'document'`) would run a routine's CREATE/ALTER,
 * redeploying it and measuring that DDL. The caller says so and offers Profile EXEC… for a procedure.
 */
export interface RoutineBody {
  kind: 'routine-body';
  scope: 'batch' | 'document';
  /** Nothing selected and the cursor in this routine's batch (the message says so). */
  atCursor?: boolean | undefined;
  routine: { kind: 'PROCEDURE' | 'FUNCTION' | 'TRIGGER'; name: string; number: number | null; line: number };
}

export function isRoutineBody(value: unknown): value is RoutineBody {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'routine-body';
}

export interface ChoiceOptions {
  /** "document" (an editor) or "file" (the CLI, an agent tool): the word the description uses. */
  noun?: 'document' | 'file' | undefined;
  /** Where the cursor is: only picks which routine a refusal names (the one around it), never what runs. */
  cursor?: number | undefined;
  /** The text's analysis, when the caller has it already. */
  analysis?: Analysis | undefined;
}

/**
 * The workload for `request` in `text`; a RoutineBody when it would run a routine's CREATE/ALTER; null when there is
 * nothing to run (only comments and blank lines, or a lens whose batch is gone).
 */
export function chooseWorkload(text: string, request: WorkloadRequest, options: ChoiceOptions = {}): ChosenWorkload | RoutineBody | null {
  if (request.kind === 'selection' && request.end > request.start) {
    const selected = chooseSelection(text, request.start, request.end);
    if (selected) return selected;
  }
  const analysis = options.analysis ?? analyze(text);
  const nonEmpty = analysis.batches.filter((b) => !b.empty);
  if (nonEmpty.length === 0) return null;
  if (request.kind === 'batch') {
    const batch = batchOf(analysis, request);
    if (!batch) return null;
    return routineOfBatch(analysis, batch, 'batch') ?? batchWorkload(analysis, batch);
  }
  // Nothing selected: the whole document. The cursor only names the routine a refusal is about.
  const routines = analysis.routines ?? [];
  if (routines.length > 0) {
    const cursor = options.cursor;
    const around = cursor === undefined ? undefined : routines.find((r) => batchHolds(analysis.batches[r.batchIndex], cursor));
    return { ...routineBody(around ?? routines[0]!, 'document'), atCursor: around !== undefined };
  }
  return documentWorkload(analysis, options.noun ?? 'document');
}

/** A selection analysed on its own (its GO lines split it), its lines shifted to document lines; null when blank. */
function chooseSelection(text: string, start: number, end: number): ChosenWorkload | null {
  const whole = start === 0 && end >= text.length;
  const analysis = analyze(whole ? text : text.slice(start, end));
  if (!analysis.batches.some((b) => !b.empty)) return null;
  const shift = lineOfOffset(text, start);
  // Inside a routine the selected statements run on their own, not as the routine: the consent view says so.
  const adHocIn = whole ? null : routineAround(analyze(text), text, start);
  return {
    kind: 'selection',
    batches: analysis.batches.map((b) => ({ ...plain(b), firstLine: b.firstLine + shift })),
    hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
    description: `the selection (${linesText(shift, lineOfOffset(text, end))})`,
    setupDescription: null,
    adHocIn,
  };
}

/** The lens's batch when its index still names a batch with statements, else the batch holding its line. */
function batchOf(analysis: Analysis, request: { index?: number | undefined; line: number }): Batch | undefined {
  const byIndex = request.index === undefined ? undefined : analysis.batches[request.index];
  if (byIndex && !byIndex.empty) return byIndex;
  return analysis.batches.find((b) => !b.empty && b.range.start.line <= request.line && request.line <= b.range.end.line);
}

function batchHolds(batch: Batch | undefined, offset: number): boolean {
  return !!batch && offset >= batch.startOffset && offset <= batch.endOffset;
}

/** Every batch as written: the run (and the consent view) split the setup markers themselves. */
function documentWorkload(analysis: Analysis, noun: 'document' | 'file'): ChosenWorkload {
  const nonEmpty = analysis.batches.filter((b) => !b.empty);
  const parts = scriptParts(analysis.batches);
  const whole = `the whole ${noun} (${linesText(nonEmpty[0]!.range.start.line, nonEmpty[nonEmpty.length - 1]!.range.end.line)})`;
  return {
    kind: 'document',
    batches: analysis.batches.map(plain),
    hasDelayedCommits: delayedIn(analysis, parts ? parts.measured : nonEmpty),
    description: parts ? `the whole ${noun}: measured ${batchesText(parts.measured)}` : whole,
    setupDescription: parts ? `setup ${batchesText(parts.setup)}` : null,
    adHocIn: null,
  };
}

/** One batch, preceded by the script's setup when it has one and the batch is (partly) measured. */
function batchWorkload(analysis: Analysis, batch: Batch): ChosenWorkload {
  const parts = scriptParts(analysis.batches);
  const setup = parts && parts.measured.some((b) => b.index === batch.index) ? parts.setup.filter((b) => b.index !== batch.index) : [];
  return {
    kind: 'batch',
    batches: [...setup.map(plain), plain(batch)],
    hasDelayedCommits: delayedIn(analysis, [batch]),
    description: `batch ${batch.index + 1} (${linesText(batch.range.start.line, batch.range.end.line)})${batch.repeat > 1 ? ` (GO ${batch.repeat})` : ''}`,
    setupDescription: setup.length > 0 ? `setup ${batchesText(setup)}` : null,
    adHocIn: null,
  };
}

/**
 * The script's setup batches and its measured ones (a batch split by line markers is in both), or null without
 * markers. Unbalanced markers are left to the run, which reports them before sending anything.
 */
function scriptParts(batches: readonly Batch[]): { setup: Batch[]; measured: Batch[] } | null {
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

function routineBody(r: RoutineInfo, scope: RoutineBody['scope']): RoutineBody {
  return { kind: 'routine-body', scope, routine: { kind: r.kind, name: r.name, number: r.number, line: r.range.start.line } };
}

/** The routine a batch defines (a CREATE PROCEDURE must be the only statement of its batch), or null. */
function routineOfBatch(analysis: Analysis, batch: Batch, scope: RoutineBody['scope']): RoutineBody | null {
  const r = (analysis.routines ?? []).find((x) => x.batchIndex === batch.index);
  return r ? routineBody(r, scope) : null;
}

/** "procedure dbo.p" when `offset` lies in a routine after its first token (its header or body), else null. */
function routineAround(analysis: Analysis, text: string, offset: number): string | null {
  const starts = new LineIndex(text).lineStarts; // the analyzer's line breaks (\r\n, \n, \r)
  const offsetOf = (p: { line: number; character: number }) => (starts[p.line] ?? text.length) + p.character;
  const r = (analysis.routines ?? []).find((x) => offset > offsetOf(x.range.start) && offset <= offsetOf(x.range.end));
  return r ? `${r.kind.toLowerCase()} ${r.name}` : null;
}

function lineOfOffset(text: string, offset: number): number {
  return new LineIndex(text).lineOf(Math.min(offset, text.length));
}

function plain(b: Batch): ChosenBatch {
  return { index: b.index, text: b.text, repeat: b.repeat, empty: b.empty, firstLine: b.firstLine };
}

function delayedIn(analysis: Analysis, batches: readonly { index: number }[]): boolean {
  const indexes = new Set(batches.map((b) => b.index));
  return analysis.commits.some((c) => indexes.has(c.batchIndex) && c.delayedDurability === 'ON');
}

function linesText(first: number, last: number): string {
  return first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
}

function batchesText(batches: readonly Batch[]): string {
  const first = batches[0]!;
  const last = batches[batches.length - 1]!;
  const numbers = first === last ? `batch ${first.index + 1}` : `batches ${first.index + 1}–${last.index + 1}`;
  return `${numbers} (${linesText(first.range.start.line, last.range.end.line)})`;
}

/** "batch 3 (lines 18–25), after setup batches 1–2 (lines 1–16)": what a notification says was picked. */
export function workloadText(w: Pick<ChosenWorkload, 'description' | 'setupDescription'>): string {
  return w.setupDescription ? `${w.description}, after ${w.setupDescription}` : w.description;
}
