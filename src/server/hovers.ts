// Finds what the cursor is on (a delayed-durability keyword, sys.sp_flush_log, a COMMIT) from the
// lexer's tokens and the analysis' ranges, and returns the matching hover text. Comments and strings get none.
import { MarkupKind, type Hover } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { TokenKind, type TokenStream } from '../tsql/index';
import type { Analysis, DatabaseDurabilityContext, Position, Range } from '../tsql/types';
import { atomicText, commitOptionText, commitText, databaseOptionText, flushLogText, settingValueText } from './hoverText';

// `BEGIN ATOMIC WITH (DELAYED_DURABILITY = ON, TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'x')`
// has a handful of tokens before any option; looking further back than this cannot reach the BEGIN.
const ATOMIC_OPTION_LOOKBACK = 40;

export function hoverAt(
  document: TextDocument,
  tokens: TokenStream,
  analysis: Analysis,
  position: Position,
  database: DatabaseDurabilityContext | null,
): Hover | null {
  const index = tokenAt(tokens, document.offsetAt(position));
  if (index < 0 || tokens.kinds[index] !== TokenKind.Word) return null;
  const upper = wordText(tokens, index);
  const range = { start: document.positionAt(tokens.starts[index]!), end: document.positionAt(tokens.ends[index]!) };
  const hover = (value: string): Hover => ({ contents: { kind: MarkupKind.Markdown, value }, range });

  if (upper === 'SP_FLUSH_LOG') return hover(flushLogText());
  if (upper === 'ATOMIC' && wordText(tokens, previous(tokens, index)) === 'BEGIN') return hover(atomicText());
  if ((upper === 'DELAYED_DURABILITY' || upper === 'ON' || upper === 'OFF') && inAtomicOptions(tokens, index)) return hover(atomicText());

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

/** Index of the token covering `offset` (a cursor right after a word still counts), or -1. */
function tokenAt(tokens: TokenStream, offset: number): number {
  let low = 0;
  let high = tokens.count - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (tokens.ends[mid]! < offset) low = mid + 1;
    else if (tokens.starts[mid]! > offset) high = mid - 1;
    else return mid;
  }
  return -1;
}

function wordText(tokens: TokenStream, index: number): string {
  if (index < 0 || tokens.kinds[index] !== TokenKind.Word) return '';
  return tokens.text.slice(tokens.starts[index]!, tokens.ends[index]!).toUpperCase();
}

function previous(tokens: TokenStream, index: number): number {
  let i = index - 1;
  while (i >= 0 && (tokens.kinds[i] === TokenKind.LineComment || tokens.kinds[i] === TokenKind.BlockComment)) i--;
  return i;
}

/** Inside the option list of `BEGIN ATOMIC WITH ( ... )`. */
function inAtomicOptions(tokens: TokenStream, index: number): boolean {
  let i = previous(tokens, index);
  for (let steps = 0; i >= 0 && steps < ATOMIC_OPTION_LOOKBACK; steps++, i = previous(tokens, i)) {
    const kind = tokens.kinds[i] as TokenKind;
    if (kind === TokenKind.RParen || kind === TokenKind.Semicolon) return false;
    if (kind === TokenKind.LParen) {
      const withWord = previous(tokens, i);
      const atomic = previous(tokens, withWord);
      return wordText(tokens, withWord) === 'WITH' && wordText(tokens, atomic) === 'ATOMIC' && wordText(tokens, previous(tokens, atomic)) === 'BEGIN';
    }
  }
  return false;
}

function compare(a: Position, b: Position): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}

function contains(range: Range, position: Position): boolean {
  return compare(range.start, position) <= 0 && compare(position, range.end) <= 0;
}
