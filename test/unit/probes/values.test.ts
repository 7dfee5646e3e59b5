import assert from 'node:assert/strict';
import { counter, delta, ratio, text } from '../../../src/probes/values';

describe('probes/values: tedious values → snapshot fields', () => {
  it('keeps bigint counters beyond 2^53 exact as decimal strings', () => {
    assert.equal(counter('9007199254740993'), '9007199254740993');
    assert.equal(counter(42), '42');
    assert.equal(counter(null), null);
    assert.throws(() => counter('12.5'), /Not an integer counter/);
  });

  it('computes deltas exactly even when both values exceed 2^53', () => {
    // As numbers these two are equal (both round to 2^53); as BigInt the difference is 1.
    assert.equal(delta('9007199254740992', '9007199254740993'), 1);
    assert.equal(delta(null, '5'), 5);
  });

  it('trims nchar padding and refuses to divide by zero', () => {
    assert.equal(text('Log Flushes/sec                 '), 'Log Flushes/sec');
    assert.equal(ratio(10, 0), null);
    assert.equal(ratio(10, 4), 2.5);
  });
});
