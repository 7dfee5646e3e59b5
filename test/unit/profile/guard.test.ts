import { strict as assert } from 'node:assert';
import { alterDurabilitySql, DurabilityChangeError, DurabilityGuard, recoverFromJournal, setDurability } from '../../../src/profile/durabilityGuard';
import { newRestoreEntry } from '../../../src/profile/restoreJournal';
import { FakeServer } from './fakeServer';

describe('durability guard', () => {
  it('quotes the database name and accepts only the three settings', () => {
    assert.equal(alterDurabilitySql('a]b', 'FORCED'), 'ALTER DATABASE [a]]b] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;');
    assert.throws(() => alterDurabilitySql('lab', 'FORCED; DROP TABLE x' as never), RangeError);
  });

  it('writes the journal before the first change and clears it only after reading the original back', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 'sql1,1433', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.begin('DISABLED');
    await guard.apply('FORCED');
    const outcome = await guard.restore();
    assert.deepEqual(fake.log, ['journal-put:DISABLED', 'journal-put:DISABLED', 'alter:FORCED', 'read:FORCED', 'read:FORCED', 'alter:DISABLED', 'read:DISABLED', 'read:DISABLED', 'journal-remove']);
    assert.equal(outcome!.status, 'restored');
    assert.equal(outcome!.verifiedSetting, 'DISABLED');
    assert.equal(journal.entries.length, 0);
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
    await guard.begin('DISABLED');
    await assert.rejects(guard.apply('FORCED'), DurabilityChangeError); // the read-back after the ALTER hits the dead socket
    const outcome = await guard.restore();
    assert.equal(outcome!.status, 'restored');
    assert.equal(fake.setting, 'DISABLED');
    assert.ok(fake.log.includes('open#2:monitor'));
  });

  it('keeps the journal entry and names the exact statement when the restore cannot be done', async () => {
    const fake = new FakeServer();
    const journal = fake.journal();
    const guard = new DurabilityGuard({ journal, server: 's', database: 'lab', monitor: fake.client(1, 'monitor') });
    await guard.begin('DISABLED');
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
});
