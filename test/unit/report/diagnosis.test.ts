import { strict as assert } from 'node:assert';
import { buildComparisonModel } from '../../../src/report/comparison';
import type { Finding } from '../../../src/report/diagnosis';
import { makeRun, type RunFigures } from './runFixture';

function findings(runs: RunFigures[]): Finding[] {
  return buildComparisonModel(runs.map(makeRun)).diagnosis;
}
const ids = (f: Finding[]) => f.map((x) => x.id);

describe('diagnosis rules', () => {
  it('S2 rule: WRITELOG average much longer than the log write latency → internal contention, citing both figures', () => {
    // 10 ms per WRITELOG wait, 1 ms per log write.
    const f = findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 100, ms: 1000 } }, log: { writes: 100, bytes: 409_600, stallMs: 100 } }]);
    const finding = f.find((x) => x.id === 'writelog-internal-contention')!;
    assert.ok(finding, ids(f).join());
    assert.deepEqual(
      finding.evidence.map((e) => [e.metric, e.value]),
      [['writelog.avgMs', 10], ['log.msPerWrite', 1], ['writelog.count', 100]],
    );
    assert.ok(!ids(f).includes('too-many-log-flushes'));
  });

  it('S2 rule: WRITELOG average close to the log write latency → too many flushes, with the data-loss caveat', () => {
    const f = findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 5000, ms: 6000 } }, log: { writes: 5000, bytes: 20_480_000, stallMs: 5000 } }]);
    const finding = f.find((x) => x.id === 'too-many-log-flushes')!;
    assert.ok(finding, ids(f).join());
    assert.match(finding.suggestion!, /can be lost on a crash/);
    assert.ok(!ids(f).includes('writelog-internal-contention'));
  });

  it('makes no WRITELOG finding when the session did not wait on WRITELOG', () => {
    const f = findings([{ mode: 'FORCED', waits: {}, commits: 500, flushesCounter: 9 }]);
    assert.deepEqual(ids(f).filter((id) => id.startsWith('writelog') || id === 'too-many-log-flushes'), []);
  });

  it('detects a commit per row when log flushes ≈ commits, preferring the exact counter over XE (which can lose events)', () => {
    const f = findings([{ mode: 'DISABLED', commits: 1000, flushesCounter: 1003, flushesXe: 726 }]);
    const finding = f.find((x) => x.id === 'commit-per-row')!;
    assert.deepEqual(finding.evidence.map((e) => [e.metric, e.value]), [['flushes.counter', 1003], ['commits', 1000]]);
    const xeOnly = findings([{ mode: 'DISABLED', commits: 1000, flushesXe: 1010 }]).find((x) => x.id === 'commit-per-row')!;
    assert.deepEqual(xeOnly.evidence.map((e) => [e.metric, e.value]), [['flushes.xe', 1010], ['commits', 1000]]);
    assert.ok(!ids(findings([{ mode: 'DISABLED', commits: 1000, flushesCounter: 30 }])).includes('commit-per-row'));
    assert.ok(!ids(findings([{ mode: 'DISABLED', commits: 10, flushesCounter: 10 }])).includes('commit-per-row'), 'too few commits to judge');
  });

  it('says a single set-based statement gains nothing when FORCED is no faster beyond noise', () => {
    const f = findings([
      { mode: 'DISABLED', commits: 1, elapsedMs: 400 },
      { mode: 'DISABLED', commits: 1, elapsedMs: 420 },
      { mode: 'FORCED', commits: 1, elapsedMs: 390 },
      { mode: 'FORCED', commits: 1, elapsedMs: 430 },
    ]);
    assert.ok(ids(f).includes('no-gain-set-based'), ids(f).join());
    assert.ok(!ids(f).includes('delayed-durability-gain'));
  });

  it('flags LOGBUFFER waits above a tenth of the session wait time as a log device that cannot keep up', () => {
    const f = findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 10, ms: 60 }, LOGBUFFER: { count: 40, ms: 40 } } }]);
    const finding = f.find((x) => x.id === 'logbuffer-high')!;
    assert.deepEqual(finding.evidence.map((e) => [e.metric, e.value]), [['logbuffer.ms', 40], ['waits.sessionTotalMs', 100]]);
    assert.ok(!ids(findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 10, ms: 960 }, LOGBUFFER: { count: 1, ms: 40 } } }])).includes('logbuffer-high'));
  });

  it('reports a clear delayed-durability gain only when the ranges do not overlap', () => {
    const clear = findings([
      { mode: 'DISABLED', elapsedMs: 1000 },
      { mode: 'DISABLED', elapsedMs: 1100 },
      { mode: 'FORCED', elapsedMs: 100 },
      { mode: 'FORCED', elapsedMs: 125 },
    ]);
    const gain = clear.find((x) => x.id === 'delayed-durability-gain')!;
    assert.equal(gain.title, 'FORCED ran 9.3× faster than DISABLED');
  });
});
