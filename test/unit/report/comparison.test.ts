import { strict as assert } from 'node:assert';
import { buildComparisonModel, rowById, STAND_IN_LABEL } from '../../../src/report/comparison';
import { makeRun } from './runFixture';

describe('comparison model', () => {
  const disabled = [900, 1000, 1100].map((elapsedMs) => makeRun({ mode: 'DISABLED', elapsedMs, commits: 500, flushesCounter: 500, waits: { WRITELOG: { count: 500, ms: 400 } }, log: { writes: 500, bytes: 2_048_000, stallMs: 150 } }));
  const forced = [100, 120, 140].map((elapsedMs) => makeRun({ mode: 'FORCED', elapsedMs, commits: 500, flushesCounter: 9, waits: {}, log: { writes: 9, bytes: 552_960, stallMs: 5 } }));

  it('puts one column per mode with median and min–max, DISABLED as the baseline', () => {
    const model = buildComparisonModel([...forced, ...disabled]);
    assert.deepEqual(model.columns, ['DISABLED', 'FORCED']);
    assert.equal(model.baseline, 'DISABLED');
    assert.deepEqual(model.runsPerColumn, { DISABLED: 3, FORCED: 3 });
    const elapsed = rowById(model, 'elapsed')!;
    assert.deepEqual(elapsed.cells.DISABLED, { median: 1000, min: 900, max: 1100, n: 3 });
    assert.equal(elapsed.ratios.FORCED!.ratio, 0.12);
    assert.equal(elapsed.ratios.FORCED!.verdict, 'better');
    assert.equal(elapsed.ratios.FORCED!.inconclusive, false);
    assert.equal(rowById(model, 'log.avgBytesPerWrite')!.cells.FORCED!.median, 61_440);
    assert.equal(rowById(model, 'writelog.count')!.cells.FORCED!.median, 0, 'a readable session diff without WRITELOG means zero waits');
    assert.equal(rowById(model, 'writelog.avgMs')!.cells.DISABLED!.median, 0.8);
  });

  it('leaves warm-up runs and runs across a restart out, and says so', () => {
    const model = buildComparisonModel([makeRun({ mode: 'DISABLED', warmup: true, elapsedMs: 99_999 }), ...disabled, makeRun({ mode: 'DISABLED', restart: true, elapsedMs: 1 })]);
    assert.deepEqual(rowById(model, 'elapsed')!.cells.DISABLED, { median: 1000, min: 900, max: 1100, n: 3 });
    assert.ok(model.notes.some((n) => n.includes('1 warm-up run')));
    assert.ok(model.notes.some((n) => n.includes('left out')));
    assert.equal(model.diagnosis[0]!.id, 'restart-invalid');
  });

  it('leaves a cancelled run out of the figures beside complete ones, and says which (outside attack: a cut run made a 6× max)', () => {
    const cut = { ...makeRun({ mode: 'FORCED', elapsedMs: 10, commits: 50, flushesCounter: 1 }), repetition: 2, status: 'cancelled' as const, cancel: { reason: 'user' as const, atMs: 10 } };
    const model = buildComparisonModel([...disabled, ...forced, cut]);
    assert.deepEqual(rowById(model, 'elapsed')!.cells.FORCED, { median: 120, min: 100, max: 140, n: 3 });
    assert.deepEqual(model.runsPerColumn, { DISABLED: 3, FORCED: 3 });
    assert.ok(model.notes.includes('1 cancelled run(s) left out of the figures (FORCED run 3): a cancelled run covers only part of the workload.'), model.notes.join('\n'));
    assert.equal(model.cancelled?.runs, 1, 'the cancel itself is still reported');
  });

  it('a cancelled run that is all there is (a cancelled profile) still shows what ran', () => {
    const cut = { ...makeRun({ mode: null, elapsedMs: 10, commits: 50, flushesCounter: 1 }), status: 'cancelled' as const, cancel: { reason: 'timeout' as const, atMs: 10 } };
    const model = buildComparisonModel([cut]);
    assert.equal(rowById(model, 'elapsed')!.cells.RUN!.median, 10);
    assert.ok(!model.notes.some((n) => n.includes('left out of the figures')));
  });

  it('labels the model when any figure came from the stand-in', () => {
    assert.equal(buildComparisonModel(disabled).sourceLabel, null);
    const model = buildComparisonModel([...disabled.slice(0, 2), makeRun({ mode: 'DISABLED', source: 'stand-in' })]);
    assert.equal(model.source, 'stand-in');
    assert.equal(model.sourceLabel, STAND_IN_LABEL);
  });

  it('adds the top other session waits as rows, largest first, without repeating WRITELOG', () => {
    const runs = [makeRun({ mode: 'DISABLED', waits: { WRITELOG: { count: 5, ms: 900 }, PAGEIOLATCH_EX: { count: 3, ms: 40 }, SOS_SCHEDULER_YIELD: { count: 10, ms: 70 } } })];
    const ids = buildComparisonModel(runs).rows.map((r) => r.id).filter((id) => id.startsWith('wait.'));
    assert.deepEqual(ids, ['wait.SOS_SCHEDULER_YIELD', 'wait.PAGEIOLATCH_EX']);
  });

  it('shows n/a (null) for a metric the login could not read', () => {
    const model = buildComparisonModel([makeRun({ mode: 'DISABLED', sessionWaitsReadable: false })]);
    assert.equal(rowById(model, 'writelog.count')!.cells.DISABLED, null);
  });

  it('lists each missing measurement once with its GRANT, and notes XE event loss', () => {
    const a = makeRun({ mode: 'DISABLED', flushesXe: 700, flushesCounter: 1000 });
    a.missing = [{ measurement: 'sessionWaits', reason: 'No session waits.', grant: 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens];' }];
    (a.logFlushTrace as { lostEvents: number }).lostEvents = 1098;
    const b = makeRun({ mode: 'DISABLED' });
    b.missing = [...a.missing];
    const model = buildComparisonModel([a, b]);
    assert.deepEqual(model.missing.map((m) => m.measurement), ['sessionWaits']);
    assert.ok(model.notes.some((n) => n.includes('lost events in 1 run(s) (up to 1098)')));
  });
});
