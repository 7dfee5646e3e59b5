import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { XeXmlReader, type XeEvent } from '../../../src/xe/reader';
import { saxTokenize } from '../../../src/xe/saxTokenizer';
import { scanXml, type XmlTokenizer } from '../../../src/xe/xmlScanner';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/xe', name), 'utf8');

function readWith(xml: string, tokenize: XmlTokenizer): { events: XeEvent[]; ok: boolean; reader: XeXmlReader } {
  const events: XeEvent[] = [];
  const reader = new XeXmlReader((e) => events.push(e));
  const ok = reader.readDocument(xml, 'doc', tokenize);
  return { events, ok, reader };
}

function tokens(xml: string): { list: string[]; error: string | null } {
  const list: string[] = [];
  const error = scanXml(xml, {
    open: (n, a, c) => list.push(`<${n}${Array.from({ length: c }, (_, i) => ` ${a[2 * i]}=${a[2 * i + 1]}`).join('')}>`),
    close: (n) => list.push(`</${n}>`),
    text: (t) => list.push(JSON.stringify(t)),
  });
  return { list, error };
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

describe('xe xml scanner', () => {
  it('tokenizes tags, attributes in either quote, entities, character references, CDATA, comments and the declaration', () => {
    const { list, error } = tokens(`<?xml version="1.0"?><!-- c --><a x='1 &gt; 0' y="&#x41;&#66;"><b/>t&amp;u<![CDATA[<raw&>]]></a >`);
    assert.equal(error, null);
    assert.deepEqual(list, ['<a x=1 > 0 y=AB>', '<b>', '</b>', '"t&u"', '"<raw&>"', '</a>']);
  });

  it('rejects malformed documents with a message and a line', () => {
    const cases: [string, RegExp][] = [
      ['<a><b></a>', /<\/a> does not close <b> at line 1/],
      ['<a>\n</b>', /does not close <a> at line 2/],
      ['<a>&nbsp;</a>', /invalid entity reference &nbsp;/],
      ['<a>&#0;</a>', /invalid entity reference/],
      ['<a>& b</a>', /invalid entity reference/],
      ['x<a/>', /text outside the root element/],
      ['<a/><b/>', /more than one root element/],
      ['<a>', /unclosed <a> at end of input/],
      ['', /no root element/],
      ['<a x=1/>', /not quoted/],
      ['<a x="1"y="2"/>', /malformed attribute/],
      ['<a x="1" x="2"/>', /duplicate attribute x/],
      ['<a x="<"/>', /'<' in attribute x/],
      ['<a><![CDATA[x</a>', /unterminated CDATA/],
      ['<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>', /markup declarations are not supported/],
      ['<1a/>', /invalid tag name/],
      ['</a>', /unexpected <\/a>/],
    ];
    for (const [xml, expected] of cases) assert.match(tokens(xml).error ?? 'accepted', expected, xml);
  });

  it('checks duplicate attributes in linear work: 80,000 distinct attributes cost under two checks each', () => {
    const n = 80_000;
    const attrs = Array.from({ length: n }, (_, i) => ` a${i}="${i}"`).join('');
    const stats = { attributeChecks: 0 };
    let seen = 0;
    const error = scanXml(`<event${attrs}/>`, { open: (_n, _a, c) => (seen = c), close: () => undefined, text: () => undefined }, stats);
    assert.equal(error, null);
    assert.equal(seen, n);
    // Pairwise comparison would need n·(n−1)/2 = 3.2 billion checks; the Set needs about one per attribute.
    assert.ok(stats.attributeChecks < 2 * n, `attribute checks: ${stats.attributeChecks}`);
    assert.ok(stats.attributeChecks >= n - 1, `attribute checks: ${stats.attributeChecks}`);
  });

  it('still finds a duplicate among many attributes, early or late (Set path and pairwise path)', () => {
    const many = Array.from({ length: 1000 }, (_, i) => ` a${i}="${i}"`).join('');
    assert.match(tokens(`<e${many} a999="x"/>`).error ?? 'accepted', /duplicate attribute a999/);
    assert.match(tokens(`<e${many} a0="x"/>`).error ?? 'accepted', /duplicate attribute a0/);
    assert.match(tokens(`<e a="1" b="2" a="3"/>`).error ?? 'accepted', /duplicate attribute a/);
    // A tag with many attributes does not leak its names into the next tag's check.
    assert.equal(tokens(`<r><e${many}/><e${many}/></r>`).error, null);
  });

  it('reads every fixture exactly as the sax package does', () => {
    for (const f of ['ring_buffer_basic.xml', 'ring_buffer_truncated.xml', 'ring_buffer_duplicates.xml']) {
      const fast = readWith(fixture(f), scanXml);
      const ref = readWith(fixture(f), saxTokenize);
      assert.equal(fast.ok, true, f);
      assert.deepEqual(fast.events, ref.events, f);
      assert.deepEqual(fast.reader.ringBuffer, ref.reader.ringBuffer, f);
    }
    assert.equal(readWith(fixture('ring_buffer_malformed.xml'), scanXml).ok, false);
    assert.equal(readWith(fixture('ring_buffer_malformed.xml'), saxTokenize).ok, false);
  });

  it('agrees with sax on generated well-formed XE documents (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 12 });
    const field = fc.record({
      kind: fc.constantFrom('data', 'action'),
      name: fc.stringMatching(/^[a-z_]{1,12}$/),
      type: fc.constantFrom('uint32', 'uint64', 'int64', 'float64', 'boolean', 'unicode_string', 'lock_mode'),
      value: fc.oneof(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String), fc.double({ noNaN: true }).map(String), fc.constantFrom('true', 'false'), text),
      label: fc.option(text, { nil: undefined }),
      cdata: fc.boolean(),
    });
    const event = fc.record({
      name: fc.stringMatching(/^[a-z_]{1,20}$/),
      ms: fc.integer({ min: 0, max: 4_000_000_000_000 }),
      fields: fc.array(field, { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(event, { maxLength: 8 }), fc.boolean(), (events, indent) => {
        const nl = indent ? '\n  ' : '';
        const body = events
          .map((e) => {
            const fields = e.fields
              .map((f) => {
                const v = f.cdata && !f.value.includes(']]>') ? `<![CDATA[${f.value}]]>` : escapeXml(f.value);
                const label = f.label === undefined ? '' : `<text>${escapeXml(f.label)}</text>`;
                const pkg = f.kind === 'action' ? ' package="package0"' : '';
                return `${nl}<${f.kind} name="${f.name}"${pkg}><type name="${f.type}" package="package0"/><value>${v}</value>${label}</${f.kind}>`;
              })
              .join('');
            return `${nl}<event name="${e.name}" package="sqlserver" timestamp="${new Date(e.ms).toISOString()}">${fields}</event>`;
          })
          .join('');
        const xml = `<RingBufferTarget truncated="0" eventCount="${events.length}">${body}\n</RingBufferTarget>`;
        const fast = readWith(xml, scanXml);
        const ref = readWith(xml, saxTokenize);
        assert.equal(fast.ok, true, fast.reader.parseError ?? '');
        assert.deepEqual(fast.events, ref.events);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws, whatever the input (property)', () => {
    const noop = { open() {}, close() {}, text() {} };
    const pieces = fc.constantFrom('<', '>', '/', '="', "'", '&', ';', '#x', '<![CDATA[', ']]>', '<!--', '-->', '<?', '?>', 'a', ' ', '\n', '&amp;', '<a>', '</a>');
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(pieces, { maxLength: 40 }).map((p) => p.join(''))), (s) => {
        const r = scanXml(s, noop);
        assert.ok(r === null || typeof r === 'string');
      }),
      { numRuns: 2000 },
    );
  });
});
