// Diagnostics from a script's structure: which findings to report, at what severity, with which message.
// Each rule reports with certainty (information, warning) only what the code shows; where it cannot tell (a caller's
// transaction, the cost of an iteration) the finding is a hint. See docs/analyze.md "What each diagnostic means".

import * as msg from './messages';
import type { LoopFacts, ScriptStructure, Span } from './structure-types';
import type { AnalysisDiagnostic, AnalysisOptions, DiagnosticCode, DiagnosticSeverity, Range } from './types';

/**
 * The severity of a finding the code shows with certainty (what the rule claims, nothing the script cannot tell). A
 * squiggle needs ≥ 90 % precision on public code nobody here wrote, measured on the held-out half of the evaluation
 * (docs/analyze.md, "Measured precision", run once on 2026-11-27 with these rules): autocommit-dml-in-loop 75 % (27 TP,
 * 9 FP), commit-in-loop 25 % (2 TP, 6 FP), unbalanced-transaction 50 % (1 TP, 1 FP, 26 debatable). Below the bar, so
 * hints until a fresh held-out evaluation says otherwise; the message still tells a sure finding from a doubtful one.
 * forced-durability-data-loss (a warning) measured 100 %.
 */
export const SURE: Readonly<Record<'autocommit-dml-in-loop' | 'commit-in-loop' | 'unbalanced-transaction', DiagnosticSeverity>> = {
  'autocommit-dml-in-loop': 'hint',
  'commit-in-loop': 'hint',
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
    const repeat = repeats[d.batchIndex] ?? 1;
    const doubt = d.shape === 'unknown' ? (d.kind === 'INSERT' ? 'opaque' : 'rows') : loopDoubt(d.loop);
    add('autocommit-dml-in-loop', doubt === null ? sure('autocommit-dml-in-loop') : 'hint', d,
      once(`dml|${d.kind}|${d.inRepeatedBatchOnly}|${repeat}|${d.inRoutine}|${doubt}`,
        () => msg.autocommitDmlInLoop(d.kind, d.inRepeatedBatchOnly, repeat, d.inRoutine, doubt)));
  }
  for (const c of s.commits) {
    const loop = c.loop;
    if (c.loopCommit === 'per-iteration' && loop?.batch !== true && (loop === null || loop.durableRows || loop.unknownRows || loop.opaque)) {
      // Sure only when each iteration is a few single-row changes to permanent tables, many times over.
      const doubt = loop === null ? 'opaque' : loop.durableRows ? loopDoubt(loop) : loop.opaque ? 'opaque' : 'rows';
      const repeatedOnly = !isInsideLoop(s, c.keyword.start);
      const repeat = repeats[c.batchIndex] ?? 1;
      add('commit-in-loop', doubt === null ? sure('commit-in-loop') : 'hint', c.keyword,
        once(`loop|${repeatedOnly}|${repeat}|${doubt}`, () => msg.commitInLoop(repeatedOnly, repeat, doubt)));
    } else if (c.loopCommit === 'every-n') {
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
    // may be restoring the count its caller had: only the caller can tell.
    const restoring = b.inRoutine !== null && (b.guarded || b.afterCountChange);
    add('unbalanced-transaction', restoring ? 'hint' : sure('unbalanced-transaction'), b.keyword,
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

function isInsideLoop(s: ScriptStructure, offset: number): boolean {
  return s.loops.some((l) => l.start <= offset && offset < l.end);
}
