// Finds what the cursor is on (a delayed-durability keyword, sys.sp_flush_log, a COMMIT) using the
// analysis' ranges plus the word under the cursor, and returns the matching hover text.
import { MarkupKind, type Hover } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Analysis, DatabaseDurabilityContext, Position, Range } from '../tsql/types';
import { atomicText, commitOptionText, commitText, databaseOptionText, flushLogText, settingValueText } from './hoverText';

interface Word {
  text: string;
  start: number;
  end: number;
}

const WORD_CHAR = /[A-Za-z0-9_@#$]/;
// How far back to look for `BEGIN ATOMIC WITH (` before an option: the option list is short.
const ATOMIC_LOOKBACK = 400;

export function hoverAt(
  document: TextDocument,
  analysis: Analysis,
  position: Position,
  database: DatabaseDurabilityContext | null,
): Hover | null {
  const text = document.getText();
  const word = wordAt(text, document.offsetAt(position));
  if (!word) return null;
  const upper = word.text.toUpperCase();
  const range = { start: document.positionAt(word.start), end: document.positionAt(word.end) };
  const hover = (value: string): Hover => ({ contents: { kind: MarkupKind.Markdown, value }, range });

  if (upper === 'SP_FLUSH_LOG') return hover(flushLogText());

  const before = text.slice(Math.max(0, word.start - ATOMIC_LOOKBACK), word.start);
  if (upper === 'ATOMIC' && /\bBEGIN\s+$/i.test(before)) return hover(atomicText());
  if ((upper === 'DELAYED_DURABILITY' || upper === 'ON' || upper === 'OFF') && /\bBEGIN\s+ATOMIC\s+WITH\s*\([^)]*$/i.test(before)) {
    return hover(atomicText());
  }

  const commit = analysis.commits.find((c) => contains(c.range, position));
  if (commit) {
    if (upper === 'COMMIT' && contains(commit.keywordRange, position)) return hover(commitText(commit.delayedDurability, database));
    if (commit.delayedDurability && (upper === 'DELAYED_DURABILITY' || upper === commit.delayedDurability)) {
      return hover(commitOptionText(commit.delayedDurability));
    }
  }

  const setting = analysis.durabilitySettings.find((s) => contains(s.range, position));
  if (setting && upper === setting.value) return hover(settingValueText(setting.value));
  if (upper === 'DELAYED_DURABILITY') return hover(databaseOptionText());
  return null;
}

function wordAt(text: string, offset: number): Word | null {
  let start = offset;
  while (start > 0 && WORD_CHAR.test(text[start - 1]!)) start--;
  let end = offset;
  while (end < text.length && WORD_CHAR.test(text[end]!)) end++;
  return start === end ? null : { text: text.slice(start, end), start, end };
}

function compare(a: Position, b: Position): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}

function contains(range: Range, position: Position): boolean {
  return compare(range.start, position) <= 0 && compare(position, range.end) <= 0;
}
