// What a user confirms before a concurrency sweep names the sweep: its levels, the runs in all and the connections it
// opens (the plain comparison plan understated it). Declining changes nothing.
import { strict as assert } from 'node:assert';
import { describePlan, KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison } from '../../../src/profile';
import type { ComparisonPlan } from '../../../src/profile/plan';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

describe('integration: the plan a sweep is confirmed with', function () {
  this.timeout(60000);
  const h = useTestServer();

  it('names the levels, the runs in all and the connections; declining leaves the database as it was', async () => {
    let confirmed: ComparisonPlan | null = null;
    const before = await h.state();
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze('SELECT 1;\n').batches,
      modes: ['DISABLED', 'FORCED'],
      repetitions: 2,
      warmup: true,
      sessions: [1, 8],
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: (plan) => {
        confirmed = plan;
        return false;
      },
    });
    assert.equal(result.status, 'declined');
    assert.deepEqual(confirmed!.sessions, [1, 8]);
    assert.deepEqual(result.plan.sessions, [1, 8]);
    const text = describePlan(confirmed!);
    // Warm-up + 2 × 2 measured = 5 runs per level, two levels.
    assert.match(text, /^Sessions: 1, 8 — the order above runs once per level \(10 runs in all\), each run on that many workload connections released together \(up to 8 sessions at once, besides the monitor connection\)/m);
    await h.connectionsClosed();
    assert.deepEqual(await h.state(), { setting: before.setting, eventSessions: [] });
  });

  it('a comparison on one session says nothing of sessions', async () => {
    let confirmed: ComparisonPlan | null = null;
    await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze('SELECT 1;\n').batches,
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: (plan) => {
        confirmed = plan;
        return false;
      },
    });
    assert.equal(confirmed!.sessions, undefined);
    assert.doesNotMatch(describePlan(confirmed!), /^Sessions:/m);
  });
});
