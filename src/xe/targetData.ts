// Parses the target_data XML of the two aggregating targets, event_counter and histogram: the exact per-event
// counts and the exact value buckets the server kept, however long the run (nothing here is a sample).

import { attr, scanXml } from './xmlScanner';

/**
 * event_counter target_data, as the "Event Counter Target" page documents it
 * (https://learn.microsoft.com/previous-versions/sql/sql-server-2016/ff878025(v=sql.130)):
 * `<CounterTarget truncated="0"><Packages><Package name="p"><Event name="e" count="n" /></Package></Packages></CounterTarget>`.
 * The target counts synchronously, so no event reaches the session without being counted (targets page, event_counter).
 */
export interface CounterData {
  /** Per event name (without package): how many events the session accepted. */
  counts: Map<string, number>;
  truncated: boolean;
  parseError: string | null;
}

/**
 * histogram target_data. The "Histogram Target" page
 * (https://learn.microsoft.com/previous-versions/sql/sql-server-2016/ff878023(v=sql.130)) documents
 * `<Slots truncated="0" buckets="n"><Slot count="n" trunc="bytes"><value>v</value></Slot></Slots>`; servers are seen
 * to write the root as `<HistogramTarget truncated="0" buckets="256">`. Both roots are read.
 * One slot per distinct value (the target groups by exact value, not by range); when every slot is taken, events with
 * a new value are ignored (same page), which only a comparison with the event's exact count reveals.
 */
export interface HistogramData {
  /** Exact value → count buckets; values that are not integers are skipped and counted in `unreadable`. */
  buckets: Map<number, number>;
  /** The `buckets` attribute: how many slots the target had (after rounding up to a power of two). */
  slots: number | null;
  /** The root's `truncated` attribute, reported as read; its meaning is not documented. */
  truncatedAttribute: string | null;
  /** Events in slots whose value was not an integer (cannot be summed as bytes or durations). */
  unreadable: number;
  parseError: string | null;
}

function integer(raw: string | undefined): number | null {
  return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : null;
}

export function parseCounterTarget(xml: string | null): CounterData {
  const counts = new Map<string, number>();
  let truncated = false;
  let sawRoot = false;
  /** A count that is no whole number: the target is not what the server writes, so none of it is trusted. */
  let badCount: string | null = null;
  if (xml === null || xml.length === 0) return { counts, truncated, parseError: 'event_counter returned no data' };
  const error = scanXml(xml, {
    wantText: false,
    open: (name, attrs, count) => {
      if (name === 'CounterTarget') {
        sawRoot = true;
        truncated = attr(attrs, count, 'truncated') === '1';
      } else if (name === 'Event') {
        const event = attr(attrs, count, 'name');
        const raw = attr(attrs, count, 'count');
        const n = integer(raw);
        if (n === null) badCount ??= `<Event name="${event ?? ''}"> has count "${raw ?? ''}", not a whole number ≥ 0`;
        else if (event !== undefined) counts.set(event, (counts.get(event) ?? 0) + n);
      }
    },
    close: () => undefined,
    text: () => undefined,
  });
  const parseError =
    error !== null ? `event_counter target_data is malformed (${error})` : !sawRoot ? 'event_counter target_data has no <CounterTarget> root' : badCount !== null ? `event_counter target_data is malformed (${badCount})` : null;
  return { counts, truncated, parseError };
}

/**
 * Reads histogram target_data slot by slot (`<HistogramTarget truncated=… buckets=…><Slot count=…><value>…</value>`):
 * each slot's value text and count go to `onSlot`. One reader for both value kinds below.
 */
function readHistogramSlots(xml: string, onSlot: (valueText: string, count: number) => void): { slots: number | null; truncatedAttribute: string | null; parseError: string | null } {
  let slots: number | null = null;
  let truncatedAttribute: string | null = null;
  let sawRoot = false;
  let slotCount: number | null = null;
  let inValue = false;
  let value = '';
  /** A slot count that is no whole number: the target is not what the server writes, so none of it is trusted. */
  let badCount: string | null = null;
  const handler = {
    wantText: false,
    open: (name: string, attrs: readonly string[], count: number) => {
      if (name === 'HistogramTarget' || name === 'Slots') {
        sawRoot = true;
        slots = integer(attr(attrs, count, 'buckets'));
        truncatedAttribute = attr(attrs, count, 'truncated') ?? null;
      } else if (name === 'Slot') {
        const raw = attr(attrs, count, 'count');
        slotCount = integer(raw);
        if (slotCount === null) badCount ??= `<Slot> has count "${raw ?? ''}", not a whole number ≥ 0`;
        value = '';
      } else if (name === 'value' && slotCount !== null) {
        inValue = true;
        handler.wantText = true;
      }
    },
    text: (t: string) => {
      if (inValue) value += t;
    },
    close: (name: string) => {
      if (name === 'value') {
        inValue = false;
        handler.wantText = false;
      } else if (name === 'Slot') {
        if (slotCount !== null) onSlot(value.trim(), slotCount);
        slotCount = null;
      }
    },
  };
  const error = scanXml(xml, handler);
  const parseError =
    error !== null ? `histogram target_data is malformed (${error})` : !sawRoot ? 'histogram target_data has no <HistogramTarget> root' : badCount !== null ? `histogram target_data is malformed (${badCount})` : null;
  return { slots, truncatedAttribute, parseError };
}

export function parseHistogramTarget(xml: string | null): HistogramData {
  const buckets = new Map<number, number>();
  let unreadable = 0;
  if (xml === null || xml.length === 0) return { buckets, slots: null, truncatedAttribute: null, unreadable, parseError: 'histogram returned no data' };
  const read = readHistogramSlots(xml, (text, count) => {
    const v = integer(text);
    if (v === null) unreadable += count;
    else buckets.set(v, (buckets.get(v) ?? 0) + count);
  });
  return { buckets, slots: read.slots, truncatedAttribute: read.truncatedAttribute, unreadable, parseError: read.parseError };
}

/** Sum of the bucket counts: how many events the histogram placed in a slot. */
export function bucketedCount(buckets: ReadonlyMap<number, number>): number {
  let n = 0;
  for (const c of buckets.values()) n += c;
  return n;
}

/**
 * histogram target_data keyed by the slot's value as text: for values that do not fit a double exactly (a uint64
 * action such as query_hash), where parseHistogramTarget's numbers would merge neighbours.
 */
export function parseHistogramTextTarget(xml: string | null): { buckets: Map<string, number>; slots: number | null; parseError: string | null } {
  const buckets = new Map<string, number>();
  if (xml === null || xml.length === 0) return { buckets, slots: null, parseError: 'histogram returned no data' };
  const read = readHistogramSlots(xml, (text, count) => buckets.set(text, (buckets.get(text) ?? 0) + count));
  return { buckets, slots: read.slots, parseError: read.parseError };
}
