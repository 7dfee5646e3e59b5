// Exhaustive drop sweep: count the requests of one clean DISABLED → FORCED comparison, then run it again once per
// request, dropping exactly that request's connection. Whatever the request was (plan query, ALTER, snapshot, XE
// DDL, workload batch, restore read), the database must end DISABLED with nothing left behind.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun } from '../../src/profile';
import { analyze } from '../../src/tsql';
import { PROFILE_SWEEP_CASE, SWEEP_CASE } from './cases';
import { compare, leftBehind, newJournal, WORKLOAD } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';

const DB = 'rel_sweep';

describe('reliability: a dropped connection at every request of a comparison (stand-in)', function () {
  this.timeout(150000);
  let h: ReliabilityStandin;
  before(async () => {
    h = await startReliabilityStandin();
    h.engine.addDatabase({ name: DB });
  });
  after(async () => {
    await h?.close();
  });

  it(SWEEP_CASE.title, async () => {
    h.clearLog();
    const clean = await compare(h, DB, newJournal());
    assert.equal(clean.status, 'completed', clean.error?.message);
    const requests = h.log.map((r) => r.text);
    assert.ok(requests.length > 20, `${requests.length} requests in a comparison`);
    await waitUntil(() => h.server.connections === 0, 'the clean run closed its connections');

    const outcomes = new Map<string, number>();
    for (let k = 1; k <= requests.length; k++) {
      const journal = newJournal();
      h.clearLog();
      h.dropNthRequest(k);
      let outcome: string;
      try {
        const result = await compare(h, DB, journal);
        outcome = `${result.status}/${result.restore?.status ?? 'no-change'}`;
        assert.notEqual(result.restore?.status, 'failed', `request ${k}: ${result.restore?.message}`);
      } catch (err) {
        // Only possible before anything changed: the journal must be empty and the database untouched.
        outcome = 'rejected';
        assert.equal(h.log.filter((r) => /^ALTER DATABASE/.test(r.text)).length, 0, `request ${k} rejected after an ALTER: ${(err as Error).message}`);
      }
      h.dropNthRequest(null);
      const dropped = h.log[k - 1]?.text.slice(0, 60).replace(/\s+/g, ' ') ?? '(none)';
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      assert.deepEqual(await journal.list(), [], `request ${k} (${dropped}) left a journal entry`);
      assert.equal(h.setting(DB), 'DISABLED', `request ${k} (${dropped}) left the database changed`);
      assert.deepEqual(h.leftoverSessions(), [], `request ${k} (${dropped}) left an event session`);
      assert.equal(h.marker(DB), null, `request ${k} (${dropped}) left the ownership marker`);
      await waitUntil(() => h.server.connections === 0, `request ${k} (${dropped}): every connection closed`);
    }
    // Every kind of outcome the sweep produced also ends clean when read back over a fresh connection.
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
    assert.ok(outcomes.size >= 3, `expected several distinct outcomes, got ${JSON.stringify([...outcomes])}`);
  });

  it(PROFILE_SWEEP_CASE.title, async () => {
    const run = () => profileRun({ connections: profileConnectionSource(h.profile(DB), h.secret), batches: analyze(WORKLOAD).batches });
    h.clearLog();
    const clean = await run();
    assert.equal(clean.status, 'completed');
    assert.ok(clean.logFlushTrace, 'the clean run traced log flushes');
    const count = h.log.length;
    await waitUntil(() => h.server.connections === 0, 'the clean run closed its connections');
    const outcomes = new Map<string, number>();
    for (let k = 1; k <= count; k++) {
      h.clearLog();
      h.dropNthRequest(k);
      let outcome: string;
      try {
        outcome = (await run()).status;
      } catch (err) {
        outcome = `threw ${(err as Error).name}`;
      }
      h.dropNthRequest(null);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      const dropped = h.log[k - 1]?.text.slice(0, 60).replace(/\s+/g, ' ') ?? '(none)';
      assert.deepEqual(h.leftoverSessions(), [], `request ${k} (${dropped}) left an event session`);
      assert.equal(h.setting(DB), 'DISABLED');
      await waitUntil(() => h.server.connections === 0, `request ${k} (${dropped}): every connection closed`);
    }
    assert.ok(outcomes.size >= 2, JSON.stringify([...outcomes]));
  });
});
