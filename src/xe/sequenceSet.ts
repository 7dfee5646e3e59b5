// The set of event_sequence values a reader has seen, for de-duplication. A session numbers its events 1, 2, 3, … so
// the values arrive as long consecutive runs: kept as sorted [start, end] runs, memory grows with the gaps between
// runs, not with the number of events (a Set of 100,000 numbers was the reader's only per-event memory).

/** Same answers as a Set<number | string> of the keys added; integers are stored as runs, anything else in a Set. */
export class SequenceSet {
  /** Run i covers the safe integers starts[i] … ends[i]; runs are sorted, disjoint and never adjacent. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** Keys that are not safe integers (bigint text, floats): rare, so a plain Set. */
  private readonly other = new Set<number | string>();

  /** Adds `key`; returns false when it was already present (the caller counts a duplicate). */
  add(key: number | string): boolean {
    if (typeof key !== 'number' || !Number.isSafeInteger(key)) {
      if (this.other.has(key)) return false;
      this.other.add(key);
      return true;
    }
    const k = key === 0 ? 0 : key; // -0 and 0 are one key, as in a Set
    const last = this.ends.length - 1;
    // The common case: the next number after the newest run.
    if (last >= 0 && k === this.ends[last]! + 1) {
      this.ends[last] = k;
      return true;
    }
    if (last >= 0 && k > this.ends[last]! + 1) {
      this.starts.push(k);
      this.ends.push(k);
      return true;
    }
    // Index of the first run whose end is ≥ k (binary search).
    let lo = 0;
    let hi = this.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    if (lo < this.starts.length && this.starts[lo]! <= k) return false;
    const joinsPrevious = lo > 0 && this.ends[lo - 1]! === k - 1;
    const joinsNext = lo < this.starts.length && this.starts[lo]! === k + 1;
    if (joinsPrevious && joinsNext) {
      this.ends[lo - 1] = this.ends[lo]!;
      this.starts.splice(lo, 1);
      this.ends.splice(lo, 1);
    } else if (joinsPrevious) {
      this.ends[lo - 1] = k;
    } else if (joinsNext) {
      this.starts[lo] = k;
    } else {
      this.starts.splice(lo, 0, k);
      this.ends.splice(lo, 0, k);
    }
    return true;
  }

  /** Stored runs plus other keys: what the memory grows with (tests assert it stays small for consecutive input). */
  get storedEntries(): number {
    return this.starts.length + this.other.size;
  }
}
