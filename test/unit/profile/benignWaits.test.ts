// The benign-wait overrides (durabilityLens.waits.benign.include / exclude) reach the server-wait diff of a real
// profile run against the TDS stand-in: an included benign wait is listed, an excluded wait is hidden.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun, type ProfileRunOptions, type RunResult } from '../../../src/profile';
import { analyze } from '../../../src/tsql';
import { addWait } from '../../standin/model/state';
import { useStandin } from '../../support/standin';

describe('profile: benign-wait overrides (stand-in)', function () {
  this.timeout(60_000);
  const h = useStandin();

  /** One short run; while it runs the server also waits 7 ms on two shipped-benign types and on LCK_M_X. */
  async function run(waits?: ProfileRunOptions['waits']): Promise<RunResult> {
    const script = 'CREATE TABLE #t (v int);\nINSERT INTO #t VALUES (1);\nINSERT INTO #t VALUES (2);\n';
    return profileRun({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(script).batches,
      xe: { enabled: false },
      sampling: { enabled: false },
      ...(waits ? { waits } : {}),
      onProgress: (e) => {
        if (e.step !== 'workload') return;
        addWait(h.engine.state.waits, 'PREEMPTIVE_OS_FLUSHFILEBUFFERS', 7000);
        addWait(h.engine.state.waits, 'LOGMGR_QUEUE', 7000);
        addWait(h.engine.state.waits, 'LCK_M_X', 7000);
      },
    });
  }

  const typesOf = (r: RunResult) => r.serverWaits.map((w) => w.waitType);

  it('hides the shipped benign waits by default and lists the others', async () => {
    const r = await run();
    assert.equal(r.status, 'completed');
    assert.ok(typesOf(r).includes('LCK_M_X'), typesOf(r).join(', '));
    assert.ok(!typesOf(r).includes('PREEMPTIVE_OS_FLUSHFILEBUFFERS'));
    assert.ok(!typesOf(r).includes('LOGMGR_QUEUE'));
  });

  it('include un-hides a benign wait (any case), with its delta', async () => {
    const r = await run({ include: ['preemptive_os_flushfilebuffers'] });
    const w = r.serverWaits.find((x) => x.waitType === 'PREEMPTIVE_OS_FLUSHFILEBUFFERS');
    assert.ok(w, typesOf(r).join(', '));
    assert.deepEqual([w.waitingTasks, w.waitTimeMs], [1, 7]);
    assert.ok(!typesOf(r).includes('LOGMGR_QUEUE'), 'only the included type is un-hidden');
  });

  it('exclude hides a wait the shipped list keeps', async () => {
    const r = await run({ exclude: ['lck_m_x'], include: ['LOGMGR_QUEUE'] });
    assert.ok(!typesOf(r).includes('LCK_M_X'), typesOf(r).join(', '));
    assert.ok(typesOf(r).includes('LOGMGR_QUEUE'));
  });
});
