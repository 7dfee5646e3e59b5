// The restore journal: the key-value store (extension) and the folder of entry files (CLI) — round trips, a new
// instance, an earlier version's single file moved into the folder, and many processes writing at once without
// losing an entry (issue 25 N7: the old lock file, taken over when "stale", lost entries under load).
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FileRestoreJournal, KeyValueRestoreJournal, MemoryStore, newRestoreEntry, type RestoreJournal } from '../../../src/profile/restoreJournal';

const REPO = resolve(__dirname, '../../..');
const entry = () => newRestoreEntry({ server: 'sql1,1433', database: 'lab', originalSetting: 'DISABLED', lastApplied: null, restoreStatement: 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;' });

async function roundTrip(journal: RestoreJournal): Promise<void> {
  assert.deepEqual(await journal.list(), []);
  const a = entry();
  const b = entry();
  await journal.put(a);
  await journal.put(b);
  await journal.put({ ...a, lastApplied: 'FORCED' });
  const listed = await journal.list();
  assert.deepEqual(listed.map((e) => [e.id, e.lastApplied]).sort(), [[a.id, 'FORCED'], [b.id, null]].sort());
  await journal.remove(a.id);
  assert.deepEqual((await journal.list()).map((e) => e.id), [b.id]);
}

describe('restore journal', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-journal-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('key-value journal (globalState-like) adds, replaces by id and removes', async () => {
    await roundTrip(new KeyValueRestoreJournal(new MemoryStore()));
  });

  it('file journal: one private file per entry, survives a new instance, creates its folder', async () => {
    const path = join(dir, 'nested', 'restore-journal');
    await roundTrip(new FileRestoreJournal(path));
    const again = await new FileRestoreJournal(path).list();
    assert.equal(again.length, 1);
    const files = await readdir(path);
    assert.deepEqual(files, [`${again[0]!.id}.json`], 'no temp file left');
    const written = JSON.parse(await readFile(join(path, files[0]!), 'utf8')) as Record<string, unknown>;
    assert.equal(written.schemaVersion, 2);
    assert.equal(written.id, again[0]!.id);
    assert.equal('schemaVersion' in again[0]!, false);
    if (process.platform !== 'win32') {
      assert.equal((await stat(join(path, files[0]!))).mode & 0o777, 0o600);
      assert.equal((await stat(path)).mode & 0o777, 0o700);
    }
  });

  it('an entry read back carries the restore statement rebuilt from its database and setting, never its own text; an entry without a real setting is not read (outside attack)', async () => {
    const path = join(dir, 'restore-journal');
    const planted = { schemaVersion: 2, id: 'planted', server: 'sql1,1433', database: 'lab]x', originalSetting: 'DISABLED', lastApplied: 'FORCED', createdAt: '2026-11-28T00:00:00.000Z', restoreStatement: 'DROP DATABASE [prod];' };
    const bogus = { ...planted, id: 'bogus', originalSetting: 'FORCED; DROP DATABASE [prod]' };
    const wrongLast = { ...planted, id: 'wrong-last', lastApplied: 'EVERYTHING' };
    await new FileRestoreJournal(path).list(); // creates the folder
    for (const e of [planted, bogus, wrongLast]) await writeFile(join(path, `${e.id}.json`), JSON.stringify(e));
    const store = new MemoryStore();
    await store.update('durabilityLens.restoreJournal', [planted, bogus, wrongLast]);
    for (const journal of [new FileRestoreJournal(path), new KeyValueRestoreJournal(store)]) {
      const listed = await journal.list();
      assert.deepEqual(listed.map((e) => [e.id, e.restoreStatement]), [['planted', 'ALTER DATABASE [lab]]x] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;']]);
    }
  });

  it("an earlier version's single-file journal passed as --journal moves into PATH.d, and nothing is lost", async () => {
    const path = join(dir, 'restore-journal.json');
    const old = [entry(), { ...entry(), id: 'not-a-uuid/../x', lastApplied: 'FORCED' as const }];
    await writeFile(path, JSON.stringify({ schemaVersion: 1, entries: old }));
    await writeFile(`${path}.lock`, JSON.stringify({ pid: 1, host: 'x', at: new Date(0).toISOString() })); // an old lock: irrelevant now
    const journal = new FileRestoreJournal(path);
    assert.deepEqual((await journal.list()).map((e) => e.id).sort(), old.map((e) => e.id).sort());
    assert.deepEqual((await readdir(dir)).sort(), ['restore-journal.json.d', 'restore-journal.json.lock'], 'the old file was consumed');
    const files = await readdir(join(dir, 'restore-journal.json.d'));
    assert.ok(files.every((f) => /^[0-9a-f-]{32,36}\.json$/.test(f)), `entry files are named safely: ${files.join(' ')}`);
    await journal.remove('not-a-uuid/../x');
    assert.deepEqual((await journal.list()).map((e) => e.id), [old[0]!.id]);
  });

  it('a --journal path naming a file that is not a journal is refused and left as it was (outside attack)', async () => {
    for (const [name, body] of [['notes.txt', 'my notes\nline 2\n'], ['comparison.json', JSON.stringify({ kind: 'comparison', runs: [] })], ['odd.json', JSON.stringify({ entries: [{ id: 1 }] })]] as const) {
      const path = join(dir, name);
      await writeFile(path, body);
      const journal = new FileRestoreJournal(path);
      await assert.rejects(journal.list(), (err: Error) => err.name === 'NotAJournalError' && err.message.includes('left untouched'));
      await assert.rejects(journal.put(entry()), /not a Durability Lens restore journal/);
      assert.equal(await readFile(path, 'utf8'), body, `${name} was changed`);
    }
    assert.deepEqual((await readdir(dir)).sort(), ['comparison.json', 'notes.txt', 'odd.json'], 'no PATH.d folder, no migrating copy');
  });

  it('many processes put and remove at once: no entry lost, no remove undone, no temp file left', async function () {
    this.timeout(120000);
    const path = join(dir, 'journal');
    const script = join(dir, 'writer.ts');
    // Each process puts 30 entries, rewrites each once (lastApplied), and removes every third of its own.
    await writeFile(
      script,
      `import { FileRestoreJournal, newRestoreEntry } from ${JSON.stringify(join(REPO, 'src/profile/restoreJournal'))};
const journal = new FileRestoreJournal(process.argv[2]!);
(async () => {
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) {
    const e = newRestoreEntry({ server: 's', database: 'w' + process.pid + '_' + i, originalSetting: 'DISABLED', lastApplied: null, restoreStatement: 'x' });
    ids.push(e.id);
    await journal.put(e);
    await journal.put({ ...e, lastApplied: 'FORCED' });
  }
  for (let i = 0; i < 30; i += 3) await journal.remove(ids[i]!);
  process.stdout.write(JSON.stringify(ids));
})().catch((err) => { console.error(err); process.exit(1); });
`,
    );
    const writers = 8;
    const run = () =>
      new Promise<{ code: number | null; ids: string[] }>((done) => {
        let out = '';
        const child = spawn(process.execPath, ['--import', 'tsx', script, path], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
        child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
        child.on('exit', (code) => done({ code, ids: code === 0 ? (JSON.parse(out) as string[]) : [] }));
      });
    const results = await Promise.all(Array.from({ length: writers }, run));
    assert.deepEqual(results.map((r) => r.code), Array(writers).fill(0));
    const expected = results.flatMap((r) => r.ids.filter((_, i) => i % 3 !== 0)).sort();
    const entries = await new FileRestoreJournal(path).list();
    assert.deepEqual(entries.map((e) => e.id).sort(), expected, 'exactly the entries not removed');
    assert.ok(entries.every((e) => e.lastApplied === 'FORCED'), 'every rewrite landed');
    assert.ok((await readdir(path)).every((f) => /^[0-9a-f-]{36}\.json$/.test(f)), 'no temp file left');
  });
});
