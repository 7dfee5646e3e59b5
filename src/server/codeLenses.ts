// Code lenses from an analysis: "Profile transaction" and "Compare durability" on every COMMIT,
// "Profile batch" on batches that run DML inside a loop. Each lens carries a ProfileTarget for the client command.
// "Profile EXEC…" and "Compare durability…" on every CREATE/ALTER PROCEDURE (procedureLenses) with its parameter list.
// Inside a routine's batch no lens runs the batch (that would run its CREATE/ALTER, redeploying it, and measure the DDL):
// a loop in a procedure body gets "Profile this loop via EXEC p…" (the procedure lens's flow), COMMITs there get none.
// A routine's name is the file's: in a title, which renders `$(icon)` syntax, it shows as written (iconLabelField).
// At most MAX_LENSES per document: an 8 MB script of COMMITs would otherwise send hundreds of MB of lens JSON.
import type { CodeLens } from 'vscode-languageserver/node';
import { Commands, type ProfileTarget } from '../shared/commands';
import { procedureTargetOf, type ProcedureTarget } from '../shared/procedureTarget';
import type { Analysis, Range } from '../tsql/types';
import { iconLabelField } from '../shared/visibleText';

/** Lenses per document; the rest are counted in the summary diagnostic (see diagnostics.ts). */
export const MAX_LENSES = 500;

/** How many lenses the analysis would have without the cap. */
export function lensCount(analysis: Analysis): number {
  const routines = routineBatches(analysis);
  const commits = analysis.commits.filter((c) => !routines.has(c.batchIndex)).length;
  const loops = analysis.batchesWithDmlInLoop.filter((i) => !routines.has(i) || callable(routines.get(i)!)).length;
  return commits * 2 + loops + procedures(analysis).length * 2;
}

type Routine = NonNullable<Analysis['routines']>[number];

function callable(r: Routine): boolean {
  return r.kind === 'PROCEDURE' && !!r.signature;
}

function procedures(analysis: Analysis) {
  // CLR procedures (AS EXTERNAL NAME) run no T-SQL of ours to compare, but can still be called: they get lenses too.
  return (analysis.routines ?? []).filter(callable);
}

/** The routine each batch defines (CREATE PROCEDURE/FUNCTION/TRIGGER must be alone in its batch). */
function routineBatches(analysis: Analysis): Map<number, Routine> {
  return new Map((analysis.routines ?? []).map((r) => [r.batchIndex, r]));
}

export function buildCodeLenses(analysis: Analysis, uri: string, version: number): CodeLens[] {
  // Batch lenses get their room first (one per batch at most, the ones that say where the time goes); COMMIT pairs
  // fill the rest. Listed COMMITs first, as before the cap.
  const batchOnes = batchLenses(analysis, uri, version);
  const perBatch = batchOnes.concat(procedureLenses(analysis, uri, version, MAX_LENSES - batchOnes.length));
  const room = MAX_LENSES - perBatch.length;
  const lenses: CodeLens[] = [];
  const batches = new Map(analysis.batches.map((batch) => [batch.index, batch]));
  const routines = routineBatches(analysis);

  for (const commit of analysis.commits) {
    if (lenses.length + 2 > room) break;
    const batch = batches.get(commit.batchIndex);
    // A COMMIT in a routine body: running its batch would redeploy the routine (Profile EXEC… sits on the header).
    if (!batch || routines.has(commit.batchIndex)) continue;
    const target: ProfileTarget = {
      uri,
      version,
      batchIndex: batch.index,
      batchRange: batch.range,
      repeat: batch.repeat,
      commit: {
        position: commit.keywordRange.start,
        range: commit.range,
        transactionRange: commit.beginRange ? { start: commit.beginRange.start, end: commit.range.end } : null,
        delayedDurability: commit.delayedDurability,
        inLoop: commit.inLoop,
      },
    };
    const at = commit.keywordRange;
    lenses.push({ range: at, command: { title: 'Profile transaction', command: Commands.profileTransaction, arguments: [target] } });
    lenses.push({ range: at, command: { title: 'Compare durability', command: Commands.compareDurability, arguments: [target] } });
  }
  return lenses.concat(perBatch);
}

/** Two lenses on the CREATE/ALTER keyword of each procedure; their argument carries the parameter list. */
function procedureLenses(analysis: Analysis, uri: string, version: number, room: number): CodeLens[] {
  const lenses: CodeLens[] = [];
  for (const routine of procedures(analysis)) {
    if (lenses.length + 2 > room) break;
    const signature = routine.signature!;
    const target: ProcedureTarget = procedureTargetOf(routine, uri, version);
    const at = { start: routine.range.start, end: routine.range.start };
    const suffix = signature.parameters.length > 0 ? '…' : '';
    lenses.push({ range: at, command: { title: `Profile EXEC ${iconLabelField(routine.name)}${suffix}`, command: Commands.profileProcedure, arguments: [target] } });
    lenses.push({ range: at, command: { title: `Compare durability${suffix}`, command: Commands.compareProcedure, arguments: [target] } });
  }
  return lenses;
}

function batchLenses(analysis: Analysis, uri: string, version: number): CodeLens[] {
  const lenses: CodeLens[] = [];
  const batches = new Map(analysis.batches.map((batch) => [batch.index, batch]));
  const routines = routineBatches(analysis);

  // The lens goes on the first loop of the batch (where the per-row commits happen); a batch repeated with
  // GO n has no loop of its own, so there it goes on the first repeated DML statement; else on the batch start.
  const firstLoop = firstByBatch(analysis.loops.map((l) => ({ batchIndex: l.batchIndex, range: l.range })));
  const firstLoopedDml = firstByBatch(analysis.dml.filter((d) => d.inLoop));
  for (const index of analysis.batchesWithDmlInLoop) {
    if (lenses.length >= MAX_LENSES) break;
    const batch = batches.get(index);
    if (!batch) continue;
    const anchor = (firstLoop.get(index) ?? firstLoopedDml.get(index) ?? batch.range).start;
    const at = { start: anchor, end: anchor };
    const routine = routines.get(index);
    if (routine) {
      // The loop runs inside the procedure: profile it by calling the procedure, never by running its CREATE.
      if (!callable(routine)) continue;
      const suffix = routine.signature!.parameters.length > 0 ? '…' : '';
      const procedure: ProcedureTarget = procedureTargetOf(routine, uri, version);
      lenses.push({ range: at, command: { title: `Profile this loop via EXEC ${iconLabelField(routine.name)}${suffix}`, command: Commands.profileProcedure, arguments: [procedure] } });
      continue;
    }
    const target: ProfileTarget = { uri, version, batchIndex: index, batchRange: batch.range, repeat: batch.repeat, commit: null };
    const title = batch.repeat > 1 ? `Profile batch (GO ${batch.repeat})` : 'Profile batch';
    lenses.push({ range: at, command: { title, command: Commands.profileBatch, arguments: [target] } });
  }
  return lenses;
}

function firstByBatch(items: readonly { batchIndex: number; range: Range }[]): Map<number, Range> {
  const first = new Map<number, Range>();
  for (const item of items) {
    const known = first.get(item.batchIndex);
    if (!known || before(item.range, known)) first.set(item.batchIndex, item.range);
  }
  return first;
}

function before(a: Range, b: Range): boolean {
  return a.start.line < b.start.line || (a.start.line === b.start.line && a.start.character < b.start.character);
}
