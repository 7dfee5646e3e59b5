// The claim on a database outlives one connection: real `compare` processes against one stand-in, two journal
// directories standing for two machines. A DBA's KILL of the running comparison's monitor session frees the database
// lock, but the marker on the database and the run lock on the workload session still say who owns it; a gone owner's
// database is recovered back to the marker's original. Every step waits on the stand-in (a held request) or on a
// child's stderr, never on time.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/db/connect';
import { hostname } from 'node:os';
import { FileRestoreJournal, MARKER_NAME, newRestoreEntry, READ_MARKER_SQL, recoverFromJournal } from '../../src/profile';
import type { SqlSession } from '../../src/db/types';
import { CLAIM_CASES } from './cases';
import { startCompare, type CliChild } from './cliProcess';
import { leftBehind, WORKLOAD } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';

const DB = 'rel_claim';

describe('reliability: the claim outlives a connection (CLI processes, two machines)', function () {
  this.timeout(180000);
  let h: ReliabilityStandin;
  let dir: string;
  let workloadPath: string;
  let machineA: string;
  let machineB: string;
  const children: CliChild[] = [];

  before(async () => {
    h = await startReliabilityStandin();
    h.engine.addDatabase({ name: DB });
    dir = await mkdtemp(join(tmpdir(), 'lens-claim-'));
    workloadPath = join(dir, 'workload.sql');
    await writeFile(workloadPath, WORKLOAD);
  });
  beforeEach(() => {
    const stamp = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
    machineA = join(dir, `machine-a-${stamp}`, 'journal');
    machineB = join(dir, `machine-b-${stamp}`, 'journal');
    h.holdWhen = null;
    h.onRequest = null;
  });
  afterEach(async () => {
    h.release();
    for (const c of children.splice(0)) if (c.child.exitCode === null) c.child.kill('SIGKILL');
  });
  after(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function compareOn(journal: string, extra: readonly string[] = []): CliChild {
    const c = startCompare(h, { database: DB, journal, workload: workloadPath, extra });
    children.push(c);
    return c;
  }

  async function admin(): Promise<SqlSession> {
    return connect(h.profile(DB), h.secret, { role: 'monitor' });
  }

  /** What a comparison on another machine left when that machine went away: its marker and FORCED, set by a DBA connection. */
  async function leaveForeignClaim(run: string, host: string, pid: number): Promise<Record<string, unknown>> {
    const left = { v: 1, run, host, pid, window: 'cli', since: '2026-01-02T03:04:05.000Z', original: 'DISABLED', applied: 'FORCED' };
    const dba = await admin();
    try {
      await dba.execute(`EXEC sys.sp_addextendedproperty @name = N'${MARKER_NAME}', @value = @v;`, [{ name: 'v', type: 'nvarchar', value: JSON.stringify(left) }]);
      await dba.execute(`ALTER DATABASE [${DB}] SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;`);
    } finally {
      await dba.close();
    }
    return left;
  }

  /** The marker's raw value as a fresh connection reads it (null: none). */
  async function markerNow(): Promise<string | null> {
    const s = await admin();
    try {
      const rows = await s.query(READ_MARKER_SQL, [{ name: 'name', type: 'nvarchar', value: MARKER_NAME }]);
      return rows.length === 0 ? null : String(rows[0]!.value);
    } finally {
      await s.close();
    }
  }

  /** The monitor session of the one comparison process running now (its program name ends in "(monitor)"). */
  function monitorSpidOf(pid: number): number {
    const sessions = [...h.engine.state.sessions.values()].filter((s) => s.alive && s.appName.endsWith('(monitor)') && s.db.name === DB && s.appName.startsWith('Durability Lens CLI'));
    const mine = sessions.filter((s) => s.clientPid === pid);
    const pick = mine.length === 1 ? mine : sessions;
    assert.equal(pick.length, 1, `one monitor session of process ${pid}: ${JSON.stringify(sessions.map((s) => [s.spid, s.appName, s.clientPid]))}`);
    return pick[0]!.spid;
  }

  async function assertEndedAsItStarted(...journals: string[]): Promise<void> {
    await waitUntil(() => h.server.connections === 0, 'every connection closed', 15000);
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
    await assertClaimGone(...journals);
  }

  async function assertClaimGone(...journals: string[]): Promise<void> {
    assert.equal(await markerNow(), null, 'no ownership marker left');
    for (const j of journals) assert.deepEqual(await new FileRestoreJournal(j).list(), [], `journal ${j} is empty`);
  }

  const forcedWorkload = (r: { text: string }) => /INSERT INTO dbo\.rel_t/.test(r.text) && h.setting(DB) === 'FORCED';

  it(CLAIM_CASES.killMonitor.title, async () => {
    h.holdWhen = forcedWorkload;
    // DISABLED FORCED FORCED DISABLED: the kill lands in run 2 of 4, with changes still to come that must not happen.
    const first = compareOn(machineA, ['--repeat', '2']);
    await h.held(); // mid-run, FORCED, the workload request held by the stand-in
    const spid = monitorSpidOf(first.child.pid!);
    const dba = await admin();
    await dba.execute(`KILL ${spid};`);
    await dba.close();
    await waitUntil(() => !h.engine.state.sessions.has(spid), 'the killed monitor session is gone');
    const killedAt = h.log.length;
    const marker = JSON.parse((await markerNow())!) as Record<string, unknown>;
    assert.deepEqual([marker.pid, marker.original, marker.applied], [first.child.pid, 'DISABLED', 'FORCED'], 'the marker names the first process');

    // Another machine: its own (empty) journal. --yes also asks recovery to look at the database's marker.
    const mark = h.log.length;
    const second = compareOn(machineB);
    assert.equal(await second.exited, 5, second.stderr());
    const err = second.stderr();
    assert.match(err, new RegExp(`A comparison owns \\[${DB}\\] since \\d{4}-\\d\\d-\\d\\dT[^:]+:\\d\\d:\\d\\d\\.\\d{3}Z: process ${first.child.pid} on .+ \\(CLI\\), run [0-9a-f-]{36}; the original setting is DISABLED; it last set FORCED`));
    assert.match(err, /its workload connection still holds the run/);
    assert.match(err, /Refused: nothing was changed/);
    // Its plan promises no restore to the owner's FORCED, nor a marker with FORCED as the original.
    assert.match(err, /Statements: none is sent — the comparison is refused/);
    assert.doesNotMatch(err, /set back to FORCED|original setting FORCED/);
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE|sp_addextendedproperty|sp_dropextendedproperty|sp_updateextendedproperty/i.test(r.text)), [], 'the second process changed nothing');
    assert.equal(h.setting(DB), 'FORCED', "the first comparison's FORCED is left alone");
    assert.deepEqual(await new FileRestoreJournal(machineB).list(), []);

    h.release();
    assert.equal(await first.exited, 11, first.stderr());
    const firstErr = first.stderr();
    assert.match(firstErr, /The monitor connection, which holds this comparison's claim on rel_claim, was lost during run 2 of 4: FORCED\. The comparison reconnected and took its claim back, and then stopped changing the database/);
    const doc = JSON.parse(first.stdout()) as { modes: Array<{ mode: string; runs: unknown[] }> };
    assert.deepEqual(doc.modes.map((m) => [m.mode, m.runs.length]), [['DISABLED', 1], ['FORCED', 1]], 'runs 3 and 4 never ran');
    // After the kill the only change to the setting was the restore.
    assert.deepEqual(h.log.slice(killedAt).filter((r) => /ALTER DATABASE/i.test(r.text)).map((r) => r.text), [`ALTER DATABASE [${DB}] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;`]);
    assert.match(firstErr, /DELAYED_DURABILITY of \[rel_claim\] is back to DISABLED \(verified\)/);
    await assertEndedAsItStarted(machineA, machineB);
  });

  it(CLAIM_CASES.liveOwnerRecovery.title, async () => {
    h.holdWhen = forcedWorkload;
    const first = compareOn(machineA, ['--repeat', '2']);
    await h.held();
    const spid = monitorSpidOf(first.child.pid!);
    const dba = await admin();
    await dba.execute(`KILL ${spid};`);
    await dba.close();
    await waitUntil(() => !h.engine.state.sessions.has(spid), 'the killed monitor session is gone');
    // The shared-journal case of the attack: recovery from another process reads machine A's journal while A lives.
    const journal = new FileRestoreJournal(machineA);
    assert.equal((await journal.list()).length, 1);
    const mark = h.log.length;
    const outcomes = await recoverFromJournal(journal, (e) => connect(h.profile(e.database), h.secret, { role: 'monitor' }));
    assert.deepEqual(outcomes.map((o) => o.status), ['in-use']);
    assert.match(outcomes[0]!.message, /its workload connection still holds the run/);
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE/i.test(r.text)), []);
    assert.equal(h.setting(DB), 'FORCED');
    assert.equal((await journal.list()).length, 1, 'the entry stays for its owner');
    h.release();
    assert.equal(await first.exited, 11, first.stderr());
    // Its FORCED run is kept only because the setting was still FORCED when re-read after taking the claim back.
    const doc = JSON.parse(first.stdout()) as { modes: Array<{ mode: string; runs: unknown[] }> };
    assert.deepEqual(doc.modes.map((m) => [m.mode, m.runs.length]), [['DISABLED', 1], ['FORCED', 1]]);
    await assertEndedAsItStarted(machineA);
  });

  it(CLAIM_CASES.deadOwner.title, async () => {
    h.holdWhen = forcedWorkload;
    const first = compareOn(machineA);
    await h.held();
    const firstPid = first.child.pid!;
    first.child.kill('SIGKILL');
    await first.exited;
    await waitUntil(() => ![...h.engine.state.sessions.values()].some((s) => s.clientPid === firstPid), "the killed process's sessions are gone");
    h.release();
    assert.equal(h.setting(DB), 'FORCED', 'left FORCED by the killed process');
    assert.ok(await markerNow(), 'its marker is still on the database');

    const second = compareOn(machineB);
    assert.equal(await second.exited, 0, second.stderr());
    const err = second.stderr();
    assert.match(err, new RegExp(`A comparison owns \\[${DB}\\] since .*process ${firstPid} on .*; the original setting is DISABLED; it last set FORCED.*Process ${firstPid} no longer runs on this machine`));
    assert.match(err, /DELAYED_DURABILITY of \[rel_claim\] is back to DISABLED \(verified\)\. \(Recovered for a CLI comparison that is gone: process \d+, run [0-9a-f-]{36}; its marker was removed\.\)/);
    assert.equal((await new FileRestoreJournal(machineA).list()).length, 1, "machine A's journal still holds its entry");
    // Machine A's next start: its entry finds the database already back (no marker, the setting is the original).
    const outcomes = await recoverFromJournal(new FileRestoreJournal(machineA), (e) => connect(h.profile(e.database), h.secret, { role: 'monitor' }));
    assert.deepEqual(outcomes.map((o) => [o.status, o.verifiedSetting]), [['already-original', 'DISABLED']]);
    await waitUntil(() => h.server.connections === 0, 'every connection closed', 15000);
    // A killed process cannot drop its event sessions: the recovery that judged it gone dropped them.
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
    await assertClaimGone(machineA, machineB);
  });

  it(CLAIM_CASES.deadOwnerSessions.title, async () => {
    h.holdWhen = forcedWorkload;
    const first = compareOn(machineA);
    await h.held(); // FORCED, its log-flush session running
    const firstPid = first.child.pid!;
    const running = h.leftoverSessions().sort();
    assert.equal(running.length, 2, `the run's log-flush session and its latency companion: ${running.join(', ')}`);
    first.child.kill('SIGKILL');
    await first.exited;
    await waitUntil(() => ![...h.engine.state.sessions.values()].some((s) => s.clientPid === firstPid), "the killed process's sessions are gone");
    h.release();
    // Another run's session (another terminal, window or machine) is no leftover of the killed run.
    const other = 'durability_lens_0123456789abcdef';
    const dba = await admin();
    await dba.execute(`CREATE EVENT SESSION [${other}] ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
    await dba.close();

    const second = compareOn(machineB);
    assert.equal(await second.exited, 0, second.stderr());
    const err = second.stderr();
    assert.match(err, /is back to DISABLED \(verified\)\. \(Recovered for a CLI comparison that is gone/);
    for (const name of running) assert.ok(err.includes(`[${name}]`), `the dropped session ${name} is named:\n${err}`);
    assert.match(err, /event sessions? .*left running .*dropped/);
    await waitUntil(() => h.server.connections === 0, 'every connection closed', 15000);
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [other] });
    const cleanup = await admin();
    await cleanup.execute(`DROP EVENT SESSION [${other}] ON SERVER;`);
    await cleanup.close();
    await new FileRestoreJournal(machineA).remove((await new FileRestoreJournal(machineA).list())[0]!.id);
    await assertClaimGone(machineA, machineB);
  });

  it(CLAIM_CASES.droppedDatabase.title, async () => {
    // What a comparison on a test database left when it was killed, before a reset script dropped that database.
    const journal = new FileRestoreJournal(machineA);
    const entry = { ...newRestoreEntry({ server: `127.0.0.1,${h.server.port}`, database: 'dropped_since', originalSetting: 'DISABLED', lastApplied: 'FORCED', restoreStatement: '' }), owner: { pid: 2 ** 30, host: hostname(), session: 'cli', startedAt: '2026-01-02T03:04:05.000Z' } };
    await journal.put(entry);
    const mark = h.log.length;
    const run = compareOn(machineA);
    assert.equal(await run.exited, 0, run.stderr());
    assert.match(run.stderr(), /\[dropped_since\] no longer exists on 127\.0\.0\.1,\d+ \(sys\.databases has no row for it\): it has no DELAYED_DURABILITY left to restore, so the journal entry was removed/);
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE \[dropped_since\]/i.test(r.text)), []);
    assert.deepEqual(await journal.list(), []);
    await assertEndedAsItStarted(machineA);

    // A database that exists but this login may not open (4060 too) is not taken for a dropped one: it stays.
    await journal.put({ ...entry, database: DB });
    const blocked = await recoverFromJournal(journal, (e) => (e.database === DB ? Promise.reject(Object.assign(new Error('Cannot open database'), { number: 4060 })) : connect(h.profile(e.database), h.secret, { role: 'monitor' })));
    assert.deepEqual(blocked.map((o) => o.status), ['failed']);
    assert.equal((await journal.list()).length, 1);
    await journal.remove(entry.id);
  });

  it(CLAIM_CASES.otherMachineGone.title, async () => {
    // What a comparison on BUILD-7 left when its machine went away: the marker and FORCED, no connection, no journal here.
    await leaveForeignClaim('0b8f2c1e-3d4a-4b5c-8d6e-7f8091a2b3c4', 'BUILD-7', 4242);
    const run = compareOn(machineB, ['--owner-grace', '0.3']);
    assert.equal(await run.exited, 0, run.stderr());
    const err = run.stderr();
    assert.match(err, /A comparison owns \[rel_claim\] since 2026-01-02T03:04:05\.000Z: process 4242 on BUILD-7 \(CLI\), run 0b8f2c1e-3d4a-4b5c-8d6e-7f8091a2b3c4; the original setting is DISABLED; it last set FORCED/);
    assert.match(err, /cannot be seen from here: it may be reconnecting/);
    assert.match(err, /Waiting up to 0 s for it to take its lock back/);
    assert.match(err, /is back to DISABLED \(verified\)/);
    await assertEndedAsItStarted(machineB);
  });

  it(CLAIM_CASES.stopDuringOwnerGrace.title, async () => {
    const left = await leaveForeignClaim('1c9a3d2f-4e5b-4c6d-9e8f-8091a2b3c4d5', 'BUILD-8', 4343);
    const mark = h.log.length;
    const run = compareOn(machineB, ['--owner-grace', '120']);
    await run.waitFor(/Waiting up to 120 s for it to take its lock back/);
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 130, run.stderr());
    const err = run.stderr();
    assert.match(err, /\[rel_claim\] was left alone: .*The wait for its owner was stopped/);
    assert.match(err, /Stopped by SIGINT before the comparison started: it changed nothing/);
    assert.doesNotMatch(err, /Nothing was changed on the server|is back to DISABLED/);
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE|sp_dropextendedproperty|sp_addextendedproperty/i.test(r.text)), [], 'nothing was changed after the stop');
    assert.equal(h.setting(DB), 'FORCED');
    assert.deepEqual(JSON.parse((await markerNow())!), left);
    const cleanup = await admin();
    await cleanup.execute(`ALTER DATABASE [${DB}] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;`);
    await cleanup.execute(`EXEC sys.sp_dropextendedproperty @name = N'${MARKER_NAME}';`);
    await cleanup.close();
    await assertEndedAsItStarted(machineB);
  });

  it(CLAIM_CASES.unreadableMarker.title, async () => {
    const dba = await admin();
    await dba.execute(`EXEC sys.sp_addextendedproperty @name = N'${MARKER_NAME}', @value = N'not json \u001b[2J';`);
    await dba.close();
    const mark = h.log.length;
    const run = compareOn(machineA);
    assert.equal(await run.exited, 5, run.stderr());
    assert.match(run.stderr(), /carries an ownership marker \(extended property durability_lens\.owner\) this version cannot read \("not json\s+\[2J"\)/);
    assert.match(run.stderr(), /EXEC sys\.sp_dropextendedproperty @name = N'durability_lens\.owner';/);
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE/i.test(r.text)), []);
    assert.ok(await markerNow(), 'the marker is left');
    const clean = await admin();
    await clean.execute(`EXEC sys.sp_dropextendedproperty @name = N'${MARKER_NAME}';`);
    await clean.close();
    await assertEndedAsItStarted(machineA);
  });
});
