// The text edits behind the quick fixes, computed on document offsets from the analysis and the tokens (no LSP types
// here: codeActions.ts turns them into code actions). Every edit only inserts or replaces whole tokens and never
// touches a line that starts inside a string or comment, so the rest of the script reads exactly as before.

import { firstStartAtOrAfter, Kw, LineIndex, TokenKind, type Analysis, type AnalysisDiagnostic, type TokenStream } from '../tsql/index';
import type { Range } from '../tsql/types';

/** Replace [start, end) with `text` (start === end: an insertion). */
export interface OffsetEdit {
  start: number;
  end: number;
  text: string;
}

/** Where the N of "commit every N" goes; codeActions.ts makes it a snippet placeholder or the default. */
export const EVERY_N = '\u0000N\u0000';
export const DEFAULT_EVERY_N = 1000;

export type LoopFix = 'transaction' | 'transaction-try-catch' | 'commit-every-n';

/** What the planners read: the text, its lines and tokens, and the analysis of that same text. */
export class FixContext {
  readonly lines: LineIndex;
  readonly eol: string;

  constructor(readonly text: string, readonly tokens: TokenStream, readonly analysis: Analysis) {
    this.lines = new LineIndex(text);
    const lf = text.indexOf('\n');
    this.eol = lf > 0 && text.charCodeAt(lf - 1) === 13 ? '\r\n' : lf < 0 && text.includes('\r') ? '\r' : '\n';
  }

  offsetOf(p: Range['start']): number {
    return Math.min(this.text.length, this.lines.lineStarts[p.line]! + p.character);
  }

  /** Index of the first (non-comment) token starting at or after `offset`. */
  tokenAtOrAfter(offset: number): number {
    return firstStartAtOrAfter(this.tokens.starts, this.tokens.count, offset);
  }

  /** Whether `offset` falls strictly inside a token or comment (a string or comment running over lines). */
  insideToken(offset: number): boolean {
    const t = this.tokenAtOrAfter(offset);
    if (t > 0 && this.tokens.ends[t - 1]! > offset) return true;
    // Comments never overlap: only the last one starting before `offset` can hold it.
    const c = this.tokens.comments;
    const next = firstStartAtOrAfter(c.starts, c.count, offset);
    return next > 0 && c.ends[next - 1]! > offset;
  }

  /** The blanks that start the line holding `offset`. */
  indentAt(offset: number): string {
    const start = this.lines.lineStarts[this.lines.lineOf(offset)]!;
    let i = start;
    while (i < this.text.length && (this.text[i] === ' ' || this.text[i] === '\t')) i++;
    return this.text.slice(start, i);
  }

  /** Whether only blanks precede `offset` on its line. */
  firstOnLine(offset: number): boolean {
    return this.text.slice(this.lines.lineStarts[this.lines.lineOf(offset)]!, offset).trim() === '';
  }

  /** Offset of the line break ending the line of `offset` (the text's end on the last line). */
  lineEnd(offset: number): number {
    let i = offset;
    while (i < this.text.length && this.text[i] !== '\n' && this.text[i] !== '\r') i++;
    return i;
  }
}

/**
 * One indentation step as the loop writes it: how much further its next line that is indented deeper goes in (two
 * spaces, four, a tab); four spaces, or a tab where the loop's line uses tabs, when it shows none.
 */
function stepOf(ctx: FixContext, loop: { start: number; end: number }, indent: string): string {
  const last = ctx.lines.lineOf(loop.end);
  for (let line = ctx.lines.lineOf(loop.start) + 1; line <= last; line++) {
    const at = ctx.lines.lineStarts[line]!;
    if (ctx.insideToken(at)) continue;
    const own = ctx.indentAt(at);
    if (own.length > indent.length && own.startsWith(indent)) return own.slice(indent.length);
  }
  return indent.includes('\t') ? '\t' : '    ';
}

/** The outermost loop holding the finding, when wrapping it in one transaction is a mechanical change. */
export function wrappableLoop(ctx: FixContext, finding: AnalysisDiagnostic): { start: number; end: number; block: boolean; batchIndex: number } | null {
  const at = ctx.offsetOf(finding.range.start);
  let best: { start: number; end: number; block: boolean; batchIndex: number } | null = null;
  for (const loop of ctx.analysis.loops) {
    const start = ctx.offsetOf(loop.range.start);
    const end = ctx.offsetOf(loop.range.end);
    if (start <= at && at < end && (best === null || start < best.start)) best = { start, end, block: loop.block, batchIndex: loop.batchIndex };
  }
  if (best === null) return null;
  // `GO n` runs the batch n times: one transaction per run would still commit n times (commit-in-loop).
  if ((ctx.analysis.batches[best.batchIndex]?.repeat ?? 1) > 1) return null;
  // A loop that already begins, commits or rolls back transactions has a design of its own; RETURN and GOTO could
  // leave it with the new transaction open.
  for (const s of ctx.analysis.transactions ?? []) {
    const o = ctx.offsetOf(s.keywordRange.start);
    if (best.start <= o && o < best.end) return null;
  }
  for (let t = ctx.tokenAtOrAfter(best.start); t < ctx.tokens.count && ctx.tokens.starts[t]! < best.end; t++) {
    const k = ctx.tokens.keywords[t] as Kw;
    if (k === Kw.RETURN || k === Kw.GOTO || (k === Kw.SAVE && (ctx.tokens.keywords[t + 1] === Kw.TRAN || ctx.tokens.keywords[t + 1] === Kw.TRANSACTION))) return null;
  }
  return best;
}

/** Whether the statement at [start, end) is the lone body of an IF/ELSE or WHILE: new statements then need BEGIN…END. */
function isLoneBody(ctx: FixContext, start: number, end: number): boolean {
  let innermost: { kind: string; start: number } | null = null;
  for (const s of ctx.analysis.statements ?? []) {
    if (s.kind !== 'if' && s.kind !== 'while' && s.kind !== 'block' && s.kind !== 'try-catch' && s.kind !== 'routine' && s.kind !== 'atomic-block') continue;
    const a = ctx.offsetOf(s.range.start);
    const b = ctx.offsetOf(s.range.end);
    if (a <= start && end <= b && !(a === start && b === end) && (innermost === null || a >= innermost.start)) innermost = { kind: s.kind, start: a };
  }
  return innermost !== null && (innermost.kind === 'if' || innermost.kind === 'while');
}

/** Where text goes after the statement ending at `end`: past a `;` right after it and past trailing comments. */
function afterStatement(ctx: FixContext, end: number): number {
  let at = end;
  const t = ctx.tokenAtOrAfter(end);
  if (t < ctx.tokens.count && ctx.tokens.kinds[t] === TokenKind.Semicolon && ctx.lines.lineOf(ctx.tokens.starts[t]!) === ctx.lines.lineOf(end)) at = ctx.tokens.ends[t]!;
  const lineEnd = ctx.lineEnd(at);
  // Only blanks and comments that close on this line left: the new line goes after them.
  if (ctx.tokenAtOrAfter(at) < ctx.tokens.count && ctx.tokens.starts[ctx.tokenAtOrAfter(at)]! < lineEnd) return at;
  if (ctx.insideToken(lineEnd)) return at;
  return lineEnd;
}

/** Inserts `extra` at the start of every line after the one holding `from`, up to `to`, that holds something and does
 * not start inside a string or comment (their text must not change). */
function indentLines(ctx: FixContext, from: number, to: number, extra: string): OffsetEdit[] {
  const edits: OffsetEdit[] = [];
  const last = ctx.lines.lineOf(to);
  for (let line = ctx.lines.lineOf(from) + 1; line <= last; line++) {
    const at = ctx.lines.lineStarts[line]!;
    if (ctx.insideToken(at) || ctx.lineEnd(at) === at) continue;
    edits.push({ start: at, end: at, text: extra });
  }
  return edits;
}

/** A name for the iteration counter that the script does not use already. */
function counterName(text: string): string {
  const lower = text.toLowerCase();
  for (let i = 1; ; i++) {
    const name = `@iterations_since_commit${i === 1 ? '' : i}`;
    if (!lower.includes(name)) return name;
  }
}

/**
 * Wraps the loop in one explicit transaction. `transaction`: BEGIN TRANSACTION before it, COMMIT after it.
 * `transaction-try-catch`: the same inside SET XACT_ABORT ON and TRY…CATCH that rolls back and re-throws, so an error
 * part-way leaves nothing half done and no transaction open. `commit-every-n`: BEGIN before, a commit every N
 * iterations at the end of the body (N = EVERY_N), a final COMMIT after. A loop that is the lone body of an IF/ELSE
 * gets BEGIN…END around it all, so the IF still governs the whole. Edits in document order, not overlapping.
 */
export function loopTransactionEdits(ctx: FixContext, loop: { start: number; end: number; block: boolean }, fix: LoopFix): OffsetEdit[] | null {
  const eol = ctx.eol;
  const indent = ctx.indentAt(loop.start);
  const step = stepOf(ctx, loop, indent);
  const lone = isLoneBody(ctx, loop.start, loop.end);
  const base = lone ? indent + step : indent;
  // Lines at their full indentation; the loop's own lines move right by `extra`.
  const opening: string[] = lone ? [`${indent}BEGIN`] : [];
  const closing: string[] = [];
  let extra = lone ? step : '';
  let body: OffsetEdit | null = null;
  if (fix === 'transaction') {
    opening.push(`${base}BEGIN TRANSACTION;`);
    closing.push(`${base}COMMIT TRANSACTION;`);
  } else if (fix === 'transaction-try-catch') {
    opening.push(`${base}SET XACT_ABORT ON;`, `${base}BEGIN TRY`, `${base}${step}BEGIN TRANSACTION;`);
    closing.push(`${base}${step}COMMIT TRANSACTION;`, `${base}END TRY`, `${base}BEGIN CATCH`,
      `${base}${step}IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;`, `${base}${step}THROW;`, `${base}END CATCH`);
    extra += step;
  } else {
    // The counter and the conditional commit go at the end of the body, just before its END.
    const endToken = ctx.tokenAtOrAfter(loop.end) - 1;
    if (!loop.block || endToken < 0 || ctx.tokens.keywords[endToken] !== Kw.END) return null;
    const counter = counterName(ctx.text);
    const endAt = ctx.tokens.starts[endToken]!;
    const lines = [`SET ${counter} += 1;`, `IF ${counter} % ${EVERY_N} = 0`, 'BEGIN', `${step}COMMIT TRANSACTION;`, `${step}BEGIN TRANSACTION;`, 'END'];
    if (ctx.firstOnLine(endAt)) {
      const lineStart = ctx.lines.lineStarts[ctx.lines.lineOf(endAt)]!;
      // At the indentation of the body's last statement (or one step in from END), moved right like the loop.
      const lastInBody = endToken - 1;
      const own = lastInBody >= 0 && ctx.lines.lineOf(ctx.tokens.starts[lastInBody]!) !== ctx.lines.lineOf(endAt) &&
        ctx.tokens.starts[lastInBody]! > loop.start
        ? ctx.indentAt(ctx.tokens.starts[lastInBody]!) : ctx.indentAt(endAt) + step;
      const inBody = own + (ctx.firstOnLine(loop.start) ? extra : '');
      body = { start: lineStart, end: lineStart, text: lines.map((l) => `${inBody}${l}${eol}`).join('') };
    } else {
      body = { start: endAt, end: endAt, text: `${lines.map((l) => l.trim()).join(' ')} ` };
    }
    opening.push(`${base}DECLARE ${counter} int = 0;`, `${base}BEGIN TRANSACTION;`);
    closing.push(`${base}COMMIT TRANSACTION;`);
  }
  if (lone) closing.push(`${indent}END`);

  const first = ctx.firstOnLine(loop.start);
  // The first opening line takes the loop's place (after its indentation, or mid-line after `IF … `); the loop moves
  // to a line of its own below the opening lines.
  const head = first ? opening[0]!.slice(indent.length) : opening[0]!.trimStart();
  const before = [head, ...opening.slice(1)].join(eol) + eol + indent + extra;
  const edits: OffsetEdit[] = [{ start: loop.start, end: loop.start, text: before }];
  if (body) edits.push(body);
  if (first && extra !== '') edits.push(...indentLines(ctx, loop.start, loop.end, extra));
  const after = afterStatement(ctx, loop.end);
  edits.push({ start: after, end: after, text: eol + closing.join(eol) });
  return mergeInserts(edits);
}

/** Sorts edits and merges insertions at the same offset, in the order given. */
function mergeInserts(edits: OffsetEdit[]): OffsetEdit[] {
  const sorted = edits.map((e, i) => ({ e, i })).sort((a, b) => a.e.start - b.e.start || a.i - b.i).map((x) => x.e);
  const out: OffsetEdit[] = [];
  for (const e of sorted) {
    const last = out[out.length - 1];
    if (last && last.start === e.start && last.end === last.start && e.end === e.start) last.text += e.text;
    else out.push({ ...e });
  }
  return out;
}

/** `WITH (DELAYED_DURABILITY = ON)` on the COMMIT the finding points at; null when it has a durability option already. */
export function delayedCommitEdits(ctx: FixContext, finding: AnalysisDiagnostic): OffsetEdit[] | null {
  const at = ctx.offsetOf(finding.range.start);
  const commit = ctx.analysis.commits.find((c) => ctx.offsetOf(c.keywordRange.start) === at);
  if (!commit || commit.delayedDurability !== null) return null;
  const end = ctx.offsetOf(commit.range.end);
  let last = ctx.tokenAtOrAfter(end) - 1;
  if (last >= 0 && ctx.tokens.kinds[last] === TokenKind.Semicolon) last--;
  if (last < 0 || ctx.tokens.starts[last]! < at) return null;
  const clause = 'WITH (DELAYED_DURABILITY = ON)';
  // COMMIT WORK takes no options (Learn, COMMIT WORK): it becomes the equivalent COMMIT TRANSACTION.
  if (commit.form === 'COMMIT WORK') return [{ start: ctx.tokens.starts[last]!, end: ctx.tokens.ends[last]!, text: `TRANSACTION ${clause}` }];
  return [{ start: ctx.tokens.ends[last]!, end: ctx.tokens.ends[last]!, text: ` ${clause}` }];
}

/** The suppression directive for a finding's line: alone on the line before it, or failing that at the end of its line. */
export function lineSuppressionEdits(ctx: FixContext, finding: AnalysisDiagnostic): OffsetEdit[] | null {
  const line = finding.range.start.line;
  const start = ctx.lines.lineStarts[line]!;
  const directive = `-- durability-lens: ignore ${finding.code}`;
  if (!ctx.insideToken(start)) return [{ start, end: start, text: `${ctx.indentAt(start)}${directive}${ctx.eol}` }];
  const end = ctx.lineEnd(start);
  const c = ctx.tokens.comments;
  let lineComment = false;
  for (let k = 0; k < c.count; k++) if (c.kinds[k] === TokenKind.LineComment && c.ends[k] === end && c.starts[k]! >= start) lineComment = true;
  if (ctx.insideToken(end) || lineComment) return null;
  return [{ start: end, end, text: ` ${directive}` }];
}

/** The file-wide suppression directive, as the document's first line. */
export function fileSuppressionEdits(ctx: FixContext, finding: AnalysisDiagnostic): OffsetEdit[] {
  return [{ start: 0, end: 0, text: `-- durability-lens: ignore-file ${finding.code}${ctx.eol}` }];
}

/** Applies offset edits (any order, not overlapping) to `text`: what an editor does with them. */
export function applyOffsetEdits(text: string, edits: readonly OffsetEdit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}
