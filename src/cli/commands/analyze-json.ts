// The `analyze --json` shape: 1-based lines and columns, stable field names for scripts and CI.

import type { Analysis, Batch, Position } from '../../tsql/types';

export interface AnalyzeJson {
  file: string;
  batches: { startLine: number; endLine: number; repeat: number; empty: boolean }[];
  routines: {
    kind: 'PROCEDURE' | 'FUNCTION' | 'TRIGGER'; name: string; line: number; endLine: number;
    body: { line: number; column: number; endLine: number; endColumn: number };
  }[];
  loops: { line: number; endLine: number; kind: 'WHILE' | 'CURSOR' }[];
  commits: { line: number; column: number; inLoop: boolean; delayedDurability: 'ON' | 'OFF' | null }[];
  dml: { line: number; column: number; kind: string; inLoop: boolean; autocommit: boolean }[];
  diagnostics: { line: number; column: number; endLine: number; endColumn: number; severity: string; code: string; message: string }[];
}

const line = (p: Position): number => p.line + 1;

/** 1-based first and last lines holding the batch's text (blank lines next to the GO lines left out). */
export function batchLines(b: Batch): { startLine: number; endLine: number } {
  const leading = /^\s*/.exec(b.text)![0];
  const trailing = /\s*$/.exec(b.text)![0];
  const breaks = (s: string): number => (s.match(/\r\n|\r|\n/g) ?? []).length;
  const startLine = b.range.start.line + 1 + breaks(leading);
  const endLine = Math.max(startLine, b.range.end.line + 1 - breaks(trailing));
  return { startLine, endLine };
}
const column = (p: Position): number => p.character + 1;

export function toJson(file: string, a: Analysis): AnalyzeJson {
  return {
    file,
    batches: a.batches.map((b) => ({ ...batchLines(b), repeat: b.repeat, empty: b.empty })),
    routines: (a.routines ?? []).map((r) => ({
      kind: r.kind, name: r.number === null ? r.name : `${r.name};${r.number}`, line: line(r.range.start), endLine: line(r.range.end),
      body: { line: line(r.bodyRange.start), column: column(r.bodyRange.start), endLine: line(r.bodyRange.end), endColumn: column(r.bodyRange.end) },
    })),
    loops: a.loops.map((l) => ({ line: line(l.range.start), endLine: line(l.range.end), kind: l.kind })),
    commits: a.commits.map((c) => ({
      line: line(c.keywordRange.start), column: column(c.keywordRange.start), inLoop: c.inLoop, delayedDurability: c.delayedDurability,
    })),
    dml: a.dml.map((d) => ({
      line: line(d.range.start), column: column(d.range.start), kind: d.kind, inLoop: d.inLoop, autocommit: d.autocommit,
    })),
    diagnostics: a.diagnostics.map((d) => ({
      line: line(d.range.start), column: column(d.range.start), endLine: line(d.range.end), endColumn: column(d.range.end),
      severity: d.severity, code: d.code, message: d.message,
    })),
  };
}
