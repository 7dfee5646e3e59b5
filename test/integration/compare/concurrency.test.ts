// The concurrency sweep over real TDS on the suite's server (issue 18; useTestServer): the group-commit curve (DISABLED
// at 8 sessions shares flushes, 1 session does not), the session-param marker, and every connection closed after a
// cancel; on the in-process stand-in also the connection limit and an injected fatal error. The stand-in's exact
// figures (1600 waits, < 0.5 flushes per commit) are asserted only there; a given server gets physical bounds.
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, profileRun, runComparison, type CompareOptions, type DurabilityMode } from '../../../src/profile';
import { buildConcurrencyModel, counter } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

/** Setup recreates the table; each session inserts `rows` single-row autocommit transactions tagged with @session. */
function keyedScript(rows: number, table: string): string {
  return `-- durability-lens: setup
IF OBJECT_ID(N'${table}', N'U') IS NOT NULL DROP TABLE ${table};
CREATE TABLE ${table} (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL);
-- durability-lens: measure
GO
-- durability-lens: session-param @session
SET NOCOUNT ON;
DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
    INSERT INTO ${table} (session_no) VALUES (@session);
    SET @i += 1;
END
`;
}

describe('integration: concurrency sweep', function () {
  this.timeout(120000);
  const t = useTestServer();
  let journal: KeyValueRestoreJournal;
  let table: string;
  let original: DurabilityMode;
  before(async () => {
    table = t.table('keyed');
    original = (await t.state()).setting;
  });
  beforeEach(() => {
    t.standin?.faults.reset();
    journal = new KeyValueRestoreJournal(new MemoryStore());
  });
  afterEach(async function () {
    if (this.currentTest?.isPending()) return;
    t.standin?.faults.reset();
    assert.deepEqual(await journal.list(), []);
    await t.connectionsClosed();
    assert.deepEqual(await t.state(), { setting: original, eventSessions: [] });
  });

  const keyed = (rows: number) => analyze(keyedScript(rows, table)).batches;
  function options(extra: Partial<CompareOptions> = {}): CompareOptions {
    return { connections: profileConnectionSource(t.profile, t.secret), batches: keyed(200), repetitions: 1, journal, confirm: () => true, ...extra };
  }

  async function rowsPerSession(): Promise<number[][]> {
    const s = await t.connect();
    try {
      const rows = await s.query(`SELECT session_no, COUNT(*) AS n FROM ${table} GROUP BY session_no ORDER BY session_no`);
      return rows.map((r) => [Number(r.session_no), Number(r.n)]);
    } finally {
      await s.close();
    }
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
    const perCommit = (n: number, mode: string) => point(n, mode).flushesPerCommit!;
    // One session: a flush per commit. Eight: commits share flushes (group commit). FORCED: commits wait for none.
    assert.ok(Math.abs(perCommit(1, 'DISABLED') - 1) < (t.standin ? 0.02 : 0.1), `1 session: ${perCommit(1, 'DISABLED')} flushes per commit`);
    assert.ok(perCommit(8, 'DISABLED') < (t.standin ? 0.5 : perCommit(1, 'DISABLED')), `8 sessions: ${perCommit(8, 'DISABLED')} flushes per commit`);
    assert.ok(perCommit(8, 'FORCED') < (t.standin ? 0.05 : 0.1), `8 sessions FORCED: ${perCommit(8, 'FORCED')}`);
    // Every session's commits are counted: 200 per session per run.
    assert.equal(point(8, 'DISABLED').spread.commitsPerSec!.n, 2);
    const commits = measured.filter((r) => r.concurrency!.sessions === 8).map((r) => counter(r, 'Write Transactions/sec')!);
    if (t.standin) assert.deepEqual(commits, [1600, 1600, 1600, 1600]);
    else for (const c of commits) assert.ok(c >= 1600 && c <= 1632, `write transactions ${c} for 1,600 commits`);
    // The sessions' summed WRITELOG: one wait per durable commit, (next to) none under FORCED.
    const d8 = measured.find((r) => r.concurrency!.sessions === 8 && r.mode === 'DISABLED')!;
    const f8 = measured.find((r) => r.concurrency!.sessions === 8 && r.mode === 'FORCED')!;
    if (t.standin) {
      assert.equal(d8.concurrency!.writelog!.waits, 1600);
      assert.equal(f8.concurrency!.writelog!.waits, 0);
    } else {
      assert.ok(d8.concurrency!.writelog!.waits! >= 1440 && d8.concurrency!.writelog!.waits! <= 1600, `DISABLED WRITELOG waits ${d8.concurrency!.writelog!.waits}`);
      assert.ok(f8.concurrency!.writelog!.waits! * 4 < d8.concurrency!.writelog!.waits!, `FORCED WRITELOG waits ${f8.concurrency!.writelog!.waits}`);
    }
    assert.ok(point(8, 'DISABLED').writelogMsPerCommit! > 0);
    assert.equal(point(8, 'DISABLED').p95CommitLatencyMs, null);
    assert.match(point(8, 'DISABLED').notMeasured.find((n) => n.metric === 'p95CommitLatencyMs')!.reason, /not observable from the client/);
    assert.match(model.verdict!, /^Commits per second, FORCED vs DISABLED: at 8 sessions FORCED gains [\d.]+×, at 1 session FORCED gains [\d.]+×\./);
  });

  it('fills the session-param marker with 1..N as a typed parameter: each session wrote its own key', async () => {
    const result = await runComparison(options({ sessions: [3], modes: ['DISABLED'], warmup: false, batches: keyed(5) }));
    assert.equal(result.status, 'completed', result.error?.message);
    assert.deepEqual(await rowsPerSession(), [[1, 5], [2, 5], [3, 5]]);
  });

  it('profile on 4 sessions: one run, every session released together and counted; without --sessions the marker is session 1', async () => {
    const run = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: keyed(40), sessions: 4 });
    assert.equal(run.status, 'completed');
    assert.equal(run.concurrency!.sessions, 4);
    assert.deepEqual(await rowsPerSession(), [[1, 40], [2, 40], [3, 40], [4, 40]]);
    const commits = counter(run, 'Write Transactions/sec')!;
    const flushes = counter(run, 'Log Flushes/sec')!;
    const waits = run.concurrency!.writelog!.waits!;
    if (t.standin) {
      assert.equal(commits, 160);
      assert.equal(waits, 160);
      assert.ok(flushes < 160, 'the four sessions shared flushes');
    } else {
      assert.ok(commits >= 160 && commits <= 164, `write transactions ${commits}`);
      assert.ok(waits >= 144 && waits <= 160, `WRITELOG waits ${waits}`);
      assert.ok(flushes <= commits * 1.1, `log flushes ${flushes} for ${commits} commits`);
    }
    const serial = await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: keyed(7) });
    assert.equal(serial.status, 'completed', JSON.stringify(serial.errors));
    assert.equal(serial.concurrency, undefined);
    assert.deepEqual(await rowsPerSession(), [[1, 7]]);
  });

  describe('a server allowing 6 user connections', () => {
    const limited = useTestServer({ userConnections: 6, standinOnly: 'needs a server configured for 6 user connections' });

    it('refuses a level above the server\'s user connections before changing anything', async () => {
      const result = await runComparison({ ...options({ sessions: [1, 8] }), connections: profileConnectionSource(limited.profile, limited.secret) });
      assert.equal(result.status, 'refused');
      assert.equal(result.restore, null);
      assert.match(result.plan.refusals.find((r) => r.code === 'too-many-connections')!.message, /needs 10 connections .* allows 6 user connections \(user connections\)\. Nothing was changed/);
      await limited.connectionsClosed();
    });
  });

  it('a fatal error in one of 4 sessions ends that session, the others finish; the sweep stops, closes every connection and restores', async function () {
    t.standinOnly(this, 'injects a fatal error into one session (stand-in faults)');
    const h = { engine: t.standin! };
    let fired = false;
    const result = await runComparison(
      options({
        sessions: [4],
        modes: ['DISABLED', 'FORCED'],
        onProgress: (e) => {
          if (!fired && e.step === 'workload' && /FORCED/.test(e.run ?? '')) {
            fired = true;
            h.engine.faults.statements.push({ pattern: new RegExp(`INSERT INTO ${table.replace('.', '\\.')}`), number: 50000, message: 'injected fatal error', class: 20, times: 1 });
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
    assert.equal(result.restore!.verifiedSetting, original);
  });

  it('a cancel during an 8-session run ends every session, keeps the runs so far and closes every connection', async () => {
    const cancel = new AbortController();
    const result = await runComparison(
      options({
        sessions: [8],
        modes: ['DISABLED', 'FORCED'],
        signal: cancel.signal,
        batches: keyed(1_000_000),
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
    assert.equal(result.restore!.verifiedSetting, original);
  });
});
