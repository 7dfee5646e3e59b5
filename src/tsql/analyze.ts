// analyze(): lexer → GO batches → structure → the Analysis the language server, CLI and profiler consume.
// Fast enough to run on every keystroke (a 5,000-line document in well under 50 ms; see bench/tsql.bench.ts).

import { splitBatches } from './batches';
import { lex } from './lexer';
import { LineIndex } from './lines';
import { diagnose } from './diagnose';
import { signatureOf } from './procedureParameters';
import { scanStructure } from './structure';
import { withoutSuppressed } from './suppressions';
import type { Span } from './structure-types';
import type { Analysis, AnalysisOptions, Range, RoutineInfo, TransactionStatementInfo } from './types';

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
    batchesWithDmlInLoop: batchesWithDmlInLoop(structure, batches.length),
    flushLogCalls: structure.flushLogCalls.map(range),
    checkpoints: structure.checkpoints.map(range),
    diagnostics: withoutSuppressed(diagnose(structure, batches.map((b) => b.repeat), options, range), tokens, lines),
    statements: structure.statements.map((kind, start, end, batchIndex) => ({ kind, range: lines.rangeOf(start, end), batchIndex })),
    routines: structure.routines.map((r) => {
      const routine: RoutineInfo = {
        kind: r.kind, name: r.name, number: r.number, range: range(r), bodyRange: range({ start: r.bodyStart, end: r.end }),
        batchIndex: r.batchIndex, external: r.external,
      };
      // A procedure's parameter list straight from the document's tokens (re-lexing each header cost a quarter of
      // analyze()); functions and triggers have no `signature` key at all.
      if (r.kind === 'PROCEDURE') routine.signature = { ...signatureOf(tokens, r.nameEnd, Math.max(r.nameEnd, r.headerEnd)), nameParts: r.nameParts };
      return routine;
    }),
    transactions: transactionStatements(structure, range),
  };
  return analysis;
}

/** Indices of the batches holding DML in a loop, ascending, each once. */
function batchesWithDmlInLoop(s: ReturnType<typeof scanStructure>, batchCount: number): number[] {
  const marked = new Uint8Array(batchCount);
  for (const d of s.dml) if (d.inLoop) marked[d.batchIndex] = 1;
  const out: number[] = [];
  for (let i = 0; i < batchCount; i++) if (marked[i] === 1) out.push(i);
  return out;
}

/** BEGIN TRAN, COMMIT and ROLLBACK in document order, each with the open-transaction depth before it. */
function transactionStatements(s: ReturnType<typeof scanStructure>, range: (s: Span) => Range): TransactionStatementInfo[] {
  const begins = s.begins.map((b): TransactionStatementInfo => ({ kind: 'BEGIN TRAN', keywordRange: range(b.keyword), batchIndex: b.batchIndex, depth: b.depth, inLoop: b.inLoop }));
  const commits = s.commits.map((c): TransactionStatementInfo => ({ kind: 'COMMIT', keywordRange: range(c.keyword), batchIndex: c.batchIndex, depth: c.depth, inLoop: c.inLoop }));
  const rollbacks = s.rollbacks.map((r): TransactionStatementInfo => ({ kind: 'ROLLBACK', keywordRange: range(r.keyword), batchIndex: r.batchIndex, depth: r.depth, inLoop: r.inLoop }));
  const lists = [begins, commits, rollbacks];
  const offsets = [s.begins, s.commits, s.rollbacks].map((nodes) => nodes.map((n) => n.keyword.start));
  // Document order; statements at the same offset in the order above, as a stable sort of the three lists would give.
  // The scanner meets each kind in document order, so merging suffices; should a list ever be out of order, sort.
  if (!offsets.every((o) => o.every((v, i) => i === 0 || o[i - 1]! <= v))) {
    const all = lists.flat();
    const at = offsets.flat();
    return all.map((_, i) => i).sort((a, b) => at[a]! - at[b]! || a - b).map((i) => all[i]!);
  }
  const out: TransactionStatementInfo[] = [];
  const next = [0, 0, 0];
  for (;;) {
    let pick = -1;
    for (let l = 0; l < 3; l++) {
      if (next[l]! < lists[l]!.length && (pick < 0 || offsets[l]![next[l]!]! < offsets[pick]![next[pick]!]!)) pick = l;
    }
    if (pick < 0) return out;
    out.push(lists[pick]![next[pick]!++]!);
  }
}
