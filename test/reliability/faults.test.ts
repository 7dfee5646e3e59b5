// Faults against the stand-in during a real DISABLED → FORCED comparison: dropped connections at every step, a
// restart, refused ALTERs, lock timeout, permission loss, cancel at every step. Each ends with the setting re-read
// from sys.databases as DISABLED, no durability_lens_% session, no open connection and an empty journal.
import { strict as assert } from 'node:assert';
import { connect } from '../../src/db/connect';
import { JOURNAL_KEY, KeyValueRestoreJournal, MemoryStore, recoverFromJournal, type ComparisonResult, type RestoreEntry } from '../../src/profile';
import { CANCEL_BEFORE_CHANGE, CANCEL_STEPS, cancelCase, cancelTooLate, DROP_CASES, FAULT_CASES } from './cases';
import { atStep, compare, leftBehind, newJournal } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';

const DB = 'rel_faults';

describe('reliability: faults during a comparison (stand-in)', function () {
  this.timeout(60000);
  let h: ReliabilityStandin;
  let journal: KeyValueRestoreJournal;

  before(async () => {
    h = await startReliabilityStandin();
    h.engine.addDatabase({ name: DB });
  });
  beforeEach(() => {
    h.engine.faults.reset();
    journal = newJournal();
  });
  afterEach(async function () {
    h.engine.faults.reset();
    h.dropNthRequest(null);
    h.onRequest = null;
    h.dropWhen = null;
    if (this.currentTest?.state !== 'passed') return;
    // Whatever happened: back to DISABLED (re-read from sys.databases), nothing journalled, nothing left running.
    await waitUntil(() => h.server.connections === 0, 'every connection closed');
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
    assert.deepEqual(await journal.list(), []);
    await waitUntil(() => h.server.connections === 0, 'the check connection closed');
  });
  after(async () => {
    await h?.close();
  });

  /** The session the workload runs on (its application name ends in "(workload)"). */
  function workloadSession() {
    const s = [...h.engine.state.sessions.values()].find((x) => /workload/i.test(x.appName));
    assert.ok(s, 'a workload session is open');
    return s;
  }

  function dropNextRequest(): void {
    h.engine.faults.dropAtRequest = 1; // the next request of any session
  }

  function assertRestoredFromForced(result: ComparisonResult): void {
    assert.ok(result.restore, 'a restore outcome');
    assert.equal(result.restore.status, 'restored', result.restore.message);
    assert.equal(result.restore.verifiedSetting, 'DISABLED');
    assert.equal(result.restore.journalCleared, true);
  }

  /** The FORCED run survived a lost monitor: after-snapshot on a new connection, trace reported missing. */
  function assertMonitorReplaced(result: ComparisonResult): void {
    assert.equal(result.status, 'completed', result.error?.message);
    const forced = result.runs.at(-1)!;
    assert.deepEqual([forced.mode, forced.status], ['FORCED', 'completed']);
    assert.ok(forced.notes.some((n) => /monitor connection failed during the run .*after-snapshot was taken on a new connection/.test(n)), forced.notes.join('\n'));
    assert.equal(forced.logFlushTrace, null);
    assert.ok(forced.missing.some((m) => m.measurement === 'extendedEvents'), JSON.stringify(forced.missing));
    // The last run: the claim was taken back before its setting was re-read, and then only the restore followed.
    assert.ok(forced.notes.some((n) => /took its claim back before re-reading the setting/.test(n)), forced.notes.join('\n'));
    assertRestoredFromForced(result);
  }

  describe('connection drops', () => {
    it(DROP_CASES.plan.title, async () => {
      await assert.rejects(compare(h, DB, journal, { onProgress: atStep('plan', dropNextRequest, false) }), /socket|connection|closed/i);
      assert.equal(h.setting(DB), 'DISABLED');
    });

    it(DROP_CASES.alter.title, async () => {
      h.dropWhen = (r) => /^ALTER DATABASE .* SET DELAYED_DURABILITY = FORCED/.test(r.text);
      const result = await compare(h, DB, journal);
      assert.equal(h.dropWhen, null, 'the ALTER was the request dropped');
      assert.equal(result.status, 'failed');
      // The dropped connection was the monitor, which holds the claim: the comparison stops changing the database.
      assert.equal(result.error?.kind, 'ownership-lost');
      assert.match(result.error!.message, /FORCED.*could not be read back.*The comparison stopped changing the database/s);
      assert.equal(result.restore!.status, 'already-original', result.restore!.message);
      assert.equal(result.restore!.verifiedSetting, 'DISABLED');
      assert.deepEqual(result.runs.map((r) => r.mode), ['DISABLED']);
    });

    it(DROP_CASES.afterAlter.title, async () => {
      const result = await compare(h, DB, journal, { onProgress: atStep('snapshot-before', dropNextRequest) });
      assert.equal(result.status, 'failed');
      assertRestoredFromForced(result);
    });

    it(DROP_CASES.xeStart.title, async () => {
      assertMonitorReplaced(await compare(h, DB, journal, { onProgress: atStep('xe-start', dropNextRequest) }));
    });

    it(DROP_CASES.workload.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('workload', () => {
          // Only the workload session's requests count: the monitor samples during the workload too.
          const spid = workloadSession().spid;
          let seen = 0;
          h.dropWhen = (r) => r.spid === spid && ++seen === 3;
        }),
      });
      assert.equal(result.status, 'workload-error', result.error?.message);
      const forced = result.runs.at(-1)!;
      assert.equal(forced.mode, 'FORCED');
      assert.equal(forced.batches[0]!.iterationsCompleted, 2, 'two GO repetitions finished before the drop');
      assert.ok(forced.notes.some((n) => /connection was lost/.test(n)), forced.notes.join('\n'));
      assertRestoredFromForced(result);
    });

    it(DROP_CASES.monitorMidWorkload.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('workload', () => {
          const spid = workloadSession().spid;
          h.dropWhen = (r) => r.spid !== spid; // the monitor's next request while the workload runs (sampling)
        }),
      });
      assertMonitorReplaced(result);
    });

    it(DROP_CASES.afterSnapshot.title, async () => {
      assertMonitorReplaced(await compare(h, DB, journal, { onProgress: atStep('snapshot-after', dropNextRequest) }));
    });

    it(DROP_CASES.xeRead.title, async () => {
      // The targets are read (and the session stopped) in the after-snapshot's request (db/batch.ts): drop that one.
      const result = await compare(h, DB, journal, {
        onProgress: atStep('snapshot-after', () => {
          h.dropWhen = (r) => /dm_xe_session_targets/.test(r.text);
        }),
      });
      assert.equal(h.dropWhen, null, 'the request reading the targets was the one dropped');
      assert.equal(result.status, 'completed', result.error?.message);
      const forced = result.runs.at(-1)!;
      assert.equal(forced.logFlushTrace, null);
      assert.ok(forced.missing.some((m) => m.measurement === 'extendedEvents'), JSON.stringify(forced.missing));
      assertRestoredFromForced(result);
    });

    it(DROP_CASES.restore.title, async () => {
      const result = await compare(h, DB, journal, { onProgress: atStep('restore-durability', dropNextRequest) });
      assert.equal(result.status, 'completed', result.error?.message);
      assertRestoredFromForced(result);
    });
  });

  it(DROP_CASES.afterRestoreAlter.title, async () => {
    // The restoring ALTER runs, then its read-back drops: the retry over a new connection finds DISABLED, and the
    // outcome must still say this comparison's change was put back.
    const result = await compare(h, DB, journal, { onProgress: atStep('restore-durability', () => h.dropNthRequest(3)) });
    assert.equal(result.status, 'completed');
    assert.equal(result.restore!.status, 'restored', result.restore!.message);
    assert.match(result.restore!.message, /back to DISABLED \(verified\)/);
  });

  describe('server faults', () => {
    it(FAULT_CASES.restart.title, async () => {
      const result = await compare(h, DB, journal, { onProgress: atStep('workload', () => h.engine.restart()) });
      assert.equal(result.status, 'workload-error', result.error?.message);
      assert.match(result.error!.message, /FORCED.*socket hang up/);
      const forced = result.runs.at(-1)!;
      // Counters started over: no deltas, and the run says why.
      for (const m of ['fileStats', 'sessionWaits']) {
        assert.match(forced.missing.find((x) => x.measurement === m)?.reason ?? '', /restarted between the snapshots/, m);
      }
      assertRestoredFromForced(result);
    });

    it(FAULT_CASES.connectionLostMessage.title, async () => {
      // No server error number: the message says the connection was lost, that the comparison stopped, and the restore.
      const result = await compare(h, DB, journal, { onProgress: atStep('workload', () => h.engine.restart()) });
      assert.doesNotMatch(result.error!.message, /SQL error 0/);
      assert.match(result.error!.message, /connection/i);
      assert.match(result.error!.message, /FORCED: the connection to the server was lost \(.*socket hang up\), so the comparison stopped.*restored to DISABLED \(verified\)/);
      assert.doesNotMatch(result.error!.message, /\.\./);
    });

    it(FAULT_CASES.locked.title, async () => {
      h.engine.faults.alterDatabaseLocked = true;
      const result = await compare(h, DB, journal);
      assert.equal(result.status, 'failed');
      assert.equal(result.error?.kind, 'durability-change');
      assert.match(result.error!.message, /5061.*still DISABLED/s);
      assert.equal(result.restore!.status, 'already-original');
    });

    it(FAULT_CASES.denied.title, async () => {
      h.engine.faults.alterDatabaseDenied = true;
      const result = await compare(h, DB, journal);
      assert.equal(result.error?.kind, 'durability-change');
      assert.match(result.error!.message, /SQL error 5011.*still DISABLED/s);
      assert.equal(result.status, 'failed');
      assert.equal(result.restore!.status, 'already-original');
    });

    it(FAULT_CASES.deniedGrant.title, async () => {
      h.engine.faults.alterDatabaseDenied = true;
      const result = await compare(h, DB, journal);
      assert.match(result.error!.message, /GRANT ALTER ON DATABASE::\[rel_faults\]/);
      assert.match(result.error!.message, /GRANT ALTER ON DATABASE::\[rel_faults\] TO \[dbo\];/);
      assert.doesNotMatch(result.error!.message, /holds a lock/);
    });

    it(FAULT_CASES.lockTimeout.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('workload', () => {
          h.engine.faults.statements.push({ pattern: /INSERT INTO dbo\.rel_t/, number: 1222, message: 'Lock request time out period exceeded.', times: 1 });
        }),
      });
      assert.equal(result.status, 'workload-error');
      assert.match(result.error!.message, /FORCED.*SQL error 1222/);
      // 1222 ends the statement, not the batch: the run went on and every GO repetition ran.
      const forced = result.runs.at(-1)!;
      assert.equal(forced.batches[0]!.iterationsCompleted, 5);
      assert.deepEqual(forced.errors.map((e) => [e.number, e.endedRun]), [[1222, false]]);
      assertRestoredFromForced(result);
    });

    it(FAULT_CASES.snapshotLockTimeout.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('snapshot-after', () => {
          h.engine.faults.statements.push({ pattern: /sys\.dm_io_virtual_file_stats/i, number: 1222, message: 'Lock request time out period exceeded.', times: 1 });
        }),
      });
      assert.equal(result.status, 'completed', result.error?.message);
      // Only that run's file figures are missing, with the server's reason and no (misleading) GRANT.
      assert.deepEqual(result.runs.map((r) => r.missing.map((m) => m.measurement)), [[], ['fileStats']]);
      assert.deepEqual(result.runs[1]!.missing[0], { measurement: 'fileStats', reason: 'No per-file IO (sys.dm_io_virtual_file_stats): Lock request time out period exceeded.', grant: null });
      assertRestoredFromForced(result);
    });

    it(FAULT_CASES.dmvDenied.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('snapshot-before', () => {
          h.engine.faults.statements.push({
            pattern: /sys\.dm_io_virtual_file_stats/i,
            number: 300,
            message: "VIEW SERVER PERFORMANCE STATE permission was denied on object 'server', database 'master'.",
            class: 14,
          });
        }),
      });
      assert.equal(result.status, 'completed', result.error?.message);
      const forced = result.runs.at(-1)!;
      const files = forced.missing.find((m) => m.measurement === 'fileStats');
      assert.ok(files, JSON.stringify(forced.missing.map((m) => m.measurement)));
      assert.match(files.reason, /server error 300/);
      assert.equal(files.grant, 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [sa];');
      assertRestoredFromForced(result);
    });

    it(FAULT_CASES.xeDenied.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('set-durability', () => {
          h.engine.faults.createEventSessionDenied = true;
        }),
      });
      assert.equal(result.status, 'completed', result.error?.message);
      const forced = result.runs.at(-1)!;
      assert.equal(forced.logFlushTrace, null);
      assert.ok(forced.missing.some((m) => m.measurement === 'extendedEvents'));
      assertRestoredFromForced(result);
    });

    it(FAULT_CASES.crash.title, async () => {
      // The journal's store as it would be on disk at the moment the FORCED ALTER reaches the server.
      let persisted: unknown = 'not captured';
      const store = new MemoryStore();
      const live = new KeyValueRestoreJournal(store);
      h.onRequest = (r) => {
        if (/SET DELAYED_DURABILITY = FORCED/.test(r.text)) persisted = store.get(JOURNAL_KEY);
      };
      const result = await compare(h, DB, live);
      h.onRequest = null;
      assert.equal(result.status, 'completed');
      const entries = persisted as RestoreEntry[];
      assert.deepEqual(entries.map((e) => [e.database, e.originalSetting]), [[DB, 'DISABLED']]);

      // The process "died" while FORCED: the database is left FORCED and the next start has only the persisted store.
      h.engine.state.dbByName(DB)!.delayedDurability = 2;
      const afterCrash = new KeyValueRestoreJournal(new MemoryStore());
      for (const e of entries) await afterCrash.put(e);
      const outcomes = await recoverFromJournal(afterCrash, () => connect(h.profile('master'), h.secret, { role: 'monitor' }));
      assert.deepEqual(outcomes.map((o) => [o.status, o.verifiedSetting, o.journalCleared]), [['restored', 'DISABLED', true]]);
      assert.deepEqual(await afterCrash.list(), []);
    });

    it(FAULT_CASES.restoreFails.title, async () => {
      const result = await compare(h, DB, journal, {
        onProgress: atStep('restore-durability', () => {
          h.engine.faults.alterDatabaseLocked = true;
        }),
      });
      assert.equal(result.status, 'completed');
      assert.equal(result.restore!.status, 'failed');
      assert.equal(result.restore!.journalCleared, false);
      assert.match(result.restore!.message, /ALTER DATABASE \[rel_faults\] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;/);
      assert.equal(h.setting(DB), 'FORCED', 'the database really is still FORCED');
      const [entry, ...rest] = await journal.list();
      assert.deepEqual(rest, []);
      assert.equal(entry!.database, DB);
      assert.equal(entry!.originalSetting, 'DISABLED');

      // The next start: the lock is gone, recovery puts the database back and clears the journal.
      h.engine.faults.alterDatabaseLocked = false;
      await waitUntil(() => h.server.connections === 0, 'the comparison closed its connections');
      const outcomes = await recoverFromJournal(journal, () => connect(h.profile('master'), h.secret, { role: 'monitor' }));
      assert.deepEqual(outcomes.map((o) => [o.status, o.verifiedSetting, o.journalCleared]), [['restored', 'DISABLED', true]]);
    });
  });

  describe('cancel', () => {
    it(CANCEL_BEFORE_CHANGE.title, async () => {
      const controller = new AbortController();
      h.clearLog();
      const result = await compare(h, DB, journal, { signal: controller.signal, onProgress: atStep('plan', () => controller.abort(), false) });
      assert.equal(result.status, 'cancelled', result.error?.message);
      assert.equal(result.restore, null);
      assert.deepEqual(result.runs, []);
      assert.equal(h.log.filter((r) => /^ALTER DATABASE/.test(r.text)).length, 0);
    });

    for (const step of CANCEL_STEPS) {
      it(cancelCase(step).title, async () => {
        const controller = new AbortController();
        const result = await compare(h, DB, journal, { signal: controller.signal, onProgress: atStep(step, () => controller.abort()) });
        assert.equal(result.status, cancelTooLate(step) ? 'completed' : 'cancelled', result.error?.message);
        if (!cancelTooLate(step)) assert.match(result.error!.message, /cancelled/);
        assert.equal(result.restore!.verifiedSetting, 'DISABLED');
        assert.equal(result.restore!.journalCleared, true);
      });
    }
  });
});
