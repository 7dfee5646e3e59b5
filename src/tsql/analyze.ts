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
    statements: structure.statements.map((kind, start, end, batchIndex) => ({ kind, range: lines.rangeOf(start, end), batchIndex })),
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
  const all: TransactionStatementInfo[] = [];
  const offsets: number[] = [];
  for (const b of s.begins) { offsets.push(b.keyword.start); all.push({ kind: 'BEGIN TRAN', keywordRange: range(b.keyword), batchIndex: b.batchIndex, depth: b.depth, inLoop: b.inLoop }); }
  for (const c of s.commits) { offsets.push(c.keyword.start); all.push({ kind: 'COMMIT', keywordRange: range(c.keyword), batchIndex: c.batchIndex, depth: c.depth, inLoop: c.inLoop }); }
  for (const r of s.rollbacks) { offsets.push(r.keyword.start); all.push({ kind: 'ROLLBACK', keywordRange: range(r.keyword), batchIndex: r.batchIndex, depth: r.depth, inLoop: r.inLoop }); }
  // Document order; statements at the same offset keep the order above (as a stable sort would).
  const order = all.map((_, i) => i).sort((a, b) => offsets[a]! - offsets[b]! || a - b);
  return order.map((i) => all[i]!);
}
