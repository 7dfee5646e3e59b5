// What a run tool (profile / compare) sends, from a file's text and the tool's lines — the same answer in VS Code and
// in the MCP server, and the same rule as the editor's (docs/selection.md, profile/workloadChoice.ts): startLine and
// endLine are a selection (exactly those lines); startLine alone is a lens on the GO batch holding it (after the
// script's setup); no lines is nothing selected (the whole file, setup first — refused when the file defines a
// procedure, function or trigger). A refusal is a sentence that says what to pass instead. vscode-free.
import { chooseWorkload, isRoutineBody, workloadText, type ChosenBatch, type ChosenWorkload, type RoutineBody } from '../profile/workloadChoice';
import { analyze } from '../tsql';
import { agentField } from './agentText';
import type { RunToolInput } from './toolDefinitions';

export { workloadText };
export type SelectedBatch = ChosenBatch;
export type SelectedWorkload = ChosenWorkload;

function linesText(first: number, last: number): string {
  return first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
}

/** The line texts of a document with their breaks, so a slice keeps the exact characters. */
function lineSlices(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\n|\r|$)/g)!.slice(0, -1).concat(/(?:\r\n|\n|\r)$/.test(text) || text === '' ? [''] : []);
}

function refusal(body: RoutineBody, startLine: number | undefined): string {
  const r = body.routine;
  // The name is the file's text: written with its line breaks and controls escaped, as every file string to an agent.
  const what = `${r.kind.toLowerCase()} ${agentField(r.name)}`;
  const instead = 'To measure it, pass the lines of an EXEC statement that calls it; to run statements of its body on their own, pass their startLine and endLine.';
  if (body.scope === 'batch') return `Line ${startLine} is in the batch of ${what} (line ${r.line + 1}): running that batch would run its CREATE/ALTER — redeploying it — and measure the DDL, not the work inside. Nothing was run. ${instead}`;
  return `Without startLine the whole file runs, and it defines ${what} (line ${r.line + 1}): its CREATE/ALTER would run — redeploying it — and the DDL would be measured. Nothing was run. ${instead} (startLine 1 and the last line as endLine run the file exactly as written, CREATE included.)`;
}

/**
 * The workload for `input` in `text`, or a sentence saying why there is none (nothing to run, lines past the end, a
 * routine's CREATE/ALTER). Line numbers in the input are 1-based; the batches carry 0-based document lines.
 */
export function selectWorkload(text: string, input: Pick<RunToolInput, 'startLine' | 'endLine'>): SelectedWorkload | string {
  const lines = lineSlices(text);
  const lastLine = lines.length;
  if (input.startLine !== undefined && input.startLine > lastLine) return `startLine ${input.startLine} is past the end of the file (${lastLine} lines).`;
  if (input.endLine !== undefined && input.endLine > lastLine) return `endLine ${input.endLine} is past the end of the file (${lastLine} lines).`;
  if (input.startLine !== undefined && input.endLine !== undefined) {
    const first = input.startLine - 1;
    const last = input.endLine - 1;
    const start = lines.slice(0, first).join('').length;
    const end = start + lines.slice(first, last + 1).join('').replace(/(?:\r\n|\n|\r)$/, '').length;
    const chosen = end > start ? chooseWorkload(text, { kind: 'selection', start, end }) : null;
    // A blank selection would fall back to the whole file: here it is refused, the agent named lines.
    if (!chosen || isRoutineBody(chosen) || chosen.kind !== 'selection') return `${linesText(first, last)} hold only comments or blank lines: there is nothing to run.`;
    return chosen;
  }
  const analysis = analyze(text);
  if (!analysis.batches.some((b) => !b.empty)) return 'The file holds only comments or blank lines: there is nothing to run.';
  const request = input.startLine === undefined ? { kind: 'document' as const } : { kind: 'batch' as const, line: input.startLine - 1 };
  const chosen = chooseWorkload(text, request, { noun: 'file', analysis });
  if (isRoutineBody(chosen)) return refusal(chosen, input.startLine);
  if (chosen) return chosen;
  return `Line ${input.startLine} is not inside a batch with statements (a GO line, a comment or a blank stretch). Pass a line of the batch to run, or startLine and endLine.`;
}
