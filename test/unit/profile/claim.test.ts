// The claim on a database (durabilityGuard.ts, ownershipMarker.ts, ownerLiveness.ts, recovery.ts) against the scripted
// fake server: the marker is written after the journal and before the first ALTER and dropped after the verified
// restore; another run's marker refuses a comparison before anything is read for the restore; a lost monitor stops
// the changes, the claim is taken back, and a claim someone else took is left alone; recovery restores the marker's
// original only when its owner is gone — never while its lock, run lock or process lives.
import { strict as assert } from 'node:assert';
import { alterDurabilitySql, DatabaseOwnedError, DurabilityGuard, OwnershipLostError } from '../../../src/profile/durabilityGuard';
import { MarkerWriteError, parseMarker, type OwnershipMarker } from '../../../src/profile/ownershipMarker';
import { assessOwner, runLockResourceOf } from '../../../src/profile/ownerLiveness';
import { recoverDatabase, recoverFromJournal } from '../../../src/profile/recovery';
import { newRestoreEntry } from '../../../src/profile/restoreJournal';
import { FakeServer } from './fakeServer';

const gone: OwnershipMarker = { v: 1, run: '0b8f2c1e-3d4a-4b5c-8d6e-7f8091a2b3c4', host: 'BUILD-7', pid: 4242, window: 'cli', since: '2026-01-02T03:04:05.000Z', original: 'DISABLED', applied: 'FORCED' };

function marked(fake: FakeServer): OwnershipMarker {
  const m = parseMarker(fake.marker);
  assert.ok(m && !('unreadable' in m), `a readable marker: ${fake.marker}`);
  return m as OwnershipMarker;
}

describe('the claim on a database', () => {
  it('marks the database after journalling the original and before the first ALTER; drops the marker after the verified restore', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor'), workload: fake.client(2, 'workload') });
    await guard.lock();
    const entry = await guard.begin();
    const m = marked(fake);
    assert.deepEqual([m.run, m.original, m.applied, m.pid, m.window], [entry.id, 'DISABLED', null, process.pid, 'cli']);
    assert.ok(fake.runLocks.has(runLockResourceOf(entry.id)), 'the workload session holds the run lock');
    await guard.apply('FORCED');
    assert.equal(marked(fake).applied, 'FORCED', 'the marker says FORCED before the ALTER ran');
    const outcome = (await guard.restore())!;
    await guard.release();
    assert.equal(outcome.status, 'restored');
    assert.equal(fake.marker, null, 'the claim ended with the verified restore');
    assert.equal(journal.entries.length, 0);
  });

  it("another run's marker refuses the comparison before the original is read or anything journalled", async () => {
    const fake = new FakeServer();
    fake.setting = 'FORCED';
    fake.marker = JSON.stringify(gone);
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.lock();
    const err = await guard.begin().catch((e: unknown) => e);
    assert.ok(err instanceof DatabaseOwnedError);
    assert.match(err.message, /^A comparison owns \[lab\] since 2026-01-02T03:04:05\.000Z: process 4242 on BUILD-7 \(CLI\), run 0b8f2c1e-3d4a-4b5c-8d6e-7f8091a2b3c4; the original setting is DISABLED; it last set FORCED/);
    assert.match(err.message, /cannot be seen from here: it may be reconnecting\. Nothing was changed\. If that process has ended, recovery \(--yes\) takes over once the owner has held nothing for 90 s/);
    assert.deepEqual(fake.log.filter((l) => l.startsWith('read:') || l.startsWith('journal') || l.startsWith('alter')), [], 'its FORCED was not taken for an original');
    assert.equal(fake.marker, JSON.stringify(gone), 'their marker is left');
  });

  it('a marker that cannot be written (permission) refuses with nothing changed and the journal entry withdrawn', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const monitor = fake.client(1, 'monitor');
    const denying = { ...monitor, execute: async (sql: string, p?: never) => (/sp_addextendedproperty/.test(sql) ? Promise.reject(Object.assign(new Error('denied'), { number: 15247, state: 1, class: 16, message: 'User does not have permission to perform this action.', lineNumber: 1 })) : monitor.execute(sql, p)) };
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: denying, grant: 'GRANT ALTER ON DATABASE::[lab] TO [lens];' });
    await guard.lock();
    const err = await guard.begin().catch((e: unknown) => e);
    assert.ok(err instanceof MarkerWriteError);
    assert.match(err.message, /SQL error 15247: User does not have permission to perform this action.*GRANT ALTER ON DATABASE::\[lab\] TO \[lens\];\. Nothing was changed\./);
    assert.equal(journal.entries.length, 0);
    assert.ok(!fake.log.some((l) => l.startsWith('alter')));
  });

  it('after the monitor died, apply() changes nothing; readSetting() takes the claim back on a new connection', async () => {
    const fake = new FakeServer();
    const source = fake.source();
    const guard = new DurabilityGuard({ journal: fake.journal(), server: 's', database: 'lab', monitor: await source.open('monitor'), reopenMonitor: () => source.open('monitor') });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    fake.killOpenConnections();
    const reread = await guard.readSetting();
    assert.deepEqual(reread, { setting: 'FORCED', reclaimed: true });
    assert.deepEqual(fake.log.slice(-3), ['open#2:monitor', 'lock', 'read:FORCED']);
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'restored');
    assert.equal(fake.marker, null);
  });

  it('a claim taken over while we were disconnected is left alone and reported as it is', async () => {
    const fake = new FakeServer();
    const source = fake.source();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: await source.open('monitor'), reopenMonitor: () => source.open('monitor') });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    fake.killOpenConnections();
    // Meanwhile recovery restored the database and another comparison claimed it and set ALLOWED.
    fake.marker = JSON.stringify({ ...gone, run: '11111111-2222-4333-8444-555555555555', original: 'DISABLED', applied: 'ALLOWED' });
    fake.setting = 'ALLOWED';
    await assert.rejects(guard.apply('DISABLED'), OwnershipLostError, 'no change while the claim is in doubt');
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'external-change', outcome.message);
    assert.equal(outcome.verifiedSetting, 'ALLOWED');
    assert.match(outcome.message, /another process took \[lab\] over \(run 11111111-2222-4333-8444-555555555555 since 2026-01-02T03:04:05\.000Z\): DELAYED_DURABILITY of \[lab\] is ALLOWED now \(verified\)/);
    assert.ok(!fake.log.slice(-4).some((l) => l.startsWith('alter')), 'nothing changed over their claim');
    assert.equal(fake.marker !== null && marked(fake).run, '11111111-2222-4333-8444-555555555555', 'their marker stays');
    assert.equal(journal.entries.length, 0);
  });

  describe('owner liveness and recovery', () => {
    const here = { thisHost: 'BUILD-7' };

    it("restores a gone owner's marker to its original — not the FORCED it reads — and removes the marker", async () => {
      const fake = new FakeServer();
      fake.setting = 'FORCED';
      fake.marker = JSON.stringify(gone);
      const outcomes = await recoverDatabase(fake.client(1, 'monitor'), { server: 's', database: 'lab', journal: fake.journal() }, { assess: { ...here, pidRuns: () => false } });
      assert.deepEqual(outcomes.map((o) => [o.status, o.originalSetting, o.verifiedSetting]), [['restored', 'DISABLED', 'DISABLED']]);
      assert.match(outcomes[0]!.message, /Recovered for a CLI comparison that is gone: process 4242, run 0b8f2c1e/);
      assert.equal(fake.setting, 'DISABLED');
      assert.equal(fake.marker, null);
    });

    it('never touches a database whose owner lives: its run lock, or its process on this machine', async () => {
      for (const alive of ['run lock', 'process'] as const) {
        const fake = new FakeServer();
        fake.setting = 'FORCED';
        fake.marker = JSON.stringify(gone);
        if (alive === 'run lock') fake.runLocks.add(runLockResourceOf(gone.run));
        const outcomes = await recoverDatabase(fake.client(1, 'monitor'), { server: 's', database: 'lab', journal: fake.journal() }, { assess: { ...here, pidRuns: () => alive === 'process' } });
        assert.deepEqual(outcomes.map((o) => o.status), ['in-use'], alive);
        assert.match(outcomes[0]!.message, alive === 'run lock' ? /its workload connection still holds the run/ : /process 4242 still runs on this machine/);
        assert.equal(fake.setting, 'FORCED', alive);
        assert.ok(fake.marker, alive);
      }
    });

    it('a journal entry whose database lock is held is left, naming the owner from the marker', async () => {
      const fake = new FakeServer();
      fake.setting = 'FORCED';
      fake.lockHeld = true;
      fake.marker = JSON.stringify(gone);
      const journal = fake.journal();
      await journal.put(newRestoreEntry({ server: 's', database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
      const outcomes = await recoverFromJournal(journal, async () => fake.client(9, 'monitor'));
      assert.deepEqual(outcomes.map((o) => o.status), ['in-use']);
      assert.match(outcomes[0]!.message, /a comparison still holds it \(session 77 on host BUILD-7.*A comparison owns \[lab\] since 2026-01-02T03:04:05\.000Z/);
      assert.equal(journal.entries.length, 1);
    });

    it('an owner on another machine that holds nothing is waited for, then treated as gone', async () => {
      const fake = new FakeServer();
      fake.setting = 'FORCED';
      fake.marker = JSON.stringify(gone);
      const waits: string[] = [];
      const client = fake.client(1, 'monitor');
      assert.equal((await assessOwner(client, gone, { thisHost: 'LAPTOP' })).state, 'unknown');
      const outcomes = await recoverDatabase(client, { server: 's', database: 'lab', journal: fake.journal() }, { ownerGraceMs: 50, onWait: (m) => waits.push(m), assess: { thisHost: 'LAPTOP' } });
      assert.equal(waits.length, 1);
      assert.match(waits[0]!, /Waiting up to 0 s for it to take its lock back/);
      assert.deepEqual(outcomes.map((o) => o.status), ['restored']);
      assert.equal(fake.setting, 'DISABLED');
    });

    it('an owner on another machine that takes its lock back during the wait is left alone', async () => {
      const fake = new FakeServer();
      fake.setting = 'FORCED';
      fake.marker = JSON.stringify(gone);
      const client = fake.client(1, 'monitor');
      const outcomes = await recoverDatabase(client, { server: 's', database: 'lab', journal: fake.journal() }, {
        ownerGraceMs: 5000,
        // The owner reconnects while we wait: its workload holds the run again (the poll sees it, no clock involved).
        onWait: () => void fake.runLocks.add(runLockResourceOf(gone.run)),
        assess: { thisHost: 'LAPTOP' },
      });
      assert.deepEqual(outcomes.map((o) => o.status), ['in-use']);
      assert.equal(fake.setting, 'FORCED');
    });

    it('an unreadable marker is never acted on', async () => {
      const fake = new FakeServer();
      fake.setting = 'FORCED';
      fake.marker = '{"v":1,"run":"x","original":"FORCED; DROP TABLE t"}';
      const outcomes = await recoverDatabase(fake.client(1, 'monitor'), { server: 's', database: 'lab', journal: fake.journal() });
      assert.deepEqual(outcomes.map((o) => o.status), ['in-use']);
      assert.match(outcomes[0]!.message, /this version cannot read/);
      assert.equal(fake.setting, 'FORCED');
    });
  });
});
