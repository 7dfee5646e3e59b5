// Diagnostics from a script's structure: which findings to report, at what severity, with which message.
// Each rule reports with certainty (information, warning) only what the code shows; where it cannot tell (a caller's
// transaction, the cost of an iteration) the finding is a hint. See docs/analyze.md "What each diagnostic means".

import * as msg from './messages';
import type { LoopFacts, ScriptStructure, Span } from './structure-types';
import type { AnalysisDiagnostic, AnalysisOptions, DiagnosticCode, DiagnosticSeverity, Range } from './types';

/**
 * The severity of a finding the code shows with certainty (what the rule claims, nothing the script cannot tell). A
 * squiggle needs ≥ 90 % precision on public code nobody here wrote, measured once on a held-out set after the rules
 * were final (docs/analyze.md, "Measured precision"). Round 1 (2026-11-27): autocommit-dml-in-loop 75 %, commit-in-loop
 * 25 %, unbalanced-transaction 50 % — all hints. Round 2 (2026-11-27, fresh repositories, rules of commit 5e01665):
 * autocommit-dml-in-loop 87.9 % (29 TP, 4 FP, n 40): still a hint; commit-in-loop 100 % (8 TP, every sure finding
 * there, one repository's import loops): information again; unbalanced-transaction 9.1 % (1 TP, 10 FP, all): a hint.
 * Below the bar a code stays a hint until a fresh held-out set says otherwise; the message still tells a sure finding
 * from a doubtful one. forced-durability-data-loss (a warning) measured 100 % in round 1. Round 3 (2026-11-28):
 * autocommit-dml-in-loop 100 % (28 TP, 0 FP, n 40) but 106 of 112 clusters from one repository: still a hint. Round 4:
 * 100 % again (24 TP, n 40), from two code bases: still a hint. Round 5 (2026-11-28, sampled per loop with a cap per
 * repository): 100 % (22 TP, 0 FP, 14 debatable, all 36 loops, five code bases, none over a third): information.
 */
export const SURE: Readonly<Record<'autocommit-dml-in-loop' | 'commit-in-loop' | 'unbalanced-transaction', DiagnosticSeverity>> = {
  'autocommit-dml-in-loop': 'information',
  'commit-in-loop': 'information',
  'unbalanced-transaction': 'hint',
};

export function diagnose(
  s: ScriptStructure, repeats: readonly number[], options: AnalysisOptions, range: (s: Span) => Range,
): AnalysisDiagnostic[] {
  const disabled = options.disabledCodes;
  const sure = (code: keyof typeof SURE): DiagnosticSeverity => (options.promoteSure === true ? 'information' : SURE[code]);
  const db = options.database ?? null;
  const found: { offset: number; d: AnalysisDiagnostic }[] = [];
  const add = (code: DiagnosticCode, severity: DiagnosticSeverity, at: Span, message: string): void => {
    if (disabled?.has(code)) return;
    found.push({ offset: at.start, d: { code, severity, range: range(at), message } });
  };
  // A big script repeats a handful of messages thousands of times; each built anew is a chain of concatenated
  // strings the analysis keeps. One string per distinct message (strings are immutable, so sharing is safe).
  const messages = new Map<string, string>();
  const once = (key: string, make: () => string): string => {
    let text = messages.get(key);
    if (text === undefined) { text = make(); messages.set(key, text); }
    return text;
  };

  for (const d of s.dml) {
    if (!d.inLoop || !d.autocommit) continue;
    // #temp tables and table variables live in tempdb, which is not recovered after a restart, and whose log is
    // flushed lazily at commit (Learn, "tempdb database": objects there are created "without durability guarantee",
    // https://learn.microsoft.com/sql/relational-databases/databases/tempdb-database; Microsoft SQL Server Blog,
    // "I/O optimizations for tempdb in SQL Server and Azure SQL", 2023-08-08): their commits do not wait on WRITELOG.
    if (d.target !== 'table') continue;
    // A statement that touches a set of rows per iteration (`INSERT ... SELECT ... FROM`, a key range, `TOP (n)`), or a
    // loop whose iteration runs one, is batching: one commit per chunk is what keeps the log small, not the problem.
    if (d.shape === 'set' || d.loop?.batch === true) continue;
    // `UPDATE …; GOTO done` or `INSERT …; SET @found = 1` for `WHILE @found = 0`: it runs once, then the loop ends.
    if (d.thenLeaves) continue;
    const repeat = repeats[d.batchIndex] ?? 1;
    const doubt = d.remote ? 'remote' : d.shape === 'unkeyed' ? 'keys'
      : d.shape === 'unknown' ? (d.kind === 'INSERT' ? 'opaque' : 'rows') : loopDoubt(d.loop);
    add('autocommit-dml-in-loop', doubt === null ? sure('autocommit-dml-in-loop') : 'hint', d,
      once(`dml|${d.kind}|${d.inRepeatedBatchOnly}|${repeat}|${d.inRoutine}|${doubt}`,
        () => msg.autocommitDmlInLoop(d.kind, d.inRepeatedBatchOnly, repeat, d.inRoutine, doubt)));
  }
  let insideLoop: ((offset: number) => boolean) | undefined;
  for (const c of s.commits) {
    // `COMMIT … WITH (DELAYED_DURABILITY = ON)` does not wait for its flush unless the database is DISABLED (Learn,
    // COMMIT TRANSACTION: "the request is ignored" then): until the connection says DISABLED, delayed-commit-needs-allowed
    // (below) carries the doubt, not commit-in-loop.
    const delayedHonoured = c.delayedDurability === 'ON' && db?.delayedDurability !== 'DISABLED';
    const loopCommit = delayedHonoured ? null : c.loopCommit;
    const loop = c.loop;
    if (loopCommit === 'per-iteration' && loop?.batch !== true && (loop === null || loop.durableRows || loop.unknownRows || loop.opaque)) {
      // Sure only when each iteration is a few single-row changes to permanent tables, many times over.
      const doubt = loop === null ? 'opaque' : loop.durableRows ? loopDoubt(loop) : loop.opaque ? 'opaque' : 'rows';
      insideLoop ??= loopCover(s);
      const repeatedOnly = !insideLoop(c.keyword.start);
      const repeat = repeats[c.batchIndex] ?? 1;
      add('commit-in-loop', doubt === null ? sure('commit-in-loop') : 'hint', c.keyword,
        once(`loop|${repeatedOnly}|${repeat}|${doubt}`, () => msg.commitInLoop(repeatedOnly, repeat, doubt)));
    } else if (loopCommit === 'every-n') {
      add('commit-in-loop', 'hint', c.keyword, once(`every|${c.everyN}`, () => msg.commitEveryN(c.everyN)));
    }
    if (c.delayedDurability !== null && c.durabilityClause !== null) {
      const text = msg.delayedCommit(c.delayedDurability, 'COMMIT', db);
      if (text !== null) add('delayed-commit-needs-allowed', 'hint', c.durabilityClause, text);
    }
    if (c.opener === null && !c.guarded) {
      // In a procedure, committing the caller's transaction is a contract the code alone cannot check: a hint.
      add('unbalanced-transaction', c.inRoutine === null ? sure('unbalanced-transaction') : 'hint', c.keyword,
        once(`end|COMMIT|${c.inRoutine}`, () => msg.endWithoutBegin('COMMIT', c.inRoutine)));
    }
  }
  for (const a of s.atomicBlocks) {
    if (a.delayedDurability !== null && a.durabilityClause !== null) {
      const text = msg.delayedCommit(a.delayedDurability, 'BEGIN ATOMIC', db);
      if (text !== null) add('delayed-commit-needs-allowed', 'hint', a.durabilityClause, text);
    }
  }
  for (const setting of s.durabilitySettings) {
    if (setting.value === 'FORCED') add('forced-durability-data-loss', 'warning', setting, msg.forcedDurability(setting.database));
  }
  for (const b of s.begins) {
    if (b.matched) continue;
    // A routine that leaves a transaction open after its transaction count may have changed (or under a count test)
    // may be restoring the count its caller had: only the caller can tell. A script that leaves one open hands it to
    // the session: a forgotten COMMIT, or on purpose (a demo holding locks for another session, a script run step by
    // step); the text cannot tell which. A routine body that leaves one open otherwise returns with a different
    // @@TRANCOUNT, error 266: sure.
    const restoring = b.inRoutine !== null && (b.guarded || b.afterCountChange);
    add('unbalanced-transaction', restoring || b.inRoutine === null ? 'hint' : sure('unbalanced-transaction'), b.keyword,
      once(`begin|${restoring}|${b.inRoutine}`, () => msg.beginWithoutEnd(b.inRoutine, restoring)));
  }
  for (const r of s.rollbacks) {
    if (!r.matched && !r.guarded) {
      add('unbalanced-transaction', r.inRoutine === null ? sure('unbalanced-transaction') : 'hint', r.keyword,
        once(`end|ROLLBACK|${r.inRoutine}`, () => msg.endWithoutBegin('ROLLBACK', r.inRoutine)));
    }
  }
  found.sort((a, b) => a.offset - b.offset);
  return found.map((f) => f.d);
}

/**
 * Why a loop finding is only a hint, or null when the loop is the pattern the rule is about: single-row changes,
 * nothing else of unknown cost, run many times.
 */
function loopDoubt(loop: LoopFacts | null): msg.LoopDoubt | null {
  if (loop === null || loop.opaque) return 'opaque';
  if (loop.few) return 'few';
  return null;
}

/**
 * Whether an offset lies inside some loop ([start, end)), answered by a binary search instead of a pass over every
 * loop per COMMIT (quadratic in a script of many loops): with loops sorted by start, an offset is inside one exactly
 * when the largest end among the loops starting at or before it lies after it.
 */
function loopCover(s: ScriptStructure): (offset: number) => boolean {
  const loops = s.loops.slice().sort((a, b) => a.start - b.start);
  const starts = new Float64Array(loops.length);
  const maxEnd = new Float64Array(loops.length);
  loops.forEach((l, i) => { starts[i] = l.start; maxEnd[i] = Math.max(l.end, i > 0 ? maxEnd[i - 1]! : -Infinity); });
  return (offset) => {
    let lo = 0, hi = loops.length - 1, last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= offset) { last = mid; lo = mid + 1; } else hi = mid - 1;
    }
    return last >= 0 && maxEnd[last]! > offset;
  };
}
