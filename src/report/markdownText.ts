// Escaping for server-, file- and setting-provided text in the Markdown exports (database and server names, file
// paths, error messages, notes): it must read as text wherever the Markdown is rendered — no raw HTML (<img>,
// <script>), no links or images ([x](url), ![](tracker)), no emphasis faking our own wording, no `|` breaking a table,
// no newline starting a heading or list, no control or bidi character. CommonMark lets any ASCII punctuation be
// backslash-escaped (spec §2.4 "Backslash escapes"), which renders as the character itself.
// Not covered: a bare "https://…" may still be shown as a link by GFM's autolink extension; its target is then the
// visible text itself, so it cannot pose as something else.
import { withVisibleControls } from '../shared/visibleText';

/** Inline Markdown text (a table cell, a list item, a heading): HTML, link, code, bold, block and table syntax escaped. */
export function markdownText(text: string): string {
  return withVisibleControls(text.replace(/\r\n?|\n|\u2028|\u2029/g, ' '))
    .replace(/[\\`*<>&|]/g, (c) => `\\${c}`)
    // A link or image needs "](", "][" or a "]:" definition; "[0.08–0.12] better" stays as it reads.
    .replace(/\](?=[([:])/g, '\\]')
    // At the start of a heading, cell or list item a value could open a block (heading, quote, list, rule, fence,
    // indented code): leading blanks go, the marker is escaped.
    .replace(/^\s+/, '')
    .replace(/^(#{1,6}|[+-]|\d{1,9}[.)])(?=\s|$)/, (m) => `${m.slice(0, -1)}\\${m.slice(-1)}`)
    .replace(/^([-_~])(?=\1\1)/, '\\$1');
}

/** A code span holding `text` literally: backticks and line breaks cannot close it or start a new block. */
export function markdownCode(text: string): string {
  const flat = withVisibleControls(text.replace(/\r\n?|\n|\u2028|\u2029/g, ' ')).replace(/`/g, "'");
  // A span starting or ending with a space is trimmed by one space on each side (CommonMark §6.1): pad so it is kept.
  return `\`${flat.startsWith(' ') || flat.endsWith(' ') ? ` ${flat} ` : flat}\``;
}
