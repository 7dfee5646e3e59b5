import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { readEventFileRows, eventFileParameters } from '../../../src/xe/eventFile';
import { convertXeValue, readRingBufferXml, XeXmlReader } from '../../../src/xe/reader';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/xe', name), 'utf8');

describe('xe reader: ring_buffer target_data', () => {
  it('maps data and action fields, numbers, bigint, CDATA text, floats, booleans and timestamps', () => {
    const r = readRingBufferXml(fixture('ring_buffer_basic.xml'));
    assert.equal(r.parseError, null);
    assert.deepEqual(
      r.events.map((e) => e.name),
      ['log_flush_start', 'log_flush_complete', 'databases_log_flush', 'databases_log_flush_wait', 'databases_log_flush'],
    );
    const [start, complete, , wait] = r.events;
    assert.equal(start!.package, 'sqlserver');
    assert.equal(start!.data.write_size!.value, 4096);
    assert.equal(start!.data.log_block_id!.value, 18446744073709551000n);
    assert.equal(start!.actions.event_sequence!.value, 1);
    assert.equal(complete!.data.duration!.value, 1500);
    assert.equal(complete!.timestamp!.toISOString(), '2026-11-22T10:00:00.012Z');
    assert.deepEqual(wait!.data.mode, { value: 1, text: 'SCH_S <&> "x"' });
    assert.equal(wait!.data.note!.value, 'a&b');
    assert.equal(wait!.data.ratio!.value, 0.25);
    assert.equal(wait!.data.flag!.value, true);
    assert.deepEqual(r.ringBuffer, { truncated: false, eventCount: 5, totalEventsProcessed: 5, droppedCount: 0, memoryUsed: 2210 });
    assert.equal(r.lost.total, 0);
    assert.deepEqual(r.notes, []);
  });

  it('reports truncated="1", droppedCount and evicted events as lost, advising the event_file target', () => {
    const r = readRingBufferXml(fixture('ring_buffer_truncated.xml'));
    assert.equal(r.events.length, 2);
    // dropped 4; evicted 120 - 100 = 20; truncated away 100 - 2 = 98
    assert.deepEqual(r.lost, { dropped: 4, evicted: 20, truncatedAway: 98, total: 122 });
    assert.equal(r.ringBuffer!.truncated, true);
    const note = r.notes.find((n) => n.startsWith('122 events lost'));
    assert.ok(note, r.notes.join('|'));
    assert.match(note, /use the event_file target/);
  });

  it('skips events whose event_sequence was already seen', () => {
    const r = readRingBufferXml(fixture('ring_buffer_duplicates.xml'));
    assert.equal(r.duplicates, 1);
    assert.deepEqual(
      r.events.map((e) => e.actions.event_sequence!.value),
      [41, 42],
    );
    assert.ok(r.notes.some((n) => n.startsWith('1 duplicate events')));
  });

  it('keeps the events parsed before malformed XML and notes the error instead of throwing', () => {
    const r = readRingBufferXml(fixture('ring_buffer_malformed.xml'));
    assert.equal(r.events.length, 2);
    assert.match(r.parseError!, /^ring_buffer target_data is malformed \(.+\); kept the 2 events read before it$/);
    assert.ok(r.notes.includes(r.parseError!));
  });

  it('notes an empty or NULL target instead of failing', () => {
    for (const input of [null, '']) {
      const r = readRingBufferXml(input);
      assert.equal(r.events.length, 0);
      assert.equal(r.parseError, null);
      assert.match(r.notes[0]!, /returned no data/);
    }
  });

  it('streams to a callback without collecting when one is given', () => {
    const names: string[] = [];
    const r = readRingBufferXml(fixture('ring_buffer_basic.xml'), (e) => names.push(e.name));
    assert.equal(names.length, 5);
    assert.equal(r.events.length, 0);
  });

  it('never throws on arbitrary strings (property)', () => {
    const xmlish = fc.stringMatching(/^[<>/="a-z ![\]CDAT&;0-9\-]{0,80}$/);
    fc.assert(
      fc.property(fc.oneof(fc.string(), xmlish, fc.string().map((s) => fixture('ring_buffer_basic.xml').slice(0, s.length * 7))), (s) => {
        const r = readRingBufferXml(s);
        assert.ok(Array.isArray(r.events));
      }),
      { numRuns: 500 },
    );
  });
});

describe('xe reader: value conversion', () => {
  it('turns integers into numbers when exact and bigint beyond 2^53', () => {
    assert.equal(convertXeValue('9007199254740991', 'uint64'), 9007199254740991);
    assert.equal(convertXeValue('9007199254740993', 'uint64'), 9007199254740993n);
    assert.equal(convertXeValue('-3', null), -3);
    assert.equal(convertXeValue('1.5', 'float64'), 1.5);
    assert.equal(convertXeValue('1.5', 'unicode_string'), '1.5');
    assert.equal(convertXeValue('false', 'boolean'), false);
    assert.equal(convertXeValue('', null), '');
  });
});

describe('xe reader: event_file rows', () => {
  const ev = (seq: number, size: number) =>
    `<event name="log_flush_start" package="sqlserver" timestamp="2026-11-22T10:00:00.0${seq}0Z">` +
    `<data name="write_size"><type name="uint32" package="package0"/><value>${size}</value></data>` +
    `<action name="event_sequence" package="package0"><type name="uint64" package="package0"/><value>${seq}</value></action></event>`;

  it('parses each row, skips malformed ones with a note, and advances the cursor to the last row', () => {
    const rows = [
      { object_name: 'log_flush_start', event_data: ev(1, 512), file_name: 'C:\\x\\durability_lens_ab_0_1.xel', file_offset: '5120' },
      { object_name: 'log_flush_start', event_data: '<event name="x"><data>', file_name: 'C:\\x\\durability_lens_ab_0_1.xel', file_offset: '5120' },
      { object_name: 'log_flush_start', event_data: ev(2, 1024), file_name: 'C:\\x\\durability_lens_ab_0_1.xel', file_offset: '10240' },
      { object_name: 'log_flush_start', event_data: ev(2, 1024), file_name: 'C:\\x\\durability_lens_ab_0_1.xel', file_offset: '10240' },
    ];
    const r = readEventFileRows(rows, null);
    assert.deepEqual(
      r.events.map((e) => e.data.write_size!.value),
      [512, 1024],
    );
    assert.equal(r.duplicates, 1);
    assert.deepEqual(r.cursor, { fileName: 'C:\\x\\durability_lens_ab_0_1.xel', offset: '10240' });
    assert.ok(r.notes.includes('1 event_file rows could not be parsed and were skipped.'));
  });

  it('keeps the previous cursor when no rows came back', () => {
    const prev = { fileName: 'f.xel', offset: '99' };
    assert.deepEqual(readEventFileRows([], prev).cursor, prev);
  });

  it('passes NULL file and offset on the first read and both afterwards', () => {
    assert.deepEqual(eventFileParameters('C:\\x\\s*.xel', null, 'log_flush_complete', 5000), [
      { name: 'top', type: 'int', value: 5000 },
      { name: 'path', type: 'nvarchar', value: 'C:\\x\\s*.xel' },
      { name: 'event', type: 'nvarchar', value: 'log_flush_complete' },
      { name: 'file', type: 'nvarchar', value: null },
      { name: 'offset', type: 'bigint', value: null },
    ]);
    assert.deepEqual(eventFileParameters('p', { fileName: 'f.xel', offset: '9007199254740993' }, 'e', 10)[4], {
      name: 'offset',
      type: 'bigint',
      value: 9007199254740993n,
    });
  });

  it('keeps events that share an event_sequence with an earlier one but not its timestamp (the session was started again)', () => {
    const seen: number[] = [];
    const reader = new XeXmlReader((e) => seen.push(e.data.write_size!.value as number));
    reader.readDocument(ev(1, 512));
    // event_sequence counts per session start: after a restart, 1 is another event (another timestamp).
    reader.readDocument(ev(1, 512).replace('10:00:00.010Z', '11:00:00.010Z').replace('<value>512</value>', '<value>4096</value>'));
    reader.readDocument(ev(1, 512));
    assert.deepEqual(seen, [512, 4096]);
    assert.equal(reader.duplicates, 1);
  });

  it('shares de-duplication across documents read by one reader', () => {
    const seen: number[] = [];
    const reader = new XeXmlReader((e) => seen.push(e.actions.event_sequence!.value as number));
    reader.readDocument(ev(1, 512));
    reader.readDocument(ev(1, 512));
    reader.readDocument(ev(3, 512));
    assert.deepEqual(seen, [1, 3]);
    assert.equal(reader.duplicates, 1);
  });
});
