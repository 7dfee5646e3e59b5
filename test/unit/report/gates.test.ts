// The CI gates (src/report/gates.ts): figures per run and per write transaction, medians per mode, tolerances,
// not-measured figures never passing on a zero, the speed-up range rule, and baseline files read back.
import { strict as assert } from 'node:assert';
import { notApplicable } from '../../../src/probes/measurement';
import type { RunResult } from '../../../src/profile/types';
import { buildBaseline, checkGates, DEFAULT_TOLERANCES, loadBaseline, parseTolerance, runFigures } from '../../../src/report/gates';
import { makeRun } from './runFixture';

/** A run with chosen log flushes (counter), write transactions, log bytes and server WRITELOG waits. */
function run(o: { mode?: 'DISABLED' | 'FORCED'; flushes: number; commits: number; bytes?: number; writelog?: number; warmup?: boolean }): RunResult {
  const r = makeRun({ mode: o.mode ?? 'DISABLED', flushesCounter: o.flushes, commits: o.commits, ...(o.warmup ? { warmup: true } : {}) });
  return {
    ...r,
    logCounters: { ...r.logCounters, logBytesFlushed: o.bytes ?? o.flushes * 4096 },
    serverWaits: o.writelog === undefined ? [] : [{ waitType: 'WRITELOG', waitingTasks: o.writelog, waitTimeMs: o.writelog, signalWaitTimeMs: 0 }],
  };
}

describe('report: CI gates', () => {
  it('computes per-run and per-write-transaction figures from the counters and the server waits', () => {
    const f = runFigures(run({ flushes: 500, commits: 500, bytes: 2_048_000, writelog: 498 }));
    assert.deepEqual(f, {
      logFlushesPerWriteTransaction: 1,
      logBytesPerWriteTransaction: 4096,
      writelogWaitsPerWriteTransaction: 0.996,
      logFlushes: 500,
      writeTransactions: 500,
      writelogWaits: 498,
    });
  });

  it('prefers the trace\'s exact flush count over the counter', () => {
    const r = makeRun({ flushesCounter: 510, flushesXe: 500, commits: 500 });
    assert.equal(runFigures(r).logFlushes, 500);
  });

  it('server waits that could not be read are not measured, never zero WRITELOG waits', () => {
    const r = run({ flushes: 10, commits: 10 });
    const unread = { ...r, diff: { ...r.diff, serverWaits: notApplicable<never>('waitStats', 'denied') } };
    assert.equal(runFigures(unread).writelogWaits, null);
    assert.equal(runFigures(r).writelogWaits, 0, 'read, and no WRITELOG moved: a measured zero');
  });

  it('a batched baseline against a per-row run: the per-run gates fail naming baseline and new value, per-transaction ones pass', () => {
    const baseline = buildBaseline([run({ flushes: 2, commits: 1, bytes: 70_000, writelog: 1 })], null);
    const results = checkGates(baseline, [run({ flushes: 500, commits: 500, bytes: 200_000, writelog: 500 })], null);
    const byMetric = Object.fromEntries(results.map((r) => [r.metric, r]));
    assert.equal(byMetric.logFlushes!.status, 'fail');
    assert.equal(byMetric.logFlushes!.baseline, 2);
    assert.equal(byMetric.logFlushes!.value, 500);
    assert.equal(byMetric.logFlushes!.limit, 2 * 1.25 + 5);
    assert.match(byMetric.logFlushes!.message, /^logFlushes \(DISABLED\): baseline 2, now 500 — REGRESSION, above the limit 7\.5 \(baseline \+25% \+5\)\.$/);
    assert.equal(byMetric.writeTransactions!.status, 'fail');
    assert.equal(byMetric.writelogWaits!.status, 'fail');
    assert.equal(byMetric.logFlushesPerWriteTransaction!.status, 'pass');
    assert.equal(byMetric.logBytesPerWriteTransaction!.status, 'pass');
  });

  it('a run within the tolerance passes; a tighter --tolerance makes the same run fail', () => {
    const baseline = buildBaseline([run({ flushes: 100, commits: 100 })], null);
    const same = [run({ flushes: 120, commits: 100 })];
    assert.equal(checkGates(baseline, same, null).find((r) => r.metric === 'logFlushes')!.status, 'pass');
    const tight = parseTolerance('logFlushes=10%+0');
    assert.ok(typeof tight !== 'string');
    assert.equal(checkGates(baseline, same, null, { [tight.metric]: tight.tolerance }).find((r) => r.metric === 'logFlushes')!.status, 'fail');
  });

  it('gates compare mode with mode; medians per mode; warm-ups left out', () => {
    const baseline = buildBaseline([run({ mode: 'DISABLED', flushes: 100, commits: 100 }), run({ mode: 'FORCED', flushes: 3, commits: 100 })], null);
    assert.equal(baseline.modes.FORCED!.figures.logFlushes, 3);
    const now = [
      run({ mode: 'FORCED', flushes: 100, commits: 100, warmup: true }),
      run({ mode: 'FORCED', flushes: 4, commits: 100 }),
      run({ mode: 'FORCED', flushes: 90, commits: 100 }),
      run({ mode: 'FORCED', flushes: 5, commits: 100 }),
    ];
    const forced = checkGates(baseline, now, null).filter((r) => r.mode === 'FORCED');
    assert.equal(forced.find((r) => r.metric === 'logFlushes')!.value, 5, 'median of 4, 90, 5');
    assert.equal(checkGates(baseline, now, null).some((r) => r.mode === 'DISABLED'), false, 'no DISABLED run now: not checked');
  });

  it('a figure the baseline lacks is not-measured, not a pass', () => {
    const base = run({ flushes: 10, commits: 10 });
    const noCounters = { ...base, diff: { ...base.diff, logCounters: notApplicable<never>('perfCounters', 'denied') }, logCounters: { logFlushes: null, logBytesFlushed: null, logFlushWaitTimeMs: null } };
    const results = checkGates(buildBaseline([noCounters], null), [run({ flushes: 999, commits: 999 })], null);
    const flushes = results.find((r) => r.metric === 'logFlushes')!;
    assert.equal(flushes.status, 'not-measured');
    assert.match(flushes.message, /not measured in the baseline/);
  });

  it('speed-up: only a new range entirely below the baseline\'s lowest run (less the tolerance) is a regression', () => {
    const baseline = buildBaseline([run({ flushes: 1, commits: 1 })], { elapsed: 4, min: 3, max: 5 });
    const overlapping = checkGates(baseline, [], { elapsed: 2.4, min: 2, max: 2.8 }).find((r) => r.metric === 'speedup')!;
    assert.equal(overlapping.status, 'pass', overlapping.message);
    assert.equal(overlapping.limit, 3 * 0.75);
    const below = checkGates(baseline, [], { elapsed: 1.2, min: 1, max: 1.5 }).find((r) => r.metric === 'speedup')!;
    assert.equal(below.status, 'fail');
    assert.match(below.message, /REGRESSION, the whole range is below the limit ×2\.25/);
    const none = checkGates(baseline, [], null).find((r) => r.metric === 'speedup')!;
    assert.equal(none.status, 'not-measured');
  });

  it('a baseline file is read back; a wrong kind, version or figure is refused with what is wrong', () => {
    const saved = buildBaseline([run({ flushes: 2, commits: 1 })], null, { logFlushes: { relative: 0.5, absolute: 1 } }, new Date('2026-11-23T00:00:00Z'));
    const loaded = loadBaseline(JSON.stringify(saved));
    assert.deepEqual(loaded, saved);
    assert.deepEqual(loaded.tolerances.logFlushes, { relative: 0.5, absolute: 1 });
    assert.deepEqual(loaded.tolerances.speedup, DEFAULT_TOLERANCES.speedup);
    assert.throws(() => loadBaseline('{'), /not JSON/);
    assert.throws(() => loadBaseline('{"kind":"durability-lens.comparison"}'), /not a baseline/);
    assert.throws(() => loadBaseline(JSON.stringify({ ...saved, schemaVersion: 2 })), /schemaVersion 2 is not supported/);
    assert.throws(() => loadBaseline(JSON.stringify({ ...saved, modes: { DISABLED: { runs: 1, figures: { ...saved.modes.DISABLED!.figures, logFlushes: '2' } } } })), /modes\.DISABLED\.figures\.logFlushes must be a finite number ≥ 0, not "2"/);
  });

  it('a hostile baseline is refused with what is wrong: a __proto__ or unknown mode, Infinity (1e999), negative or unknown keys', () => {
    const saved = buildBaseline([run({ flushes: 2, commits: 1 })], null, {}, new Date('2026-11-23T00:00:00Z'));
    const text = JSON.stringify(saved);
    const figures = JSON.stringify(saved.modes.DISABLED!.figures);
    const cases: Array<[string, RegExp]> = [
      // JSON.parse makes "__proto__" an own key: looked up later it would be Object.prototype (the crash of N11).
      [text.replace('"modes":{', `"modes":{"__proto__":{"runs":1,"figures":${figures}},`), /modes\."__proto__" is not a mode \(one of DISABLED, ALLOWED, FORCED, UNKNOWN\)/],
      [text.replace('"modes":{', `"modes":{"constructor":{"runs":1,"figures":${figures}},`), /modes\."constructor" is not a mode/],
      [text.replace('"logFlushes":{"relative":0.25', '"logFlushes":{"relative":1e999'), /tolerances\.logFlushes\.relative must be a finite number ≥ 0, not Infinity/],
      [text.replace('"logFlushes":{"relative":0.25', '"logFlushes":{"relative":1000'), /relative 1000 is above 100 \(\+10000 %\): that gate would never fail/],
      [text.replace('"logFlushes":{"relative":0.25,"absolute":5', '"logFlushes":{"relative":0.25,"absolute":1e308'), /tolerances\.logFlushes\.absolute 1e\+308 is above 500: that gate would never fail/],
      [text.replace('"logFlushes":{"relative":0.25,"absolute":5', '"logFlushes":{"relative":0.25,"absolute":501'), /absolute 501 is above 500/],
      [text.replace('"logFlushes":{"relative":0.25,"absolute":5', '"logFlushes":{"relative":0.25,"absolute":-1'), /tolerances\.logFlushes\.absolute must be a finite number ≥ 0, not -1/],
      [text.replace('"tolerances":{', '"tolerances":{"__proto__":{"relative":0,"absolute":0},'), /tolerances\."__proto__" is not a gate metric/],
      [text.replace('"logFlushes":2', '"logFlushes":1e999'), /modes\.DISABLED\.figures\.logFlushes must be a finite number ≥ 0, not Infinity/],
      [text.replace('"logFlushes":2', '"logFlushes":2,"toString":1'), /figures\."toString" is not a gate metric/],
      [text.replace(/"speedup":null/, '"speedup":{"elapsed":1e999}'), /speedup\.elapsed must be a finite number/],
      [text.replace('"modes":{', '"modes":['), /not JSON|must be|modes/],
    ];
    for (const [hostile, expected] of cases) {
      assert.notEqual(hostile, text, `the case changed the file: ${expected}`);
      assert.throws(() => loadBaseline(hostile), expected);
    }
    assert.match(parseTolerance(`logFlushes=1${'0'.repeat(400)}`) as string, /must be finite and at most 10000%/);
  });

  it('parses --tolerance specs and refuses unknown metrics', () => {
    assert.deepEqual(parseTolerance('logFlushes=10%+3'), { metric: 'logFlushes', tolerance: { relative: 0.1, absolute: 3 } });
    assert.deepEqual(parseTolerance('speedup=0.5'), { metric: 'speedup', tolerance: { relative: 0.5, absolute: 0 } });
    assert.match(parseTolerance('flushes=1') as string, /unknown metric 'flushes'/);
    assert.match(parseTolerance('logFlushes') as string, /expects METRIC=RELATIVE/);
  });
});
