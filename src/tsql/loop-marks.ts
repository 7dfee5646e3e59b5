// What the end of a loop (or of a `GO n` batch, or an IF inside a loop) tells the DML and COMMITs recorded in it:
// the facts of their iteration, whether a COMMIT leaves the loop, runs on every iteration or every N. The scanner
// (structure.ts) calls these once it knows; the rules (diagnose.ts) read the marks.

import type { LeavingMarks, LoopFacts, LoopFrame } from './loop-facts';
import type { ScriptStructure } from './structure-types';

/** Gives the DML and COMMITs recorded since the given indices, not yet marked by an inner loop, their loop's facts. */
export function markLoopFacts(out: ScriptStructure, facts: LoopFacts, firstDml: number, firstCommit: number, increments: ReadonlySet<string>): void {
  const dml = out.dml, commits = out.commits;
  for (let i = firstDml; i < dml.length; i++) if (dml[i]!.loop === null && dml[i]!.inLoop) dml[i]!.loop = facts;
  for (let i = firstCommit; i < commits.length; i++) {
    const c = commits[i]!;
    if (c.loop !== null || !c.inLoop) continue;
    c.loop = facts;
    // A condition testing a counter the loop increments: the commit-every-N pattern.
    if (c.loopCommit === 'conditional' && c.conditionVars.some((v) => increments.has(v))) c.loopCommit = 'every-n';
  }
}

/**
 * COMMIT ... BREAK (RETURN, GOTO, THROW, `SET @retry = 0`): the loop's COMMITs since `firstCommit` commit once and leave,
 * and its DML since `firstDml` runs once and leaves (`UPDATE …; GOTO done`, `INSERT …; SET @found = 1`). What an inner
 * loop already marked (its `loop` facts are set) repeats in that loop and is left as it is. Returns what it changed, so
 * that a GOTO whose label turns out to be inside the loop can undo it (unmarkGotoWithin).
 */
export function markLeaving(out: ScriptStructure, firstCommit: number, firstDml: number): LeavingMarks {
  const marked: LeavingMarks = { dml: [], commits: [] };
  const commits = out.commits;
  for (let i = firstCommit; i < commits.length; i++) {
    const c = commits[i]!;
    if (c.loopCommit === null || c.loop !== null || c.loopCommit === 'once-then-exit') continue;
    marked.commits.push({ index: i, loopCommit: c.loopCommit });
    c.loopCommit = 'once-then-exit';
  }
  const dml = out.dml;
  for (let i = firstDml; i < dml.length; i++) {
    const d = dml[i]!;
    if (d.inLoop && d.loop === null && !d.inRepeatedBatchOnly && !d.thenLeaves) { d.thenLeaves = true; marked.dml.push(i); }
  }
  return marked;
}

/**
 * A loop ended: what a `GOTO label` marked as leaving it did not leave when the label is inside the loop (`GOTO
 * NEXTROW` to the loop's last statements, or into a loop nested in it): its DML and COMMITs run on every iteration that
 * takes that path, so they get back what they had. Only the loop the GOTO was written in (the innermost) holds its
 * marks: a GOTO out of an inner loop to a label in an outer one leaves the inner loop, as BREAK would, and its marks
 * stay. Undone last-first, so a mark over another's restores what was there before either.
 */
export function unmarkGotoWithin(out: ScriptStructure, frame: LoopFrame): void {
  for (let m = frame.gotoMarks.length - 1; m >= 0; m--) {
    const g = frame.gotoMarks[m]!;
    if (!frame.labels.includes(g.label)) continue;
    for (const i of g.marked.dml) out.dml[i]!.thenLeaves = false;
    for (const { index, loopCommit } of g.marked.commits) {
      const c = out.commits[index]!;
      // The success path of `IF @@ERROR = 0 BEGIN COMMIT; GOTO next END ELSE ROLLBACK` no longer counts that IF
      // (markSuccessPath): with no condition left, the COMMIT runs on every iteration.
      c.loopCommit = loopCommit === 'conditional' && c.conditions === 0 && c.everyN === null ? 'per-iteration' : loopCommit;
    }
  }
}

/**
 * `IF @@ERROR = 0 COMMIT ELSE ROLLBACK`: one branch commits, the other rolls back, so the transaction ends on every
 * iteration either way. The COMMITs since `firstCommit` no longer count that IF as a condition; with none left they
 * run on every iteration (the success path), not every few iterations.
 */
export function markSuccessPath(out: ScriptStructure, firstCommit: number): void {
  const commits = out.commits;
  for (let i = firstCommit; i < commits.length; i++) {
    const c = commits[i]!;
    if (c.loop !== null || c.conditions === 0) continue;
    c.conditions--;
    // A COMMIT that then leaves keeps its mark; a GOTO's mark undone later reads the count (unmarkGotoWithin).
    if (c.conditions === 0 && c.everyN === null && c.loopCommit !== 'once-then-exit') c.loopCommit = 'per-iteration';
  }
}

/**
 * A loop that runs at most once repeats nothing: what its body recorded is in a loop only through loops nested in it
 * (recorded after it started) or a `GO n` batch (`repeated`). Only an outermost loop is corrected; loops around an
 * inner one keep their own marks.
 */
export function markRunsOnce(out: ScriptStructure, frame: LoopFrame, batchIndex: number, repeated: boolean): void {
  // Loops are listed as they end, so the ones nested in this loop are at the tail of the list: no pass over the
  // script's every loop (quadratic in a script of many such loops).
  const nested: ScriptStructure['loops'] = [];
  for (let i = out.loops.length - 1; i >= 0 && out.loops[i]!.batchIndex === batchIndex; i--) {
    if (out.loops[i]!.start >= frame.start) nested.push(out.loops[i]!);
  }
  const inNested = (offset: number): boolean => nested.some((l) => l.start <= offset && offset < l.end);
  const dml = out.dml;
  for (let i = frame.firstDml; i < dml.length; i++) {
    const d = dml[i]!;
    if (inNested(d.start)) continue;
    d.inLoop = repeated;
    d.inRepeatedBatchOnly = repeated;
  }
  const commits = out.commits;
  for (let i = frame.firstCommit; i < commits.length; i++) {
    const c = commits[i]!;
    if (inNested(c.start)) continue;
    c.inLoop = repeated;
    c.loopCommit = repeated ? 'per-iteration' : null;
  }
}
