// profileRun over real TDS on the suite's server (useTestServer: a given server or the in-process stand-in): S1
// scaled to 500 rows, cancel mid-run, cleanup of connections and event sessions. On a given server the expectations
// are physical (rows counted, one log write per durable single-session commit, the sources agree); the stand-in's
// own figures are asserted only against the stand-in.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';
import { s1Script } from '../samples';

describe('integration: profile run', function () {
  this.timeout(60000);
  const t = useTestServer();

  async function rowsIn(table: string): Promise<number> {
    const s = await t.connect();
    try {
      const [row] = await s.query(`SELECT COUNT(*) AS n FROM ${table};`);
      return Number(row!.n);
    } finally {
      await s.close();
    }
  }

  it('profiles S1 (500 single-row inserts) under DISABLED: a log write and a WRITELOG wait per commit', async () => {
    const table = t.table('s1');
    const steps: string[] = [];
    const run = await profileRun({
      connections: profileConnectionSource(t.profile, t.secret),
      batches: analyze(s1Script(500, table)).batches,
      onProgress: (e) => void (e.step !== 'workload-progress' && steps.push(e.step)), // live progress repeats; its own test is in controller.test.ts
    });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(run.delayedDurability, 'DISABLED');
    assert.deepEqual(run.errors, []);
    // The sample's two batches up to '-- durability-lens: setup-end' run first, unmeasured.
    assert.deepEqual(steps, ['connect', 'setup', 'preflight', 'snapshot-before', 'xe-start', 'workload', 'snapshot-after', 'xe-read', 'xe-drop', 'done']);
    assert.equal(run.setupBatchCount, 2);
    assert.equal(run.batches.length, 1);
    assert.deepEqual(run.batches.map((b) => b.iterationsCompleted), [1]);
    assert.equal(await rowsIn(table), 500, 'every row reached the table');

    const model = buildComparisonModel([run]);
    const median = (id: string) => rowById(model, id)!.cells.DISABLED!.median;
    // One session, DISABLED: every autocommit INSERT waits for its own log flush (no other commit to share it with).
    assert.ok(median('log.writes') >= 500, `log writes ${median('log.writes')}`);
    assert.ok(median('writelog.count') >= 500, `WRITELOG ${median('writelog.count')}`);
    assert.ok(median('flushes.xe') >= 500, `XE flushes ${median('flushes.xe')}`);
    // A single-row commit is far below a full 60 KB log block.
    assert.ok(median('log.avgBytesPerWrite') < (t.standin ? 8192 : 61440), `avg bytes ${median('log.avgBytesPerWrite')}`);
    // Three sources of the same flushes agree: the trace, the counter, the log file's writes.
    const counter = run.logCounters.logFlushes!;
    assert.ok(Math.abs(median('flushes.xe') - counter) <= counter * 0.1, `XE ${median('flushes.xe')} vs counter ${counter}`);
    assert.ok(model.diagnosis.some((f) => f.id === 'commit-per-row'));
    if (t.standin) {
      assert.equal(run.source, 'stand-in');
      assert.notEqual(model.sourceLabel, null);
    }

    await t.connectionsClosed();
    assert.deepEqual((await t.state()).eventSessions, []);
  });

  it('cancels mid-workload: ATTENTION stops the loop, the after-snapshot is still taken, the run is returned as cancelled, the event session is dropped', async () => {
    const table = t.table('s1_cancel');
    const controller = new AbortController();
    const script = `DECLARE @i int = 0;
WHILE @i < 1000000
BEGIN
  INSERT INTO ${table} DEFAULT VALUES;
  IF @i = 50 PRINT 'started';
  SET @i += 1;
END`;
    await profileRun({ connections: profileConnectionSource(t.profile, t.secret), batches: analyze(s1Script(1, table)).batches }); // creates the table
    const started = performance.now(); // monotonic: a wall-clock step during the run cannot fail the bound
    const steps: string[] = [];
    const run = await profileRun({
      connections: profileConnectionSource(t.profile, t.secret),
      batches: analyze(script).batches,
      onMessage: (m) => {
        if (m.message === 'started') controller.abort();
      },
      onProgress: (e) => void (e.step !== 'workload-progress' && steps.push(e.step)), // live progress repeats; its own test is in controller.test.ts
      signal: controller.signal,
    });
    assert.equal(run.status, 'cancelled');
    assert.equal(run.cancel?.reason, 'user');
    assert.deepEqual(steps.slice(steps.indexOf('workload')), ['workload', 'cancel', 'snapshot-after', 'xe-read', 'xe-drop', 'done']);
    assert.equal(run.batches[0]!.iterationsCompleted, 0);
    // The after-snapshot was taken: the inserts before the attention are counted (at least the 51 before PRINT).
    const rows = (await rowsIn(table)) - 1;
    assert.ok(rows >= 51 && rows < 1000000, `rows inserted before the cancel: ${rows}`);
    assert.ok((run.logCounters.logFlushes ?? 0) >= 51, `flushes ${run.logCounters.logFlushes}`);
    assert.ok(run.files.some((f) => f.type === 'LOG' && f.writes >= 51));
    assert.ok(performance.now() - started < 30000);
    await t.connectionsClosed();
    assert.deepEqual((await t.state()).eventSessions, []);
  });

  it('a login without server-state or event-session permissions still gets a run, with the missing measurements and their GRANTs', async function () {
    t.standinOnly(this, 'creates a second login through the stand-in control API');
    const table = t.table('lowpriv');
    t.standin!.addLogin({ name: 'lens]app', password: 'App-1', databases: ['lab'], databasePermissions: { lab: ['CREATE TABLE', 'INSERT', 'SELECT'] } });
    const run = await profileRun({
      connections: profileConnectionSource({ ...t.profile, authentication: { type: 'sql', user: 'lens]app' } }, 'App-1'),
      batches: analyze(`CREATE TABLE ${table} (i int);\nGO\nINSERT INTO ${table} VALUES (1);`).batches,
    });
    assert.equal(run.status, 'completed');
    assert.equal(run.logFlushTrace, null);
    const byName = new Map(run.missing.map((m) => [m.measurement, m]));
    assert.match(byName.get('extendedEvents')!.grant!, /GRANT ALTER ANY EVENT SESSION TO \[lens\]\]app\];/);
    assert.match(byName.get('fileStats')!.grant!, /GRANT VIEW SERVER PERFORMANCE STATE TO \[lens\]\]app\];/);
    await t.connectionsClosed();
    assert.deepEqual((await t.state()).eventSessions, []);
  });
});
