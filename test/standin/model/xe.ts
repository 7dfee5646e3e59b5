// Extended Events: which events/targets exist, event sessions (CREATE/ALTER/DROP), predicate filtering,
// ring_buffer retention, event_counter and histogram aggregation and their target_data XML, and in-memory
// event_file files for fn_xe_file_target_read_file.
import type { SqlValue } from '../engine';
import type { Expr, XeEventDef, XeTargetDef } from './ast';
import { SqlError } from './errors';
import { compare, toNumber, toText } from './values';

export type XeFieldType = 'uint16' | 'uint32' | 'uint64' | 'int32' | 'int64' | 'unicode_string' | 'guid' | XeMapType;
/** Map-typed fields: the value is a map key, the XML adds the map's `<text>` (sys.dm_xe_map_values, xe-maps.ts). */
export type XeMapType = 'wait_types' | 'event_opcode';
export const XE_MAP_TYPES: ReadonlySet<string> = new Set<XeMapType>(['wait_types', 'event_opcode']);

/** Statement-completed payload (xe-statements.ts): field names as the SQL:StmtCompleted / SP:StmtCompleted trace
 * classes' columns suggest (Duration µs, LineNumber, IntegerData2 = end offset in bytes); the XE names are NOT CONFIRMED. */
const STATEMENT_FIELDS: Array<[string, XeFieldType]> = [
  ['duration', 'uint64'], ['cpu_time', 'uint64'], ['logical_reads', 'uint64'], ['writes', 'uint64'], ['row_count', 'uint64'],
  ['line_number', 'int32'], ['offset', 'int32'], ['offset_end', 'int32'], ['statement', 'unicode_string'],
];

/** Payload fields per event. No Microsoft page lists them (reference §4.1): these follow the public scripts cited there. */
export const XE_EVENTS: Record<string, Array<[string, XeFieldType]>> = {
  databases_log_flush: [['database_id', 'uint32'], ['count', 'uint64']],
  databases_log_flush_wait: [['database_id', 'uint32'], ['count', 'uint64']],
  log_flush_requested: [['database_id', 'uint32'], ['log_block_id', 'uint64']],
  log_flush_start: [['database_id', 'uint32'], ['log_block_id', 'uint64'], ['write_size', 'uint32']],
  log_flush_complete: [['database_id', 'uint32'], ['file_id', 'uint16'], ['log_block_id', 'uint64'], ['duration', 'uint64'], ['write_size', 'uint32']],
  flush_file_buffers: [['database_id', 'uint32'], ['file_id', 'uint16']],
  // Accepted so common sessions can be created; the model never fires them.
  sql_batch_completed: [['duration', 'uint64'], ['batch_text', 'unicode_string']],
  rpc_completed: [['duration', 'uint64'], ['statement', 'unicode_string']],
  sql_statement_completed: STATEMENT_FIELDS,
  sp_statement_completed: [...STATEMENT_FIELDS, ['source_database_id', 'uint32'], ['object_id', 'int32'], ['object_type', 'uint16'], ['object_name', 'unicode_string'], ['nest_level', 'uint32']],
  // sqlos wait events (package in XE_EVENT_PACKAGE): fired for the session that waited (xe-statements.ts).
  wait_completed: [['wait_type', 'wait_types'], ['duration', 'uint64'], ['signal_duration', 'uint64']],
  wait_info: [['wait_type', 'wait_types'], ['opcode', 'event_opcode'], ['duration', 'uint64'], ['signal_duration', 'uint64']],
  error_reported: [['error_number', 'int32'], ['message', 'unicode_string']],
  transaction_log: [['database_id', 'uint32'], ['log_record_size', 'int32']],
  file_write_completed: [['database_id', 'uint32'], ['file_id', 'uint16'], ['size', 'uint64']],
};
export const XE_TARGETS = ['ring_buffer', 'event_file', 'event_counter', 'histogram'];
/** Events outside the sqlserver package (public scripts name them sqlos.wait_info / sqlos.wait_completed). */
export const XE_EVENT_PACKAGE: Readonly<Record<string, string>> = { wait_completed: 'sqlos', wait_info: 'sqlos' };
export const packageOf = (event: string): string => XE_EVENT_PACKAGE[event] ?? 'sqlserver';

export interface XeEvent {
  name: string;
  timestamp: Date;
  data: Record<string, SqlValue>;
  /** Context for global predicate sources (sqlserver.session_id, sqlserver.database_id). */
  sessionId: number | null;
  /** `<text>` of map-typed fields (the map_value of the key in `data`). */
  texts?: Record<string, string>;
  /** The statement the session was executing when the event fired (the sqlserver.query_hash action hashes it). */
  statementText?: string | null;
}

/**
 * Statements SQL Server runs without a plan, whose query_hash is 0 (NOT CONFIRMED beyond the first two):
 * `EXECUTE …` sent as a batch and `EXEC` inside a procedure carry query_hash 0 in published real output
 * (test/fixtures/real-server, xelogstash samples), as do rpc_completed and sql_batch_completed; transaction control,
 * SET, DECLARE, PRINT, USE, WAITFOR and RAISERROR are modelled the same way (they compile to no query plan).
 */
const PLANLESS_STATEMENT = /^(EXEC(UTE)?\b|COMMIT\b|ROLLBACK\b|BEGIN\s+(TRAN|DISTRIBUTED)|SAVE\s+TRAN|SET\b|DECLARE\b|PRINT\b|USE\b|WAITFOR\b|RAISERROR\b)/i;

/**
 * sqlserver.query_hash here: 64-bit FNV-1a over the statement text with whitespace runs collapsed and trimmed, as an
 * unsigned decimal. A modelling choice (MODEL.md): SQL Server's query_hash is computed from the query's logical form
 * ("similar logic", sys.dm_exec_query_stats), so there statements differing only in literals share one; here only
 * identical texts do. 0 for a plan-less statement (PLANLESS_STATEMENT) and when no statement is running (NOT CONFIRMED
 * what SQL Server attaches then).
 */
export function queryHashOf(text: string | null | undefined): bigint {
  if (text === null || text === undefined) return 0n;
  // A loop sends the same statement text again and again: remember recent hashes (BigInt arithmetic per character was
  // a visible share of each statement's cost in a CPU profile of S3, issue 28).
  const known = hashCache.get(text);
  if (known !== undefined) return known;
  const h = fnv1a(text);
  if (hashCache.size >= HASH_CACHE_MAX) hashCache.clear();
  hashCache.set(text, h);
  return h;
}

const HASH_CACHE_MAX = 1024;
const hashCache = new Map<string, bigint>();

function fnv1a(text: string): bigint {
  const normalised = text.replace(/\s+/g, ' ').trim();
  if (PLANLESS_STATEMENT.test(normalised)) return 0n;
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < normalised.length; i++) {
    h ^= BigInt(normalised.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h;
}

/** Action values the model attaches (only query_hash), keyed by action name without package. */
function actionValues(def: XeEventDef, ev: XeEvent): Record<string, string> | null {
  if (!def.actions.some((a) => a.toLowerCase().endsWith('query_hash'))) return null;
  return { query_hash: queryHashOf(ev.statementText).toString() };
}

export interface RingBuffer {
  events: string[];
  /** Each event's size in memory (its compact text), in the order of `events`. */
  sizes: number[];
  bytes: number;
  totalProcessed: number;
  maxMemoryBytes: number;
  maxEvents: number;
}

export interface EventSession {
  id: number;
  name: string;
  scope: 'SERVER' | 'DATABASE';
  databaseId: number | null;
  events: XeEventDef[];
  targets: XeTargetDef[];
  options: Record<string, string>;
  running: boolean;
  startTime: Date | null;
  address: string;
  ring: RingBuffer | null;
  file: { name: string; logged: number } | null;
  /** event_counter: per event name, every event the session accepted (synchronous target, nothing lost). */
  counter: Map<string, number> | null;
  histogram: HistogramState | null;
  bytesGenerated: number;
}

/** package0.histogram state: one slot per distinct source value, at most `slots` of them. */
export interface HistogramState {
  slots: number;
  /** Lower-case event name without package, or null for every event (then the source is an action). */
  filteringEvent: string | null;
  source: string;
  sourceType: number;
  buckets: Map<string, number>;
  /** Events whose value found no free slot: ignored by the target (histogram page), kept here only for tests. */
  ignored: number;
}

export interface XeFileRecord {
  objectName: string;
  xml: string;
  offset: number;
  timestamp: Date;
}
export type XeFileStore = Map<string, XeFileRecord[]>;

/** ring_buffer MAX_EVENTS_LIMIT default: NOT CONFIRMED by the reference; 1000 is this model's choice. */
export const RING_DEFAULT_MAX_EVENTS = 1000;
/** target_data is cut off at a 4 MB XML document (reference §4.3). */
export const RING_XML_LIMIT = 4 * 1024 * 1024;

const xmlEscape = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Text in CDATA, as raw target_data and event_data write strings and map texts; a `]]>` inside is split (NOT CONFIRMED). */
const cdata = (s: string): string => `<![CDATA[${s.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;

/**
 * The two forms an event is rendered in (test/fixtures/real-server): `target_data` — a ring_buffer's XML, indented
 * (2 spaces, as the Learn targets page shows it), each field with `<type name=".." package=".."></type>` — and
 * `event_data` — an event_file row, on one line, with no `<type>` at all. Both put strings and map texts in CDATA.
 */
export type XeXmlForm = 'target_data' | 'event_data';

/** Per event and form: its fields with the XML up to `<value>` prebuilt (statement events fire once per statement: keep it cheap). */
const FIELD_XML = { target_data: new Map<string, Array<[string, string, boolean]>>(), event_data: new Map<string, Array<[string, string, boolean]>>() };
function fieldXml(event: string, form: XeXmlForm): Array<[string, string, boolean]> {
  let f = FIELD_XML[form].get(event);
  if (!f) {
    f = (XE_EVENTS[event] ?? []).map(([name, type]) => {
      const pkg = XE_MAP_TYPES.has(type) ? 'sqlos' : 'package0';
      const head = form === 'target_data' ? `    <data name="${name}">\n      <type name="${type}" package="${pkg}"></type>\n      <value>` : `<data name="${name}"><value>`;
      return [name, head, type === 'unicode_string'];
    });
    FIELD_XML[form].set(event, f);
  }
  return f;
}

/** One event in `form`; in target_data form the event is indented for its place inside <RingBufferTarget>. */
export function eventXml(ev: XeEvent, actions: Record<string, string> | null = null, form: XeXmlForm = 'target_data'): string {
  const ring = form === 'target_data';
  const nl = ring ? '\n' : '';
  let s = `${ring ? '  ' : ''}<event name="${ev.name}" package="${packageOf(ev.name)}" timestamp="${ev.timestamp.toISOString()}">${nl}`;
  for (const [name, head, isString] of fieldXml(ev.name, form)) {
    const v = ev.data[name];
    if (v === undefined) continue;
    const text = ev.texts?.[name];
    const value = typeof v === 'number' || typeof v === 'bigint' ? String(v) : toText(v);
    s += `${head}${isString ? cdata(value) : value}</value>${nl}${text !== undefined ? `${ring ? '      ' : ''}<text>${cdata(text)}</text>${nl}` : ''}${ring ? '    ' : ''}</data>${nl}`;
  }
  if (actions) {
    for (const [name, value] of Object.entries(actions)) {
      s += ring
        ? `    <action name="${name}" package="sqlserver">\n      <type name="uint64" package="package0"></type>\n      <value>${value}</value>\n    </action>\n`
        : `<action name="${name}" package="sqlserver"><value>${value}</value></action>`;
    }
  }
  return s + `${ring ? '  ' : ''}</event>`;
}

export function ringBufferXml(rb: RingBuffer, limit = RING_XML_LIMIT): string {
  let body = '';
  let shown = 0;
  let truncated = 0;
  for (const e of rb.events) {
    if (body.length + e.length + 1 > limit) { truncated = 1; break; }
    body += `\n${e}`;
    shown++;
  }
  return `<RingBufferTarget truncated="${truncated}" processingTime="0" totalEventsProcessed="${rb.totalProcessed}" eventCount="${shown}" droppedCount="0" memoryUsed="${rb.bytes}">${body}\n</RingBufferTarget>`;
}

/**
 * event_counter target_data, in the shape the "Event Counter Target" page documents
 * (https://learn.microsoft.com/previous-versions/sql/sql-server-2016/ff878025(v=sql.130)):
 * `<CounterTarget truncated="0"><Packages><Package name=".."><Event name=".." count=".." /></Package></Packages></CounterTarget>`.
 * Every event of the session is listed, 0 counts included (modelling choice, MODEL.md NOT CONFIRMED).
 */
export function counterTargetXml(s: EventSession): string {
  const events = s.events.map((e) => `<Event name="${xmlEscape(e.name.toLowerCase())}" count="${s.counter?.get(e.name.toLowerCase()) ?? 0}" />`).join('');
  return `<CounterTarget truncated="0"><Packages><Package name="sqlserver">${events}</Package></Packages></CounterTarget>`;
}

/**
 * histogram target_data. The "Histogram Target" page
 * (https://learn.microsoft.com/previous-versions/sql/sql-server-2016/ff878023(v=sql.130)) documents
 * `<Slots truncated="0" buckets="n"><Slot count="n" trunc="bytes"><value>..</value></Slot></Slots>`; published output
 * from servers shows the root as `<HistogramTarget truncated="0" buckets="16384">` (test/fixtures/real-server), which is
 * what this model writes. Slots are listed by count, largest first (order NOT CONFIRMED); `buckets` is the slot count
 * after rounding.
 */
export function histogramTargetXml(h: HistogramState): string {
  // Indented as the published sample shows it (test/fixtures/real-server/dbase-histogram-module-start.xml).
  const slots = [...h.buckets].sort((a, b) => b[1] - a[1]).map(([v, n]) => `\n  <Slot count="${n}">\n    <value>${xmlEscape(v)}</value>\n  </Slot>`).join('');
  return `<HistogramTarget truncated="0" buckets="${h.slots}">${slots}\n</HistogramTarget>`;
}

/** slots is rounded up to the next power of 2; the default is 256 (targets-for-extended-events-in-sql-server, histogram). */
export function histogramSlots(requested: number | null): number {
  if (requested === null || !Number.isFinite(requested) || requested <= 0) return 256;
  let n = 1;
  while (n < requested) n *= 2;
  return n;
}

export function eventFileXml(s: EventSession): string {
  return `<EventFileTarget truncated="0"><Buffers logged="${s.file?.logged ?? 0}" dropped="0" /><File name="${xmlEscape(s.file?.name ?? '')}" /></EventFileTarget>`;
}

/** Evaluates an event predicate (WHERE clause of ADD EVENT) against the event's fields. */
export function predicateMatches(e: Expr | undefined, ev: XeEvent): boolean {
  if (!e) return true;
  return evalPredicate(e, ev) === true;
}

function evalPredicate(e: Expr, ev: XeEvent): SqlValue {
  switch (e.k) {
    case 'lit': return e.v;
    case 'col': {
      const name = e.parts[e.parts.length - 1]!.toLowerCase();
      const isGlobal = e.parts.length > 1;
      if (isGlobal && name === 'session_id') return ev.sessionId;
      return ev.data[name] ?? null;
    }
    case 'and': return evalPredicate(e.l, ev) === true && evalPredicate(e.r, ev) === true;
    case 'or': return evalPredicate(e.l, ev) === true || evalPredicate(e.r, ev) === true;
    case 'not': return evalPredicate(e.e, ev) !== true;
    case 'unary': { const v = evalPredicate(e.e, ev); return e.op === '-' && v !== null ? -toNumber(v) : v; }
    case 'cmp': {
      const l = evalPredicate(e.l, ev);
      const r = evalPredicate(e.r, ev);
      if (l === null || r === null) return false;
      const c = compare(l, r);
      return { '=': c === 0, '<>': c !== 0, '<': c < 0, '>': c > 0, '<=': c <= 0, '>=': c >= 0 }[e.op];
    }
    case 'call': {
      const fn = e.name.split('.').pop()!.toLowerCase();
      const l = evalPredicate(e.args[0]!, ev);
      const r = evalPredicate(e.args[1]!, ev);
      if (l === null || r === null) return false;
      const c = compare(l, r);
      if (fn.startsWith('equal')) return c === 0;
      if (fn.startsWith('not_equal')) return c !== 0;
      if (fn.startsWith('greater_than_equal')) return c >= 0;
      if (fn.startsWith('greater_than')) return c > 0;
      if (fn.startsWith('less_than_equal')) return c <= 0;
      if (fn.startsWith('less_than')) return c < 0;
      return false;
    }
    default: return false;
  }
}

/** Checks event and target names the way CREATE EVENT SESSION does (error numbers: MODEL.md). */
export function validateSessionDefinition(events: XeEventDef[], targets: XeTargetDef[], available: Set<string>, line: number): void {
  for (const ev of events) {
    const pkg = ev.pkg.toLowerCase();
    if ((pkg !== packageOf(ev.name.toLowerCase()) && pkg !== '') || !available.has(ev.name.toLowerCase())) {
      throw new SqlError(25623, 16, `The event name, "${ev.pkg ? ev.pkg + '.' : ''}${ev.name}", is invalid, or the object could not be found`, line);
    }
  }
  const seen = new Set<string>();
  for (const t of targets) {
    const name = t.name.toLowerCase();
    if (!XE_TARGETS.includes(name)) throw new SqlError(25629, 16, `For target, "${t.pkg ? t.pkg + '.' : ''}${t.name}", the target name is invalid, or the object could not be found`, line);
    if (seen.has(name)) throw new SqlError(25636, 16, `The target, "${t.pkg}.${t.name}", already exists in the event session.`, line);
    seen.add(name);
  }
}

export function newSession(id: number, def: { name: string; scope: 'SERVER' | 'DATABASE'; events: XeEventDef[]; targets: XeTargetDef[]; options: Record<string, string> }, databaseId: number | null): EventSession {
  return {
    id, name: def.name, scope: def.scope, databaseId, events: def.events, targets: def.targets, options: def.options,
    running: false, startTime: null, address: '0x' + (0x7f00a0000000 + id * 0x1000).toString(16).toUpperCase().padStart(16, '0'),
    ring: null, file: null, counter: null, histogram: null, bytesGenerated: 0,
  };
}

/** Resets target state when a session starts (ring buffers are memory-only; event_file starts a new file). */
export function startTargets(s: EventSession, files: XeFileStore, defaultLogDir: string, now: Date): void {
  s.running = true;
  s.startTime = now;
  s.ring = null;
  s.file = null;
  s.counter = null;
  s.histogram = null;
  for (const t of s.targets) {
    const name = t.name.toLowerCase();
    if (name === 'event_counter') {
      s.counter = new Map();
    } else if (name === 'histogram') {
      const filtering = t.settings['filtering_event_name'];
      const slots = t.settings['slots'];
      s.histogram = {
        slots: histogramSlots(slots === undefined || slots === null ? null : toNumber(slots)),
        filteringEvent: filtering === undefined || filtering === null ? null : toText(filtering).split('.').pop()!.toLowerCase(),
        source: toText(t.settings['source'] ?? '').toLowerCase(),
        // source_type defaults to 1 (action) per the histogram page.
        sourceType: t.settings['source_type'] === undefined ? 1 : toNumber(t.settings['source_type']),
        buckets: new Map(),
        ignored: 0,
      };
    } else if (name === 'ring_buffer') {
      const maxMem = t.settings['max_memory'];
      const maxEv = t.settings['max_events_limit'];
      s.ring = {
        events: [], sizes: [], bytes: 0, totalProcessed: 0,
        maxMemoryBytes: maxMem === undefined || maxMem === null ? Infinity : toNumber(maxMem) * 1024 || Infinity,
        maxEvents: maxEv === undefined || maxEv === null ? RING_DEFAULT_MAX_EVENTS : toNumber(maxEv) || Infinity,
      };
    } else if (name === 'event_file') {
      let prefix = toText(t.settings['filename'] ?? s.name).replace(/\.xel$/i, '');
      if (!/^([a-z]:\\|\\\\|\/|https:)/i.test(prefix)) prefix = defaultLogDir + prefix;
      // Name pattern: <prefix>_0_<number>.xel (a start-time number is appended; MODEL.md). Two starts within the same
      // millisecond still get two files: the number moves on past any file of that name.
      let ticks = BigInt(now.getTime()) * 10000n + 116444736000000000n;
      while (files.has(`${prefix}_0_${ticks}.xel`)) ticks++;
      const fileName = `${prefix}_0_${ticks}.xel`;
      files.set(fileName, []);
      s.file = { name: fileName, logged: 0 };
    }
  }
}

export function deliver(s: EventSession, ev: XeEvent, files: XeFileStore): void {
  const def = s.events.find((d) => d.name.toLowerCase() === ev.name);
  if (!def || !predicateMatches(def.predicateExpr, ev)) return;
  const actions = actionValues(def, ev);
  // Each target gets the form the server gives it: indented with <type> in target_data, one typeless line in a file.
  const ringXml = s.ring ? eventXml(ev, actions, 'target_data') : null;
  const fileXml = s.file ? eventXml(ev, actions, 'event_data') : null;
  s.bytesGenerated += (fileXml ?? ringXml ?? '').length;
  if (s.counter) s.counter.set(ev.name, (s.counter.get(ev.name) ?? 0) + 1);
  if (s.histogram) bucketize(s.histogram, ev, actions);
  if (s.ring && ringXml !== null) {
    const rb = s.ring;
    rb.totalProcessed++;
    rb.events.push(ringXml);
    // Memory holds the event, not its rendering (indentation, <type>): counted as the compact event_data text.
    const size = (fileXml ?? eventXml(ev, actions, 'event_data')).length;
    rb.sizes.push(size);
    rb.bytes += size;
    // FIFO: the oldest events leave the ring when MAX_MEMORY or MAX_EVENTS_LIMIT is exceeded.
    while (rb.events.length > 0 && (rb.events.length > rb.maxEvents || rb.bytes > rb.maxMemoryBytes)) {
      rb.events.shift();
      rb.bytes -= rb.sizes.shift()!;
    }
  }
  if (s.file) {
    const recs = files.get(s.file.name)!;
    recs.push({ objectName: ev.name, xml: fileXml!, offset: (recs.length + 1) * 512, timestamp: ev.timestamp });
    s.file.logged++;
  }
}

/**
 * One event into a histogram: only the filtering event is bucketed; a value with a slot counts up, a new value takes a
 * free slot, and when all slots are taken it is ignored ("new events that do not belong to the existing groups are
 * ignored", Histogram Target page). source_type 1 groups by an action configured on the event ('package.action'):
 * only query_hash carries a value here, so other actions bucket nothing.
 */
function bucketize(h: HistogramState, ev: XeEvent, actions: Record<string, string> | null): void {
  if (h.filteringEvent !== null && h.filteringEvent !== ev.name) return;
  const v = h.sourceType === 0 ? ev.data[h.source] : actions?.[h.source.split('.').pop()!];
  if (v === undefined || v === null) return;
  const key = toText(v);
  const n = h.buckets.get(key);
  if (n !== undefined) h.buckets.set(key, n + 1);
  else if (h.buckets.size < h.slots) h.buckets.set(key, 1);
  else h.ignored++;
}
