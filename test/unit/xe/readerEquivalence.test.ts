// The XE reader after the 200 MB/s rewrite (fast event path, run-based de-duplication) against the previous reader
// kept as an oracle (previousScanner.ts, previousReader.ts): same events, same errors, same notes, on the fixtures and
// on generated documents full of what the fast path must hand back to the scanner.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { XeEventScanner } from '../../../src/xe/eventScanner';
import { readRingBufferXml, XeXmlReader, type XeEvent, type XeField, type XeReadResult } from '../../../src/xe/reader';
import { scanXml, type XmlHandler } from '../../../src/xe/xmlScanner';
import { PreviousXeXmlReader, previousReadRingBufferXml } from './previousReader';
import { previousScanXml } from './previousScanner';

const fixtures = ['ring_buffer_basic.xml', 'ring_buffer_duplicates.xml', 'ring_buffer_malformed.xml', 'ring_buffer_truncated.xml'];
const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/xe', name), 'utf8');

/** Exact, order-preserving picture of a value: -0 is not 0, 1n is not 1, a prototype set through "__proto__" shows. */
function scalar(v: unknown): string {
  return `${typeof v}:${Object.is(v, -0) ? '-0' : String(v)}`;
}

function fieldPicture(f: XeField): unknown {
  return { own: Object.keys(f), value: scalar(f.value), text: f.text === undefined ? 'absent' : scalar(f.text) };
}

function recordPicture(r: Record<string, XeField>): unknown {
  const proto = Object.getPrototypeOf(r) as unknown;
  return {
    proto: proto === Object.prototype ? 'Object.prototype' : fieldPicture(proto as XeField),
    fields: Object.keys(r).map((k) => [k, fieldPicture(r[k]!)]),
  };
}

function eventPicture(e: XeEvent): unknown {
  return {
    keys: Object.keys(e),
    name: scalar(e.name),
    package: scalar(e.package),
    timestamp: e.timestamp === null ? null : e.timestamp.getTime(),
    data: recordPicture(e.data),
    actions: recordPicture(e.actions),
  };
}

function resultPicture(r: XeReadResult): unknown {
  return { ...r, events: r.events.map(eventPicture) };
}

/** Both readers over the same documents in one de-duplication scope (a ring buffer, or a page of event_file rows). */
function readBoth(docs: readonly string[]) {
  const run = (reader: { readDocument(xml: string, label?: string): boolean; duplicates: number; parsed: number; parseError: string | null; ringBuffer: unknown }, events: XeEvent[]) => {
    const ok = docs.map((d, i) => reader.readDocument(d, `doc ${i}`));
    return { ok, events: events.map(eventPicture), duplicates: reader.duplicates, parsed: reader.parsed, parseError: reader.parseError, ringBuffer: reader.ringBuffer };
  };
  const now: XeEvent[] = [];
  const before: XeEvent[] = [];
  return { now: run(new XeXmlReader((e) => now.push(e)), now), before: run(new PreviousXeXmlReader((e) => before.push(e)), before) };
}

function assertSame(docs: readonly string[]): void {
  const { now, before } = readBoth(docs);
  assert.deepStrictEqual(now, before, docs.join('\n---\n').slice(0, 2000));
}

// Pieces of XE documents, ordinary and hostile: what the fast path reads itself and what it must decline.
const attrValue = fc.constantFrom('log_flush_complete', 'log_flush_complete', 'databases_log_flush', 'databases_log_flush', 'database_id', '', '__proto__', 'constructor', 'a&amp;b', 'x&lt;y', '&#x41;', '&bogus;', 'naïve', 'ü"', "it's", 'a<b', '  ', 'é'.repeat(70));
const quoted = fc.tuple(attrValue, fc.boolean()).map(([v, single]) => (single ? `'${v.replace(/'/g, '&apos;')}'` : `"${v.replace(/"/g, '&quot;')}"`));
const timestamp = fc.constantFrom('2026-11-22T10:00:00.010Z', '2026-11-22T10:00:00Z', '2026-13-22T10:00:00.010Z', '1999-01-01T00:00:00.000+01:00', 'yesterday', '', '2026-11-22T10:00:00.0&#49;0Z');
const sep = fc.constantFrom('', ' ', '\n    ', '\t', ' \r\n ');
const number = fc.oneof(
  fc.integer({ min: -1_000_000, max: 4_000_000_000 }).map(String),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.constantFrom('-0', '007', '-', '000000000000000', '123456789012345', '1234567890123456', '9007199254740993', '1.5', '1e3', 'NaN', 'Infinity', '-Infinity', ' 7', '7 ', 'true', 'false', ''),
);
const valueContent = fc.oneof(
  { weight: 6, arbitrary: number },
  fc.constantFrom('a &amp; b', '&lt;x&gt;', '&#x1F600;', '&nbsp;', '& b', '<![CDATA[7]]>', '1<![CDATA[2]]>3', '<!-- c -->5', '<x/>', '<value>1</value>', '<data name="inner"><value>2</value></data>', '<event name="e"/>', ']]>', '\u00e9\u4e2d'),
);
const typeTag = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom('uint32', 'uint64', 'int64', 'float64', 'float32', 'boolean', 'unicode_string', 'flush_mode').map((t) => `<type name="${t}" package="package0"/>`) },
  fc.constantFrom('<type/>', '<type package="p"/>', '<type name="float64"></type>', '<type name="uint64" name="x"/>', '<type name = "boolean" />', '<type name="uint32"package="p"/>', '<type name=uint32/>', '<typed name="x"/>', '<type name="a" b="1" c="2" d="3" e="4" f="5" g="6" h="7" i="8"/>'),
);
const child = fc.oneof(
  { weight: 4, arbitrary: typeTag },
  { weight: 6, arbitrary: valueContent.map((v) => `<value>${v}</value>`) },
  { weight: 2, arbitrary: fc.constantFrom('<text><![CDATA[SYNC]]></text>', '<text>SCH_S &lt;&amp;&gt;</text>', '<text></text>', '<text>a<![CDATA[b]]>c<![CDATA[]]></text>', '<text><![CDATA[x</text>', '<text>x<!-- c --></text>', '<text/>') },
  fc.constantFrom('<value/>', '<value >1</value>', '<value>1</value >', '<!-- comment -->', '<?pi x?>', 'stray text', 'stray &bogus; text', '<unknown a="1"/>', '<value>1</valu>', '</data>'),
);
const field = fc.record({
  tag: fc.constantFrom('data', 'action', 'data', 'action', 'datum'),
  attrs: fc.array(fc.tuple(fc.constantFrom('name', 'name', 'package', 'x:y', 'name'), quoted), { maxLength: 3 }),
  children: fc.array(fc.tuple(sep, child), { maxLength: 5 }),
  close: fc.constantFrom('same', 'same', 'same', 'spaced', 'selfClosing', 'other'),
});
const hostileFieldXml = field.map(({ tag, attrs, children, close }) => {
  const a = attrs.map(([n, v]) => ` ${n}=${v}`).join('');
  if (close === 'selfClosing') return `<${tag}${a}/>`;
  const end = close === 'same' ? `</${tag}>` : close === 'spaced' ? `</${tag} >` : `</${tag === 'data' ? 'action' : 'data'}>`;
  return `<${tag}${a}>${children.map(([s, c]) => s + c).join('')}${end}`;
});
/** Fields as SQL Server writes them (children in any order), which the fast path reads itself. */
const cleanFieldXml = fc
  .record({
    kind: fc.constantFrom('data', 'action'),
    name: fc.constantFrom('database_id', 'write_size', 'duration', 'mode', 'ratio', 'flag', '__proto__', 'é'),
    type: fc.constantFrom('uint32', 'uint64', 'float64', 'boolean', 'unicode_string'),
    value: number,
    label: fc.option(fc.constantFrom('<![CDATA[SYNC]]>', 'plain', '', 'a<![CDATA[b]]>c'), { nil: undefined }),
    order: fc.nat(5),
  })
  .map(({ kind, name, type, value, label, order }) => {
    const parts = [`<type name="${type}" package="package0"/>`, `<value>${value}</value>`, ...(label === undefined ? [] : [`<text>${label}</text>`])];
    const rotated = [...parts.slice(order % parts.length), ...parts.slice(0, order % parts.length)];
    return `<${kind} name="${name}"${kind === 'action' ? ' package="package0"' : ''}>${rotated.join('')}</${kind}>`;
  });
const fieldXml = fc.oneof({ weight: 12, arbitrary: cleanFieldXml }, { weight: 1, arbitrary: hostileFieldXml });
/** The event_sequence action, from a small pool so duplicates, bigints, floats and -0 meet in one de-duplication set. */
const sequence = fc.oneof(
  fc.integer({ min: 1, max: 30 }).map((n) => ({ type: 'uint64', v: String(n) })),
  fc.constantFrom(
    { type: 'uint64', v: '9007199254740993' },
    { type: 'uint64', v: '-0' },
    { type: 'uint64', v: '0' },
    { type: 'float64', v: '2.5' },
    { type: 'float64', v: 'Infinity' },
    { type: 'unicode_string', v: 'abc' },
  ),
);
const event = fc.record({
  name: quoted,
  ts: timestamp,
  extra: fc.constantFrom('', '', ' package="sqlserver"', ' package="sqlserver"', ' package="sqlserver"', ' package="sqlserver"', " package='sqlserver' name=\"dup\"", ' bad', '  ', ' x="<"'),
  fields: fc.array(fc.tuple(sep, fieldXml), { maxLength: 6 }),
  seq: fc.option(sequence, { nil: undefined }),
  close: fc.constantFrom('same', 'same', 'same', 'same', 'same', 'same', 'same', 'same', 'spaced', 'selfClosing'),
  timestampFirst: fc.boolean(),
  nameless: fc.boolean(),
});
const eventXml = event.map(({ name, ts, extra, fields, seq, close, timestampFirst, nameless }) => {
  const attrs = nameless ? '' : ` name=${name}${extra}`;
  const open = timestampFirst ? `<event timestamp="${ts}"${attrs}` : `<event${attrs} timestamp="${ts}"`;
  if (close === 'selfClosing') return `${open}/>`;
  const s = seq ? `<action name="event_sequence" package="package0"><type name="${seq.type}" package="package0"/><value>${seq.v}</value></action>` : '';
  return `${open}>${fields.map(([sp, f]) => sp + f).join('')}${s}</event${close === 'spaced' ? ' ' : ''}>`;
});

describe('xe reader: equivalence with the previous reader', () => {
  it('reads every fixture exactly as before (events, header, losses, errors, notes)', () => {
    for (const f of fixtures) {
      const xml = fixture(f);
      assert.deepStrictEqual(resultPicture(readRingBufferXml(xml)), resultPicture(previousReadRingBufferXml(xml)), f);
      assertSame([xml]);
    }
  });

  it('reads every fixture cut at every position exactly as before (truncated XML)', () => {
    for (const f of fixtures) {
      const xml = fixture(f);
      for (let cut = 0; cut <= xml.length; cut++) assertSame([xml.slice(0, cut)]);
    }
  });

  it('reads generated ring buffers with hostile content exactly as before (property)', () => {
    // Both outcomes of the fast path must occur often, or the property would only test one side.
    const scan = XeEventScanner.prototype.scan;
    const outcomes = { read: 0, declined: 0 };
    XeEventScanner.prototype.scan = function (xml: string, lt: number) {
      const end = scan.call(this, xml, lt);
      outcomes[end >= 0 ? 'read' : 'declined']++;
      return end;
    };
    after(() => (XeEventScanner.prototype.scan = scan));
    const doc = fc.record({
      header: fc.constantFrom('<RingBufferTarget truncated="0" eventCount="3">', '<RingBufferTarget truncated="1" eventCount="9" droppedCount="2">', '<Other>'),
      events: fc.array(fc.tuple(sep, fc.oneof({ weight: 8, arbitrary: eventXml }, fc.constantFrom('<event name="outer"><data name="a"><event name="inner"><data name="b"><value>1</value></data></event><value>2</value></data></event>', '<wrapper><event name="deep"><data name="d"><value>4</value></data></event></wrapper>', 'text &amp; more', '<!-- between -->', '<![CDATA[cdata]]>'))), { maxLength: 8 }),
      cut: fc.option(fc.nat(), { nil: undefined }),
    });
    fc.assert(
      fc.property(doc, ({ header, events, cut }) => {
        const close = header.startsWith('<Other') ? '</Other>' : '</RingBufferTarget>';
        let xml = `${header}${events.map(([s, e]) => s + e).join('')}\n${close}`;
        if (cut !== undefined) xml = xml.slice(0, cut % (xml.length + 1));
        assertSame([xml]);
        assert.deepStrictEqual(resultPicture(readRingBufferXml(xml)), resultPicture(previousReadRingBufferXml(xml)));
      }),
      { numRuns: 1500 },
    );
    XeEventScanner.prototype.scan = scan;
    assert.ok(outcomes.read > 500 && outcomes.declined > 500, JSON.stringify(outcomes));
  });

  it('reads buffers of a few repeated events, some altered at one place, exactly as before (property)', () => {
    // Repetition is what the fast path's templates feed on; an alteration right after a repeated prefix is where a
    // template could wrongly be trusted.
    const alteration = fc.constantFrom('&amp;', '&bogus;', '<', '>', '"', "'", ' ', '/', '<![CDATA[x]]>', '<!--c-->', '<value>9</value>', '<text>t</text>', '</data>', 'x', '9', '');
    const doc = fc.record({
      bases: fc.array(eventXml, { minLength: 1, maxLength: 3 }),
      picks: fc.array(fc.record({ base: fc.nat(), alter: fc.option(fc.tuple(fc.nat(), alteration, fc.nat(3)), { nil: undefined }) }), { maxLength: 25 }),
    });
    fc.assert(
      fc.property(doc, ({ bases, picks }) => {
        const events = picks.map(({ base, alter }) => {
          const e = bases[base % bases.length]!;
          if (alter === undefined) return e;
          const [at, piece, drop] = alter;
          const i = at % (e.length + 1);
          return e.slice(0, i) + piece + e.slice(Math.min(e.length, i + drop));
        });
        const xml = `<RingBufferTarget eventCount="${events.length}">\n${events.join('\n')}\n</RingBufferTarget>`;
        assertSame([xml]);
        assertSame(events);
      }),
      { numRuns: 1500 },
    );
  });

  it('reads generated event_file rows (one <event> per document, shared de-duplication) exactly as before (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(eventXml, fc.option(fc.nat(), { nil: undefined }), sep), { maxLength: 10 }), (rows) => {
        assertSame(rows.map(([e, cut, s]) => (cut === undefined ? s + e + s : e.slice(0, cut % (e.length + 1)))));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads every timestamp of the XE shape, valid or not, as the same instant as before (property)', () => {
    const d = (max: number, width: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, '0'));
    const stamp = fc
      .tuple(d(9999, 4), d(19, 2), d(39, 2), d(29, 2), d(69, 2), d(69, 2), d(999, 3), fc.constantFrom('-', ':', 'x'))
      .map(([y, mo, day, h, mi, s, ms, sep]) => `${y}${sep}${mo}-${day}T${h}:${mi}:${s}.${ms}Z`);
    fc.assert(
      fc.property(fc.array(stamp, { minLength: 1, maxLength: 20 }), (stamps) => {
        assertSame(stamps.map((t) => `<event name="e" timestamp="${t}"><data name="d"><value>1</value></data></event>`));
      }),
      { numRuns: 500 },
    );
    assertSame(['2024-02-29T23:59:59.999Z', '2023-02-29T00:00:00.000Z', '0099-12-31T00:00:00.000Z', '0100-03-01T00:00:00.000Z', '1600-02-29T12:00:00.000Z'].map((t) => `<event timestamp="${t}"></event>`));
  });

  it('reads huge values, names and labels exactly as before', () => {
    const big = '9'.repeat(200_000);
    const text = 'x'.repeat(1_000_000);
    const name = 'n'.repeat(100_000);
    const xml =
      `<RingBufferTarget><event name="${name}" package="sqlserver" timestamp="2026-11-22T10:00:00.010Z">` +
      `<data name="${name}"><type name="uint64" package="package0"/><value>${big}</value></data>` +
      `<data name="label"><type name="unicode_string" package="package0"/><value>${text}</value><text><![CDATA[${text}]]></text></data>` +
      `<data name="escaped"><value>${'&amp;'.repeat(50_000)}</value></data></event></RingBufferTarget>`;
    assertSame([xml]);
    const { now } = readBoth([xml]);
    assert.equal(now.events.length, 1);
  });

  it('reads every event in SQL Server\'s layout on the fast path, indented or not, with entities left to the scanner', () => {
    const scan = XeEventScanner.prototype.scan;
    const outcomes = { read: 0, declined: 0 };
    XeEventScanner.prototype.scan = function (xml: string, lt: number) {
      const end = scan.call(this, xml, lt);
      if (xml.startsWith('<event', lt)) outcomes[end >= 0 ? 'read' : 'declined']++;
      return end;
    };
    try {
      const f = (kind: string, name: string, type: string, v: string) =>
        `<${kind} name="${name}"${kind === 'action' ? ' package="package0"' : ''}><type name="${type}" package="package0"/><value>${v}</value></${kind}>`;
      const events = Array.from({ length: 200 }, (_, i) => {
        const mode = i % 4 === 3 ? `<data name="mode"><type name="flush_mode" package="sqlserver"/><value>1</value><text><![CDATA[SYNC]]></text></data>` : '';
        const fields = [f('data', 'database_id', 'uint32', '7'), f('data', 'write_size', 'uint32', String(512 * (i % 9))), mode, f('action', 'event_sequence', 'uint64', String(i + 1))];
        const indent = i % 2 === 0 ? '' : '\n    ';
        return `<event name="log_flush_${i % 3 === 0 ? 'start' : 'complete'}" package="sqlserver" timestamp="2026-11-22T10:00:0${i % 10}.${String(i).padStart(3, '0')}Z">${fields.map((x) => indent + x).join('')}${indent}</event>`;
      });
      const xml = `<RingBufferTarget truncated="0" eventCount="200">\n${events.join('\n')}\n</RingBufferTarget>`;
      assertSame([xml]);
      assert.deepEqual(outcomes, { read: 200, declined: 0 });
      // An entity in a value sends that one event to the scanner; the reader still gets all of them, the same way.
      const withEntity = xml.replace('<value>7</value>', '<value>&#55;</value>');
      outcomes.read = outcomes.declined = 0;
      assertSame([withEntity]);
      assert.deepEqual(outcomes, { read: 199, declined: 1 });
    } finally {
      XeEventScanner.prototype.scan = scan;
    }
  });

  it('tokenizes exactly as before when the handler has no fast path or declines it', () => {
    const tokens = (scan: typeof scanXml, xml: string, declining: boolean) => {
      const list: string[] = [];
      const h: XmlHandler = {
        open: (n, a, c) => list.push(`<${n}${Array.from({ length: c }, (_, i) => ` ${a[2 * i]}=${a[2 * i + 1]}`).join('')}>`),
        close: (n) => list.push(`</${n}>`),
        text: (t) => list.push(JSON.stringify(t)),
        ...(declining ? { element: () => -1 } : {}),
      };
      const error = scan(xml, h);
      return { list, error };
    };
    fc.assert(
      fc.property(eventXml, fc.option(fc.nat(), { nil: undefined }), fc.boolean(), (e, cut, declining) => {
        const xml = cut === undefined ? `<r>${e}</r>` : `<r>${e}</r>`.slice(0, cut % (e.length + 8));
        assert.deepStrictEqual(tokens(scanXml, xml, declining), tokens(previousScanXml, xml, false));
      }),
      { numRuns: 1000 },
    );
  });
});
