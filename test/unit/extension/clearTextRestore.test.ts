// "Restore Now" sends a stored password like Connect does: over an encrypt:false profile to a non-loopback server it
// asks first (the modal of certificateTrust.ts), and a declined prompt sends nothing — the entry stays in the journal
// and the failure says why (issue 25 N6).
import * as assert from 'node:assert/strict';
import { KeyValueRestoreJournal, MemoryStore, alterDurabilitySql, newRestoreEntry } from '../../../src/profile';
import { fakeOutput, installFakeVscode, sharedFake } from './support/fakeVscode';

describe('extension: Restore Now over a clear-text profile', () => {
  const fake = sharedFake;
  let uninstall: () => void;

  before(() => {
    fake.reset();
    uninstall = installFakeVscode(fake);
  });
  after(() => {
    delete fake.settings['durabilityLens.connections'];
    fake.secrets.clear(); // the shared fake's secret storage outlives reset(): later files must not see this password
    uninstall?.();
  });

  it('asks before sending the password in clear text; declined, nothing is sent and the entry stays', async () => {
    const { ConnectionStore } = await import('../../../src/extension/connections/connectionStore');
    const { ConnectionManager } = await import('../../../src/extension/connections/connectionManager');
    const { secretKey } = await import('../../../src/db/storedProfiles');
    // A name that is not loopback and that nothing answers: a connection attempt would fail with a different message.
    fake.settings['durabilityLens.connections'] = [{ name: 'remote-lab', server: 'lab-db.invalid', port: 1433, database: 'lab', user: 'sa', encrypt: false }];
    const store = new ConnectionStore(fake.secretStorage() as never);
    await fake.secretStorage().store(secretKey(store.find('remote-lab')!), 'Stored-Pass-1');
    const lines: string[] = [];
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    const manager = new ConnectionManager(store, fakeOutput(lines) as never, journal, async () => undefined);
    const entry = newRestoreEntry({ server: 'lab-db.invalid,1433', database: 'lab', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: alterDurabilitySql('lab', 'DISABLED') });
    await journal.put(entry);
    fake.shown = [];
    fake.messageAnswers = [undefined]; // the clear-text modal is dismissed
    await manager.restoreEntries([entry]);
    const prompt = fake.shown.find((m) => m.modal && /encryption turned off/.test(m.message));
    assert.ok(prompt, `the clear-text prompt was shown: ${JSON.stringify(fake.shown)}`);
    assert.match(prompt.message, /"remote-lab" has encryption turned off: the password for sa will be sent to .*lab-db\.invalid.* in clear text/);
    const failure = fake.shown.find((m) => m.kind === 'error');
    assert.match(failure?.message ?? '', /the password would reach lab-db\.invalid,1433 in clear text, and that was not confirmed: nothing was sent/);
    assert.deepEqual((await journal.list()).map((e) => e.id), [entry.id], 'the entry stays for a later restore');
    manager.dispose();
  });
});
