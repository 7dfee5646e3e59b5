// profileRun against the stand-in over real TDS: S1 scaled to 500 rows, cancel mid-run, cleanup of connections
// and event sessions.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { waitFor } from '../support';
import { s1Script, serverState, startStandin, type StandinHarness } from './standin';

describe('integration: profile run (stand-in)', function () {
  this.timeout(60000);
  let h: StandinHarness;
  before(async () => {
    h = await startStandin();
  });
  after(async () => {
    await h?.close();
  });

  it('profiles S1 (500 single-row inserts) under DISABLED: a log write and a WRITELOG wait per commit', async () => {
    const steps: string[] = [];
    const run = await profileRun({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(s1Script(500)).batches,
      onProgress: (e) => void (e.step !== 'workload-progress' && steps.push(e.step)), // live progress repeats; its own test is in controller.test.ts
    });
    assert.equal(run.status, 'completed');
    assert.equal(run.source, 'stand-in');
    assert.equal(run.delayedDurability, 'DISABLED');
    assert.deepEqual(run.errors, []);
    // The sample's two batches up to '-- durability-lens: setup-end' run first, unmeasured.
    assert.deepEqual(steps, ['connect', 'setup', 'preflight', 'snapshot-before', 'xe-start', 'workload', 'snapshot-after', 'xe-read', 'xe-drop', 'done']);
    assert.equal(run.setupBatchCount, 2);
    assert.equal(run.batches.length, 1);
    assert.deepEqual(run.batches.map((b) => b.iterationsCompleted), [1]);

    const model = buildComparisonModel([run]);
    const median = (id: string) => rowById(model, id)!.cells.DISABLED!.median;
    assert.ok(median('log.writes') >= 500, `log writes ${median('log.writes')}`);
    assert.ok(median('writelog.count') >= 500, `WRITELOG ${median('writelog.count')}`);
    assert.ok(median('flushes.xe') >= 500, `XE flushes ${median('flushes.xe')}`);
    assert.ok(median('log.avgBytesPerWrite') < 8192, `avg bytes ${median('log.avgBytesPerWrite')}`);
    assert.ok(model.diagnosis.some((f) => f.id === 'commit-per-row'));
    assert.equal(model.sourceLabel !== null, true);

    await waitFor(() => h.server.connections === 0, 'both connections closed');
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });

  it('cancels mid-workload: ATTENTION stops the loop, the after-snapshot is still taken, the run is returned as cancelled, the event session is dropped', async () => {
    const controller = new AbortController();
    const script = `DECLARE @i int = 0;
WHILE @i < 1000000
BEGIN
  INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;
  IF @i = 50 PRINT 'started';
  SET @i += 1;
END`;
    await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(s1Script(1)).batches }); // creates the table
    const started = Date.now();
    const steps: string[] = [];
    const run = await profileRun({
      connections: profileConnectionSource(h.profile, h.secret),
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
    assert.ok((run.logCounters.logFlushes ?? 0) >= 51, `flushes ${run.logCounters.logFlushes}`);
    assert.ok(run.files.some((f) => f.type === 'LOG' && f.writes >= 51));
    assert.ok(Date.now() - started < 30000);
    await waitFor(() => h.server.connections === 0, 'both connections closed');
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });

  it('a login without server-state or event-session permissions still gets a run, with the missing measurements and their GRANTs', async () => {
    h.engine.addLogin({ name: 'lens]app', password: 'App-1', databases: ['lab'], databasePermissions: { lab: ['CREATE TABLE', 'INSERT', 'SELECT'] } });
    const run = await profileRun({
      connections: profileConnectionSource({ ...h.profile, authentication: { type: 'sql', user: 'lens]app' } }, 'App-1'),
      batches: analyze('CREATE TABLE dbo.lowpriv_t (i int);\nGO\nINSERT INTO dbo.lowpriv_t VALUES (1);').batches,
    });
    assert.equal(run.status, 'completed');
    assert.equal(run.logFlushTrace, null);
    const byName = new Map(run.missing.map((m) => [m.measurement, m]));
    assert.match(byName.get('extendedEvents')!.grant!, /GRANT ALTER ANY EVENT SESSION TO \[lens\]\]app\];/);
    assert.match(byName.get('fileStats')!.grant!, /GRANT VIEW SERVER PERFORMANCE STATE TO \[lens\]\]app\];/);
    await waitFor(() => h.server.connections === 0, 'both connections closed');
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });
});

