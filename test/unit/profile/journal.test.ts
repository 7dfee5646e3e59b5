import { strict as assert } from 'node:assert';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileRestoreJournal, KeyValueRestoreJournal, MemoryStore, newRestoreEntry, type RestoreJournal } from '../../../src/profile/restoreJournal';

const entry = () => newRestoreEntry({ server: 'sql1,1433', database: 'lab', originalSetting: 'DISABLED', lastApplied: null, restoreStatement: 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;' });

async function roundTrip(journal: RestoreJournal): Promise<void> {
  assert.deepEqual(await journal.list(), []);
  const a = entry();
  const b = entry();
  await journal.put(a);
  await journal.put(b);
  await journal.put({ ...a, lastApplied: 'FORCED' });
  const listed = await journal.list();
  assert.deepEqual(listed.map((e) => [e.id, e.lastApplied]), [[b.id, null], [a.id, 'FORCED']]);
  await journal.remove(a.id);
  assert.deepEqual((await journal.list()).map((e) => e.id), [b.id]);
}

describe('restore journal', () => {
  it('key-value journal (globalState-like) adds, replaces by id and removes', async () => {
    await roundTrip(new KeyValueRestoreJournal(new MemoryStore()));
  });

  it('file journal survives a new instance and creates its folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lens-journal-'));
    try {
      const path = join(dir, 'nested', 'restore-journal.json');
      await roundTrip(new FileRestoreJournal(path));
      const again = await new FileRestoreJournal(path).list();
      assert.equal(again.length, 1);
      assert.equal(JSON.parse(await readFile(path, 'utf8')).schemaVersion, 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
