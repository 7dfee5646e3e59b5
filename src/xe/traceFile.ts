// Reads one file of Extended Events data a DBA saved (issue 33, `durability-lens trace read`): a ring_buffer's
// target_data, a histogram's or an event_counter's target_data, or event_file rows (event_data of
// sys.fn_xe_file_target_read_file) one or many per file. The kind is taken from the root element only; anything else
// is refused with the file and the line, nothing is guessed. Forms: test/fixtures/real-server.

import { EventIdentitySet } from './eventIdentitySet';
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

/** The refusal of an <event> found inside another (the outer event's place in the file and name, the field holding it). */
function nestedEventMessage(nested: { index: number; name: string; field: string | null }): string {
  const name = nested.name.slice(0, 100);
  const where = `event ${nested.index} of the file (${name}) holds another <event> inside it`;
  if (nested.field === null) {
    return `${where}, not inside a field's <value>: no server writes that shape (the file was edited, or is not Extended Events output), so which event to count cannot be told.`;
  }
  // sp_server_diagnostics' events component returns /events/session/RingBufferTarget/event as its data
  // (https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-server-diagnostics-transact-sql),
  // and system_health records it in sp_server_diagnostics_component_result's xml `data` field.
  return (
    `${where}, in the <value> of its field "${nested.field.slice(0, 100)}" (an xml field, as system_health's sp_server_diagnostics_component_result ` +
    'carries the events of sp_server_diagnostics\' events component): those are not events of this session and trace read does not read ' +
    `events out of another event's value (it would miscount both). Leave that event out of the export (WHERE object_name <> N'${name.replace(/'/g, "''")}' ` +
    'on sys.fn_xe_file_target_read_file) and read the file again.'
  );
}

/**
 * Checks the whole file is well-formed and, for event rows, that every top-level element is an <event> and nothing but
 * whitespace stands between them: a results pane's footer ("(1 row affected)", "Completion time: …") copied with the
 * rows is refused with its line, never skipped. An <event> inside another <event> is refused too (nestedEventMessage).
 */
function validate(file: string, text: string, kind: TraceFileKind): void {
  let depth = 0;
  let stray: string | null = null;
  let strayText: { text: string; at: number } | null = null;
  // The outermost open <event> (its depth, ordinal and name) and the field it has open, for nested events.
  let event: { depth: number; index: number; name: string } | null = null;
  let events = 0;
  let field: string | null = null;
  let valueDepth: number | null = null;
  let nested: { index: number; name: string; field: string | null } | null = null;
  const rows = kind === 'events';
  const wrapped = rows ? `${ROWS_OPEN}${text}${ROWS_CLOSE}` : text;
  const error = scanXml(wrapped, {
    // Only text between the rows is looked at (the scanner skips the rest unsliced).
    get wantText() {
      return rows && depth === 1;
    },
    open: (name, attrs, count) => {
      if (rows && depth === 1 && name !== 'event' && stray === null) stray = name;
      if (name === 'event') {
        if (event === null) event = { depth, index: ++events, name: attr(attrs, count, 'name') ?? '' };
        else nested ??= { index: event.index, name: event.name, field: valueDepth === null ? null : field };
      } else if (event !== null && depth === event.depth + 1 && (name === 'data' || name === 'action')) {
        field = attr(attrs, count, 'name') ?? '';
      } else if (event !== null && field !== null && name === 'value' && valueDepth === null) valueDepth = depth;
      depth++;
    },
    close: () => {
      depth--;
      if (depth === valueDepth) valueDepth = null;
      else if (event !== null && depth === event.depth + 1) field = null;
      else if (depth === event?.depth) event = null;
    },
    text: (chars, at) => {
      if (rows && depth === 1 && strayText === null && chars.trim().length > 0) strayText = { text: chars.trim(), at: at ?? 0 };
    },
  });
  if (error !== null) throw new TraceFileError(file, `malformed XML: ${error}.`);
  if (stray !== null) throw new TraceFileError(file, `holds a <${stray}> among its <event> rows: not event_file rows (${ROOT_HELP}).`);
  if (nested !== null) throw new TraceFileError(file, nestedEventMessage(nested));
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
  const reader = new XeXmlReader((e) => {
    out.events++;
    onEvent(e);
  }, seen);
  const ok = reader.readDocument(kind === 'events' ? `${ROWS_OPEN}${text}${ROWS_CLOSE}` : text, file);
  if (!ok) throw new TraceFileError(file, reader.parseError ?? 'malformed XML.');
  out.duplicates = reader.duplicates;
  out.ringBuffer = reader.ringBuffer;
  return out;
}
