import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EventIdentitySet, eventStamp } from '../../../src/xe/eventIdentitySet';

describe('xe event identity set (de-duplication by event_sequence, timestamp, name and session_id)', () => {
  it('answers exactly as a Set of (sequence, time, identity) would: integers, -0, bigint text, floats, restarts (property)', () => {
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -20, max: 60 }) },
      fc.constantFrom<number | string>(-0, 0, 2.5, Infinity, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 2 ** 60, '9007199254740993', '1'),
    );
    // Few times and tags, so the same number meets other identities (a second session, a restart) and its own.
    const stamp = fc.record({ time: fc.constantFrom(0, 1, 1700000000000, NaN), identity: fc.constantFrom('0', '7', '-5', '5:a|b=1', '') });
    fc.assert(
      fc.property(fc.array(fc.tuple(key, stamp), { maxLength: 200 }), (items) => {
        const set = new EventIdentitySet();
        const plain = new Set<string>();
        for (const [k, s] of items) {
          const id = `${typeof k}:${String(k === 0 ? 0 : k)}|${String(s.time)}|${s.identity}`;
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
    const at = (i: number) => ({ time: 1700000000000 + i, identity: 'x' });
    for (let i = 1; i <= 100_000; i++) assert.equal(s.add(i, at(i)), true);
    assert.equal(s.add(50_000, at(50_000)), false, 'the same event again');
    assert.equal(s.storedEntries, 1);
    const gaps = new EventIdentitySet();
    for (let i = 1; i <= 1000; i++) gaps.add(i % 100 === 0 ? i + 1_000_000 : i, at(i));
    assert.equal(gaps.storedEntries, 20);
  });

  it('a session started again (numbers from 1 again, later times) is a second layer of runs, not 100,000 duplicates', () => {
    const s = new EventIdentitySet();
    for (let i = 1; i <= 100_000; i++) s.add(i, { time: i, identity: 'x' });
    for (let i = 1; i <= 100_000; i++) assert.equal(s.add(i, { time: 10_000_000 + i, identity: 'x' }), true);
    assert.equal(s.storedEntries, 2);
    // Either session's events read again are duplicates.
    assert.equal(s.add(77, { time: 77, identity: 'x' }), false);
    assert.equal(s.add(77, { time: 10_000_077, identity: 'x' }), false);
  });

  it('fills gaps from either side and joins runs (events arriving out of order, per-CPU buffers)', () => {
    const s = new EventIdentitySet();
    const order = [5, 3, 1, 2, 4, 10, 8, 9, 6, 7];
    for (const k of order) assert.equal(s.add(k, { time: k * 10, identity: `e${k}` }), true);
    assert.equal(s.storedEntries, 1);
    for (const k of order) assert.equal(s.add(k, { time: k * 10, identity: `e${k}` }), false, `${k} keeps its own identity after the joins`);
  });

  it('stamps: the same name and session_id give the same identity; another session, event or split another', () => {
    const t = new Date('2024-01-01T00:00:00.001Z');
    const id = (name: string, session: unknown) => eventStamp(name, t, session).identity;
    assert.deepEqual(eventStamp('sql_statement_completed', t, 55), eventStamp('sql_statement_completed', t, 55));
    assert.notEqual(id('sql_statement_completed', 55), id('sql_statement_completed', 71));
    assert.notEqual(id('sql_statement_completed', 55), id('sp_statement_completed', 55));
    // No way to move characters between the name and the session, and no session is not an empty one.
    assert.notEqual(id('a=1', '2'), id('a', '1=2'));
    assert.notEqual(id('a', undefined), id('a', ''));
    assert.ok(Number.isNaN(eventStamp('x', null, undefined).time));
  });

  it('identities that a 32-bit hash would take for one are two: both events are added', () => {
    // 699287 and 1071020 give "sql_statement_completed\0<session>" the same 32-bit FNV-1a (a birthday search).
    const s = new EventIdentitySet();
    const t = new Date('2024-01-01T00:00:00.001Z');
    assert.equal(s.add(3, eventStamp('sql_statement_completed', t, 699287)), true);
    assert.equal(s.add(3, eventStamp('sql_statement_completed', t, 1071020)), true);
    assert.equal(s.add(3, eventStamp('sql_statement_completed', t, 1071020)), false);
  });
});
