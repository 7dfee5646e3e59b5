import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EventIdentitySet } from '../../../src/xe/eventIdentitySet';

describe('xe event identity set (de-duplication by event_sequence, timestamp, name and session_id)', () => {
  it('answers exactly as a Set of (sequence, time, tag) would: integers, -0, bigint text, floats, restarts (property)', () => {
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -20, max: 60 }) },
      fc.constantFrom<number | string>(-0, 0, 2.5, Infinity, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 2 ** 60, '9007199254740993', '1'),
    );
    // Few times and tags, so the same number meets other identities (a second session, a restart) and its own.
    const stamp = fc.record({ time: fc.constantFrom(0, 1, 1700000000000, NaN), tag: fc.constantFrom(0, 7, -5) });
    fc.assert(
      fc.property(fc.array(fc.tuple(key, stamp), { maxLength: 200 }), (items) => {
        const set = new EventIdentitySet();
        const plain = new Set<string>();
        for (const [k, s] of items) {
          const id = `${typeof k}:${String(k === 0 ? 0 : k)}|${String(s.time)}|${s.tag}`;
          const fresh = !plain.has(id);
          plain.add(id);
          assert.equal(set.add(k, s), fresh, `${id} after ${JSON.stringify(items.map(([a, b]) => [String(a), b]))}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps one run for 100,000 consecutive numbers, and one per gap otherwise', () => {
    const s = new EventIdentitySet();
    const at = (i: number) => ({ time: 1700000000000 + i, tag: 3 });
    for (let i = 1; i <= 100_000; i++) assert.equal(s.add(i, at(i)), true);
    assert.equal(s.add(50_000, at(50_000)), false, 'the same event again');
    assert.equal(s.storedEntries, 1);
    const gaps = new EventIdentitySet();
    for (let i = 1; i <= 1000; i++) gaps.add(i % 100 === 0 ? i + 1_000_000 : i, at(i));
    assert.equal(gaps.storedEntries, 20);
  });

  it('a session started again (numbers from 1 again, later times) is a second layer of runs, not 100,000 duplicates', () => {
    const s = new EventIdentitySet();
    for (let i = 1; i <= 100_000; i++) s.add(i, { time: i, tag: 1 });
    for (let i = 1; i <= 100_000; i++) assert.equal(s.add(i, { time: 10_000_000 + i, tag: 1 }), true);
    assert.equal(s.storedEntries, 2);
    // Either session's events read again are duplicates.
    assert.equal(s.add(77, { time: 77, tag: 1 }), false);
    assert.equal(s.add(77, { time: 10_000_077, tag: 1 }), false);
  });

  it('fills gaps from either side and joins runs (events arriving out of order, per-CPU buffers)', () => {
    const s = new EventIdentitySet();
    const order = [5, 3, 1, 2, 4, 10, 8, 9, 6, 7];
    for (const k of order) assert.equal(s.add(k, { time: k * 10, tag: k }), true);
    assert.equal(s.storedEntries, 1);
    for (const k of order) assert.equal(s.add(k, { time: k * 10, tag: k }), false, `${k} keeps its own identity after the joins`);
  });

  it('stamps: the same name and session_id give the same tag; another session or event another tag', () => {
    const t = new Date('2024-01-01T00:00:00.001Z');
    const s = new EventIdentitySet();
    assert.deepEqual(s.stamp('sql_statement_completed', t, 55), s.stamp('sql_statement_completed', t, 55));
    assert.notEqual(s.stamp('sql_statement_completed', t, 55).tag, s.stamp('sql_statement_completed', t, 71).tag);
    assert.notEqual(s.stamp('sql_statement_completed', t, 55).tag, s.stamp('sp_statement_completed', t, 55).tag);
    assert.equal(s.stamp('x', t, undefined).tag, s.stamp('x', t, null).tag, 'no session_id action: one identity');
    assert.ok(Number.isNaN(s.stamp('x', null, undefined).time));
  });

  it('two events that differ only in a session whose name + id collided under the former 32-bit hash are both kept', () => {
    // FNV-1a("log_flush_complete\0" + id) is equal for 86918 and 280644: the former tag dropped the second as a duplicate.
    const t = new Date('2024-01-01T00:00:00.001Z');
    const s = new EventIdentitySet();
    assert.equal(s.add(5, s.stamp('log_flush_complete', t, 86918)), true);
    assert.equal(s.add(5, s.stamp('log_flush_complete', t, 280644)), true, 'another session: another event');
    assert.equal(s.add(5, s.stamp('log_flush_complete', t, 280644)), false, 'the same event again is a duplicate');
  });
});
