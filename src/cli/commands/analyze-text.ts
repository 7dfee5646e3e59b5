// The human report of `analyze`: a summary, batches, loops, commits, then each diagnostic with its source line.

import type { Analysis, AnalysisDiagnostic } from '../../tsql/types';
import { batchLines } from './analyze-json';

const WIDTH = 100;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function wrap(text: string, indent: string): string[] {
  const out: string[] = [];
  let lineText = '';
  for (const word of text.split(/\s+/)) {
    if (lineText.length > 0 && indent.length + lineText.length + 1 + word.length > WIDTH) { out.push(indent + lineText); lineText = word; }
    else lineText = lineText.length > 0 ? `${lineText} ${word}` : word;
  }
  if (lineText.length > 0) out.push(indent + lineText);
  return out;
}

function lines(first: number, last: number): string {
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

function excerpt(sourceLines: readonly string[], d: AnalysisDiagnostic): string[] {
  const lineNo = d.range.start.line;
  const source = (sourceLines[lineNo] ?? '').replace(/\t/g, ' ');
  const start = d.range.start.character;
  const end = d.range.end.line === lineNo ? Math.max(d.range.end.character, start + 1) : source.length;
  const gutter = String(lineNo + 1);
  return [
    `  ${gutter} | ${source}`,
    `  ${' '.repeat(gutter.length)} | ${' '.repeat(start)}${'^'.repeat(Math.max(1, Math.min(end, source.length) - start))}`,
  ];
}

export function renderText(file: string, text: string, a: Analysis): string {
  const sourceLines = text.split(/\r\n|\r|\n/);
  const out: string[] = [];
  const inLoopDml = a.dml.filter((d) => d.inLoop);
  out.push(`${file}: ${plural(a.batches.length, 'batch', 'batches')}, ${plural(a.loops.length, 'loop')}, ` +
    `${plural(a.commits.length, 'COMMIT')}, ${plural(inLoopDml.length, 'DML statement')} repeated, ${plural(a.diagnostics.length, 'diagnostic')}`);

  out.push('', 'Batches');
  if (a.batches.length === 0) out.push('  (none: the file is empty)');
  for (const b of a.batches) {
    const dml = a.dml.filter((d) => d.batchIndex === b.index);
    const notes = [
      b.repeat > 1 ? `GO ${b.repeat}` : '',
      b.empty ? 'comments only' : '',
      dml.length > 0 ? `${plural(dml.length, 'DML statement')}` : '',
      a.batchesWithDmlInLoop.includes(b.index) ? 'DML runs repeatedly: worth profiling' : '',
    ].filter(Boolean);
    const { startLine, endLine } = batchLines(b);
    out.push(`  #${b.index + 1}  ${lines(startLine, endLine).padEnd(14)}${notes.join(', ')}`);
  }

  const routines = a.routines ?? [];
  if (routines.length > 0) {
    out.push('', 'Routines');
    for (const r of routines) {
      const name = r.number === null ? r.name : `${r.name};${r.number}`;
      const body = r.external ? 'external (CLR), no T-SQL body' : `body ${lines(r.bodyRange.start.line + 1, r.bodyRange.end.line + 1)}`;
      out.push(`  ${file}:${r.range.start.line + 1}:${r.range.start.character + 1}  ${r.kind} ${name}, ${body}`);
    }
  }

  if (a.loops.length > 0) {
    out.push('', 'Loops');
    for (const l of a.loops) {
      const body = a.dml.filter((d) => d.range.start.line >= l.range.start.line && d.range.end.line <= l.range.end.line);
      const what = body.length > 0 ? `: ${body.map((d) => `${d.kind}${d.autocommit ? ' (autocommit)' : ''}`).join(', ')}` : '';
      out.push(`  ${file}:${l.range.start.line + 1}:${l.range.start.character + 1}  ${l.kind} loop, ${lines(l.range.start.line + 1, l.range.end.line + 1)}${what}`);
    }
  }

  if (a.commits.length > 0) {
    out.push('', 'Commits');
    for (const c of a.commits) {
      const facts = [
        c.form,
        c.delayedDurability ? `WITH (DELAYED_DURABILITY = ${c.delayedDurability})` : 'fully durable unless the database is FORCED',
        c.inLoop ? 'in a loop' : '',
      ].filter(Boolean);
      out.push(`  ${file}:${c.keywordRange.start.line + 1}:${c.keywordRange.start.character + 1}  ${facts.join(', ')}`);
    }
  }

  out.push('', 'Diagnostics');
  if (a.diagnostics.length === 0) out.push('  none');
  for (const d of a.diagnostics) {
    out.push(`${file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity} ${d.code}`);
    out.push(...excerpt(sourceLines, d));
    out.push(...wrap(d.message, '  '), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}
