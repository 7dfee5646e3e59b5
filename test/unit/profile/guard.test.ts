import { strict as assert } from 'node:assert';
import { alterDurabilitySql, DurabilityChangeError, DurabilityGuard, setDurability } from '../../../src/profile/durabilityGuard';
import { recoverFromJournal } from '../../../src/profile/recovery';
import { newRestoreEntry } from '../../../src/profile/restoreJournal';
import type { SqlClient } from '../../../src/db/types';
import { FakeServer } from './fakeServer';

/** A client whose ALTER fails with `error` and whose read-back answers `setting` (or fails when null). */
function failingAlterClient(error: unknown, setting: 'DISABLED' | null): SqlClient {
  return {
    query: async () => {
      if (setting === null) throw Object.assign(new Error('The connection is closed.'), { code: 'ECLOSE' });
      return [{ delayed_durability_desc: setting }];
    },
    execute: async () => {
      throw error;
    },
  };
}

describe('durability guard', () => {
  it('quotes the database name and accepts only the three settings', () => {
    assert.equal(alterDurabilitySql('a]b', 'FORCED'), 'ALTER DATABASE [a]]b] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;');
    assert.throws(() => alterDurabilitySql('lab', 'FORCED; DROP TABLE x' as never), RangeError);
  });

  it('writes the journal before the first change and clears it only after reading the original back', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 'sql1,1433', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    const outcome = await guard.restore();
    await guard.release();
    assert.deepEqual(fake.log, ['lock', 'read:DISABLED', 'journal-put:DISABLED', 'journal-put:DISABLED', 'alter:FORCED', 'read:FORCED', 'read:FORCED', 'alter:DISABLED', 'read:DISABLED', 'read:DISABLED', 'journal-remove', 'unlock']);
    assert.equal(outcome!.status, 'restored');
    assert.equal(outcome!.verifiedSetting, 'DISABLED');
    assert.equal(journal.entries.length, 0);
  });

  it('reads the original under the database lock, not from the plan, and refuses to read it without the lock', async () => {
    const fake = new FakeServer();
    const guard = new DurabilityGuard({ journal: fake.journal(), server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await assert.rejects(guard.begin(), /lock\(\) must hold the database/);
    fake.setting = 'ALLOWED'; // changed since the plan was read
    await guard.lock();
    const entry = await guard.begin();
    assert.equal(entry.originalSetting, 'ALLOWED');
    assert.deepEqual(fake.log.slice(0, 2), ['lock', 'read:ALLOWED']);
  });

  it('a database held by another comparison is refused with who holds it, before anything is read or changed', async () => {
    const fake = new FakeServer();
    fake.lockHeld = true;
    const guard = new DurabilityGuard({ journal: fake.journal(), server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    const attempt = await guard.lock();
    assert.equal(attempt.acquired, false);
    assert.ok(!attempt.acquired && attempt.code === -1);
    if (!attempt.acquired) {
      assert.deepEqual([attempt.holder.sessionId, attempt.holder.host, attempt.holder.program, attempt.holder.since], [77, 'BUILD-7', 'Durability Lens CLI', '2026-01-02T03:04:05.000Z']);
    }
    assert.deepEqual(fake.log, ['lock-refused']);
  });

  it('restore retries a lock wait (5061) with backoff within its deadline', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    fake.alterLockedTimes = 2;
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'restored', outcome.message);
    assert.equal(fake.log.filter((l) => l === 'alter-refused:DISABLED').length, 2);
    assert.equal(fake.setting, 'DISABLED');
    assert.equal(journal.entries.length, 0);
  });

  it('restore leaves a setting another session changed (not what we last applied) and reports it', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    fake.setting = 'ALLOWED'; // a DBA's ALTER from another session
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'external-change');
    assert.equal(outcome.verifiedSetting, 'ALLOWED');
    assert.equal(fake.setting, 'ALLOWED');
    assert.ok(!fake.log.includes('alter:DISABLED'), 'no ALTER over their change');
    assert.match(outcome.message, /is ALLOWED, but this comparison last set FORCED: another session changed it .* left as it is \(not overwritten\)\. It was DISABLED before .* ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;/);
  });

  it('restore reconnects with its own time limit, not the cancelled run signal', async () => {
    const fake = new FakeServer();
    fake.dropMonitorAfterAlters = 1;
    const source = fake.source();
    const cancelled = new AbortController();
    cancelled.abort();
    const signals: AbortSignal[] = [];
    const guard = new DurabilityGuard({
      journal: fake.journal(), server: 's', database: 'lab', monitor: await source.open('monitor'),
      reopenMonitor: (signal) => {
        signals.push(signal);
        return signal.aborted ? Promise.reject(new Error('aborted')) : source.open('monitor', signal);
      },
    });
    await guard.lock();
    await guard.begin();
    await assert.rejects(guard.apply('FORCED'), DurabilityChangeError);
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'restored', outcome.message);
    assert.equal(signals.length, 1);
    assert.equal(signals[0]!.aborted, false);
    assert.deepEqual(fake.log.filter((l) => l.startsWith('lock')), ['lock', 'lock'], 'the lock is taken again on the new connection');
  });

  it('recovery leaves an entry whose comparison still holds the database', async () => {
    const fake = new FakeServer();
    fake.setting = 'FORCED';
    fake.lockHeld = true;
    const journal = fake.journal();
    await journal.put(newRestoreEntry({ server: 's', database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') }));
    const outcomes = await recoverFromJournal(journal, async () => fake.client(9, 'monitor'));
    assert.deepEqual(outcomes.map((o) => o.status), ['in-use']);
    assert.match(outcomes[0]!.message, /a comparison still holds it \(session 77 on host BUILD-7/);
    assert.equal(fake.setting, 'FORCED');
    assert.equal(journal.entries.length, 1);
  });

  it('refuses to change anything before the original is journalled', async () => {
    const fake = new FakeServer();
    const guard = new DurabilityGuard({ journal: fake.journal(), server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await assert.rejects(guard.apply('FORCED'), /must journal/);
    assert.deepEqual(fake.log, []);
  });

  it('a locked database fails fast with a clear error and the setting read back unchanged', async () => {
    const fake = new FakeServer();
    fake.alterLocked = true;
    const err = await setDurability(fake.client(1, 'monitor'), 'lab', 'FORCED').catch((e: unknown) => e);
    assert.ok(err instanceof DurabilityChangeError);
    assert.equal(err.serverErrorNumber, 5061);
    assert.equal(err.settingNow, 'DISABLED');
    assert.match(err.message, /The setting is still DISABLED/);
    assert.equal(fake.setting, 'DISABLED');
  });

  it('reconnects to restore when the monitor connection dropped', async () => {
    const fake = new FakeServer();
    fake.dropMonitorAfterAlters = 1;
    const source = fake.source();
    const monitor = await source.open('monitor');
    const guard = new DurabilityGuard({ journal: fake.journal(), server: 's', database: 'lab', monitor, reopenMonitor: () => source.open('monitor') });
    await guard.lock();
    await guard.begin();
    await assert.rejects(guard.apply('FORCED'), DurabilityChangeError); // the read-back after the ALTER hits the dead socket
    const outcome = await guard.restore();
    assert.equal(outcome!.status, 'restored');
    assert.equal(fake.setting, 'DISABLED');
    assert.ok(fake.log.includes('open#2:monitor'));
  });

  it('keeps the journal entry and names the exact statement when the restore cannot be done', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor'), restoreTimeoutMs: 300 });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    fake.alterLocked = true;
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'failed');
    assert.equal(outcome.journalCleared, false);
    assert.equal(outcome.restoreStatement, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;');
    assert.match(outcome.message, /run this on the server: ALTER DATABASE \[lab\] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;/);
    assert.equal(journal.entries.length, 1);
  });

  it('recovers a leftover entry at the next start, and leaves unreachable ones in the journal', async () => {
    const fake = new FakeServer();
    fake.setting = 'FORCED';
    const journal = fake.journal();
    const entry = newRestoreEntry({ server: 's', database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') });
    await journal.put(entry);
    const unreachable = await recoverFromJournal(journal, async () => {
      throw new Error('server unreachable');
    });
    assert.equal(unreachable[0]!.status, 'failed');
    assert.equal(journal.entries.length, 1);
    const outcomes = await recoverFromJournal(journal, async () => fake.client(9, 'monitor'));
    assert.deepEqual(outcomes.map((o) => [o.status, o.verifiedSetting]), [['restored', 'DISABLED']]);
    assert.equal(journal.entries.length, 0);
    assert.ok(fake.log.includes('close#9'), 'the recovery connection is closed');
  });

  it('reports restored when the restoring ALTER ran and only its read-back hit the dropped connection', async () => {
    const fake = new FakeServer();
    const source = fake.source();
    const guard = new DurabilityGuard({ journal: fake.journal(), server: 's', database: 'lab', monitor: await source.open('monitor'), reopenMonitor: () => source.open('monitor') });
    await guard.lock();
    await guard.begin();
    await guard.apply('FORCED');
    fake.dropMonitorAfterAlters = 2; // the restoring ALTER is the second: it runs, then the connection dies
    const outcome = (await guard.restore())!;
    assert.deepEqual(fake.log.slice(-7), ['read:FORCED', 'alter:DISABLED', 'open#2:monitor', 'lock', 'read:DISABLED', 'read:DISABLED', 'journal-remove']);
    assert.equal(outcome.status, 'restored', outcome.message);
    assert.match(outcome.message, /back to DISABLED \(verified\)/);
  });

  it('still reports already-original when the change itself never took effect', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.lock();
    await guard.begin();
    fake.alterLocked = true;
    await assert.rejects(guard.apply('FORCED'), DurabilityChangeError);
    fake.alterLocked = false;
    const outcome = (await guard.restore())!;
    assert.equal(outcome.status, 'already-original');
    assert.equal(journal.entries.length, 0);
  });

  describe('advice of a failed ALTER', () => {
    const serverError = (number: number, message: string) => Object.assign(new Error(message), { number, state: 1, class: 16, message, lineNumber: 1 });
    const failure = async (client: SqlClient, grant?: string) => {
      const err = await setDurability(client, 'la]b', 'FORCED', grant ? { grant } : {}).catch((e: unknown) => e);
      assert.ok(err instanceof DurabilityChangeError);
      return err;
    };

    it('a lock error (5061, 1222) gets the NO_WAIT lock advice', async () => {
      for (const number of [5061, 1222]) {
        const err = await failure(failingAlterClient(serverError(number, 'locked.'), 'DISABLED'));
        assert.match(err.message, new RegExp(`SQL error ${number}: locked\\)\\. The setting is still DISABLED\\. WITH NO_WAIT fails .* holds a lock`));
        assert.doesNotMatch(err.message, /GRANT/);
      }
    });

    it('5011 (with the 5069 that follows every failure) names the GRANT, quoted, and no lock advice', async () => {
      const error = new AggregateError([serverError(5011, 'User does not have permission to alter database \'la]b\'.'), serverError(5069, 'ALTER DATABASE statement failed.')], 'x');
      const err = await failure(failingAlterClient(error, 'DISABLED'), 'USE [la]]b];\nGRANT ALTER ON DATABASE::[la]]b] TO [us]]er];');
      assert.equal(err.serverErrorNumber, 5011);
      assert.match(err.message, /lacks ALTER permission on \[la\]\]b\]\. Ask an administrator to run: USE \[la\]\]b\];\nGRANT ALTER ON DATABASE::\[la\]\]b\] TO \[us\]\]er\];$/);
      assert.doesNotMatch(err.message, /lock/);
      // Without the caller's GRANT the statement still names the database, quoted.
      const bare = await failure(failingAlterClient(error, 'DISABLED'));
      assert.match(bare.message, /GRANT ALTER ON DATABASE::\[la\]\]b\] TO /);
    });

    it('a dropped connection says the connection was lost, without lock or GRANT advice and without doubled periods', async () => {
      const dropped = Object.assign(new Error('Connection lost - socket hang up. (while running: ALTER DATABASE [la]]b] SET ...)'), { code: 'ESOCKET' });
      const err = await failure(failingAlterClient(dropped, null));
      assert.equal(err.serverErrorNumber, null);
      assert.equal(err.message, 'Could not set DELAYED_DURABILITY = FORCED on [la]]b]: the connection to the server was lost (Connection lost - socket hang up), so whether the ALTER ran is not known. The current setting could not be read back.');
    });

    it('another server error gets no advice', async () => {
      const err = await failure(failingAlterClient(serverError(5058, "Option 'DELAYED_DURABILITY' cannot be set in database 'la]b'."), 'DISABLED'));
      assert.equal(err.message, "Could not set DELAYED_DURABILITY = FORCED on [la]]b] (SQL error 5058: Option 'DELAYED_DURABILITY' cannot be set in database 'la]b'). The setting is still DISABLED.");
    });
  });
});
