// Splits a script into batches on GO lines the way sqlcmd and SSMS do, keeping each batch's place in the document.
// Rule (Learn, "SQL Server Utilities Statements - GO"): GO alone on its line, optional count, comments allowed, no statement.

import type { TokenStream } from './lexer';
import type { LineIndex } from './lines';
import type { Batch } from './types';

/** A batch plus the (comment-free) token indices it holds ([firstToken, endToken)), for the structural scanner. */
export interface BatchSpan {
  batch: Batch;
  firstToken: number;
  endToken: number;
}

function isLineSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 11 || c === 12 || c === 0xfeff;
}

/**
 * When the GO token at `index` is a separator, returns its repeat count; otherwise 0.
 * The token came from the lexer, so it is never inside a string or block comment.
 */
function goLineRepeat(tokens: TokenStream, index: number, lineStart: number): number {
  const text = tokens.text;
  const n = text.length;
  // Only blanks may precede GO on its line.
  for (let i = lineStart; i < tokens.starts[index]!; i++) if (!isLineSpace(text.charCodeAt(i))) return 0;
  let i = tokens.ends[index]!;
  while (i < n && isLineSpace(text.charCodeAt(i))) i++;
  let repeat = 1;
  const digitsStart = i;
  let value = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) break;
    value = Math.min(value * 10 + (c - 48), 2 ** 31 - 1);
    i++;
  }
  if (i > digitsStart) {
    // `GO 67abc` is not a count; a count of 0 is not a positive integer, so it runs once.
    repeat = value > 0 ? value : 1;
    while (i < n && isLineSpace(text.charCodeAt(i))) i++;
  }
  if (i + 1 < n && text.charCodeAt(i) === 45 && text.charCodeAt(i + 1) === 45) return repeat;
  if (i >= n) return repeat;
  const c = text.charCodeAt(i);
  return c === 10 || c === 13 ? repeat : 0;
}

/** Splits `tokens.text` into batches. Whitespace-only stretches (an empty file, text after the last GO) are not batches. */
export function splitBatches(tokens: TokenStream, lines: LineIndex): BatchSpan[] {
  const text = tokens.text;
  const spans: BatchSpan[] = [];
  let batchStart = 0;
  let firstToken = 0;
  const comments = tokens.comments;
  let comment = 0;

  const close = (endOffset: number, endToken: number, repeat: number): void => {
    let end = endOffset;
    // The batch ends where its last line ends: drop the line break before the GO line.
    if (end > batchStart && text.charCodeAt(end - 1) === 10) end--;
    if (end > batchStart && text.charCodeAt(end - 1) === 13) end--;
    while (comment < comments.count && comments.starts[comment]! < batchStart) comment++;
    const hasComment = comment < comments.count && comments.starts[comment]! < end;
    // Whitespace-only stretches are not batches; comment-only ones are, marked empty.
    if (endToken > firstToken || hasComment) {
      const empty = endToken === firstToken;
      const firstLine = lines.lineOf(batchStart);
      spans.push({
        batch: {
          index: spans.length,
          text: text.slice(batchStart, end),
          range: lines.rangeOf(batchStart, end),
          startOffset: batchStart,
          endOffset: end,
          repeat,
          firstLine,
          empty,
        },
        firstToken,
        endToken,
      });
    }
  };

  // The lexer lists the GO words, so only they are visited (not every token of the script).
  const gos = tokens.goTokens;
  for (let g = 0; g < gos.length; g++) {
    const t = gos[g]!;
    if (t < firstToken) continue; // a `GO` on a GO line already consumed (`GO GO` is not a separator line)
    const goLine = lines.lineOf(tokens.starts[t]!);
    const repeat = goLineRepeat(tokens, t, lines.lineStarts[goLine]!);
    if (repeat === 0) continue;
    close(lines.lineStarts[goLine]!, t, repeat);
    // Skip the GO line's own tokens (a count, a trailing comment).
    const nextLine = goLine + 1;
    batchStart = nextLine < lines.lineCount ? lines.lineStarts[nextLine]! : text.length;
    let next = t + 1;
    while (next < tokens.count && tokens.starts[next]! < batchStart) next++;
    firstToken = next;
  }
  close(text.length, tokens.count, 1);
  return spans;
}

/** Document line (0-based) of a server error's line number (1-based within the batch, 0 = not applicable). */
export function documentLineOfBatchLine(batch: Batch, serverLine: number): number {
  return batch.firstLine + Math.max(serverLine, 1) - 1;
}
