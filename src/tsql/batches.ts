// Splits a script into batches on GO lines the way sqlcmd and SSMS do, keeping each batch's place in the document.
// Rule (Learn, "SQL Server Utilities Statements - GO"): GO alone on its line, optional count, comments allowed, no statement.
// Microsoft's own splitters were compared (issue 26), not copied: go-mssqldb's `batch` package splits on `GO -- c` and
// `GO /* c */` but not on `GO 2 -- c`, reads digits inside a trailing comment as a count, and keeps the rest of the GO
// line (so a comment running past it) at the head of the next batch; go-sqlcmd drops `--` comments from the GO line and
// reads `GO 2 /* c */` as 2, but rejects `GO /* c */` as an invalid command. Here: comments of either kind anywhere on
// the GO line, before or after the count, as Learn allows; a block comment running past the line opens the next batch.

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

/** What a separator line says: how often the batch before it runs, and where a comment carried past it starts. */
interface GoLine {
  repeat: number;
  /**
   * Offset of a block comment that opens on the GO line and closes on a later one, else -1. The next batch starts
   * there (on the GO line), so the comment stays whole instead of its tail being read as T-SQL.
   */
  openComment: number;
}

/** Index of the comment that starts exactly at `offset` (comments are in document order), or -1. */
function commentStartingAt(tokens: TokenStream, offset: number): number {
  const starts = tokens.comments.starts;
  let lo = 0;
  let hi = tokens.comments.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = starts[mid]!;
    if (s === offset) return mid;
    if (s < offset) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

/**
 * Reads the GO token at `index` as a separator line: `GO [count]` alone on its line apart from blanks and comments
 * (Learn, "SQL Server Utilities Statements - GO": "A Transact-SQL statement cannot occupy the same line as a GO
 * command. However, the line can contain comments." — https://learn.microsoft.com/sql/t-sql/language-elements/sql-server-utilities-statements-go).
 * `--` and `/* … *\/` comments may come before or after the count. Returns null when the line is not a separator
 * (`GO;`, `GO SELECT 1`, `GO 5 x`, `GO 67abc`). The token came from the lexer, so it is never inside a string or a
 * block comment, and `GOTO`/`GO_x` are other words.
 */
function readGoLine(tokens: TokenStream, index: number, lineStart: number, lineEnd: number): GoLine | null {
  const text = tokens.text;
  // Only blanks may precede GO on its line.
  for (let i = lineStart; i < tokens.starts[index]!; i++) if (!isLineSpace(text.charCodeAt(i))) return null;
  let repeat = 1;
  let counted = false;
  let i = tokens.ends[index]!;
  for (;;) {
    while (i < lineEnd && isLineSpace(text.charCodeAt(i))) i++;
    if (i >= lineEnd) return { repeat, openComment: -1 };
    const c = text.charCodeAt(i);
    const d = i + 1 < lineEnd ? text.charCodeAt(i + 1) : -1;
    if (c === 45 && d === 45) return { repeat, openComment: -1 }; // `--` runs to the end of the line
    if (c === 47 && d === 42) {
      const k = commentStartingAt(tokens, i);
      if (k < 0) return null;
      const end = tokens.comments.ends[k]!;
      // A block comment that goes on past the GO line: the separator holds, and the comment opens the next batch.
      if (end > lineEnd) return { repeat, openComment: i };
      i = end;
      continue;
    }
    if (c >= 48 && c <= 57 && !counted) {
      let value = 0;
      while (i < lineEnd) {
        const e = text.charCodeAt(i);
        if (e < 48 || e > 57) break;
        value = Math.min(value * 10 + (e - 48), 2 ** 31 - 1);
        i++;
      }
      // A count of 0 is not a positive integer, so the batch runs once. `GO 67abc` fails at `a` on the next round.
      repeat = value > 0 ? value : 1;
      counted = true;
      continue;
    }
    return null;
  }
}

/** Offset of the line break ending the line that runs up to `nextLineStart` (the text's length for the last line). */
function lineEndBefore(text: string, nextLineStart: number, isLastLine: boolean): number {
  if (isLastLine) return text.length;
  let end = nextLineStart - 1;
  if (end > 0 && text.charCodeAt(end) === 10 && text.charCodeAt(end - 1) === 13) end--;
  return end;
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
    const nextLine = goLine + 1;
    const nextLineStart = nextLine < lines.lineCount ? lines.lineStarts[nextLine]! : text.length;
    const lineEnd = lineEndBefore(text, nextLineStart, nextLine >= lines.lineCount);
    const separator = readGoLine(tokens, t, lines.lineStarts[goLine]!, lineEnd);
    if (separator === null) continue;
    close(lines.lineStarts[goLine]!, t, separator.repeat);
    // Skip the GO line's own tokens (a count, trailing comments).
    batchStart = separator.openComment >= 0 ? separator.openComment : nextLineStart;
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
