// Every XE parser and aggregator over output real SQL Servers produced (test/fixtures/real-server, issue 33): the
// ring_buffer reader, the event_file row reader, the fast event path against the generic scanner, the histogram and
// counter target parsers, the statement histograms, the log-flush aggregator. Expectations come from the manifest,
// which records what each published sample holds.

import assert from 'node:assert/strict';
import { LogFlushAggregator } from '../../../src/xe/aggregate';
import { XeEventScanner } from '../../../src/xe/eventScanner';
import { readEventFileRows } from '../../../src/xe/eventFile';
import { readRingBufferXml, XeXmlReader, type XeEvent, type XeField } from '../../../src/xe/reader';
import { readStatementHistograms } from '../../../src/xe/statementHistograms';
import { parseCounterTarget, parseHistogramTarget, parseHistogramTextTarget } from '../../../src/xe/targetData';
import { scanXml, type XmlTokenizer } from '../../../src/xe/xmlScanner';
import { isEventRows, isHistogram, isRingBuffer, realFiles, realManifest, realRows, realText, type RealSample } from './realServerFixtures';

const manifest = realManifest();

function countByName(events: readonly XeEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.name] = (out[e.name] ?? 0) + 1;
  return out;
}

/** The events of a sample, read the way the product reads that kind of output. */
function readSample(s: RealSample, tokenize?: XmlTokenizer): XeEvent[] {
  const events: XeEvent[] = [];
  if (isRingBuffer(s)) {
    const reader = new XeXmlReader((e) => events.push(e));
    assert.ok(reader.readDocument(realText(s), s.file, tokenize), `${s.file}: ${reader.parseError}`);
  } else {
    const reader = new XeXmlReader((e) => events.push(e));
    for (const row of realRows(s)) assert.ok(reader.readDocument(row.event_data, s.file, tokenize), `${s.file}: ${reader.parseError}`);
  }
  return events;
}

/** The scanner alone, without the reader's fast path: what the generic callbacks make of the same text. */
const withoutFastPath: XmlTokenizer = (xml, h, stats) =>
  scanXml(
    xml,
    {
      open: (n, a, c) => h.open(n, a, c),
      close: (n) => h.close(n),
      text: (t) => h.text(t),
      get wantText() {
        return h.wantText;
      },
    },
    stats,
  );

const picture = (f: XeField) => ({ type: typeof f.value, value: String(f.value), text: f.text });
const eventPicture = (e: XeEvent) => ({
  name: e.name,
  package: e.package,
  timestamp: e.timestamp?.toISOString() ?? null,
  data: Object.fromEntries(Object.entries(e.data).map(([k, f]) => [k, picture(f)])),
  actions: Object.fromEntries(Object.entries(e.actions).map(([k, f]) => [k, picture(f)])),
});

function field(e: XeEvent, name: string): XeField | undefined {
  return e.data[name] ?? e.actions[name];
}

describe('xe: output real servers produced (test/fixtures/real-server)', () => {
  it('holds at least 12 samples from at least 5 independent public sources, each with its provenance, every file listed', () => {
    assert.ok(manifest.samples.length >= 12, `${manifest.samples.length} samples`);
    const sources = new Set(manifest.samples.map((s) => s.source));
    assert.ok(sources.size >= 5, [...sources].join(', '));
    for (const source of sources) assert.ok(manifest.sources[source], `source ${source} is described`);
    for (const s of manifest.samples) {
      const p = s.provenance;
      assert.ok((p.repository && /^[0-9a-f]{40}$/.test(p.commit ?? '') && p.path) || p.url?.startsWith('https://'), `${s.file}: repository + commit + path, or a URL`);
      assert.ok(s.trims.length > 0 && s.server.length > 0, `${s.file}: trims and server stated`);
    }
    assert.deepEqual(manifest.samples.map((s) => s.file).sort(), realFiles());
    // Statement, wait, error events and both aggregating/sample targets are among them.
    const names = new Set(manifest.samples.flatMap((s) => Object.keys(s.expect.events ?? {})));
    for (const n of ['sql_statement_completed', 'sp_statement_completed', 'rpc_completed', 'sql_batch_completed', 'wait_info', 'error_reported']) assert.ok(names.has(n), n);
    assert.ok(manifest.samples.some(isHistogram) && manifest.samples.some(isRingBuffer) && manifest.samples.some((s) => s.kind.startsWith('event_file rows')));
  });

  for (const s of manifest.samples.filter(isRingBuffer)) {
    it(`ring_buffer reader: ${s.file} — its events and header, no note of loss or error`, () => {
      const r = readRingBufferXml(realText(s));
      assert.equal(r.parseError, null);
      assert.deepEqual(countByName(r.events), s.expect.events);
      const h = s.expect.ringBuffer!;
      assert.deepEqual(
        { eventCount: r.ringBuffer?.eventCount, totalEventsProcessed: r.ringBuffer?.totalEventsProcessed, droppedCount: r.ringBuffer?.droppedCount, truncated: r.ringBuffer?.truncated },
        h,
      );
      assert.equal(r.lost.dropped + r.lost.truncatedAway, 0);
    });
  }

  for (const s of manifest.samples.filter(isEventRows)) {
    it(`event_file row reader: ${s.file} — every row parsed, the cursor at its last row`, () => {
      const rows = realRows(s);
      const r = readEventFileRows(rows, null);
      assert.equal(r.parseError, null, r.notes.join(' | '));
      assert.deepEqual(countByName(r.events), s.expect.events);
      assert.deepEqual(r.cursor, { fileName: rows.at(-1)!.file_name, offset: rows.at(-1)!.file_offset });
    });
  }

  for (const s of manifest.samples.filter((x) => !isHistogram(x))) {
    it(`fast event path = generic scanner on ${s.file} (${s.form.origin}, <type> ${s.form.type})`, () => {
      assert.deepEqual(readSample(s).map(eventPicture), readSample(s, withoutFastPath).map(eventPicture));
      // The fast path takes every real-form event; only entity references in text are left to the scanner.
      const text = realText(s);
      const scanner = new XeEventScanner();
      for (let at = text.indexOf('<event'); at >= 0; at = text.indexOf('<event', at + 1)) {
        const entity = text.slice(at, text.indexOf('</event>', at)).includes('&');
        assert.equal(scanner.scan(text, at) >= 0, !entity, `event at ${at}`);
      }
    });
  }

  it('values take their type from the declared <type>: all-digit binary_data stays text, map keys in hex stay text, hashes 0 are numbers', () => {
    for (const s of manifest.samples.filter((x) => x.expect.textValues || x.expect.queryHash)) {
      const events = readSample(s);
      for (const [name, value] of Object.entries(s.expect.textValues ?? {})) assert.equal(field(events[0]!, name)!.value, value, `${s.file} ${name} is that text`);
      if (s.expect.queryHash) assert.equal(field(events[0]!, 'query_hash')!.value, Number(s.expect.queryHash), s.file);
    }
    // The declared binary_data "01" (a login's SID, sqltoolsservice sample) is text, and so are both SID fields.
    const ring = readSample(manifest.samples.find((x) => x.file.startsWith('sqltoolsservice'))!)[0]!;
    assert.equal(ring.data.server_principal_sid!.value, '01');
    assert.equal(ring.data.is_dac!.value, false);
    assert.equal(ring.data.packet_size!.value, 4096);
    assert.equal(ring.actions.client_app_name!.value, 'Core .Net SqlClient Data Provider');
  });

  for (const s of manifest.samples.filter(isHistogram)) {
    it(`histogram parsers: ${s.file} — exact slots by value, the buckets attribute, as numbers and as text`, () => {
      const want = s.expect.histogram!;
      const numeric = parseHistogramTarget(realText(s));
      assert.equal(numeric.parseError, null);
      assert.equal(numeric.slots, want.buckets);
      assert.deepEqual(Object.fromEntries([...numeric.buckets].map(([k, v]) => [String(k), v])), want.slots);
      const text = parseHistogramTextTarget(realText(s));
      assert.deepEqual(Object.fromEntries(text.buckets), want.slots);
      // As the statement session's executions histogram: slots are carried for the folding check.
      const h = readStatementHistograms({ waits: null, executions: realText(s) }, null, ['sql_statement_completed'], null);
      assert.equal(h.executionSlots, want.buckets);
      assert.deepEqual(Object.fromEntries(h.executionsByHash!), want.slots);
    });
  }

  it('event_counter parser: no real output is published; on every sample it reports "no <CounterTarget> root", never counts it guessed', () => {
    assert.ok(manifest.notFound.some((n) => n.startsWith('event_counter')));
    for (const s of manifest.samples) {
      const c = parseCounterTarget(realText(s));
      assert.equal(c.counts.size, 0, s.file);
      assert.match(c.parseError ?? '', /CounterTarget|malformed/, s.file);
    }
  });

  it('log-flush aggregator over every real event: counts each event by name, finds no flush event and says so', () => {
    const agg = new LogFlushAggregator();
    const expected: Record<string, number> = {};
    for (const s of manifest.samples.filter((x) => !isHistogram(x))) {
      for (const e of readSample(s)) agg.add(e);
      for (const [k, v] of Object.entries(s.expect.events ?? {})) expected[k] = (expected[k] ?? 0) + v;
    }
    const r = agg.finish({ sessionName: 'real', target: 'event_file', durationUnit: null });
    assert.deepEqual(r.eventsByName, expected);
    assert.equal(r.flushEvent, null);
    assert.equal(r.latencyMs, null);
    assert.ok(r.notes.some((n) => /No log-flush events/.test(n)), r.notes.join(' | '));
  });
});
