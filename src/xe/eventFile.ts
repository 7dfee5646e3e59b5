// Incremental reads of an event_file target: remembers the last file name + offset so each read returns only new
// events (sys.fn_xe_file_target_read_file skips events up to and including initial_offset, reference §4.4).

import type { QueryParameter, Row, SqlClient } from '../db/types';
import { XeXmlReader, type XeEvent, type XeReadResult } from './reader';
import { READ_EVENT_FILE_SQL } from './sessionSql';

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

/**
 * Parses fn_xe_file_target_read_file rows (event_data, file_name, file_offset). A malformed row is skipped and
 * noted; the others still count. De-duplication (event_sequence) covers the rows of this read; across reads the
 * cursor already skips what was returned.
 */
export function readEventFileRows(
  rows: readonly Row[],
  previous: EventFileCursor | null,
  onEvent?: (event: XeEvent) => void,
): EventFileRead {
  const events: XeEvent[] = [];
  const reader = new XeXmlReader(onEvent ?? ((e) => events.push(e)));
  let cursor = previous;
  let malformed = 0;
  for (const row of rows) {
    const xml = row.event_data;
    if (typeof xml === 'string') {
      if (!reader.readDocument(xml, `event_file row at ${String(row.file_name)}:${String(row.file_offset)}`)) malformed++;
    } else {
      malformed++;
    }
    const offset = offsetText(row.file_offset);
    if (typeof row.file_name === 'string' && offset !== null) cursor = { fileName: row.file_name, offset };
  }
  const notes: string[] = [];
  if (malformed > 0) notes.push(`${malformed} event_file rows could not be parsed and were skipped.`);
  if (reader.parseError) notes.push(reader.parseError);
  if (reader.duplicates > 0) notes.push(`${reader.duplicates} duplicate events (same event_sequence) skipped.`);
  return {
    events,
    duplicates: reader.duplicates,
    ringBuffer: null,
    lost: { dropped: 0, evicted: 0, truncatedAway: 0, total: 0 },
    parseError: reader.parseError,
    notes,
    cursor,
  };
}

/** The parameters of READ_EVENT_FILE_SQL: NULL file/offset on the first read, both set afterwards (they go together). */
export function eventFileParameters(pathPattern: string, cursor: EventFileCursor | null): QueryParameter[] {
  return [
    { name: 'path', type: 'nvarchar', value: pathPattern },
    { name: 'file', type: 'nvarchar', value: cursor ? cursor.fileName : null },
    { name: 'offset', type: 'bigint', value: cursor ? BigInt(cursor.offset) : null },
  ];
}

/** One incremental read: new events since `cursor`. */
export async function readEventFile(client: SqlClient, pathPattern: string, cursor: EventFileCursor | null): Promise<EventFileRead> {
  const rows = await client.query(READ_EVENT_FILE_SQL, eventFileParameters(pathPattern, cursor));
  return readEventFileRows(rows, cursor);
}
