// Streams Extended Events XML (ring_buffer target_data, event_file event_data rows) into typed events with sax,
// never building a DOM of the buffer, never throwing on bad input: what parsed is kept and the error becomes a note.

import sax from 'sax';

export type XeScalar = number | bigint | string | boolean | null;

/** One `<data>` or `<action>`: `<value>` converted, plus `<text>` (the label of a map value) when present. */
export interface XeField {
  value: XeScalar;
  text?: string;
}

export interface XeEvent {
  name: string;
  package: string;
  /** The event's `timestamp` attribute (UTC); null when absent or unparsable. */
  timestamp: Date | null;
  data: Record<string, XeField>;
  actions: Record<string, XeField>;
}

/** Attributes of `<RingBufferTarget>` (reference §4.3). null = attribute absent. */
export interface RingBufferHeader {
  truncated: boolean;
  eventCount: number | null;
  totalEventsProcessed: number | null;
  droppedCount: number | null;
  memoryUsed: number | null;
}

export interface LostEvents {
  /** droppedCount: events the session could not buffer (ALLOW_SINGLE_EVENT_LOSS). */
  dropped: number;
  /** totalEventsProcessed − eventCount: older events pushed out of the ring by MAX_EVENTS_LIMIT / MAX_MEMORY. */
  evicted: number;
  /** eventCount − events in the XML when truncated="1": cut off by the 4 MB rendering limit. */
  truncatedAway: number;
  total: number;
}

export interface XeReadResult {
  events: XeEvent[];
  /** Events skipped because their event_sequence was already seen. */
  duplicates: number;
  ringBuffer: RingBufferHeader | null;
  lost: LostEvents;
  /** First XML error, with how far the reader got; null when the XML was well-formed. */
  parseError: string | null;
  notes: string[];
}

const INTEGER = /^-?\d+$/;
const FLOAT_TYPES = new Set(['float32', 'float64']);

/** Integers as number when exact, else bigint (uint64 counters); floats and booleans by declared type; the rest as text. */
export function convertXeValue(raw: string, typeName: string | null): XeScalar {
  if (INTEGER.test(raw)) {
    const n = Number(raw);
    return Number.isSafeInteger(n) ? n : BigInt(raw);
  }
  if (typeName !== null) {
    if (FLOAT_TYPES.has(typeName)) {
      const f = Number(raw);
      return Number.isNaN(f) ? raw : f;
    }
    if (typeName === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  }
  return raw;
}

function numberAttr(attrs: Record<string, string>, name: string): number | null {
  const raw = attrs[name];
  if (raw === undefined || !INTEGER.test(raw)) return null;
  return Number(raw);
}

function parseTimestamp(raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  const d = new Date(raw);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Key of an event_sequence value for the de-duplication set. */
function sequenceKey(field: XeField | undefined): number | string | null {
  if (!field) return null;
  const v = field.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return v.toString();
  return null;
}

/**
 * Parses XE XML documents one after another into `onEvent`, sharing one de-duplication set, so a ring_buffer read
 * or a sequence of event_file rows go through the same code. Keeps nothing but the current event.
 */
export class XeXmlReader {
  duplicates = 0;
  parsed = 0;
  ringBuffer: RingBufferHeader | null = null;
  parseError: string | null = null;
  private readonly seen = new Set<number | string>();

  constructor(private readonly onEvent: (event: XeEvent) => void) {}

  /** Parses one complete document; returns false (and records parseError once) when it is malformed. */
  readDocument(xml: string, label = 'XML'): boolean {
    let failed: string | null = null;
    let event: XeEvent | null = null;
    let fieldKind: 'data' | 'action' | null = null;
    let fieldName = '';
    let typeName: string | null = null;
    let capture: 'value' | 'text' | null = null;
    let value = '';
    let text: string | null = null;
    let depth = 0;

    const parser = sax.parser(true, { position: true });
    parser.onerror = (err: Error) => {
      if (failed === null) failed = err.message.split('\n')[0] ?? String(err);
    };
    parser.onopentag = (tag) => {
      if (failed !== null) return;
      depth++;
      const attrs = tag.attributes as Record<string, string>;
      switch (tag.name) {
        case 'RingBufferTarget':
          if (depth === 1) {
            this.ringBuffer = {
              truncated: attrs.truncated === '1',
              eventCount: numberAttr(attrs, 'eventCount'),
              totalEventsProcessed: numberAttr(attrs, 'totalEventsProcessed'),
              droppedCount: numberAttr(attrs, 'droppedCount'),
              memoryUsed: numberAttr(attrs, 'memoryUsed'),
            };
          }
          break;
        case 'event':
          event = { name: attrs.name ?? '', package: attrs.package ?? '', timestamp: parseTimestamp(attrs.timestamp), data: {}, actions: {} };
          break;
        case 'data':
        case 'action':
          if (event !== null) {
            fieldKind = tag.name;
            fieldName = attrs.name ?? '';
            typeName = null;
            value = '';
            text = null;
          }
          break;
        case 'type':
          if (fieldKind !== null) typeName = attrs.name ?? null;
          break;
        case 'value':
          if (fieldKind !== null) capture = 'value';
          break;
        case 'text':
          if (fieldKind !== null) {
            capture = 'text';
            text = '';
          }
          break;
      }
    };
    const onChars = (chars: string) => {
      if (failed !== null || capture === null) return;
      if (capture === 'value') value += chars;
      else text += chars;
    };
    parser.ontext = onChars;
    parser.oncdata = onChars;
    parser.onclosetag = (name: string) => {
      if (failed !== null) return;
      depth--;
      switch (name) {
        case 'value':
        case 'text':
          capture = null;
          break;
        case 'data':
        case 'action':
          if (event !== null && fieldKind !== null) {
            const field: XeField = { value: convertXeValue(value, typeName) };
            if (text !== null) field.text = text;
            (fieldKind === 'data' ? event.data : event.actions)[fieldName] = field;
          }
          fieldKind = null;
          break;
        case 'event':
          if (event !== null) this.accept(event);
          event = null;
          break;
      }
    };

    try {
      parser.write(xml);
      if (failed === null) parser.close();
    } catch (err) {
      // sax rethrows a recorded error on the next write/close; the first message is already kept.
      if (failed === null) failed = err instanceof Error ? err.message.split('\n')[0] ?? 'error' : String(err);
    }
    if (failed !== null) {
      if (this.parseError === null) this.parseError = `${label} is malformed (${failed}); kept the ${this.parsed} events read before it`;
      return false;
    }
    return true;
  }

  private accept(event: XeEvent): void {
    const key = sequenceKey(event.actions.event_sequence);
    if (key !== null) {
      if (this.seen.has(key)) {
        this.duplicates++;
        return;
      }
      this.seen.add(key);
    }
    this.parsed++;
    this.onEvent(event);
  }
}

/** Losses implied by the ring buffer header; the three causes are separate counters in the header (reference §4.3). */
export function lostEventsOf(header: RingBufferHeader | null, eventsInXml: number): LostEvents {
  if (header === null) return { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 };
  const dropped = header.droppedCount ?? 0;
  const evicted =
    header.totalEventsProcessed !== null && header.eventCount !== null ? Math.max(0, header.totalEventsProcessed - header.eventCount) : 0;
  const truncatedAway = header.truncated && header.eventCount !== null ? Math.max(0, header.eventCount - eventsInXml) : 0;
  return { dropped, evicted, truncatedAway, total: dropped + evicted + truncatedAway };
}

export function lostEventsNote(lost: LostEvents, truncated: boolean): string | null {
  if (lost.total === 0 && !truncated) return null;
  const parts: string[] = [];
  if (lost.dropped > 0) parts.push(`${lost.dropped} dropped by the session`);
  if (lost.evicted > 0) parts.push(`${lost.evicted} pushed out of the ring buffer`);
  if (lost.truncatedAway > 0) parts.push(`${lost.truncatedAway} cut from the 4 MB XML rendering`);
  if (truncated && lost.truncatedAway === 0) parts.push('the XML was truncated (count unknown)');
  return `${lost.total} events lost (${parts.join(', ')}) — use the event_file target for runs this long`;
}

/** Reads a ring_buffer's target_data (null when the DMV had no row or a NULL value). */
export function readRingBufferXml(targetData: string | null, onEvent?: (event: XeEvent) => void): XeReadResult {
  const events: XeEvent[] = [];
  const reader = new XeXmlReader(onEvent ?? ((e) => events.push(e)));
  const notes: string[] = [];
  if (targetData === null || targetData.length === 0) {
    notes.push('The ring_buffer returned no data (session not running, or nothing captured yet).');
  } else {
    reader.readDocument(targetData, 'ring_buffer target_data');
  }
  if (reader.ringBuffer === null && targetData) notes.push('No <RingBufferTarget> header found: event loss cannot be checked.');
  const lost = lostEventsOf(reader.ringBuffer, reader.parsed + reader.duplicates);
  const lostNote = lostEventsNote(lost, reader.ringBuffer?.truncated ?? false);
  if (lostNote) notes.push(lostNote);
  if (reader.duplicates > 0) notes.push(`${reader.duplicates} duplicate events (same event_sequence) skipped.`);
  if (reader.parseError) notes.push(reader.parseError);
  return { events, duplicates: reader.duplicates, ringBuffer: reader.ringBuffer, lost, parseError: reader.parseError, notes };
}
