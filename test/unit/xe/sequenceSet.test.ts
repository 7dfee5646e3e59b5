import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SequenceSet } from '../../../src/xe/sequenceSet';

describe('xe sequence set (event_sequence de-duplication)', () => {
  it('answers exactly as a Set would, for integers, -0, bigint text and floats (property)', () => {
    const key = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: -20, max: 60 }) },
      fc.constantFrom<number | string>(-0, 0, 2.5, Infinity, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER - 1, 2 ** 60, '9007199254740993', '1'),
    );
    fc.assert(
      fc.property(fc.array(key, { maxLength: 200 }), (keys) => {
        const runs = new SequenceSet();
        const set = new Set<number | string>();
        for (const k of keys) {
          const fresh = !set.has(k);
          set.add(k);
          assert.equal(runs.add(k), fresh, `key ${String(k)} after ${keys.join(',')}`);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps one run for 100,000 consecutive numbers, and one per gap otherwise', () => {
    const s = new SequenceSet();
    for (let i = 1; i <= 100_000; i++) assert.equal(s.add(i), true);
    assert.equal(s.add(50_000), false);
    assert.equal(s.storedEntries, 1);
    const gaps = new SequenceSet();
    for (let i = 1; i <= 1000; i++) gaps.add(i % 100 === 0 ? i + 1_000_000 : i);
    assert.equal(gaps.storedEntries, 20);
  });
});
