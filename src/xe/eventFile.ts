// Reads one session's event_file in pages with bounded memory: each page is parsed into the caller's callback and
// dropped, and the next page resumes after the last complete buffer (sys.fn_xe_file_target_read_file skips events up
// to and including initial_offset, reference §4.4).

import type { QueryParameter, Row, SqlClient } from '../db/types';
import { duplicatesNote, XeXmlReader, type XeEvent, type XeReadResult } from './reader';
import { READ_EVENT_FILE_PAGE_SQL } from './sessionSql';

export interface EventFileCursor {
  fileName: string;
  /** bigint offset, kept as a decimal string (tedious returns bigint columns as strings). */
  offset: string;
}

function offsetText(v: unknown): string | null {
  if (typeof v === 'string' && /^\d+$/.test(v)) return v;
  if (typeof v === 'bigint' && v >= 0n) return v.toString();
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  return null;
}

export interface EventFileRead extends XeReadResult {
  /** Where the next read continues; unchanged when no new rows came back. */
  cursor: EventFileCursor | null;
}

/** What a streamed read did: rows, pages (round trips), the files it met, and where it stopped. */
export interface EventFileStream {
  rows: number;
  pages: number;
  events: number;
  malformed: number;
  duplicates: number;
  /** Distinct file_name values: the session's files on the server (they stay after DROP EVENT SESSION). */
  files: string[];
  cursor: EventFileCursor | null;
  parseError: string | null;
  notes: string[];
}

export interface EventFileStreamOptions {
  /** Rows per round trip (default 5,000): bounds the client's memory. */
  pageSize?: number;
  /** A buffer holding more events than a page is re-read with a doubled page, up to this many rows. */
  maxPageSize?: number;
  /** Only rows of this event (object_name); the counts come from event_counter. */
  event: string;
}

/** The parameters of READ_EVENT_FILE_PAGE_SQL: NULL file/offset on the first read, both set afterwards (they go together). */
export function eventFileParameters(pathPattern: string, cursor: EventFileCursor | null, event: string, top: number): QueryParameter[] {
  return [
    { name: 'top', type: 'int', value: top },
    { name: 'path', type: 'nvarchar', value: pathPattern },
    { name: 'event', type: 'nvarchar', value: event },
    { name: 'file', type: 'nvarchar', value: cursor ? cursor.fileName : null },
    { name: 'offset', type: 'bigint', value: cursor ? BigInt(cursor.offset) : null },
  ];
}

function rowKey(row: Row): EventFileCursor | null {
  const offset = offsetText(row.file_offset);
  return typeof row.file_name === 'string' && offset !== null ? { fileName: row.file_name, offset } : null;
}

const sameKey = (a: EventFileCursor | null, b: EventFileCursor | null) => a !== null && b !== null && a.fileName === b.fileName && a.offset === b.offset;

/**
 * How many rows of a full page are safe to consume: an offset names a buffer that can hold several events (the
 * targets page shows two events at file_offset 11776), and resuming from an offset skips the rest of its buffer. So
 * the trailing rows that share the last row's offset are left for the next page — unless the whole page is one
 * buffer, which returns 0 (read again with a bigger page).
 */
export function completeRows(rows: readonly Row[]): number {
  const last = rowKey(rows[rows.length - 1]!);
  let k = rows.length;
  while (k > 0 && sameKey(rowKey(rows[k - 1]!), last)) k--;
  return k;
}

/**
 * Streams every row of `event` after `cursor` into `onEvent`, a page at a time. Memory: one page of rows and the set
 * of file names. Round trips: one per page (plus a re-read when a page ends inside a buffer).
 */
export async function streamEventFile(
  client: SqlClient,
  pathPattern: string,
  cursor: EventFileCursor | null,
  onEvent: (event: XeEvent) => void,
  options: EventFileStreamOptions,
): Promise<EventFileStream> {
  const pageSize = options.pageSize ?? 5000;
  const maxPageSize = options.maxPageSize ?? 1_000_000;
  const files = new Set<string>();
  const out: EventFileStream = { rows: 0, pages: 0, events: 0, malformed: 0, duplicates: 0, files: [], cursor, parseError: null, notes: [] };
  let top = pageSize;
  for (;;) {
    const rows = await client.query(READ_EVENT_FILE_PAGE_SQL, eventFileParameters(pathPattern, out.cursor, options.event, top));
    out.pages++;
    const full = rows.length >= top;
    const before = out.cursor;
    let take = full ? completeRows(rows) : rows.length;
    if (full && take === 0) {
      if (top < maxPageSize) {
        top = Math.min(maxPageSize, top * 2);
        continue;
      }
      // One buffer larger than the biggest page: take it whole (the rest of that buffer, if any, is skipped).
      take = rows.length;
      out.notes.push(`An event_file buffer held more than ${maxPageSize} events; events after that many in it were not read.`);
    }
    // A fresh reader per page: de-duplication within a page, no set growing with the run (the cursor prevents re-reads).
    const reader = new XeXmlReader((e) => {
      out.events++;
      onEvent(e);
    });
    for (let i = 0; i < take; i++) {
      const row = rows[i]!;
      out.rows++;
      const xml = row.event_data;
      if (typeof xml !== 'string' || !reader.readDocument(xml, `event_file row at ${String(row.file_name)}:${String(row.file_offset)}`)) out.malformed++;
      const key = rowKey(row);
      if (key) {
        files.add(key.fileName);
        out.cursor = key;
      }
    }
    out.duplicates += reader.duplicates;
    if (out.parseError === null && reader.parseError !== null) out.parseError = reader.parseError;
    top = pageSize;
    if (!full) break;
    if (sameKey(before, out.cursor) || out.cursor === null) {
      out.notes.push('The event_file rows carry no usable file_name/file_offset, so reading stopped after one page.');
      break;
    }
  }
  out.files = [...files].sort();
  if (out.malformed > 0) out.notes.push(`${out.malformed} event_file rows could not be parsed and were skipped.`);
  if (out.parseError) out.notes.push(out.parseError);
  if (out.duplicates > 0) out.notes.push(duplicatesNote(out.duplicates));
  return out;
}

/** Parses fn_xe_file_target_read_file rows already fetched (tests, recorded rows); a malformed row is skipped and noted. */
export function readEventFileRows(rows: readonly Row[], previous: EventFileCursor | null, onEvent?: (event: XeEvent) => void): EventFileRead {
  const events: XeEvent[] = [];
  const reader = new XeXmlReader(onEvent ?? ((e) => events.push(e)));
  let cursor = previous;
  let malformed = 0;
  for (const row of rows) {
    const xml = row.event_data;
    if (typeof xml !== 'string' || !reader.readDocument(xml, `event_file row at ${String(row.file_name)}:${String(row.file_offset)}`)) malformed++;
    cursor = rowKey(row) ?? cursor;
  }
  const notes: string[] = [];
  if (malformed > 0) notes.push(`${malformed} event_file rows could not be parsed and were skipped.`);
  if (reader.parseError) notes.push(reader.parseError);
  if (reader.duplicates > 0) notes.push(duplicatesNote(reader.duplicates));
  const lost = { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 };
  return { events, duplicates: reader.duplicates, ringBuffer: null, lost, parseError: reader.parseError, notes, cursor };
}

/** One incremental read of the flush event into a list (ad-hoc use and tests; profile runs stream instead). */
export async function readEventFile(client: SqlClient, pathPattern: string, cursor: EventFileCursor | null, event = 'log_flush_complete'): Promise<EventFileRead> {
  const events: XeEvent[] = [];
  const s = await streamEventFile(client, pathPattern, cursor, (e) => events.push(e), { event });
  return {
    events,
    duplicates: s.duplicates,
    ringBuffer: null,
    lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 },
    parseError: s.parseError,
    notes: s.notes,
    cursor: s.cursor,
  };
}
