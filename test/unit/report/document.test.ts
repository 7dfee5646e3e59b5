// comparisonDocument (compare --json) and loadComparison ("open earlier comparisons"): the keys, the
// speed-up, and validation of what comes back from disk.
import { strict as assert } from 'node:assert';
import { comparisonDocument, ComparisonFormatError, loadComparison, speedupOf } from '../../../src/report';
import { makeRun } from './runFixture';

const runs = [
  makeRun({ mode: 'DISABLED', warmup: true, elapsedMs: 5000 }),
  makeRun({ mode: 'DISABLED', elapsedMs: 1000, log: { writes: 1000, bytes: 4_096_000, stallMs: 900 }, waits: { WRITELOG: { count: 1000, ms: 800 } } }),
  makeRun({ mode: 'FORCED', elapsedMs: 250, log: { writes: 20, bytes: 1_200_000, stallMs: 30 }, waits: { WRITELOG: { count: 1, ms: 2 } } }),
  makeRun({ mode: 'FORCED', elapsedMs: 200, log: { writes: 18, bytes: 1_100_000, stallMs: 25 }, waits: {} }),
  makeRun({ mode: 'DISABLED', elapsedMs: 1200, log: { writes: 1002, bytes: 4_100_000, stallMs: 950 }, waits: { WRITELOG: { count: 1002, ms: 900 } } }),
];

describe('report: comparison document', () => {
  it('has originalSetting, restoredSetting, modes with runs and medians, ratios and the speed-up', () => {
    const restore = { status: 'restored' as const, server: 's', database: 'lab', originalSetting: 'DISABLED' as const, verifiedSetting: 'DISABLED' as const, journalCleared: true, restoreStatement: 'ALTER …', message: 'ok' };
    const doc = comparisonDocument({ runs, status: 'completed', restore, createdAt: '2026-01-01T00:00:00.000Z' });
    assert.equal(doc.originalSetting, 'DISABLED');
    assert.equal(doc.restoredSetting, 'DISABLED');
    assert.deepEqual(doc.modes.map((m) => [m.mode, m.runs.length]), [['DISABLED', 2], ['FORCED', 2]]);
    assert.equal(doc.warmupRuns.length, 1);
    assert.deepEqual(doc.modes[0]!.median, { elapsedMs: 1100, logWrites: 1001, logBytesWritten: 4_098_000, writelogWaitTimeMs: 850 });
    assert.deepEqual(doc.modes[1]!.median, { elapsedMs: 225, logWrites: 19, logBytesWritten: 1_150_000, writelogWaitTimeMs: 1 });
    assert.equal(doc.ratios['log.writes']!.FORCED!.ratio, 19 / 1001);
    assert.deepEqual(doc.speedup, { baseline: 'DISABLED', mode: 'FORCED', elapsed: 1100 / 225, min: 1000 / 250, max: 1200 / 200, runs: { baseline: 2, mode: 2 }, conclusive: true, conclusiveWhy: "the runs' min–max ranges do not overlap (2 runs each)" });
    assert.equal(speedupOf(comparisonDocument({ runs: runs.filter((r) => r.mode === 'FORCED'), status: 'completed' }).model), null);
  });

  it('loadComparison round-trips through JSON text and rebuilds the model from the runs', () => {
    const doc = comparisonDocument({ runs, status: 'completed', createdAt: '2026-01-01T00:00:00.000Z' });
    const loaded = loadComparison(JSON.stringify(doc));
    assert.deepEqual(loaded.modes.map((m) => m.median), doc.modes.map((m) => m.median));
    assert.equal(loaded.createdAt, '2026-01-01T00:00:00.000Z');
    assert.equal(loaded.warmupRuns.length, 1);
    assert.deepEqual(loaded.model.rows.map((r) => r.id), doc.model.rows.map((r) => r.id));
  });

  it('refuses what it cannot show, saying why', () => {
    const doc = JSON.parse(JSON.stringify(comparisonDocument({ runs, status: 'completed' })));
    assert.throws(() => loadComparison('{'), (e: unknown) => e instanceof ComparisonFormatError && /^Not JSON/.test(e.message));
    assert.throws(() => loadComparison({ ...doc, kind: 'something' }), /Not a Durability Lens comparison/);
    assert.throws(() => loadComparison({ ...doc, schemaVersion: 2 }), /schema version 2 is not supported .* reads version 1/);
    assert.throws(() => loadComparison({ ...doc, modes: 'x' }), /no "modes" array/);
    const broken = { ...doc, modes: [{ ...doc.modes[0], runs: [{ schemaVersion: 9 }] }] };
    assert.throws(() => loadComparison(broken), /modes\[0\]\.runs\[0\] is not a RunResult/);
    // A run whose database is a string (hand-edited or hostile; the outside attack's get_results crash).
    const stringDb = JSON.parse(JSON.stringify(doc));
    for (const m of stringDb.modes) for (const r of m.runs) r.database = 'lab';
    assert.throws(() => loadComparison(stringDb), (e: unknown) => e instanceof ComparisonFormatError && /modes\[0\]\.runs\[0\] is not a RunResult/.test(e.message));
    // Deeper fields of the wrong type: shown as far as they can be, or a format error that says so — never a bare
    // TypeError from inside the model.
    const run0 = doc.modes[0].runs[0] as Record<string, unknown>;
    let refused = 0;
    for (const key of Object.keys(run0)) {
      for (const bad of [7, 'x', null, [], { a: 1 }]) {
        const deep = JSON.parse(JSON.stringify(doc));
        for (const m of deep.modes) for (const r of m.runs) r[key] = bad;
        try {
          loadComparison(deep);
        } catch (e) {
          assert.ok(e instanceof ComparisonFormatError, `${key} = ${JSON.stringify(bad)}: ${(e as Error).stack}`);
          refused++;
        }
      }
    }
    assert.ok(refused > 0, 'some corruption is refused');
  });
});
