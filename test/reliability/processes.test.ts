// Real OS processes running the CLI (node --import tsx src/cli/main.ts) against one stand-in: two `compare` processes
// on one database, and `compare` sent SIGTERM at each step. The stand-in holds a chosen request until the test
// releases it, so every step is reached by waiting on the server and on the child's stderr — never by sleeping.
import { strict as assert } from 'node:assert';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../../src/db/connect';
import { FileRestoreJournal, recoverFromJournal } from '../../src/profile';
import { PROCESS_CASES } from './cases';
import { leftBehind, WORKLOAD } from './comparison';
import { startReliabilityStandin, waitUntil, type ReliabilityStandin } from './harness';
import { startCompare, startCompareThroughLauncher, REPO, type CliChild } from './cliProcess';
import { existsSync } from 'node:fs';
import { machineNode } from '../unit/scripts/support/pack';

const DB = 'rel_cli';

describe('reliability: CLI processes (stand-in)', function () {
  this.timeout(120000);
  let h: ReliabilityStandin;
  let dir: string;
  let journalPath: string;
  let workloadPath: string;
  const children: ChildProcess[] = [];

  before(async () => {
    h = await startReliabilityStandin();
    h.engine.addDatabase({ name: DB });
    dir = await mkdtemp(join(tmpdir(), 'lens-processes-'));
    workloadPath = join(dir, 'workload.sql');
    await writeFile(workloadPath, WORKLOAD);
  });
  beforeEach(() => {
    journalPath = join(dir, `journal-${Date.now()}.json`);
    h.holdWhen = null;
    h.onRequest = null;
  });
  afterEach(() => {
    h.release();
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  });
  after(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function compareProcess(): CliChild {
    const c = startCompare(h, { database: DB, journal: journalPath, workload: workloadPath });
    children.push(c.child);
    return c;
  }

  /** The database as it started, no event session, no connection, nothing journalled. */
  async function assertLeftAsItStarted(): Promise<void> {
    await waitUntil(() => h.server.connections === 0, 'every connection closed', 10000);
    assert.deepEqual(await leftBehind(h, DB), { setting: 'DISABLED', eventSessions: [] });
    assert.deepEqual(await new FileRestoreJournal(journalPath).list(), []);
  }

  const forcedWorkload = (r: { text: string }) => /INSERT INTO dbo\.rel_t/.test(r.text) && h.setting(DB) === 'FORCED';

  it(PROCESS_CASES.twoProcesses.title, async () => {
    h.holdWhen = forcedWorkload;
    const first = compareProcess();
    await h.held(); // the first comparison is mid-run, FORCED
    const mark = h.log.length;
    const second = compareProcess();
    assert.equal(await second.exited, 5, second.stderr());
    assert.match(second.stderr(), /Refused: +A comparison owns \[rel_cli\] since \d{4}-.*: process \d+ on .* \(CLI\).*the original setting is DISABLED; it last set FORCED.*It is running: session \d+ on host .*program "Durability Lens CLI \(monitor\)".*connected since \d{4}-.* holds the database lock/);
    assert.match(second.stderr(), /Refused: nothing was changed/);
    // The second process changed nothing: no ALTER reached the server while it ran, the first one's FORCED stands.
    assert.deepEqual(h.log.slice(mark).filter((r) => /ALTER DATABASE/i.test(r.text)), []);
    assert.equal(h.setting(DB), 'FORCED');
    h.release();
    assert.equal(await first.exited, 0, first.stderr());
    assert.match(first.stderr(), /back to DISABLED \(verified\)/);
    await assertLeftAsItStarted();
  });

  /** The first request after the ALTER to FORCED (its read-back): the setting is FORCED when the signal lands. */
  function afterFirstAlter(): (r: { text: string }) => boolean {
    let altered = false;
    h.onRequest = (r) => {
      if (/SET DELAYED_DURABILITY = FORCED/.test(r.text)) altered = true;
    };
    return (r) => altered && !/ALTER DATABASE/.test(r.text);
  }

  /** Holds the request `hold` picks, sends SIGTERM, waits for the child to say it is restoring, lets it go on. */
  async function sigtermWhileHeld(hold: (r: { text: string }) => boolean): Promise<void> {
    h.holdWhen = hold;
    const run = compareProcess();
    await h.held();
    assert.equal(h.setting(DB), 'FORCED', 'the signal lands while the database is FORCED');
    run.child.kill('SIGTERM');
    await run.waitFor(/Received SIGTERM: stopping the workload, restoring DELAYED_DURABILITY and dropping the event session/);
    h.release();
    assert.equal(await run.exited, 143, run.stderr());
    assert.match(run.stderr(), /Stopped by SIGTERM: rel_cli is DISABLED as it started \(verified\); no event session of this run is left\./);
    await assertLeftAsItStarted();
  }

  it(PROCESS_CASES.sigtermAfterAlter.title, () => sigtermWhileHeld(afterFirstAlter()));
  it(PROCESS_CASES.sigtermDuringRun.title, () => sigtermWhileHeld(forcedWorkload));
  it(PROCESS_CASES.sigtermDuringRestore.title, () => sigtermWhileHeld((r) => /SET DELAYED_DURABILITY = DISABLED/.test(r.text)));

  describe('through bin/durability-lens on an older Node', () => {
    let node = '';
    before(function () {
      const found = machineNode();
      // The launcher re-runs itself only from a Node older than 22, and runs the bundle `npm test` builds first.
      if (!found || Number(found.version.split('.')[0]) >= 22 || !existsSync(join(REPO, 'dist', 'cli.js')) || process.platform === 'win32') this.skip();
      node = found.node;
    });

    async function sigtermThroughLauncher(target: (pid: number) => void): Promise<void> {
      h.holdWhen = forcedWorkload;
      const run = startCompareThroughLauncher(h, { database: DB, journal: journalPath, workload: workloadPath }, node);
      children.push(run.child);
      await h.held();
      assert.equal(h.setting(DB), 'FORCED', 'the signal lands while the database is FORCED');
      target(run.child.pid!);
      await run.waitFor(/Received SIGTERM: stopping the workload, restoring DELAYED_DURABILITY and dropping the event session/);
      h.release();
      // The launcher waits for the run and ends with its code (before: it died at once, the run went on orphaned).
      assert.equal(await run.exited, 143, run.stderr());
      assert.match(run.stderr(), /Stopped by SIGTERM: rel_cli is DISABLED as it started \(verified\); no event session of this run is left\./);
      assert.doesNotMatch(run.stderr(), /Second SIGTERM/);
      await assertLeftAsItStarted();
    }

    it(PROCESS_CASES.launcherSigterm.title, () => sigtermThroughLauncher((pid) => process.kill(pid, 'SIGTERM')));
    // Both processes get it (the launcher leads its own group): still one stop, not the forced second one.
    it(PROCESS_CASES.launcherGroupSigterm.title, () => sigtermThroughLauncher((pid) => process.kill(-pid, 'SIGTERM')));
  });

  it(PROCESS_CASES.brokenStdout.title, async () => {
    h.holdWhen = forcedWorkload;
    const run = compareProcess();
    await h.held();
    run.child.stdout!.destroy(); // the reader of `compare … | head` went away
    h.release();
    assert.equal(await run.exited, 141, run.stderr());
    // The report is written last: the restore has run and said so before the broken pipe shows.
    assert.match(run.stderr(), /back to DISABLED \(verified\)[^]*Standard output was closed \(EPIPE\) before the report was written in full/);
    assert.doesNotMatch(run.stderr(), /Error: write EPIPE/);
    await assertLeftAsItStarted();
  });

  it(PROCESS_CASES.brokenStderr.title, async () => {
    h.holdWhen = forcedWorkload;
    const run = compareProcess();
    await h.held();
    run.child.stderr!.destroy(); // the reader of `compare … 2>&1 | head` went away; the next progress line breaks
    h.release();
    assert.equal(await run.exited, 141);
    await assertLeftAsItStarted();
  });

  it(PROCESS_CASES.secondSignal.title, async () => {
    h.holdWhen = (r) => /SET DELAYED_DURABILITY = DISABLED/.test(r.text);
    const run = compareProcess();
    await h.held();
    run.child.kill('SIGTERM');
    await run.waitFor(/Received SIGTERM/);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 143, run.stderr());
    assert.match(run.stderr(), /Second SIGTERM: exiting now, before the restore finished\./);
    assert.match(run.stderr(), /DELAYED_DURABILITY of rel_cli on 127\.0\.0\.1,\d+ may still be FORCED \(it was DISABLED\)\. Run: ALTER DATABASE \[rel_cli\] SET DELAYED_DURABILITY = DISABLED WITH NO_WAIT;/);
    assert.match(run.stderr(), /durability\[_\]lens\[_\]%/);
    h.release();
    await waitUntil(() => h.server.connections === 0, 'the killed process is gone');
    // What it said is true: FORCED, and the journal kept the entry; recovery (owner gone, lock free) puts it back.
    assert.equal(h.setting(DB), 'FORCED');
    const journal = new FileRestoreJournal(journalPath);
    assert.equal((await journal.list()).length, 1);
    const outcomes = await recoverFromJournal(journal, (e) => connect(h.profile(e.database), h.secret, { role: 'monitor' }));
    assert.deepEqual(outcomes.map((o) => o.status), ['restored']);
    await assertLeftAsItStarted();
  });
});
