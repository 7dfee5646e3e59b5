// analyze(): lexer → GO batches → structure → the Analysis the language server, CLI and profiler consume.
// Fast enough to run on every keystroke (a 5,000-line document in well under 50 ms; see bench/tsql.bench.ts).

import { splitBatches } from './batches';
import { lex } from './lexer';
import { LineIndex } from './lines';
import * as msg from './messages';
import { scanStructure } from './structure';
import type { ScriptStructure, Span } from './structure-types';
import type {
  Analysis, AnalysisDiagnostic, AnalysisOptions, DiagnosticCode, DiagnosticSeverity, Range,
} from './types';

export function analyze(text: string, options: AnalysisOptions = {}): Analysis {
  const tokens = lex(text);
  const lines = new LineIndex(text);
  const spans = splitBatches(tokens, lines);
  const structure = scanStructure(tokens, spans);
  const batches = spans.map((s) => s.batch);
  const range = (s: Span): Range => lines.rangeOf(s.start, s.end);

  const analysis: Analysis = {
    batches,
    commits: structure.commits.map((c) => ({
      keywordRange: range(c.keyword), range: range(c), batchIndex: c.batchIndex, form: c.form,
      transactionName: c.name, delayedDurability: c.delayedDurability, inLoop: c.inLoop,
      beginRange: c.begin ? range(c.begin) : null,
    })),
    dml: structure.dml.map((d) => ({
      kind: d.kind, range: range(d), batchIndex: d.batchIndex, inLoop: d.inLoop,
      inExplicitTransaction: d.inExplicitTransaction, autocommit: d.autocommit,
    })),
    loops: structure.loops.map((l) => ({ kind: l.kind, range: range(l), batchIndex: l.batchIndex, block: l.block })),
    durabilitySettings: structure.durabilitySettings.map((d) => ({
      range: range(d), batchIndex: d.batchIndex, database: d.database, value: d.value,
    })),
    batchesWithDmlInLoop: [...new Set(structure.dml.filter((d) => d.inLoop).map((d) => d.batchIndex))].sort((a, b) => a - b),
    flushLogCalls: structure.flushLogCalls.map(range),
    checkpoints: structure.checkpoints.map(range),
    diagnostics: diagnose(structure, batches.map((b) => b.repeat), options, range),
    statements: structure.statements.toArray().map((s) => ({ kind: s.kind, range: range(s), batchIndex: s.batchIndex })),
    routines: structure.routines.map((r) => ({ kind: r.kind, name: r.name, range: range(r), batchIndex: r.batchIndex })),
  };
  return analysis;
}

function diagnose(
  s: ScriptStructure, repeats: readonly number[], options: AnalysisOptions, range: (s: Span) => Range,
): AnalysisDiagnostic[] {
  const disabled = options.disabledCodes;
  const db = options.database ?? null;
  const found: { offset: number; d: AnalysisDiagnostic }[] = [];
  const add = (code: DiagnosticCode, severity: DiagnosticSeverity, at: Span, message: string): void => {
    if (disabled?.has(code)) return;
    found.push({ offset: at.start, d: { code, severity, range: range(at), message } });
  };

  for (const d of s.dml) {
    if (d.inLoop && d.autocommit) {
      add('autocommit-dml-in-loop', 'information', d, msg.autocommitDmlInLoop(d.kind, d.inRepeatedBatchOnly, repeats[d.batchIndex] ?? 1));
    }
  }
  for (const c of s.commits) {
    if (c.inLoop) {
      const repeatedOnly = !isInsideLoop(s, c.keyword.start);
      add('commit-in-loop', 'information', c.keyword, msg.commitInLoop(repeatedOnly, repeats[c.batchIndex] ?? 1));
    }
    if (c.delayedDurability !== null && c.durabilityClause !== null) {
      const text = msg.delayedCommit(c.delayedDurability, 'COMMIT', db);
      if (text !== null) add('delayed-commit-needs-allowed', 'hint', c.durabilityClause, text);
    }
    if (c.begin === null && !c.guarded) add('unbalanced-transaction', 'information', c.keyword, msg.endWithoutBegin('COMMIT'));
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
  for (const b of s.begins) if (!b.matched) add('unbalanced-transaction', 'information', b.keyword, msg.beginWithoutEnd());
  for (const r of s.rollbacks) {
    if (!r.matched && !r.guarded) add('unbalanced-transaction', 'information', r.keyword, msg.endWithoutBegin('ROLLBACK'));
  }
  found.sort((a, b) => a.offset - b.offset);
  return found.map((f) => f.d);
}

function isInsideLoop(s: ScriptStructure, offset: number): boolean {
  return s.loops.some((l) => l.start <= offset && offset < l.end);
}
