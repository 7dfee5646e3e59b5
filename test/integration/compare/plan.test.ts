// Plan refusals and the ALLOWED mode against the stand-in: databases whose durability must not be switched are
// refused before anything changes; ALLOWED honours the workload's own COMMIT ... WITH (DELAYED_DURABILITY = ON).
// On a given server (useTestServer) the system-database refusal and ALLOWED run; CDC and AG databases are the stand-in's.
import { strict as assert } from 'node:assert';
import { describePlan, KeyValueRestoreJournal, MemoryStore, profileConnectionSource, readDurability, runComparison } from '../../../src/profile';
import { connect } from '../../../src/db/connect';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';

describe('integration: comparison plan and ALLOWED', function () {
  this.timeout(120000);
  // A login that may switch the setting and read the counters but not create event sessions: its runs trace nothing.
  const NO_XE = { name: 'lens_no_xe', password: 'NoXe-1', databases: ['lab'], serverPermissions: ['VIEW SERVER PERFORMANCE STATE'], databasePermissions: { lab: ['VIEW DATABASE PERFORMANCE STATE', 'ALTER'] } };
  const h = useTestServer({ databases: [{ name: 'cdc_db', cdc: true }, { name: 'ag_db', availabilityGroup: true }], logins: [NO_XE] });

  async function settingOf(database: string) {
    const s = await connect({ ...h.profile, database }, h.secret, { role: 'monitor' });
    try {
      return await readDurability(s, database);
    } finally {
      await s.close();
    }
  }

  for (const [database, code] of [['cdc_db', 'cdc'], ['ag_db', 'availability-group'], ['master', 'system-database']] as const) {
    it(`refuses ${database} (${code}) before changing anything`, async function () {
      if (database !== 'master') h.standinOnly(this, `needs a database with ${code === 'cdc' ? 'change data capture' : 'availability-group membership'} (stand-in options)`);
      const before = await settingOf(database);
      const journal = new KeyValueRestoreJournal(new MemoryStore());
      let asked = false;
      const result = await runComparison({
        connections: profileConnectionSource({ ...h.profile, database }, h.secret),
        batches: analyze('SELECT 1;').batches,
        journal,
        confirm: () => (asked = true),
      });
      assert.equal(result.status, 'refused');
      // A least-privileged login may also lack ALTER on that database: a second refusal, as true.
      if (h.standin) assert.deepEqual(result.plan.refusals.map((r) => r.code), [code]);
      else assert.ok(result.plan.refusals.some((r) => r.code === code), JSON.stringify(result.plan.refusals));
      assert.equal(asked, false, 'a refused plan is never offered for confirmation');
      assert.equal(result.restore, null);
      assert.deepEqual(await journal.list(), []);
      assert.equal(await settingOf(database), before);
    });
  }

  it('ALLOWED delays the COMMITs written WITH (DELAYED_DURABILITY = ON): fewer log writes than DISABLED', async () => {
    const table = h.table('allowed');
    const original = await settingOf(h.database);
    const script = `SET NOCOUNT ON;
IF OBJECT_ID(N'${table}', N'U') IS NOT NULL DROP TABLE ${table};
CREATE TABLE ${table} (id int IDENTITY(1,1), v int DEFAULT 1);
-- durability-lens: setup-end
GO
DECLARE @i int = 0;
WHILE @i < 200
BEGIN
  BEGIN TRANSACTION;
  INSERT INTO ${table} DEFAULT VALUES;
  COMMIT TRANSACTION WITH (DELAYED_DURABILITY = ON);
  SET @i += 1;
END`;
    const analysis = analyze(script);
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analysis.batches,
      modes: ['DISABLED', 'ALLOWED'],
      repetitions: 1,
      warmup: false,
      workloadHasDelayedCommits: analysis.commits.some((c) => c.delayedDurability === 'ON'),
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: () => true,
    });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.setupBatchCount, 1);
    assert.deepEqual(result.plan.warnings, []);
    const writes = rowById(buildComparisonModel(result.runs), 'log.writes')!;
    assert.ok(writes.cells.DISABLED!.median >= 200, `DISABLED ${writes.cells.DISABLED!.median}`);
    assert.ok(writes.cells.ALLOWED!.median * (h.standin ? 10 : 4) < writes.cells.DISABLED!.median, `ALLOWED ${writes.cells.ALLOWED!.median}`);
    assert.equal(result.restore!.verifiedSetting, original);
  });

  // The event session each run creates is DDL on the server: the plan the user confirms says so, and only when the runs
  // really create one (not with the trace off).
  for (const traced of [true, false]) {
    it(`the confirmed plan ${traced ? 'names' : 'does not name'} the event session each run ${traced ? 'creates' : 'no longer creates (trace off)'}`, async () => {
      let shown = '';
      const result = await runComparison({
        connections: profileConnectionSource(h.profile, h.secret),
        batches: analyze('SELECT 1;').batches,
        repetitions: 1,
        warmup: false,
        xe: { enabled: traced },
        journal: new KeyValueRestoreJournal(new MemoryStore()),
        confirm: (plan) => {
          shown = describePlan(plan);
          return true;
        },
      });
      assert.equal(result.status, 'completed', result.error?.message);
      assert.equal(result.runs.length, 2);
      if (traced) {
        // The stand-in plays SQL Server (sessions ON SERVER); a given Azure SQL Database would say ON DATABASE.
        if (h.standin) assert.equal(result.plan.eventSession, 'server');
        assert.match(shown, /^Trace: {4}each run creates an Extended Events session ON (SERVER|DATABASE) \(durability_lens_…, log flushes only\), starts, reads, stops and drops it/m);
        for (const run of result.runs) assert.ok(run.logFlushTrace, `run ${run.mode} was traced as the plan said`);
      } else {
        assert.equal(result.plan.eventSession, undefined);
        assert.doesNotMatch(shown, /Extended Events|^Trace:/m);
        for (const run of result.runs) assert.equal(run.logFlushTrace, null, `run ${run.mode} created no session`);
      }
      assert.deepEqual((await h.state()).eventSessions, []);
    });
  }

  it('a login that may not create event sessions is shown no event session, and its runs create none', async function () {
    h.standinOnly(this, 'needs a login without the event-session permissions (stand-in option)');
    let shown = '';
    const result = await runComparison({
      connections: profileConnectionSource({ ...h.profile, authentication: { type: 'sql', user: NO_XE.name } }, NO_XE.password),
      batches: analyze('SELECT 1;').batches,
      repetitions: 1,
      warmup: false,
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: (plan) => {
        shown = describePlan(plan);
        return true;
      },
    });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.plan.eventSession, undefined);
    assert.doesNotMatch(shown, /Extended Events/);
    for (const run of result.runs) assert.equal(run.logFlushTrace, null);
    assert.ok(result.runs.every((r) => r.missing.some((m) => m.measurement === 'extendedEvents' && m.grant)), 'each run says why, with the GRANT');
    assert.deepEqual((await h.state()).eventSessions, []);
  });
});
