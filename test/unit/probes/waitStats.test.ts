import assert from 'node:assert/strict';
import benign from '../../../data/benign-waits.json';
import { benignWaitSet, DEFAULT_BENIGN_WAITS, diffWaits, mapWaitRow, type WaitRow } from '../../../src/probes/waitStats';

function w(waitType: string, tasks: number, waitMs: number, signalMs = 0, maxMs = 0): WaitRow {
  return mapWaitRow({ wait_type: waitType, waiting_tasks_count: String(tasks), wait_time_ms: String(waitMs), max_wait_time_ms: String(maxMs), signal_wait_time_ms: String(signalMs) });
}

describe('probes/waitStats: benign list', () => {
  it('ships the reference list with its source cited', () => {
    assert.match(benign.source.url, /sqlskills\.com/);
    assert.equal(DEFAULT_BENIGN_WAITS.length, 78);
    assert.ok(DEFAULT_BENIGN_WAITS.includes('LOGMGR_QUEUE'));
    assert.ok(!DEFAULT_BENIGN_WAITS.includes('WRITELOG'), 'WRITELOG must never be filtered');
  });

  it('takes extra exclude and include lists', () => {
    const set = benignWaitSet({ exclude: ['MY_NOISE'], include: ['PREEMPTIVE_OS_FLUSHFILEBUFFERS'] });
    assert.ok(set.has('MY_NOISE'));
    assert.ok(!set.has('PREEMPTIVE_OS_FLUSHFILEBUFFERS'));
    assert.ok(set.has('LAZYWRITER_SLEEP'));
  });
});

describe('probes/waitStats: deltas', () => {
  // S2's shape: WRITELOG dominates (546.8 s over 60,261 waits).
  const before = [w('WRITELOG', 1000, 10000, 100, 50), w('LAZYWRITER_SLEEP', 10, 10000), w('PAGEIOLATCH_EX', 5, 50, 5)];
  const after = [
    w('WRITELOG', 61261, 556800, 2100, 80),
    w('LAZYWRITER_SLEEP', 70, 70000),
    w('PAGEIOLATCH_EX', 105, 21050, 1005),
    w('SOS_SCHEDULER_YIELD', 40, 400, 400),
  ];

  it('filters benign waits, sorts by wait time and computes percent, averages and the signal/resource split', () => {
    const diff = diffWaits(before, after);
    assert.deepEqual(
      diff.top.map((d) => d.waitType),
      ['WRITELOG', 'PAGEIOLATCH_EX', 'SOS_SCHEDULER_YIELD'],
    );
    const writelog = diff.top[0]!;
    assert.equal(writelog.waitingTasks, 60261);
    assert.equal(writelog.waitTimeMs, 546800);
    assert.equal(writelog.signalWaitTimeMs, 2000);
    assert.equal(writelog.resourceWaitTimeMs, 544800);
    assert.equal(writelog.avgWaitMs, 546800 / 60261);
    assert.equal(writelog.maxWaitTimeMsSinceStart, 80);
    assert.equal(diff.totalWaitTimeMs, 546800 + 21000 + 400);
    assert.equal(diff.benignWaitTimeMs, 60000);
    const percentSum = diff.top.reduce((s, d) => s + (d.percent ?? 0), 0);
    assert.ok(Math.abs(percentSum - 100) < 1e-9);
    assert.ok(writelog.percent! > 96 && writelog.percent! < 97);
  });

  it('keeps the top N and sums the rest', () => {
    const diff = diffWaits(before, after, { topN: 1 });
    assert.equal(diff.top.length, 1);
    assert.deepEqual(diff.others, { waitTypes: 2, waitTimeMs: 21400, waitingTasks: 140 });
  });

  it('gives null averages and percent when nothing waited', () => {
    const diff = diffWaits([w('WRITELOG', 5, 0)], [w('WRITELOG', 6, 0)]);
    assert.equal(diff.top[0]!.avgWaitMs, 0);
    assert.equal(diff.top[0]!.percent, null, 'total is 0: no percentage');
    const none = diffWaits([], []);
    assert.equal(none.top.length, 0);
    assert.equal(none.totalWaitTimeMs, 0);
  });

  it('does not filter the session\'s own waits when asked not to', () => {
    const diff = diffWaits([], [w('WAITFOR', 1, 5000)], { filterBenign: false });
    assert.equal(diff.top[0]!.waitType, 'WAITFOR');
    assert.equal(diffWaits([], [w('WAITFOR', 1, 5000)]).top.length, 0);
  });
});
