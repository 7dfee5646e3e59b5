// The concurrency sweep against the stand-in over real TDS (issue 18): the group-commit curve (DISABLED at 8
// sessions shares flushes, 1 session does not), the session-param marker, the connection limit, and every connection
// closed after an error or a cancel. Figures are the stand-in model's, not SQL Server's.
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, profileRun, runComparison, type CompareOptions } from '../../../src/profile';
import { connect } from '../../../src/db/connect';
import { buildConcurrencyModel, counter } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { waitFor } from '../support';
import { serverState, startStandin, type StandinHarness } from '../profile/standin';

/** Setup recreates the table; each session inserts `rows` single-row autocommit transactions tagged with @session. */
function keyedScript(rows: number): string {
  return `-- durability-lens: setup
IF OBJECT_ID(N'dbo.Keyed', N'U') IS NOT NULL DROP TABLE dbo.Keyed;
CREATE TABLE dbo.Keyed (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL);
-- durability-lens: measure
GO
-- durability-lens: session-param @session
SET NOCOUNT ON;
DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
    INSERT INTO dbo.Keyed (session_no) VALUES (@session);
    SET @i += 1;
END
`;
}

describe('integration: concurrency sweep (stand-in)', function () {
  this.timeout(120000);
  let h: StandinHarness;
  let journal: KeyValueRestoreJournal;
  before(async () => {
    h = await startStandin();
  });
  beforeEach(() => {
    h.engine.faults.reset();
    journal = new KeyValueRestoreJournal(new MemoryStore());
  });
  afterEach(async () => {
    h.engine.faults.reset();
    assert.deepEqual(await journal.list(), []);
    await waitFor(() => h.server.connections === 0, 'every connection closed');
    assert.deepEqual(await serverState(h), { setting: 'DISABLED', eventSessions: [] });
  });
  after(async () => {
    await h?.close();
  });

  function options(extra: Partial<CompareOptions> = {}): CompareOptions {
    return { connections: profileConnectionSource(h.profile, h.secret), batches: analyze(keyedScript(200)).batches, repetitions: 1, journal, confirm: () => true, ...extra };
  }

  it('DISABLED at 8 sessions shares flushes (well below 1 per commit); at 1 session one flush per commit', async () => {
    const result = await runComparison(options({ sessions: [1, 8], modes: ['DISABLED', 'FORCED'], repetitions: 2 }));
    assert.equal(result.status, 'completed', result.error?.message);
    const measured = result.runs.filter((r) => !r.warmup);
    assert.deepEqual(measured.map((r) => [r.concurrency!.sessions, r.mode]).sort(), [[1, 'DISABLED'], [1, 'DISABLED'], [1, 'FORCED'], [1, 'FORCED'], [8, 'DISABLED'], [8, 'DISABLED'], [8, 'FORCED'], [8, 'FORCED']].sort());
    for (const r of measured) {
      const c = r.concurrency!;
      assert.equal(c.perSession.length, c.sessions);
      assert.deepEqual(c.perSession.map((s) => s.session), Array.from({ length: c.sessions }, (_, i) => i + 1));
      assert.equal(new Set(c.perSession.map((s) => s.spid)).size, c.sessions, 'one connection per session');
      assert.ok(c.perSession.every((s) => s.errors.length === 0 && !s.cancelled && s.iterationsCompleted === 1));
      assert.equal(c.parameter, '@session');
      assert.equal(r.workloadElapsedMs, c.wallMs);
    }
    const model = buildConcurrencyModel(result.runs)!;
    const point = (n: number, mode: string) => model.points.find((p) => p.sessions === n && p.mode === mode)!;
    assert.ok(Math.abs(point(1, 'DISABLED').flushesPerCommit! - 1) < 0.02, `1 session: ${point(1, 'DISABLED').flushesPerCommit} flushes per commit`);
    assert.ok(point(8, 'DISABLED').flushesPerCommit! < 0.5, `8 sessions: ${point(8, 'DISABLED').flushesPerCommit} flushes per commit`);
    assert.ok(point(8, 'FORCED').flushesPerCommit! < 0.05);
    // Every session's commits are counted: 200 per session per run.
    assert.equal(point(8, 'DISABLED').spread.commitsPerSec!.n, 2);
    const commits = measured.filter((r) => r.concurrency!.sessions === 8).map((r) => counter(r, 'Write Transactions/sec'));
    assert.deepEqual(commits, [1600, 1600, 1600, 1600]);
    // The sessions' summed WRITELOG: one wait per durable commit, none under FORCED.
    const d8 = measured.find((r) => r.concurrency!.sessions === 8 && r.mode === 'DISABLED')!;
    assert.equal(d8.concurrency!.writelog!.waits, 1600);
    assert.equal(measured.find((r) => r.concurrency!.sessions === 8 && r.mode === 'FORCED')!.concurrency!.writelog!.waits, 0);
    assert.ok(point(8, 'DISABLED').writelogMsPerCommit! > 0);
    assert.equal(point(8, 'DISABLED').p95CommitLatencyMs, null);
    assert.match(point(8, 'DISABLED').notMeasured.find((n) => n.metric === 'p95CommitLatencyMs')!.reason, /not observable from the client/);
    assert.match(model.verdict!, /^Commits per second, FORCED vs DISABLED: at 8 sessions FORCED gains [\d.]+×, at 1 session FORCED gains [\d.]+×\./);
  });

  it('fills the session-param marker with 1..N as a typed parameter: each session wrote its own key', async () => {
    const result = await runComparison(options({ sessions: [3], modes: ['DISABLED'], warmup: false, batches: analyze(keyedScript(5)).batches }));
    assert.equal(result.status, 'completed', result.error?.message);
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      const rows = await s.query('SELECT session_no, COUNT(*) AS n FROM dbo.Keyed GROUP BY session_no ORDER BY session_no');
      assert.deepEqual(rows.map((r) => [Number(r.session_no), Number(r.n)]), [[1, 5], [2, 5], [3, 5]]);
    } finally {
      await s.close();
    }
  });

  it('profile on 4 sessions: one run, every session released together and counted; without --sessions the marker is session 1', async () => {
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(keyedScript(40)).batches, sessions: 4 });
    assert.equal(run.status, 'completed');
    assert.equal(run.concurrency!.sessions, 4);
    assert.equal(counter(run, 'Write Transactions/sec'), 160);
    assert.equal(run.concurrency!.writelog!.waits, 160);
    assert.ok(counter(run, 'Log Flushes/sec')! < 160, 'the four sessions shared flushes');
    const serial = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(keyedScript(7)).batches });
    assert.equal(serial.status, 'completed', JSON.stringify(serial.errors));
    assert.equal(serial.concurrency, undefined);
    const s = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      assert.deepEqual((await s.query('SELECT session_no, COUNT(*) AS n FROM dbo.Keyed GROUP BY session_no')).map((r) => [Number(r.session_no), Number(r.n)]), [[1, 7]]);
    } finally {
      await s.close();
    }
  });

  it('refuses a level above the server\'s user connections before changing anything', async () => {
    const limited = await startStandin({ userConnections: 6 });
    try {
      const result = await runComparison({ ...options({ sessions: [1, 8] }), connections: profileConnectionSource(limited.profile, limited.secret) });
      assert.equal(result.status, 'refused');
      assert.equal(result.restore, null);
      assert.match(result.plan.refusals.find((r) => r.code === 'too-many-connections')!.message, /opens 8 more connections, but 2 user connections are in use now \(this comparison's included\) and the server allows 6 \(user connections\): 10 would not fit\. Nothing was changed/);
      await waitFor(() => limited.server.connections === 0, 'every connection closed');
    } finally {
      await limited.close();
    }
  });

  it('a fatal error in one of 4 sessions ends that session, the others finish; the sweep stops, closes every connection and restores', async () => {
    let fired = false;
    const result = await runComparison(
      options({
        sessions: [4],
        modes: ['DISABLED', 'FORCED'],
        onProgress: (e) => {
          if (!fired && e.step === 'workload' && /FORCED/.test(e.run ?? '')) {
            fired = true;
            h.engine.faults.statements.push({ pattern: /INSERT INTO dbo\.Keyed/, number: 50000, message: 'injected fatal error', class: 20, times: 1 });
          }
        },
      }),
    );
    assert.ok(fired);
    assert.equal(result.status, 'workload-error', result.error?.message);
    const last = result.runs.at(-1)!;
    assert.equal(last.mode, 'FORCED');
    const failed = last.concurrency!.perSession.filter((s) => s.errors.some((e) => e.endedRun));
    assert.equal(failed.length, 1, 'one session hit the injected error');
    assert.match(failed[0]!.errors[0]!.message, /^Session [1-4]: injected fatal error/);
    assert.equal(last.concurrency!.perSession.filter((s) => s.errors.length === 0 && s.iterationsCompleted === 1).length, 3, 'the other sessions finished');
    assert.equal(result.restore!.verifiedSetting, 'DISABLED');
  });

  it('a cancel during an 8-session run ends every session, keeps the runs so far and closes every connection', async () => {
    const cancel = new AbortController();
    const result = await runComparison(
      options({
        sessions: [8],
        modes: ['DISABLED', 'FORCED'],
        signal: cancel.signal,
        batches: analyze(keyedScript(1_000_000)).batches,
        onProgress: (e) => {
          if (e.step === 'workload') setImmediate(() => cancel.abort());
        },
      }),
    );
    assert.equal(result.status, 'cancelled');
    const last = result.runs.at(-1)!;
    assert.equal(last.status, 'cancelled');
    assert.equal(last.concurrency!.perSession.length, 8);
    assert.ok(last.concurrency!.perSession.every((s) => s.cancelled), 'every session stopped at the cancel');
    assert.equal(result.restore!.verifiedSetting, 'DISABLED');
  });
});
