import * as assert from 'node:assert/strict';
import { parseVersusArgs, summarise } from '../../../bench/versus';
import type { ThroughputResult } from '../../../bench/tsql-throughput';

/** A child's result where only the CPU times matter to the summary. */
function result(lexStructure: number, analyze: number): ThroughputResult {
  const t = (cpu: number) => ({ wall: cpu + 1, cpu });
  return { mib: 10, newlines: 1, tokenCount: 1, warmUp: 6, byteScan: t(50), lexStructure: t(lexStructure), lexOnly: t(100), analyze: t(analyze), analyzeMeanCpu: analyze };
}

describe('bench:versus (bench/versus.ts)', () => {
  it('reads refs and --rounds, and refuses what it does not know', () => {
    assert.deepEqual(parseVersusArgs(['main~3', 'v0.1.0', '--rounds', '6']), { refs: ['main~3', 'v0.1.0'], rounds: 6 });
    assert.deepEqual(parseVersusArgs(['abc123']), { refs: ['abc123'], rounds: 4 });
    assert.throws(() => parseVersusArgs([]), /at least one commit/);
    assert.throws(() => parseVersusArgs(['x', '--rounds', '0']), /whole number from 1 to 50/);
    assert.throws(() => parseVersusArgs(['x', '--rounds', '2.5']), /whole number/);
    assert.throws(() => parseVersusArgs(['x', '--fast']), /Unknown option --fast/);
  });

  it('gives each commit its lowest and median CPU time over the rounds, and the median against the first', () => {
    const rows = summarise(new Map([
      ['this checkout', [result(500, 800), result(420, 700), result(460, 760)]],
      ['old', [result(300, 600), result(360, 640), result(330, 900), result(340, 620)]],
    ]));
    const row = (label: string, figure: string) => rows.find((r) => r.label === label && r.figure === figure)!;
    assert.deepEqual(row('this checkout', 'lexStructure'), { label: 'this checkout', figure: 'lexStructure', min: 420, median: 460, ratio: 1 });
    // An even count's median is the mean of the middle two: (330 + 340) / 2.
    assert.deepEqual(row('old', 'lexStructure'), { label: 'old', figure: 'lexStructure', min: 300, median: 335, ratio: 335 / 460 });
    assert.equal(row('old', 'analyze').median, 630);
    assert.equal(row('old', 'analyze').ratio, 630 / 760);
    assert.equal(rows.length, 8);
  });
});
