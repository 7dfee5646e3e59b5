// Diagnostics from a script's structure: which findings to report, at what severity, with which message.
// Each rule leaves out the cases real scripts showed to be fine (see docs/analyze.md "What each diagnostic means").

import * as msg from './messages';
import type { ScriptStructure, Span } from './structure-types';
import type { AnalysisDiagnostic, AnalysisOptions, DiagnosticCode, DiagnosticSeverity, Range } from './types';

export function diagnose(
  s: ScriptStructure, repeats: readonly number[], options: AnalysisOptions, range: (s: Span) => Range,
): AnalysisDiagnostic[] {
  const disabled = options.disabledCodes;
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
    // `DELETE TOP (n)` in a loop deletes in chunks on purpose (small transactions, log space reused between them).
    if (d.chunked) continue;
    const repeat = repeats[d.batchIndex] ?? 1;
    add('autocommit-dml-in-loop', 'information', d, once(`dml|${d.kind}|${d.inRepeatedBatchOnly}|${repeat}|${d.inRoutine}`,
      () => msg.autocommitDmlInLoop(d.kind, d.inRepeatedBatchOnly, repeat, d.inRoutine)));
  }
  for (const c of s.commits) {
    // `COMMIT … WITH (DELAYED_DURABILITY = ON)` does not wait for its flush unless the database is DISABLED (Learn,
    // COMMIT TRANSACTION: "the request is ignored" then): until the connection says DISABLED, delayed-commit-needs-allowed
    // (below) carries the doubt, not commit-in-loop.
    const delayedHonoured = c.delayedDurability === 'ON' && db?.delayedDurability !== 'DISABLED';
    const loopCommit = delayedHonoured ? null : c.loopCommit;
    if (loopCommit === 'per-iteration') {
      const repeatedOnly = !isInsideLoop(s, c.keyword.start);
      const repeat = repeats[c.batchIndex] ?? 1;
      add('commit-in-loop', 'information', c.keyword, once(`loop|${repeatedOnly}|${repeat}`, () => msg.commitInLoop(repeatedOnly, repeat)));
    } else if (loopCommit === 'every-n') {
      add('commit-in-loop', 'hint', c.keyword, once(`every|${c.everyN}`, () => msg.commitEveryN(c.everyN)));
    }
    if (c.delayedDurability !== null && c.durabilityClause !== null) {
      const text = msg.delayedCommit(c.delayedDurability, 'COMMIT', db);
      if (text !== null) add('delayed-commit-needs-allowed', 'hint', c.durabilityClause, text);
    }
    if (c.opener === null && !c.guarded) {
      add('unbalanced-transaction', 'information', c.keyword, once(`end|COMMIT|${c.inRoutine}`, () => msg.endWithoutBegin('COMMIT', c.inRoutine)));
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
  for (const b of s.begins) if (!b.matched) add('unbalanced-transaction', 'information', b.keyword, once('begin', msg.beginWithoutEnd));
  for (const r of s.rollbacks) {
    if (!r.matched && !r.guarded) {
      add('unbalanced-transaction', 'information', r.keyword, once(`end|ROLLBACK|${r.inRoutine}`, () => msg.endWithoutBegin('ROLLBACK', r.inRoutine)));
    }
  }
  found.sort((a, b) => a.offset - b.offset);
  return found.map((f) => f.d);
}

function isInsideLoop(s: ScriptStructure, offset: number): boolean {
  return s.loops.some((l) => l.start <= offset && offset < l.end);
}
