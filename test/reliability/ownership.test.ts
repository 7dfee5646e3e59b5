// One owner per database and nothing overwritten: two comparisons (core, and two extension windows) on one database,
// another session's change during a run, the original read under the lock, journal recovery while the run lives,
// journal writers in two processes, lock waits and a dropped monitor during the restore after a cancel, and statement
// versus fatal errors in the workload. Every test waits on the stand-in (a held request) or on events, never sleeps.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect } from '../../src/db/connect';
import { FileRestoreJournal, profileConnectionSource, READ_DURABILITY_SQL, recoverFromJournal, type KeyValueRestoreJournal } from '../../src/profile';
import { toTediousConfig, WORKLOAD_CANCEL_TIMEOUT_MS } from '../../src/db/profile';
import type { ConnectionManager as ConnectionManagerType } from '../../src/extension/connections/connectionManager';
import type { ProfilingController as ProfilingControllerType } from '../../src/extension/profiling/profilingController';
import { OWNERSHIP_CASES } from './cases';
import { atStep, compare, leftBehind, newJournal, WORKLOAD } from './comparison';
import { startReliabilityStandin, waitUntil, type RecordedRequest, type ReliabilityStandin } from './harness';
import { fakeOutput, installFakeVscode, sharedFake } from '../unit/extension/support/fakeVscode';

const DB = 'rel_own';
const REPO = resolve(__dirname, '../..');

describe('reliability: one owner per database, nothing overwritten (stand-in)', function () {
  this.timeout(90000);
  let h: ReliabilityStandin;
  let journal: KeyValueRestoreJournal;

  before(async () => {
    h = await startReliabilityStandin();
    h.engine.addDatabase({ name: DB });
  });
  beforeEach(() => {
    h.engine.faults.reset();
    h.holdWhen = null;
    h.onRequest = null;
    journal = newJournal();
  });
  afterEach(async function () {
    h.release();
    h.engine.faults.reset();
    if (this.currentTest?.state !== 'passed') return;
    await waitUntil(() => h.server.connections === 0, 'every connection closed');
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
    assert.deepEqual(await journal.list(), []);
    assert.equal(h.marker(DB), null, 'no ownership marker left');
  });
  after(async () => {
    await h?.close();
  });

  const forcedWorkload = (r: RecordedRequest) => /INSERT INTO dbo\.rel_t/.test(r.text) && h.setting(DB) === 'FORCED';
  const setSetting = (mode: 0 | 1 | 2) => void (h.engine.state.dbByName(DB)!.delayedDurability = mode);

  it(OWNERSHIP_CASES.twoComparisons.title, async () => {
    h.holdWhen = forcedWorkload;
    const first = compare(h, DB, journal);
    await h.held();
    const mark = h.log.length;
    const otherJournal = newJournal();
    const second = await compare(h, DB, otherJournal);
    assert.equal(second.status, 'refused');
    assert.deepEqual(second.plan.refusals.map((r) => r.code), ['in-use']);
    assert.match(second.plan.refusals[0]!.message, /^A comparison owns \[rel_own\] since \d{4}-[^:]+:\d\d:\d\d\.\d{3}Z: process \d+ on .+; the original setting is DISABLED; it last set FORCED .*It is running: session \d+ on host .*program "Durability Lens \(monitor\)".* holds the database lock\. Nothing was changed/);
    assert.equal(second.ownedBy?.original, 'DISABLED');
    assert.ok(second.ownedBy?.since && !Number.isNaN(Date.parse(second.ownedBy.since)), JSON.stringify(second.ownedBy));
    assert.equal(second.restore, null);
    assert.deepEqual(await otherJournal.list(), []);
    // It neither read a setting to restore nor changed one; the first comparison's FORCED is untouched.
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE/i.test(r.text) || r.text === READ_DURABILITY_SQL), []);
    assert.equal(h.setting(DB), 'FORCED');
    h.release();
    const done = await first;
    assert.equal(done.status, 'completed', done.error?.message);
    assert.equal(done.restore?.status, 'restored');
  });

  it(OWNERSHIP_CASES.externalChange.title, async () => {
    h.holdWhen = forcedWorkload;
    const running = compare(h, DB, journal);
    await h.held();
    const dba = await connect(h.profile('master'), h.secret, { role: 'monitor' });
    await dba.execute(`ALTER DATABASE [${DB}] SET DELAYED_DURABILITY = ALLOWED WITH NO_WAIT;`);
    await dba.close();
    h.release();
    const result = await running;
    assert.equal(result.status, 'failed');
    assert.equal(result.error?.kind, 'external-change');
    assert.match(result.error!.message, /Another session changed DELAYED_DURABILITY of rel_own to ALLOWED during run 2 of 2: FORCED: that run was measured under ALLOWED, not FORCED, so it was discarded/);
    assert.deepEqual(result.runs.map((r) => r.mode), ['DISABLED']);
    assert.deepEqual(result.discardedRuns, [{ mode: 'FORCED', repetition: 0, warmup: false, settingFound: 'ALLOWED', when: 'after' }]);
    assert.equal(result.restore?.status, 'external-change');
    assert.equal(result.restore?.verifiedSetting, 'ALLOWED');
    assert.match(result.restore!.message, /left as it is \(not overwritten\)/);
    assert.equal(h.setting(DB), 'ALLOWED', 'their change stands');
    setSetting(0);
  });

  it(OWNERSHIP_CASES.originalUnderLock.title, async () => {
    const result = await compare(h, DB, journal, {
      confirm: () => {
        setSetting(1); // ALLOWED, set by someone else between the plan and the confirmation
        return true;
      },
    });
    assert.equal(result.plan.currentSetting, 'DISABLED');
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.restore?.originalSetting, 'ALLOWED');
    assert.equal(result.restore?.verifiedSetting, 'ALLOWED');
    assert.equal(h.setting(DB), 'ALLOWED');
    setSetting(0);
  });

  it(OWNERSHIP_CASES.liveRecovery.title, async () => {
    h.holdWhen = forcedWorkload;
    const running = compare(h, DB, journal);
    await h.held();
    assert.equal((await journal.list()).length, 1);
    const outcomes = await recoverFromJournal(journal, (e) => connect(h.profile(e.database), h.secret, { role: 'monitor' }));
    assert.deepEqual(outcomes.map((o) => o.status), ['in-use']);
    assert.match(outcomes[0]!.message, /a comparison still holds it \(session \d+/);
    assert.equal(h.setting(DB), 'FORCED');
    assert.equal((await journal.list()).length, 1);
    h.release();
    const result = await running;
    assert.equal(result.restore?.status, 'restored');
  });

  it(OWNERSHIP_CASES.restoreLockWait.title, async () => {
    h.clearLog();
    const result = await compare(h, DB, journal, {
      onProgress: atStep('restore-durability', () => {
        h.engine.faults.statements.push({ pattern: /SET DELAYED_DURABILITY = DISABLED/, number: 5061, message: "ALTER DATABASE failed because a lock could not be placed on database 'rel_own'. Try again later.", times: 2 });
      }),
    });
    assert.equal(result.restore?.status, 'restored', result.restore?.message);
    assert.equal(h.log.filter((r) => /SET DELAYED_DURABILITY = DISABLED/.test(r.text)).length, 3);
  });

  it(OWNERSHIP_CASES.cancelThenDrop.title, async () => {
    const abort = new AbortController();
    let forced = false;
    const result = await compare(h, DB, journal, {
      signal: abort.signal,
      onProgress: (e) => {
        if (e.step === 'set-durability' && e.detail?.startsWith('FORCED')) forced = true;
        if (forced && e.step === 'workload') abort.abort();
        if (forced && e.step === 'restore-durability') h.engine.faults.dropAtRequest = 1; // the restore's first request
      },
    });
    assert.equal(result.status, 'cancelled');
    assert.equal(result.restore?.status, 'restored', result.restore?.message);
    assert.equal(result.restore?.verifiedSetting, 'DISABLED');
  });

  it(OWNERSHIP_CASES.cancelNotAcknowledged.title, async () => {
    // The default leaves a real server time to roll back before it acknowledges (tedious's own default is 5 s).
    assert.equal(toTediousConfig(h.profile(DB), h.secret, 'workload').options?.cancelTimeout, WORKLOAD_CANCEL_TIMEOUT_MS);
    assert.ok(WORKLOAD_CANCEL_TIMEOUT_MS >= 60_000);
    h.engine.faults.attentionAckDelayMs = 3000;
    h.holdWhen = forcedWorkload;
    const abort = new AbortController();
    const running = compare(h, DB, journal, { signal: abort.signal, connections: profileConnectionSource({ ...h.profile(DB), cancelTimeoutMs: 200 }, h.secret) });
    await h.held();
    abort.abort();
    const result = await running;
    assert.equal(result.status, 'cancelled', result.error?.message);
    const forced = result.runs.at(-1)!;
    assert.equal(forced.mode, 'FORCED');
    assert.ok(forced.notes.some((n) => /workload connection was closed while its cancel was pending/.test(n)), forced.notes.join('\n'));
    assert.equal(result.restore?.status, 'restored', result.restore?.message);
  });

  it(OWNERSHIP_CASES.statementError.title, async () => {
    const measuredLine = WORKLOAD.split('\n').indexOf('SET NOCOUNT ON;');
    const result = await compare(h, DB, journal, {
      onProgress: atStep('workload', () => {
        h.engine.faults.statements.push({ pattern: /INSERT INTO dbo\.rel_t/, number: 547, class: 16, message: 'The INSERT statement conflicted with a constraint.', times: 1 });
      }, false),
    });
    assert.equal(result.status, 'workload-error');
    assert.deepEqual(result.runs.map((r) => r.mode), ['DISABLED', 'FORCED']);
    const disabled = result.runs[0]!;
    assert.equal(disabled.batches[0]!.iterationsCompleted, 5);
    assert.deepEqual(disabled.errors.map((e) => [e.number, e.documentLine, e.endedRun]), [[547, measuredLine, false]]);
    assert.ok(disabled.notes.some((n) => /raised 1 SQL error\(s\), the first 547 at line \d+: the server carried on/.test(n)), disabled.notes.join('\n'));
    assert.equal(result.runs[1]!.errors.length, 0);
    assert.equal(result.restore?.status, 'restored');
  });

  it(OWNERSHIP_CASES.fatalError.title, async () => {
    const result = await compare(h, DB, journal, {
      onProgress: atStep('workload', () => {
        h.engine.faults.statements.push({ pattern: /INSERT INTO dbo\.rel_t/, number: 605, class: 21, message: 'Attempt to fetch logical page failed.', times: 1 });
      }),
    });
    assert.equal(result.status, 'workload-error');
    const forced = result.runs.at(-1)!;
    assert.equal(forced.mode, 'FORCED');
    assert.equal(forced.batches[0]!.iterationsCompleted, 0);
    assert.deepEqual(forced.errors.map((e) => [e.number, e.endedRun]), [[605, true]]);
    assert.equal(result.restore?.status, 'restored');
  });

  it(OWNERSHIP_CASES.journalWriters.title, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lens-journal-writers-'));
    try {
      const path = join(dir, 'restore-journal.json');
      const script = join(dir, 'writer.ts');
      // Each process puts 20 entries and removes every other one of its own: 20 must remain, none lost. The journal
      // is a folder of entry files (8 writers: test/unit/profile/journal.test.ts).
      await writeFile(
        script,
        `import { FileRestoreJournal, newRestoreEntry } from ${JSON.stringify(join(REPO, 'src/profile/restoreJournal'))};
const journal = new FileRestoreJournal(process.argv[2]!);
(async () => {
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const e = newRestoreEntry({ server: 's', database: 'w' + process.pid + '_' + i, originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: 'x' });
    ids.push(e.id);
    await journal.put(e);
  }
  for (let i = 0; i < 20; i += 2) await journal.remove(ids[i]!);
})().catch((err) => { console.error(err); process.exit(1); });
`,
      );
      const run = () =>
        new Promise<number | null>((done) => spawn(process.execPath, ['--import', 'tsx', script, path], { cwd: REPO, stdio: 'inherit' }).on('exit', done));
      assert.deepEqual(await Promise.all([run(), run()]), [0, 0]);
      const entries = await new FileRestoreJournal(path).list();
      assert.equal(entries.length, 20, entries.map((e) => e.database).join(' '));
      assert.equal(new Set(entries.map((e) => e.id)).size, 20);
      assert.deepEqual((await readdir(dir)).sort(), ['restore-journal.json', 'writer.ts']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('extension windows (fake vscode, in-host)', () => {
    let uninstall: () => void;
    const fake = sharedFake;
    const windows: Array<{ manager: ConnectionManagerType; controller: ProfilingControllerType }> = [];
    const script = ['SET NOCOUNT ON;', 'INSERT INTO dbo.rel_w DEFAULT VALUES;', 'GO 3', ''].join('\n');
    const doc = {
      uri: { toString: () => 'file:///w/own.sql' },
      version: 1,
      lineCount: script.split('\n').length,
      getText: () => script,
      offsetAt: (p: { line: number; character: number }) => script.split('\n').slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character,
      lineAt: (line: number) => ({ range: { start: { line, character: 0 }, end: { line, character: 0 } } }),
    };

    before(async () => {
      fake.reset();
      uninstall = installFakeVscode(fake);
      const setup = await connect(h.profile(DB), h.secret, { role: 'workload' });
      await setup.execute(`IF OBJECT_ID(N'dbo.rel_w', N'U') IS NULL CREATE TABLE dbo.rel_w (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL DEFAULT (1));`);
      await setup.close();
      const { ConnectionStore } = await import('../../src/extension/connections/connectionStore');
      const { ConnectionManager } = await import('../../src/extension/connections/connectionManager');
      const { ProfilingController } = await import('../../src/extension/profiling/profilingController');
      fake.settings['durabilityLens.connections'] = [{ name: 'own', server: '127.0.0.1', port: h.server.port, database: DB, user: 'sa', encrypt: false, development: true }];
      fake.settings['durabilityLens.compare.repetitions'] = 1;
      fake.settings['durabilityLens.compare.warmup'] = false;
      for (let i = 0; i < 2; i++) {
        const store = new ConnectionStore(fake.secretStorage() as never);
        const manager = new ConnectionManager(store, fakeOutput([]) as never, journal, async () => undefined);
        // Each window keeps its own journal store (globalState is per window in this test); the lock is the server's.
        const controller = new ProfilingController(fakeOutput([]) as never, manager, { show: async () => undefined, showRunning: async () => undefined, runEnded: async () => undefined } as never, i === 0 ? journal : newJournal());
        fake.quickPickAnswers.push((items) => items.find((x) => x.label === 'own'));
        fake.inputAnswers.push(h.secret);
        assert.equal(await manager.connect(), true);
        windows.push({ manager, controller });
      }
    });
    after(async () => {
      for (const w of windows) w.manager.dispose();
      // The fake is shared by every file in the run: later files expect the default comparison settings (a warm-up).
      for (const key of ['durabilityLens.connections', 'durabilityLens.compare.repetitions', 'durabilityLens.compare.warmup']) delete fake.settings[key];
      uninstall?.();
    });

    const wholeDocument = () => {
      const { Range, Position } = fake.module() as { Range: new (a: unknown, b: unknown) => unknown; Position: new (l: number, c: number) => unknown };
      return new Range(new Position(0, 0), new Position(script.split('\n').length - 1, 0)) as never;
    };

    it(OWNERSHIP_CASES.twoWindows.title, async () => {
      h.holdWhen = (r) => /INSERT INTO dbo\.rel_w/.test(r.text) && h.setting(DB) === 'FORCED';
      fake.shown = [];
      const first = windows[0]!.controller.profileText(doc as never, wholeDocument(), 'compare');
      await h.held();
      const mark = h.log.length;
      await windows[1]!.controller.profileText(doc as never, wholeDocument(), 'compare');
      const refusal = fake.shown.find((s) => s.kind === 'error');
      assert.ok(refusal, JSON.stringify(fake.shown));
      assert.match(refusal.message, /nothing was changed: A comparison owns \[rel_own\] since .* It is running: session \d+/);
      assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE/i.test(r.text)), []);
      assert.equal(h.setting(DB), 'FORCED');
      h.release();
      await first;
      assert.equal(h.setting(DB), 'DISABLED');
    });

    it(OWNERSHIP_CASES.oneWindowTwice.title, async () => {
      fake.shown = [];
      const controller = windows[0]!.controller;
      const first = controller.profileText(doc as never, wholeDocument(), 'profile');
      // Started in the same tick: before the fix both passed the check (the flag was set after an await).
      await controller.profileText(doc as never, wholeDocument(), 'profile');
      assert.ok(fake.shown.some((s) => s.kind === 'warning' && /a run is in progress/.test(s.message)), JSON.stringify(fake.shown));
      await first;
      assert.equal(controller.isRunning, false);
    });
  });
});

