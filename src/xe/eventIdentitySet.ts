// The events a reader has seen, for de-duplication (a ring buffer read twice, overlapping event_file exports).
// package0.event_sequence numbers the events of one event session and starts again at 1 when the session starts again
// (no Learn page states the rule; the real xelogstash errorlog_written row carries 1, which no server-wide counter
// would: test/fixtures/real-server), so rows saved from two sessions, or from one session across a restart, repeat
// numbers for different events. An event is therefore the same only when
// its event_sequence, its timestamp, its name and its sqlserver.session_id action (when present) all agree — the
// sequence alone is never an identity.
//
// Memory grows with the gaps between runs of consecutive sequence numbers, not with the events as objects: a run keeps
// its events' timestamps and name/session tags in typed arrays (12 bytes an event, outside the JS heap), and numbers
// that repeat with another identity (a second session) go to a second layer of runs.

/** What identifies one event besides its sequence number. */
export interface EventStamp {
  /** The timestamp in ms since the epoch; NaN when the event had none. */
  time: number;
  /**
   * The event name and its session_id action as a number: EventIdentitySet.stamp numbers each distinct pair in the
   * order first seen, so two pairs never share a tag (a hash could be made to collide by a crafted file).
   */
  tag: number;
}

interface Run {
  start: number;
  end: number;
  times: Float64Array;
  tags: Int32Array;
}

const sameTime = (a: number, b: number) => a === b || (a !== a && b !== b);

function newRun(k: number, time: number, tag: number, capacity = 16): Run {
  const run: Run = { start: k, end: k, times: new Float64Array(capacity), tags: new Int32Array(capacity) };
  run.times[0] = time;
  run.tags[0] = tag;
  return run;
}

/** Makes room for `needed` entries in `run`, doubling (the common case appends one at a time). */
function reserve(run: Run, needed: number): void {
  if (needed <= run.times.length) return;
  const capacity = Math.max(needed, run.times.length * 2);
  const times = new Float64Array(capacity);
  const tags = new Int32Array(capacity);
  times.set(run.times.subarray(0, run.end - run.start + 1));
  tags.set(run.tags.subarray(0, run.end - run.start + 1));
  run.times = times;
  run.tags = tags;
}

/** Sorted, disjoint, never adjacent runs of safe-integer sequence numbers, each number with one identity. */
class RunLayer {
  readonly runs: Run[] = [];

  /** Index of the first run whose end is ≥ k (runs.length when none). */
  private firstEndingAtOrAfter(k: number): number {
    let lo = 0;
    let hi = this.runs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.runs[mid]!.end < k) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The run holding k, or null. */
  find(k: number): Run | null {
    const n = this.runs.length;
    if (n === 0) return null;
    const last = this.runs[n - 1]!;
    if (k > last.end) return null;
    if (k >= last.start) return last;
    const i = this.firstEndingAtOrAfter(k);
    const run = this.runs[i];
    return run !== undefined && run.start <= k ? run : null;
  }

  /** Adds k (absent from this layer). */
  insert(k: number, time: number, tag: number): void {
    const n = this.runs.length;
    const last = this.runs[n - 1];
    // The common case: the next number after the newest run.
    if (last !== undefined && k === last.end + 1) return this.append(last, time, tag);
    if (last === undefined || k > last.end + 1) {
      this.runs.push(newRun(k, time, tag));
      return;
    }
    const i = this.firstEndingAtOrAfter(k);
    const previous = i > 0 ? this.runs[i - 1]! : null;
    const next = this.runs[i]!;
    const joinsPrevious = previous !== null && previous.end === k - 1;
    const joinsNext = next.start === k + 1;
    if (joinsPrevious) {
      this.append(previous, time, tag);
      if (joinsNext) {
        const length = previous.end - previous.start + 1;
        const nextLength = next.end - next.start + 1;
        reserve(previous, length + nextLength);
        previous.times.set(next.times.subarray(0, nextLength), length);
        previous.tags.set(next.tags.subarray(0, nextLength), length);
        previous.end = next.end;
        this.runs.splice(i, 1);
      }
    } else if (joinsNext) {
      const length = next.end - next.start + 1;
      const run = newRun(k, time, tag, Math.max(16, (length + 1) * 2));
      run.times.set(next.times.subarray(0, length), 1);
      run.tags.set(next.tags.subarray(0, length), 1);
      run.end = next.end;
      this.runs[i] = run;
    } else {
      this.runs.splice(i, 0, newRun(k, time, tag));
    }
  }

  private append(run: Run, time: number, tag: number): void {
    const length = run.end - run.start + 1;
    reserve(run, length + 1);
    run.times[length] = time;
    run.tags[length] = tag;
    run.end++;
  }
}

/** Answers as a Set of (sequence, time, tag) would: add returns false when that identity was already added. */
export class EventIdentitySet {
  private readonly layers: RunLayer[] = [];
  /** Sequence values that are not safe integers (bigint text, floats): rare, so a plain Set of their full identity. */
  private readonly other = new Set<string>();
  /** Each distinct name + session_id seen, numbered from 0: the tags (they grow with distinct sessions, not events). */
  private readonly tags = new Map<string, number>();

  /** The stamp of an event: its timestamp and the number of its name and sqlserver.session_id action. */
  stamp(name: string, timestamp: Date | null, sessionId: unknown): EventStamp {
    const identity = identityOf(name, sessionId);
    let tag = this.tags.get(identity);
    if (tag === undefined) {
      tag = this.tags.size;
      this.tags.set(identity, tag);
    }
    return { time: timestamp === null ? NaN : timestamp.getTime(), tag };
  }

  /** Adds the event; false when an event with the same sequence, time and tag was already added (a duplicate). */
  add(sequence: number | string, stamp: EventStamp): boolean {
    if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence)) {
      const key = `${typeof sequence}:${String(sequence)}|${String(stamp.time)}|${stamp.tag}`;
      if (this.other.has(key)) return false;
      this.other.add(key);
      return true;
    }
    const k = sequence === 0 ? 0 : sequence; // -0 and 0 are one number
    let free: RunLayer | null = null;
    for (const layer of this.layers) {
      const run = layer.find(k);
      if (run === null) {
        free ??= layer;
        continue;
      }
      const j = k - run.start;
      if (sameTime(run.times[j]!, stamp.time) && run.tags[j] === (stamp.tag | 0)) return false;
    }
    if (free === null) {
      free = new RunLayer();
      this.layers.push(free);
    }
    free.insert(k, stamp.time, stamp.tag | 0);
    return true;
  }

  /** Stored runs (over every layer) plus other keys: what the memory grows with (tests assert it stays small). */
  get storedEntries(): number {
    return this.layers.reduce((n, l) => n + l.runs.length, 0) + this.other.size;
  }
}

/** The identity text of an event's name and session_id action (absent: no session); NUL cannot occur in a name. */
function identityOf(name: string, sessionId: unknown): string {
  return `${name}\u0000${sessionId === undefined || sessionId === null ? '' : String(sessionId)}`;
}
