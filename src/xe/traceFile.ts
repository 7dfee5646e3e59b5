// Reads one file of Extended Events data a DBA saved (issue 33, `durability-lens trace read`): a ring_buffer's
// target_data, a histogram's or an event_counter's target_data, or event_file rows (event_data of
// sys.fn_xe_file_target_read_file) one or many per file. The kind is taken from the root element only; anything else
// is refused with the file and the line, nothing is guessed. Forms: test/fixtures/real-server.

import { EventIdentitySet } from './eventIdentitySet';
import { impossibleFlushValue } from './flushValues';
import { XeXmlReader, type RingBufferHeader, type XeEvent } from './reader';
import { parseCounterTarget, parseHistogramTextTarget } from './targetData';
import { attr, scanXml } from './xmlScanner';

export type TraceFileKind = 'ring_buffer' | 'histogram' | 'event_counter' | 'events';

/** A file that is not Extended Events data we can read: the message names the file and where. */
export class TraceFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

export interface TraceFileRead {
  file: string;
  kind: TraceFileKind;
  /** Events handed to the callback (after de-duplication: eventIdentitySet.ts). */
  events: number;
  /** Events skipped as already read (in this file, or in an earlier file sharing `seen`). */
  duplicates: number;
  ringBuffer: RingBufferHeader | null;
  histogram: { slots: number | null; buckets: Map<string, number> } | null;
  counter: Map<string, number> | null;
}

/** Root element names and what they are. EventFileTarget is an event_file target's own target_data: file names only. */
const ROOTS: Record<string, TraceFileKind> = { RingBufferTarget: 'ring_buffer', HistogramTarget: 'histogram', Slots: 'histogram', CounterTarget: 'event_counter', event: 'events' };

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The first element's name and where it starts, past a BOM, whitespace, the XML declaration and comments. */
function firstElement(file: string, text: string): { name: string; at: number } {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (i >= text.length) throw new TraceFileError(file, 'no XML element found: the file is empty or only whitespace.');
    if (text[i] !== '<') throw new TraceFileError(file, `not XML: text before the first element at line ${lineAt(text, i)} ("${text.slice(i, i + 20).replace(/\s+/g, ' ')}…").`);
    if (text.startsWith('<?', i) || text.startsWith('<!--', i)) {
      const end = text.indexOf(text.startsWith('<?', i) ? '?>' : '-->', i + 2);
      if (end < 0) throw new TraceFileError(file, `malformed XML: unterminated ${text.startsWith('<?', i) ? 'declaration' : 'comment'} at line ${lineAt(text, i)}.`);
      i = end + (text.startsWith('<?', i) ? 2 : 3);
      continue;
    }
    const m = /^<([A-Za-z_][\w.:-]*)/.exec(text.slice(i, i + 200));
    if (!m) throw new TraceFileError(file, `malformed XML: no element name at line ${lineAt(text, i)}.`);
    return { name: m[1]!, at: i };
  }
}

/** Rows saved one after another have no common root: they are read inside this one (on line 1, so lines keep their numbers). */
const ROWS_OPEN = '<durability_lens_rows>';
const ROWS_CLOSE = '</durability_lens_rows>';

const ROOT_HELP = 'expected <RingBufferTarget>, <HistogramTarget>, <CounterTarget> (a target\'s target_data) or <event> rows (event_data of sys.fn_xe_file_target_read_file)';

/**
 * Checks the whole file is well-formed and, for event rows, that every top-level element is an <event> and nothing but
 * whitespace stands between them: a results pane's footer ("(1 row affected)", "Completion time: …") copied with the
 * rows is refused with its line, never skipped.
 */
function validate(file: string, text: string, kind: TraceFileKind): void {
  let depth = 0;
  let stray: string | null = null;
  let strayText: { text: string; at: number } | null = null;
  /** Depth of the open outer <event> (0: none), how many outer ones opened, and which first held another <event>. */
  let eventAt = 0;
  let events = 0;
  let nestedIn: { index: number; name: string; inValue: boolean } | null = null;
  /** The open outer event's name, and the depth of a <value> open inside it (0: none). */
  let eventName = '';
  let valueAt = 0;
  const rows = kind === 'events';
  const wrapped = rows ? `${ROWS_OPEN}${text}${ROWS_CLOSE}` : text;
  const error = scanXml(wrapped, {
    // Only text between the rows is looked at (the scanner skips the rest unsliced).
    get wantText() {
      return rows && depth === 1;
    },
    open: (name, attrs, count) => {
      if (rows && depth === 1 && name !== 'event' && stray === null) stray = name;
      depth++;
      if (name === 'event') {
        // A server writes an <event>'s <data> and <action> inside it, never another event (Learn: "Targets for
        // Extended Events", the ring_buffer and event_file XML): a nested one is refused, not read or dropped.
        // An xml field's value may hold events, though: system_health's sp_server_diagnostics_component_result
        // carries /events/session/RingBufferTarget/event, the events component of sp_server_diagnostics
        // (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-server-diagnostics-transact-sql).
        if (eventAt > 0) nestedIn ??= { index: events, name: eventName, inValue: valueAt > 0 };
        else {
          eventAt = depth;
          events++;
          eventName = attr(attrs, count, 'name') ?? '';
        }
      } else if (name === 'value' && eventAt > 0 && valueAt === 0) valueAt = depth;
    },
    close: () => {
      if (depth === valueAt) valueAt = 0;
      if (depth === eventAt) eventAt = 0;
      depth--;
    },
    text: (chars, at) => {
      if (rows && depth === 1 && strayText === null && chars.trim().length > 0) strayText = { text: chars.trim(), at: at ?? 0 };
    },
  });
  if (error !== null) throw new TraceFileError(file, `malformed XML: ${error}.`);
  if (stray !== null) throw new TraceFileError(file, `holds a <${stray}> among its <event> rows: not event_file rows (${ROOT_HELP}).`);
  const nested = nestedIn as { index: number; name: string; inValue: boolean } | null;
  if (nested !== null) {
    const which = `event ${nested.index} (${nested.name.slice(0, 100)}) holds another <event> inside it`;
    throw new TraceFileError(
      file,
      nested.inValue
        ? `${which}, in a field's <value> — an xml field, as system_health's sp_server_diagnostics_component_result carries the events of sp_server_diagnostics' events component. Those are not this session's events and trace read does not read them out of a value (counting them, or dropping the outer event, would miscount): leave that event out of the export (WHERE object_name <> N'${nested.name.slice(0, 100).replace(/'/g, "''")}' on sys.fn_xe_file_target_read_file) and read the file again.`
        : `${which}: a server never writes one there, so the file is not read.`,
    );
  }
  const found = strayText as { text: string; at: number } | null;
  if (found !== null) {
    const excerpt = found.text.split(/\r?\n/)[0]!.slice(0, 40);
    throw new TraceFileError(
      file,
      `text that is not an <event> row at line ${lineAt(wrapped, found.at + Math.max(0, wrapped.slice(found.at, found.at + 4096).search(/\S/)))} ("${excerpt}${found.text.length > excerpt.length ? '…' : ''}"): ` +
        'save only the event_data column — remove a results pane\'s footer such as "(1 row affected)" — and read the file again.',
    );
  }
}

/**
 * Reads one saved file into `onEvent` (events) or its target figures; throws TraceFileError when it cannot. `seen` is
 * shared by the files of one analysis, so rows saved in two overlapping exports count once.
 */
export function readTraceFile(file: string, text: string, onEvent: (event: XeEvent) => void, seen: EventIdentitySet = new EventIdentitySet()): TraceFileRead {
  const root = firstElement(file, text);
  const kind = ROOTS[root.name];
  if (root.name === 'EventFileTarget') {
    throw new TraceFileError(file, `holds an event_file target's target_data (its file names, no events, line ${lineAt(text, root.at)}): export the events with sys.fn_xe_file_target_read_file and save the event_data column.`);
  }
  if (kind === undefined) throw new TraceFileError(file, `not Extended Events data: the first element is <${root.name}> at line ${lineAt(text, root.at)}; ${ROOT_HELP}.`);
  validate(file, text, kind);
  const out: TraceFileRead = { file, kind, events: 0, duplicates: 0, ringBuffer: null, histogram: null, counter: null };
  if (kind === 'histogram') {
    const h = parseHistogramTextTarget(text);
    if (h.parseError !== null) throw new TraceFileError(file, h.parseError);
    out.histogram = { slots: h.slots, buckets: h.buckets };
    return out;
  }
  if (kind === 'event_counter') {
    const c = parseCounterTarget(text);
    if (c.parseError !== null) throw new TraceFileError(file, c.parseError);
    out.counter = c.counts;
    return out;
  }
  // The first impossible value refuses the file after the read: thrown inside the reader's callback it became a parse
  // note ("x.xml: x.xml is malformed (x.xml: event 2 …); kept the 2 events read before it").
  let invalid: string | null = null;
  const reader = new XeXmlReader((e) => {
    out.events++;
    if (invalid !== null) return;
    const bad = impossibleFlushValue(e);
    if (bad !== null) invalid = `event ${out.events} (${e.name.slice(0, 100)}) has ${bad.value < 0 ? 'a negative' : 'an impossible'} ${bad.field} (${bad.value}): a server never writes one, so the file is not read.`;
    else onEvent(e);
  }, seen);
  const ok = reader.readDocument(kind === 'events' ? `${ROWS_OPEN}${text}${ROWS_CLOSE}` : text, file);
  if (invalid !== null) throw new TraceFileError(file, invalid);
  if (!ok) throw new TraceFileError(file, reader.parseError ?? 'malformed XML.');
  out.duplicates = reader.duplicates;
  out.ringBuffer = reader.ringBuffer;
  return out;
}
