// What a run tool (profile / compare) sends, from a file's text and the tool's lines — the same answer in VS Code and
// in the MCP server: no lines, the whole file (its setup markers honoured by the run); startLine and endLine, exactly
// those lines as an ad-hoc selection; startLine alone, the GO batch holding it after the script's setup batches. A
// routine's batch picked by startLine alone is refused (running it would redeploy the routine); the answer says what to
// pass instead. vscode-free.
import { splitSetup, SetupMarkerError } from '../profile/setupMarkers';
import { analyze } from '../tsql';
import type { Analysis, Batch } from '../tsql';
import type { RunToolInput } from './toolDefinitions';

export interface SelectedBatch {
  index: number;
  text: string;
  repeat: number;
  /** 0-based document line of the batch's first line. */
  firstLine: number;
  empty: boolean;
}

export interface SelectedWorkload {
  kind: 'selection' | 'batch' | 'document';
  batches: SelectedBatch[];
  hasDelayedCommits: boolean;
  /** "lines 3–9", "batch 2 (lines 4–12)", "the whole file (lines 1–40)". */
  description: string;
  setupDescription: string | null;
  /** The selection lies inside a routine ("procedure dbo.p"): it runs on its own, not as the routine. */
  adHocIn: string | null;
}

function linesText(first: number, last: number): string {
  return first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
}

function plain(b: Batch): SelectedBatch {
  return { index: b.index, text: b.text, repeat: b.repeat, firstLine: b.firstLine, empty: b.empty };
}

function delayedIn(analysis: Analysis, batches: readonly { index: number }[]): boolean {
  const indexes = new Set(batches.map((b) => b.index));
  return analysis.commits.some((c) => indexes.has(c.batchIndex) && c.delayedDurability === 'ON');
}

/** The line texts of a document with their breaks, so a slice keeps the exact characters. */
function lineSlices(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r|$)/g)!.slice(0, -1).concat(/(?:\r\n|\n|\r)$/.test(text) || text === '' ? [''] : []);
}

/**
 * The workload for `input` in `text`, or a sentence saying why there is none (nothing to run, lines past the end, a
 * routine's batch). Line numbers in the input are 1-based; the batches carry 0-based document lines.
 */
export function selectWorkload(text: string, input: Pick<RunToolInput, 'startLine' | 'endLine'>): SelectedWorkload | string {
  const lines = lineSlices(text);
  const lastLine = lines.length;
  if (input.startLine !== undefined && input.startLine > lastLine) return `startLine ${input.startLine} is past the end of the file (${lastLine} lines).`;
  if (input.endLine !== undefined && input.endLine > lastLine) return `endLine ${input.endLine} is past the end of the file (${lastLine} lines).`;
  const whole = analyze(text);
  if (input.startLine !== undefined && input.endLine !== undefined) {
    const first = input.startLine - 1;
    const last = input.endLine - 1;
    const selected = lines.slice(first, last + 1).join('').replace(/(?:\r\n|\n|\r)$/, '');
    const analysis = analyze(selected);
    const usable = analysis.batches.filter((b) => !b.empty);
    if (usable.length === 0) return `${linesText(first, last)} hold only comments or blank lines: there is nothing to run.`;
    const routine = (whole.routines ?? []).find((r) => r.range.start.line < first && first <= r.range.end.line);
    return {
      kind: 'selection',
      batches: analysis.batches.map((b) => ({ ...plain(b), firstLine: b.firstLine + first })),
      hasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
      description: `the selection (${linesText(first, last)})`,
      setupDescription: null,
      adHocIn: routine ? `${routine.kind.toLowerCase()} ${routine.name}` : null,
    };
  }
  const nonEmpty = whole.batches.filter((b) => !b.empty);
  if (nonEmpty.length === 0) return 'The file holds only comments or blank lines: there is nothing to run.';
  if (input.startLine === undefined) {
    return {
      kind: 'document',
      batches: whole.batches.map(plain),
      hasDelayedCommits: delayedIn(whole, whole.batches),
      description: `the whole file (${linesText(nonEmpty[0]!.range.start.line, nonEmpty[nonEmpty.length - 1]!.range.end.line)})`,
      setupDescription: null,
      adHocIn: null,
    };
  }
  const line = input.startLine - 1;
  const batch = nonEmpty.find((b) => b.range.start.line <= line && line <= b.range.end.line);
  if (!batch) return `Line ${input.startLine} is not inside a batch with statements (a GO line, a comment or a blank stretch). Pass a line of the batch to run, or startLine and endLine.`;
  const routine = (whole.routines ?? []).find((r) => r.batchIndex === batch.index);
  if (routine) {
    return `Line ${input.startLine} is in the batch of ${routine.kind.toLowerCase()} ${routine.name} (line ${routine.range.start.line + 1}): running that batch would run its CREATE/ALTER — redeploying it — and measure the DDL, not the work inside. Nothing was run. To measure it, pass the lines of an EXEC statement that calls it; to run statements of its body on their own, pass their startLine and endLine.`;
  }
  let setup: Batch[] = [];
  try {
    const split = splitSetup(nonEmpty);
    // The original batches (the run splits them by their markers again), as the lens's batchTarget does.
    const setupIndexes = new Set(split.setup.map((b) => b.index));
    if (split.setup.length > 0 && split.measured.some((b) => b.index === batch.index)) setup = nonEmpty.filter((b) => setupIndexes.has(b.index) && b.index !== batch.index);
  } catch (err) {
    if (!(err instanceof SetupMarkerError)) throw err;
  }
  const own = `batch ${batch.index + 1} (${linesText(batch.range.start.line, batch.range.end.line)})${batch.repeat > 1 ? ` (GO ${batch.repeat})` : ''}`;
  return {
    kind: 'batch',
    batches: [...setup.map(plain), plain(batch)],
    hasDelayedCommits: delayedIn(whole, [batch]),
    description: own,
    setupDescription: setup.length > 0 ? `setup ${setup.length === 1 ? `batch ${setup[0]!.index + 1}` : `batches ${setup[0]!.index + 1}–${setup[setup.length - 1]!.index + 1}`} (${linesText(setup[0]!.range.start.line, setup[setup.length - 1]!.range.end.line)})` : null,
    adHocIn: null,
  };
}

/** "batch 3 (lines 18–25), after setup batches 1–2 (lines 1–16)". */
export function workloadText(w: Pick<SelectedWorkload, 'description' | 'setupDescription'>): string {
  return w.setupDescription ? `${w.description}, after ${w.setupDescription}` : w.description;
}
