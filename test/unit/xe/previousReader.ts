// ORACLE — a frozen copy of src/xe/reader.ts (XeXmlReader and readRingBufferXml) as it was before the 200 MB/s rewrite
// (issue 19), over the frozen scanner. Do not edit or optimise: the equivalence tests compare the new reader with it.

import { attr, previousScanXml, type XmlTokenizer } from './previousScanner';
import type { LostEvents, RingBufferHeader, XeEvent, XeField, XeReadResult } from '../../../src/xe/reader';
import { convertXeValue } from '../../../src/xe/xeValues';
const INTEGER = /^-?\d+$/;
// The one change since it was frozen (issue 33): values are converted by their declared type, as the product does
// (an all-digit binary_data is text). The oracle checks structure and errors, not the conversion rules.
export { convertXeValue } from '../../../src/xe/xeValues';

function integerAttr(raw: string | undefined): number | null {
  return raw !== undefined && INTEGER.test(raw) ? Number(raw) : null;
}

function digits(s: string, from: number, count: number): number {
  let v = 0;
  for (let i = from; i < from + count; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** XE timestamps are `YYYY-MM-DDTHH:MM:SS.fffZ` (reference §4.3); that shape is parsed by hand (3x cheaper), others by Date. */
function parseTimestamp(raw: string | undefined): Date | null {
  if (raw === undefined) return null;
  if (raw.length === 24 && raw.charCodeAt(10) === 84 /* T */ && raw.charCodeAt(19) === 46 && raw.charCodeAt(23) === 90 /* Z */) {
    const y = digits(raw, 0, 4);
    const mo = digits(raw, 5, 2);
    const d = digits(raw, 8, 2);
    const h = digits(raw, 11, 2);
    const mi = digits(raw, 14, 2);
    const s = digits(raw, 17, 2);
    const ms = digits(raw, 20, 3);
    if (y >= 0 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h < 24 && mi >= 0 && mi < 60 && s >= 0 && s < 60 && ms >= 0) {
      return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
    }
  }
  const date = new Date(raw);
  return Number.isNaN(date.getTime()) ? null : date;
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
export class PreviousXeXmlReader {
  duplicates = 0;
  parsed = 0;
  ringBuffer: RingBufferHeader | null = null;
  parseError: string | null = null;
  private readonly seen = new Set<number | string>();

  constructor(private readonly onEvent: (event: XeEvent) => void) {}

  /** Parses one complete document; returns false (and records parseError once) when it is malformed. */
  readDocument(xml: string, label = 'XML', tokenize: XmlTokenizer = previousScanXml): boolean {
    let event: XeEvent | null = null;
    let fieldKind: 'data' | 'action' | null = null;
    let fieldName = '';
    let typeName: string | null = null;
    let capture: 'value' | 'text' | null = null;
    let value = '';
    let text: string | null = null;
    let depth = 0;

    const handler = {
      wantText: false,
      open: (name: string, attrs: readonly string[], count: number) => {
        depth++;
        switch (name) {
          case 'RingBufferTarget':
            if (depth === 1) {
              this.ringBuffer = {
                truncated: attr(attrs, count, 'truncated') === '1',
                eventCount: integerAttr(attr(attrs, count, 'eventCount')),
                totalEventsProcessed: integerAttr(attr(attrs, count, 'totalEventsProcessed')),
                droppedCount: integerAttr(attr(attrs, count, 'droppedCount')),
                memoryUsed: integerAttr(attr(attrs, count, 'memoryUsed')),
              };
            }
            break;
          case 'event':
            event = {
              name: attr(attrs, count, 'name') ?? '',
              package: attr(attrs, count, 'package') ?? '',
              timestamp: parseTimestamp(attr(attrs, count, 'timestamp')),
              data: {},
              actions: {},
            };
            break;
          case 'data':
          case 'action':
            if (event !== null) {
              fieldKind = name;
              fieldName = attr(attrs, count, 'name') ?? '';
              typeName = null;
              value = '';
              text = null;
            }
            break;
          case 'type':
            if (fieldKind !== null) typeName = attr(attrs, count, 'name') ?? null;
            break;
          case 'value':
            if (fieldKind !== null) {
              capture = 'value';
              handler.wantText = true;
            }
            break;
          case 'text':
            if (fieldKind !== null) {
              capture = 'text';
              handler.wantText = true;
              text = '';
            }
            break;
        }
      },
      text: (chars: string) => {
        if (capture === 'value') value += chars;
        else if (capture === 'text') text += chars;
      },
      close: (name: string) => {
        depth--;
        switch (name) {
          case 'value':
          case 'text':
            capture = null;
            handler.wantText = false;
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
      },
    };
    const error = tokenize(xml, handler);
    if (error !== null) {
      if (this.parseError === null) this.parseError = `${label} is malformed (${error}); kept the ${this.parsed} events read before it`;
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
export function previousReadRingBufferXml(targetData: string | null, onEvent?: (event: XeEvent) => void): XeReadResult {
  const events: XeEvent[] = [];
  const reader = new PreviousXeXmlReader(onEvent ?? ((e) => events.push(e)));
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
