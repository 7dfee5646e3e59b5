// What the analyze tool tells an agent about a T-SQL script: its batches with 1-based lines, routines, loops, COMMITs
// and the durability diagnostics, and which batches are worth measuring (DML in a loop, GO n) with the lines to pass to
// the run tools. Text only: nothing reaches a server. vscode-free.
import { analyze } from '../tsql';
import type { Analysis, DatabaseDurabilityContext } from '../tsql';
import { agentField, agentJson } from './agentText';

export interface AnalysisSummary {
  file: string;
  lines: number;
  batches: { batch: number; startLine: number; endLine: number; repeat: number }[];
  routines: { kind: string; name: string; line: number; endLine: number }[];
  loops: { kind: string; line: number; endLine: number }[];
  commits: { line: number; inLoop: boolean; delayedDurability: string | null }[];
  dmlInLoops: { kind: string; line: number; autocommit: boolean }[];
  diagnostics: { line: number; column: number; severity: string; code: string; message: string }[];
  /** Batches with DML in a loop or repeated by GO n: where commit time usually goes, with the run tools' lines. */
  worthMeasuring: { batch: number; startLine: number; endLine: number; why: string }[];
  /** One paragraph an agent can quote. */
  summary: string;
}

function plural(n: number, word: string): string {
  return `${n} ${n === 1 ? word : /(?:ch|sh|s|x)$/.test(word) ? `${word}es` : `${word}s`}`;
}

export function summarizeAnalysis(file: string, text: string, database: DatabaseDurabilityContext | null = null): AnalysisSummary {
  // Editors hide a UTF-8 byte order mark; dropping it keeps line-1 columns as the editor shows them.
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const a: Analysis = analyze(source, { database });
  const batches = a.batches.filter((b) => !b.empty).map((b) => ({ batch: b.index + 1, startLine: b.range.start.line + 1, endLine: b.range.end.line + 1, repeat: b.repeat }));
  const routines = (a.routines ?? []).map((r) => ({ kind: r.kind, name: r.name, line: r.range.start.line + 1, endLine: r.range.end.line + 1 }));
  const routineBatches = new Set((a.routines ?? []).map((r) => r.batchIndex));
  const worthMeasuring = a.batches
    .filter((b) => !b.empty && !routineBatches.has(b.index) && (a.batchesWithDmlInLoop.includes(b.index) || (b.repeat > 1 && a.dml.some((d) => d.batchIndex === b.index))))
    .map((b) => {
      const inLoop = a.dml.filter((d) => d.batchIndex === b.index && d.inLoop);
      const autocommit = inLoop.filter((d) => d.autocommit).length;
      const why = inLoop.length > 0
        ? `${plural(inLoop.length, 'DML statement')} in a loop${autocommit > 0 ? `, ${autocommit} of them autocommit (one commit — and one log flush wait — per execution)` : ''}`
        : `DML repeated by GO ${b.repeat}`;
      return { batch: b.index + 1, startLine: b.range.start.line + 1, endLine: b.range.end.line + 1, why };
    });
  const diagnostics = a.diagnostics.map((d) => ({ line: d.range.start.line + 1, column: d.range.start.character + 1, severity: d.severity, code: d.code, message: d.message }));
  const inLoopCommits = a.commits.filter((c) => c.inLoop).length;
  const summary = [
    `${agentField(file)}: ${plural(batches.length, 'batch')}, ${plural(a.loops.length, 'loop')}, ${plural(a.commits.length, 'COMMIT')}${inLoopCommits > 0 ? ` (${inLoopCommits} inside a loop)` : ''}, ${plural(diagnostics.length, 'durability diagnostic')}.`,
    worthMeasuring.length > 0
      ? `Worth measuring: ${worthMeasuring.map((w) => `batch ${w.batch} (lines ${w.startLine}–${w.endLine}: ${w.why})`).join('; ')} — pass startLine/endLine to durability_lens_profile or durability_lens_compare_durability.`
      : 'No batch runs DML in a loop or repeats it with GO n; a single set-based statement commits once, so delayed durability would change little.',
    routines.length > 0 ? `Routines: ${routines.map((r) => `${r.kind.toLowerCase()} ${agentField(r.name)} (line ${r.line})`).join(', ')} — measure one through the lines of an EXEC that calls it, never through its CREATE/ALTER batch.` : '',
  ].filter((s) => s !== '').join(' ');
  return {
    file,
    lines: source.split(/\r\n|\n|\r/).length,
    batches,
    routines,
    loops: a.loops.map((l) => ({ kind: l.kind, line: l.range.start.line + 1, endLine: l.range.end.line + 1 })),
    commits: a.commits.map((c) => ({ line: c.keywordRange.start.line + 1, inLoop: c.inLoop, delayedDurability: c.delayedDurability })),
    dmlInLoops: a.dml.filter((d) => d.inLoop).map((d) => ({ kind: d.kind, line: d.range.start.line + 1, autocommit: d.autocommit })),
    diagnostics,
    worthMeasuring,
    summary,
  };
}

/** The text a tool returns: the one-line summary (names in it kept on their line), then the whole analysis as JSON. */
export function analysisText(s: AnalysisSummary): string {
  return `${s.summary}\n\n${agentJson(s)}`;
}
