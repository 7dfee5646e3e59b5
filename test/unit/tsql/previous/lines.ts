// Offset ⇄ (line, character) conversion for a document, with LSP's line breaks (\n, \r\n, \r).

import type { Position, Range } from './types';

export class LineIndex {
  /** Offset at which each line starts; lineStarts[0] is 0. */
  readonly lineStarts: Int32Array;

  constructor(readonly text: string) {
    const starts: number[] = [0];
    const n = text.length;
    if (text.indexOf('\r') < 0) {
      // Common case, no carriage returns: the native search is far faster than a character loop.
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = Int32Array.from(starts);
      return;
    }
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) starts.push(i + 1);
      else if (c === 13) {
        if (i + 1 < n && text.charCodeAt(i + 1) === 10) i++;
        starts.push(i + 1);
      }
    }
    this.lineStarts = Int32Array.from(starts);
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line holding `offset` (an offset on a line break belongs to the line it ends). */
  lineOf(offset: number): number {
    const starts = this.lineStarts;
    let lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= offset) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const line = this.lineOf(clamped);
    return { line, character: clamped - this.lineStarts[line]! };
  }

  rangeOf(start: number, end: number): Range {
    return { start: this.positionAt(start), end: this.positionAt(end) };
  }

  /** Offset where `line`'s text ends, before its line break. */
  lineEnd(line: number): number {
    if (line + 1 >= this.lineStarts.length) return this.text.length;
    let end = this.lineStarts[line + 1]!;
    if (end > 0 && this.text.charCodeAt(end - 1) === 10) end--;
    if (end > 0 && this.text.charCodeAt(end - 1) === 13) end--;
    return end;
  }
}
