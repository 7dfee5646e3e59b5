// analyze(): lexer → GO batches → structure → the Analysis the language server, CLI and profiler consume.
// Fast enough to run on every keystroke (a 5,000-line document in well under 50 ms; see bench/tsql.bench.ts).

import { splitBatches } from './batches';
import { lex } from './lexer';
import { LineIndex } from './lines';
import { diagnose } from './diagnose';
import { scanStructure } from './structure';
import type { Span } from './structure-types';
import type { Analysis, AnalysisOptions, Range, TransactionStatementInfo } from './types';

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
    routines: structure.routines.map((r) => ({
      kind: r.kind, name: r.name, number: r.number, range: range(r), bodyRange: range({ start: r.bodyStart, end: r.end }),
      batchIndex: r.batchIndex, external: r.external,
    })),
    transactions: transactionStatements(structure, range),
  };
  return analysis;
}

/** BEGIN TRAN, COMMIT and ROLLBACK in document order, each with the open-transaction depth before it. */
function transactionStatements(s: ReturnType<typeof scanStructure>, range: (s: Span) => Range): TransactionStatementInfo[] {
  const all: (TransactionStatementInfo & { offset: number })[] = [];
  for (const b of s.begins) all.push({ offset: b.keyword.start, kind: 'BEGIN TRAN', keywordRange: range(b.keyword), batchIndex: b.batchIndex, depth: b.depth, inLoop: b.inLoop });
  for (const c of s.commits) all.push({ offset: c.keyword.start, kind: 'COMMIT', keywordRange: range(c.keyword), batchIndex: c.batchIndex, depth: c.depth, inLoop: c.inLoop });
  for (const r of s.rollbacks) all.push({ offset: r.keyword.start, kind: 'ROLLBACK', keywordRange: range(r.keyword), batchIndex: r.batchIndex, depth: r.depth, inLoop: r.inLoop });
  all.sort((a, b) => a.offset - b.offset);
  return all.map(({ offset: _offset, ...t }) => t);
}
