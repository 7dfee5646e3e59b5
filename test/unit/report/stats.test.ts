import { strict as assert } from 'node:assert';
import { compareSummaries, median, summarize } from '../../../src/report/stats';

describe('report stats', () => {
  it('takes the middle value of an odd count and the mean of the two middle values of an even count', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.throws(() => median([]), RangeError);
  });

  it('summarizes median and min–max, ignoring runs without the figure', () => {
    assert.deepEqual(summarize([120, null, 80, 100]), { median: 100, min: 80, max: 120, n: 3 });
    assert.equal(summarize([null, null]), null);
  });

  it('gives the ratio of medians with the widest spread the ranges allow', () => {
    const base = { median: 100, min: 90, max: 110, n: 3 };
    const forced = { median: 20, min: 18, max: 22, n: 3 };
    const cell = compareSummaries(base, forced, 'lower');
    assert.equal(cell.ratio, 0.2);
    assert.equal(cell.spread.min, 18 / 110);
    assert.equal(cell.spread.max, 22 / 90);
    assert.equal(cell.change, 'decrease');
    assert.equal(cell.verdict, 'better');
    assert.equal(cell.arrow, '↓');
    assert.equal(cell.inconclusive, false);
  });

  it('flags a difference as inconclusive when the min–max ranges overlap', () => {
    const cell = compareSummaries({ median: 100, min: 80, max: 130, n: 3 }, { median: 110, min: 95, max: 140, n: 3 }, 'lower');
    assert.equal(cell.change, 'increase');
    assert.equal(cell.verdict, 'worse');
    assert.equal(cell.arrow, '↑');
    assert.equal(cell.inconclusive, true);
  });

  it('says higher is better for metrics marked so, and neutral for neutral ones', () => {
    const base = { median: 4096, min: 4096, max: 4096, n: 1 };
    const big = { median: 61440, min: 61440, max: 61440, n: 1 };
    assert.equal(compareSummaries(base, big, 'higher').verdict, 'better');
    assert.equal(compareSummaries(base, big, 'neutral').verdict, 'neutral');
    assert.equal(compareSummaries(base, base, 'lower').change, 'same');
    assert.equal(compareSummaries(base, base, 'lower').inconclusive, false);
  });

  it('reports no ratio when the baseline is zero instead of dividing by zero', () => {
    const cell = compareSummaries({ median: 0, min: 0, max: 0, n: 2 }, { median: 5, min: 4, max: 6, n: 2 }, 'lower');
    assert.equal(cell.ratio, null);
    assert.equal(cell.spread.max, null);
    assert.equal(cell.change, 'increase');
  });
});
