// The typed shape of Extended Events as the readers hand them on: one event with its converted fields, and what a
// ring buffer says about the events it lost. Types only, so the readers (reader.ts, eventScanner.ts) and the value
// conversion (xeValues.ts) share them without importing each other.

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
  /** Events skipped because the same event (event_sequence, timestamp, name, session_id: eventIdentitySet.ts) was already seen. */
  duplicates: number;
  ringBuffer: RingBufferHeader | null;
  lost: LostEvents;
  /** First XML error, with how far the reader got; null when the XML was well-formed. */
  parseError: string | null;
  notes: string[];
}
