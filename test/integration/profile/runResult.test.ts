// The RunResult's flat, issue-named figures: against the in-process stand-in model's own truth (deltas exact to the
// counter, session isolation, sampling on a slow model), and on any server (useTestServer) setup markers, PRINT series
// and the sampling record.
import { strict as assert } from 'node:assert';
import { connect } from '../../../src/db/connect';
import type { SqlSession } from '../../../src/db/types';
import { profileConnectionSource, profileRun, tediousExecutor, type RunResult, type WorkloadExecutor } from '../../../src/profile';
import { analyze } from '../../../src/tsql';
import type { Database, Session } from '../../standin/model/state';
import { useTestServer, waitFor } from '../support';
import { harnessOf, serverState, type StandinHarness } from './standin';

const ms = (us: number) => Math.floor(us / 1000);

/** What the model holds for `lab` right now: file IO, counters (the truth the DMVs are computed from). */
function labTruth(h: StandinHarness) {
  const db = [...h.engine.state.databases.values()].find((d: Database) => d.name === 'lab')!;
  return {
    files: db.files.map((f) => ({ fileId: f.fileId, ...f.io })),
    counters: { ...db.counters },
    serverWaits: new Map([...h.engine.state.waits.entries()].map(([k, w]) => [k, { ...w }])),
    tableRows: (name: string) => db.tables.get(name.toLowerCase())?.rows.length ?? db.tables.get(name)?.rows.length ?? null,
  };
}

function sessionWrites(session: Session | undefined) {
  const w = session?.waits.get('WRITELOG');
  return { count: w?.count ?? 0, timeUs: w?.timeUs ?? 0, signalUs: w?.signalUs ?? 0 };
}

const insertLoop = (rows: number, table: string) => `DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
  INSERT INTO ${table} (v) VALUES (@i);
  SET @i += 1;
END`;

describe('integration: RunResult figures', function () {
  this.timeout(60000);
  const t = useTestServer();
  const h = harnessOf(t);
  const table = t.table('run_result');
  let workload: SqlSession;
  let monitor: SqlSession;
  before(async () => {
    monitor = await t.connect('monitor');
    workload = await t.connect('workload');
    t.onCleanup(() => Promise.all([workload.close(), monitor.close()]));
    await workload.execute(`CREATE TABLE ${table} (v int NOT NULL);`);
  });

  it('files, logCounters and sessionWaits are exact deltas of the model\'s counters', async function () {
    t.standinOnly(this, 'compares with the model\'s own counters');
    const before = labTruth(h);
    const sessionBefore = sessionWrites(h.engine.session(workload.spid));
    const run = await profileRun({ connections: { workload, monitor }, batches: analyze(insertLoop(321, table)).batches, xe: { enabled: false } });
    const after = labTruth(h);
    const sessionAfter = sessionWrites(h.engine.session(workload.spid));
    assert.equal(run.status, 'completed');

    for (const f of after.files) {
      const b = before.files.find((x) => x.fileId === f.fileId)!;
      const got = run.files.find((x) => x.fileId === f.fileId)!;
      assert.deepEqual(
        { reads: got.reads, bytesRead: got.bytesRead, writes: got.writes, bytesWritten: got.bytesWritten, ioStallReadMs: got.ioStallReadMs, ioStallWriteMs: got.ioStallWriteMs },
        {
          reads: f.reads - b.reads,
          bytesRead: f.bytesRead - b.bytesRead,
          writes: f.writes - b.writes,
          bytesWritten: f.bytesWritten - b.bytesWritten,
          ioStallReadMs: ms(f.stallReadUs) - ms(b.stallReadUs),
          ioStallWriteMs: ms(f.stallWriteUs) - ms(b.stallWriteUs),
        },
        `file ${f.fileId}`,
      );
    }
    const log = run.files.find((f) => f.type === 'LOG')!;
    assert.ok(log.writes >= 321, `one log write per autocommit insert at least, got ${log.writes}`);
    assert.deepEqual(run.logCounters, {
      logFlushes: after.counters.logFlushes - before.counters.logFlushes,
      logBytesFlushed: after.counters.logBytesFlushed - before.counters.logBytesFlushed,
      logFlushWaitTimeMs: ms(after.counters.logFlushWaitTimeUs) - ms(before.counters.logFlushWaitTimeUs),
    });
    const wl = run.sessionWaits.find((w) => w.waitType === 'WRITELOG')!;
    assert.deepEqual(wl, {
      waitType: 'WRITELOG',
      waitingTasks: sessionAfter.count - sessionBefore.count,
      waitTimeMs: ms(sessionAfter.timeUs) - ms(sessionBefore.timeUs),
      signalWaitTimeMs: ms(sessionAfter.signalUs) - ms(sessionBefore.signalUs),
    });
    assert.equal(run.elapsedMs, run.workloadElapsedMs);
    assert.equal(run.server.version, run.server.identity.productVersion);
    assert.equal(typeof run.server.hostPlatform, 'string');
  });

  it('session isolation: another session\'s commits show in serverWaits but not in the profiled session\'s waits', async function () {
    t.standinOnly(this, 'compares with the model\'s per-session waits');
    const other = await connect(h.profile, h.secret, { role: 'workload' });
    try {
      // The other session commits 40 rows inside the measured window (between the two snapshots).
      const executor: WorkloadExecutor = {
        run(session, batch, options) {
          let inner: ReturnType<WorkloadExecutor['run']> | null = null;
          const done = other.execute(insertLoop(40, table)).then(() => {
            inner = tediousExecutor.run(session, batch, options);
            return inner.done;
          });
          return { done, cancel: () => inner?.cancel() };
        },
      };
      const sessionBefore = sessionWrites(h.engine.session(workload.spid));
      const otherBefore = sessionWrites(h.engine.session(other.spid));
      const run = await profileRun({ connections: { workload, monitor }, batches: analyze(insertLoop(25, table)).batches, executor, xe: { enabled: false } });
      const mine = sessionWrites(h.engine.session(workload.spid)).count - sessionBefore.count;
      const theirs = sessionWrites(h.engine.session(other.spid)).count - otherBefore.count;
      assert.ok(mine >= 25 && theirs >= 40, `model: mine ${mine}, theirs ${theirs}`);
      assert.equal(run.sessionWaits.find((w) => w.waitType === 'WRITELOG')?.waitingTasks, mine);
      assert.equal(run.serverWaits.find((w) => w.waitType === 'WRITELOG')?.waitingTasks, mine + theirs);
    } finally {
      await other.close();
    }
  });

  it('lines between the setup and measure markers run first and are not measured; error lines still map to the document', async () => {
    const marker = t.table('marker');
    const script = [
      'SET NOCOUNT ON;', // 1: measured (harmless)
      '-- durability-lens: setup', // 2
      `IF OBJECT_ID(N'${marker}', N'U') IS NOT NULL DROP TABLE ${marker};`, // 3
      `CREATE TABLE ${marker} (v int NOT NULL);`, // 4
      'GO',
      insertLoop(50, marker), // 6-11: setup
      '-- durability-lens: measure', // 12
      'GO',
      insertLoop(7, marker), // 14-19
      'GO',
    ].join('\n');
    const before = t.standin ? labTruth(h) : null;
    const steps: string[] = [];
    const run = await profileRun({ connections: { workload, monitor }, batches: analyze(script).batches, xe: { enabled: false }, onProgress: (e) => steps.push(e.step) });
    assert.equal(run.status, 'completed');
    assert.equal(run.setupBatchCount, 2);
    assert.ok(steps.indexOf('setup') < steps.indexOf('snapshot-before'));
    assert.equal(Number((await monitor.query(`SELECT COUNT(*) AS n FROM ${marker};`))[0]!.n), 57);
    // 7 measured autocommit inserts: 7 write transactions between the snapshots, not 57 (+ the DDL).
    const commits = run.diff.logCounters.status === 'ok' ? run.diff.logCounters.value.find((c) => c.counterName === 'Write Transactions/sec') : undefined;
    const delta = commits && commits.kind === 'cumulative' ? commits.delta : null;
    if (before) {
      assert.equal(delta, 7);
      assert.ok(before.counters.writeTransactions < labTruth(h).counters.writeTransactions);
    } else {
      assert.ok(delta !== null && delta >= 7 && delta <= 9, `write transactions measured: ${delta}`);
    }

    const failing = ['-- durability-lens: setup', 'SELECT 1;', '-- durability-lens: measure', 'SELECT 1;', 'SELECT * FROM dbo.NoSuchTable;'].join('\n');
    const bad = await profileRun({ connections: { workload, monitor }, batches: analyze(failing).batches, xe: { enabled: false } });
    assert.equal(bad.status, 'workload-error');
    assert.equal(bad.errors[0]?.documentLine, 4);
  });

  it('PRINT "LABEL: n - LABEL2: m" lines become one series per label', async () => {
    const script = `DECLARE @i int = 1;
WHILE @i <= 4
BEGIN
  PRINT CONCAT('INS: ', @i * 10, ' - CHKPT: ', @i);
  SET @i += 1;
END
PRINT 'done without numbers';`;
    const run = await profileRun({ connections: { workload, monitor }, batches: analyze(script).batches, xe: { enabled: false } });
    assert.deepEqual(
      run.printSeries.map((s) => ({ label: s.label, values: s.values })),
      [
        { label: 'INS', values: [10, 20, 30, 40] },
        { label: 'CHKPT', values: [1, 2, 3, 4] },
      ],
    );
    assert.ok(run.printSeries[0]!.atMs.every((t, i, a) => t >= 0 && (i === 0 || t >= a[i - 1]!)));
  });

  it('a run without a time limit or cancel has cancel null; sampling is recorded with its interval', async () => {
    const run = await profileRun({ connections: { workload, monitor }, batches: analyze('SELECT 1;').batches, xe: { enabled: false }, sampling: { intervalMs: 500 } });
    assert.equal(run.cancel, null);
    assert.equal(run.sampleIntervalMs, 500);
    const off = await profileRun({ connections: { workload, monitor }, batches: analyze('SELECT 1;').batches, xe: { enabled: false }, sampling: { enabled: false } });
    assert.deepEqual(off.samples, []);
    assert.equal(off.sampleIntervalMs, null);
  });
});

describe('integration: sampling and time limits on a slow stand-in', function () {
  this.timeout(60000);
  // speedFactor 1: each log write really takes its 1 ms, so the run lasts several sampling intervals.
  const t = useTestServer({ speedFactor: 1, logWriteLatencyMs: 1, standinOnly: 'needs a log device of a known 1 ms per write (stand-in options)' });
  const h = harnessOf(t);
  const table = t.table('run_result_slow');
  before(async () => {
    const s = await connect(h.profile, h.secret, { role: 'workload' });
    await s.execute(`CREATE TABLE ${table} (v int NOT NULL);`);
    await s.close();
  });

  it('samples every interval while the workload runs: ≥ 2 cumulative, non-decreasing readings', async () => {
    const run: RunResult = await profileRun({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(insertLoop(400, table)).batches,
      sampling: { intervalMs: 20 },
      xe: { enabled: false },
    });
    assert.equal(run.status, 'completed');
    assert.ok(run.samples.length >= 2, `samples: ${run.samples.length} over ${run.elapsedMs} ms`);
    const flushes = run.samples.map((s) => s.logFlushes ?? -1);
    assert.ok(flushes.every((v, i) => v >= 0 && (i === 0 || v >= flushes[i - 1]!)), flushes.join(','));
    assert.ok(flushes.at(-1)! <= run.logCounters.logFlushes!);
    assert.ok(run.samples.some((s) => (s.logFlushes ?? 0) > 0));
    const logFileId = run.files.find((f) => f.type === 'LOG')!.fileId;
    const logBytes = run.samples.map((s) => s.files.find((f) => f.fileId === logFileId)!.bytesWritten);
    assert.ok(logBytes.every((v, i) => i === 0 || v >= logBytes[i - 1]!));
    assert.ok(run.samples.every((s, i, a) => i === 0 || s.tMs > a[i - 1]!.tMs));
    await waitFor(() => h.server.connections === 0, 'connections closed');
  });

  it('the workload time limit cancels with an attention and returns a cancelled run with the after-snapshot', async () => {
    const run = await profileRun({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(insertLoop(1_000_000, table)).batches,
      workloadTimeoutMs: 150,
      sampling: { intervalMs: 50 },
    });
    assert.equal(run.status, 'cancelled');
    assert.equal(run.cancel?.reason, 'timeout');
    assert.ok((run.logCounters.logFlushes ?? 0) > 0);
    assert.ok(run.notes.some((n) => /time limit/.test(n)));
    await waitFor(() => h.server.connections === 0, 'connections closed');
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });
});
