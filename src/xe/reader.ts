// Streams Extended Events XML (ring_buffer target_data, event_file event_data rows) into typed events through a
// tokenizer (xmlScanner.ts), never building a DOM of the buffer, never throwing on bad input: what parsed is kept and the error becomes a note.
// Well-shaped <event> elements take the fast path (eventScanner.ts); the tokenizer's callbacks below read the rest.

import { XeEventScanner } from './eventScanner';
import { EventIdentitySet } from './eventIdentitySet';
import { convertXeValue, parseTimestamp } from './xeValues';
import type { LostEvents, RingBufferHeader, XeEvent, XeField, XeReadResult } from './events';
import { attr, scanXml, type XmlHandler, type XmlTokenizer } from './xmlScanner';

export type { LostEvents, RingBufferHeader, XeEvent, XeField, XeReadResult, XeScalar } from './events';

const INTEGER = /^-?\d+$/;

export { convertXeValue } from './xeValues';

function integerAttr(raw: string | undefined): number | null {
  return raw !== undefined && INTEGER.test(raw) ? Number(raw) : null;
}

/** The note for skipped duplicates, the same wherever events are read. */
export function duplicatesNote(duplicates: number): string {
  return `${duplicates} duplicate events (the same event_sequence, timestamp, event and session_id as one already read) skipped.`;
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
 * The scanner's callbacks for the reader, one document at a time: they build the events the fast path declined and
 * read the ring buffer header. Made once per reader (not per document: an event_file page is thousands of documents).
 */
class DocumentCallbacks implements XmlHandler {
  wantText = false;
  private event: XeEvent | null = null;
  private fieldKind: 'data' | 'action' | null = null;
  private fieldName = '';
  private typeName: string | null = null;
  private capture: 'value' | 'text' | null = null;
  private value = '';
  private label: string | null = null;
  private depth = 0;

  constructor(
    private readonly fast: XeEventScanner,
    private readonly accept: (event: XeEvent) => void,
    /** Called at a root <RingBufferTarget>, as soon as it opens (a streaming caller may look at it mid-document). */
    private readonly header: (header: RingBufferHeader) => void,
  ) {}

  reset(): void {
    this.wantText = false;
    this.event = null;
    this.fieldKind = null;
    this.fieldName = '';
    this.typeName = null;
    this.capture = null;
    this.value = '';
    this.label = null;
    this.depth = 0;
  }

  // Only between events (no event or field open) does a fresh <event> mean the same to the callbacks as to the fast path.
  element(source: string, lt: number): number {
    if (this.event !== null || this.fieldKind !== null || this.capture !== null) return -1;
    const end = this.fast.scan(source, lt);
    if (end >= 0) this.accept(this.fast.event!);
    return end;
  }

  open(name: string, attrs: readonly string[], count: number): void {
    this.depth++;
    switch (name) {
      case 'RingBufferTarget':
        if (this.depth === 1) {
          this.header({
            truncated: attr(attrs, count, 'truncated') === '1',
            eventCount: integerAttr(attr(attrs, count, 'eventCount')),
            totalEventsProcessed: integerAttr(attr(attrs, count, 'totalEventsProcessed')),
            droppedCount: integerAttr(attr(attrs, count, 'droppedCount')),
            memoryUsed: integerAttr(attr(attrs, count, 'memoryUsed')),
          });
        }
        break;
      case 'event':
        this.event = {
          name: attr(attrs, count, 'name') ?? '',
          package: attr(attrs, count, 'package') ?? '',
          timestamp: parseTimestamp(attr(attrs, count, 'timestamp')),
          data: {},
          actions: {},
        };
        break;
      case 'data':
      case 'action':
        if (this.event !== null) {
          this.fieldKind = name;
          this.fieldName = attr(attrs, count, 'name') ?? '';
          this.typeName = null;
          this.value = '';
          this.label = null;
        }
        break;
      case 'type':
        if (this.fieldKind !== null) this.typeName = attr(attrs, count, 'name') ?? null;
        break;
      case 'value':
        if (this.fieldKind !== null) {
          this.capture = 'value';
          this.wantText = true;
        }
        break;
      case 'text':
        if (this.fieldKind !== null) {
          this.capture = 'text';
          this.wantText = true;
          this.label = '';
        }
        break;
    }
  }

  text(chars: string): void {
    if (this.capture === 'value') this.value += chars;
    else if (this.capture === 'text') this.label += chars;
  }

  close(name: string): void {
    this.depth--;
    switch (name) {
      case 'value':
      case 'text':
        this.capture = null;
        this.wantText = false;
        break;
      case 'data':
      case 'action':
        if (this.event !== null && this.fieldKind !== null) {
          const field: XeField = { value: convertXeValue(this.value, this.typeName) };
          if (this.label !== null) field.text = this.label;
          (this.fieldKind === 'data' ? this.event.data : this.event.actions)[this.fieldName] = field;
        }
        this.fieldKind = null;
        break;
      case 'event':
        if (this.event !== null) this.accept(this.event);
        this.event = null;
        break;
    }
  }
}

/**
 * Parses XE XML documents one after another into `onEvent`, sharing one de-duplication set, so a ring_buffer read
 * or a sequence of event_file rows go through the same code. Keeps nothing but the current event (and the identities
 * of the events seen). An event without event_sequence is never taken for a duplicate: nothing identifies it.
 */
export class XeXmlReader {
  duplicates = 0;
  parsed = 0;
  ringBuffer: RingBufferHeader | null = null;
  parseError: string | null = null;
  /** Reads well-shaped <event> elements from ranges; the callbacks handle everything else. */
  private readonly callbacks: DocumentCallbacks;

  constructor(
    private readonly onEvent: (event: XeEvent) => void,
    /** Shared by readers whose documents may repeat each other's events (`trace read` over several files). */
    private readonly seen: EventIdentitySet = new EventIdentitySet(),
  ) {
    this.callbacks = new DocumentCallbacks(
      new XeEventScanner(),
      (event) => this.accept(event),
      (header) => (this.ringBuffer = header),
    );
  }

  /** Parses one complete document; returns false (and records parseError once) when it is malformed. */
  readDocument(xml: string, label = 'XML', tokenize: XmlTokenizer = scanXml): boolean {
    const callbacks = this.callbacks;
    callbacks.reset();
    const error = tokenize(xml, callbacks);
    if (error !== null) {
      if (this.parseError === null) this.parseError = `${label} is malformed (${error}); kept the ${this.parsed} events read before it`;
      return false;
    }
    return true;
  }

  private accept(event: XeEvent): void {
    const key = sequenceKey(event.actions.event_sequence);
    if (key !== null && !this.seen.add(key, this.seen.stamp(event.name, event.timestamp, event.actions.session_id?.value))) {
      this.duplicates++;
      return;
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
  if (reader.duplicates > 0) notes.push(duplicatesNote(reader.duplicates));
  if (reader.parseError) notes.push(reader.parseError);
  return { events, duplicates: reader.duplicates, ringBuffer: reader.ringBuffer, lost, parseError: reader.parseError, notes };
}
