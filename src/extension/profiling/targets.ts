// What an editor command or a lens runs: the one rule (docs/selection.md) lives in profile/workloadChoice.ts, shared
// with the agent tools and the CLI; this adapts it to the editor's selection and the lens's ProfileTarget. A selection
// runs exactly as selected (inside a routine body, as an ad-hoc batch that says so: `adHocIn`); nothing selected runs
// the whole document, its setup first, wherever the cursor is — and nothing when the document defines a procedure,
// function or trigger (the caller offers Profile EXEC…); a lens runs its batch (re-found if the text moved) after the
// script's setup. vscode-free, unit-tested.
import { chooseWorkload, isRoutineBody, workloadText, type ChosenBatch, type ChosenWorkload, type RoutineBody } from '../../profile/workloadChoice';
import type { ProcedureCall } from '../../db/types';
import type { ConsentPart } from '../consent';

export { isRoutineBody, type RoutineBody };

export type TargetKind = ChosenWorkload['kind'];

/** A batch to run; `call` set: a procedure called as an RPC with typed parameters (procedureRun.ts). */
type TargetBatch = ChosenBatch & { call?: ProcedureCall };

export interface WorkloadTarget extends Omit<ChosenWorkload, 'batches' | 'adHocIn'> {
  /** Batches with document lines (firstLine is 0-based in the whole document); setup batches first. */
  batches: TargetBatch[];
  /** Set when a selection inside a routine body runs on its own: "procedure dbo.p" (the consent view says so). */
  adHocIn?: string | null | undefined;
  /** What the consent view shows for this target, when the caller knows better than its batches (a procedure call). */
  consent?: ConsentPart[] | undefined;
}

/**
 * `selection` is [start, end) in UTF-16 offsets, or null/empty for none; `cursor` is an offset. With nothing selected
 * the cursor does not change what runs (the whole document); it only picks which routine a refusal names.
 */
export function resolveEditorTarget(documentText: string, selection: { start: number; end: number } | null, cursor: number): WorkloadTarget | RoutineBody | null {
  const request = selection && selection.end > selection.start ? { kind: 'selection' as const, ...selection } : { kind: 'document' as const };
  return chooseWorkload(documentText, request, { cursor });
}

/**
 * A lens target names a batch by index and by the line it started on when the lens was computed. When the document
 * changed since, the batch that now contains that line is taken (the index may have shifted). The script's setup
 * batches run before it (S1's loop needs the table its setup creates). A routine's batch is refused (an older lens, or
 * a command called with a made-up target): running it would redeploy the routine.
 */
export function resolveLensTarget(documentText: string, target: { batchIndex: number; batchRange: { start: { line: number } }; version: number }, currentVersion: number): WorkloadTarget | RoutineBody | null {
  const index = currentVersion === target.version ? target.batchIndex : undefined;
  return chooseWorkload(documentText, { kind: 'batch', index, line: target.batchRange.start.line });
}

/** "batch 3 (lines 18–25), after setup batches 1–2 (lines 1–16)": what a notification says was picked. */
export function targetText(target: Pick<WorkloadTarget, 'description' | 'setupDescription'>): string {
  return workloadText(target);
}
