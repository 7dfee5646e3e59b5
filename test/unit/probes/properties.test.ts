import assert from 'node:assert/strict';
import fc from 'fast-check';
import { quoteName } from '../../../src/db/quote';
import { diffWaits, mapWaitRow } from '../../../src/probes/waitStats';
import { delta } from '../../../src/probes/values';

/** What SQL Server does with a [..] identifier: strip the brackets and undouble ]]. */
function unquote(quoted: string): string {
  assert.ok(quoted.startsWith('[') && quoted.endsWith(']'));
  const inner = quoted.slice(1, -1);
  assert.ok(!inner.replace(/\]\]/g, '').includes(']'), 'every ] inside is doubled');
  return inner.replace(/\]\]/g, ']');
}

describe('probes properties (fast-check)', () => {
  it('quoteName round-trips any name, including ] and quotes', () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), (name) => unquote(quoteName(name)) === name));
  });

  it('wait deltas: top N plus others adds up to the total, percentages sum to 100', () => {
    const waitArb = fc.record({ tasks: fc.nat(1000), wait: fc.nat(100000), signalShare: fc.double({ min: 0, max: 1, noNaN: true }) });
    fc.assert(
      fc.property(fc.array(waitArb, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 10 }), (waits, topN) => {
        const after = waits.map((w, i) =>
          mapWaitRow({ wait_type: `W${i}`, waiting_tasks_count: String(w.tasks + 1), wait_time_ms: String(w.wait), max_wait_time_ms: '0', signal_wait_time_ms: String(Math.floor(w.wait * w.signalShare)) }),
        );
        const diff = diffWaits([], after, { topN, filterBenign: false });
        const topSum = diff.top.reduce((s, d) => s + d.waitTimeMs, 0);
        assert.equal(topSum + diff.others.waitTimeMs, diff.totalWaitTimeMs);
        assert.equal(diff.totalResourceWaitTimeMs + diff.totalSignalWaitTimeMs, diff.totalWaitTimeMs);
        for (let i = 1; i < diff.top.length; i++) assert.ok(diff.top[i - 1]!.waitTimeMs >= diff.top[i]!.waitTimeMs);
        if (diff.totalWaitTimeMs > 0 && diff.others.waitTypes === 0) {
          const pct = diff.top.reduce((s, d) => s + (d.percent ?? 0), 0);
          assert.ok(Math.abs(pct - 100) < 1e-6, String(pct));
        }
      }),
    );
  });

  it('counter deltas are exact for any pair of bigint values up to 2^63-1', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }), fc.bigInt({ min: 0n, max: 2n ** 40n }), (before, inc) => {
        fc.pre(before + inc <= 2n ** 63n - 1n);
        return delta(before.toString(), (before + inc).toString()) === Number(inc);
      }),
    );
  });
});
