// A Markdown code span that shows any server- or file-provided text literally (a database name in a hover): inside a
// code span no link, image, HTML or emphasis is recognised (CommonMark §6.1 "Code spans"), and the span's backtick
// fence is one longer than the longest backtick run in the text, so the text cannot close it. Line breaks become
// spaces (a blank line would end the paragraph, and the span with it) and control/bidi characters are written as
// visible escapes. Shared by the language server's hovers; no dependencies but visibleText.
import { withVisibleControls } from './visibleText';

/** Longest text kept: SQL Server identifiers are at most 128 characters (sysname); more is cut with an ellipsis. */
const MAX_CODE_SPAN = 256;

export function markdownCodeSpan(text: string): string {
  let flat = withVisibleControls(String(text).replace(/\r\n?|\n|\u2028|\u2029/g, ' '));
  if (flat.length > MAX_CODE_SPAN) flat = `${flat.slice(0, MAX_CODE_SPAN - 1)}…`;
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // A span whose text starts or ends with a backtick (or a space) needs a space inside the fence: CommonMark strips
  // one space on each side when both are present, so the text reads as it is.
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') || flat.endsWith(' ') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}
