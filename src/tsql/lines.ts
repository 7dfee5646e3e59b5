// Offset ⇄ (line, character) conversion for a document, with LSP's line breaks (\n, \r\n, \r).

import type { Position, Range } from './types';

export class LineIndex {
  /** Offset at which each line starts; lineStarts[0] is 0. */
  readonly lineStarts: Int32Array;

  /** Line of the last lookup: analysis asks for offsets in (nearly) document order, so the answer is usually close. */
  private hint = 0;

  constructor(readonly text: string) {
    const n = text.length;
    // Grown by doubling in place: a JS array of numbers and Int32Array.from cost a 10 MB script several milliseconds.
    let starts = new Int32Array(Math.max(16, n >>> 5));
    let count = 1;
    const add = (offset: number): void => {
      if (count === starts.length) { const grown = new Int32Array(count * 2); grown.set(starts); starts = grown; }
      starts[count++] = offset;
    };
    if (text.indexOf('\r') < 0) {
      // Common case, no carriage returns: the native search is far faster than a character loop.
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) add(i + 1);
    } else {
      for (let i = 0; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c === 10) add(i + 1);
        else if (c === 13) {
          if (i + 1 < n && text.charCodeAt(i + 1) === 10) i++;
          add(i + 1);
        }
      }
    }
    this.lineStarts = starts.subarray(0, count); // a view: no copy of a 10 MB script's 300,000 line starts
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line holding `offset` (an offset on a line break belongs to the line it ends). */
  lineOf(offset: number): number {
    const starts = this.lineStarts;
    const last = starts.length - 1;
    let lo = this.hint;
    let hi = last;
    if (starts[lo]! <= offset) {
      // At or after the hinted line: gallop forward (1, 2, 4... lines) so a nearby line costs a few probes, not a
      // search of the whole (cache-unfriendly) array.
      let step = 1;
      while (lo + step <= last && starts[lo + step]! <= offset) { lo += step; step *= 2; }
      hi = Math.min(lo + step - 1, last);
    } else {
      // Before it (an enclosing statement after its body): gallop backward the same way.
      hi = lo - 1;
      let step = 1;
      lo = hi - step;
      while (lo > 0 && starts[lo]! > offset) { hi = lo - 1; step *= 2; lo = hi - step; }
      if (lo < 0) lo = 0;
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= offset) lo = mid; else hi = mid - 1;
    }
    return (this.hint = lo);
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const line = this.lineOf(clamped);
    return { line, character: clamped - this.lineStarts[line]! };
  }

  rangeOf(start: number, end: number): Range {
    const length = this.text.length;
    const from = Math.max(0, Math.min(start, length));
    const to = Math.max(0, Math.min(end, length));
    const fromLine = this.lineOf(from);
    const toLine = this.lineOf(to);
    // One nested literal, not three separate objects: V8 allocates it in one step (10 MB of script makes about a
    // million of them; measured, this halved the time spent building the statements' ranges).
    return {
      start: { line: fromLine, character: from - this.lineStarts[fromLine]! },
      end: { line: toLine, character: to - this.lineStarts[toLine]! },
    };
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
