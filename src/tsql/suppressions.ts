// Suppression comments the analyzer honours, applied to the findings after every rule has run (analyze.ts), so no rule
// needs to know about them:
//   `-- durability-lens: ignore <code>[, <code>…]`       after code on a line: that line; alone on its line: the next
//                                                       line holding code (blank and comment lines skipped);
//   `-- durability-lens: ignore-file <code>[, <code>…]`  the whole file.
// A finding belongs to the line where its range starts. Text after a further ` -- ` is a free-form reason. Codes are
// matched exactly (lower case, as the diagnostics show them); an unknown code suppresses nothing.

import { TokenKind, type TokenStream } from './lexer';
import type { LineIndex } from './lines';
import type { AnalysisDiagnostic } from './types';

export interface SuppressionDirective {
  kind: 'line' | 'file';
  codes: string[];
  /** 0-based line the directive covers (the file directive: its own line). -1 when a line directive covers nothing. */
  coveredLine: number;
  /** Offsets of the comment that holds it. */
  start: number;
  end: number;
}

// `--` then blanks, the marker, a colon, the verb; the codes follow (up to a ` -- reason`).
const DIRECTIVE = /[ \t]*durability-lens[ \t]*:[ \t]*(ignore-file|ignore)(?![\w-])([^\r\n]*)/iy;
const CODE = /^[a-z][a-z0-9-]*$/;

/** The codes of a directive's tail (`autocommit-dml-in-loop, commit-in-loop -- why`). */
function codesOf(tail: string): string[] {
  const reason = tail.search(/(?:^|\s)--/);
  const list = reason < 0 ? tail : tail.slice(0, reason);
  return list.split(/[\s,]+/).filter((c) => CODE.test(c));
}

/** Every suppression directive in the script, in document order. */
export function readSuppressions(tokens: TokenStream, lines: LineIndex): SuppressionDirective[] {
  const comments = tokens.comments;
  const text = tokens.text;
  const out: SuppressionDirective[] = [];
  let next = 0; // first token starting after the current comment
  for (let k = 0; k < comments.count; k++) {
    if (comments.kinds[k] !== TokenKind.LineComment) continue;
    const start = comments.starts[k]!;
    // Most comments are prose: the directive's first letter, after blanks, decides before any regex runs.
    let at = start + 2;
    while (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9) at++;
    if ((text.charCodeAt(at) | 0x20) !== 100 /* d */) continue;
    DIRECTIVE.lastIndex = start + 2;
    const match = DIRECTIVE.exec(text);
    if (match === null || DIRECTIVE.lastIndex > comments.ends[k]!) continue;
    const codes = codesOf(match[2]!);
    if (codes.length === 0) continue;
    const line = lines.lineOf(start);
    if (match[1]!.toLowerCase() === 'ignore-file') {
      out.push({ kind: 'file', codes, coveredLine: line, start, end: comments.ends[k]! });
      continue;
    }
    while (next < tokens.count && tokens.starts[next]! < start) next++;
    // After code on its line (the token before it ends on this line), it covers its own line; else the next code line.
    const trailing = next > 0 && lines.lineOf(tokens.ends[next - 1]! - 1) === line;
    const coveredLine = trailing ? line : next < tokens.count ? lines.lineOf(tokens.starts[next]!) : -1;
    out.push({ kind: 'line', codes, coveredLine, start, end: comments.ends[k]! });
  }
  return out;
}

/** The findings no suppression comment covers (the same array when the script has none). */
export function withoutSuppressed(diagnostics: AnalysisDiagnostic[], tokens: TokenStream, lines: LineIndex): AnalysisDiagnostic[] {
  if (diagnostics.length === 0) return diagnostics;
  const directives = readSuppressions(tokens, lines);
  if (directives.length === 0) return diagnostics;
  const file = new Set<string>();
  const byLine = new Map<number, Set<string>>();
  for (const d of directives) {
    if (d.kind === 'file') { for (const c of d.codes) file.add(c); continue; }
    if (d.coveredLine < 0) continue;
    let set = byLine.get(d.coveredLine);
    if (!set) { set = new Set(); byLine.set(d.coveredLine, set); }
    for (const c of d.codes) set.add(c);
  }
  return diagnostics.filter((d) => !file.has(d.code) && byLine.get(d.range.start.line)?.has(d.code) !== true);
}
