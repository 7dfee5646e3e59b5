// Plan refusals and the ALLOWED mode against the stand-in: databases whose durability must not be switched are
// refused before anything changes; ALLOWED honours the workload's own COMMIT ... WITH (DELAYED_DURABILITY = ON).
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, readDurability, runComparison } from '../../../src/profile';
import { connect } from '../../../src/db/connect';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { startStandin, type StandinHarness } from '../profile/standin';

describe('integration: comparison plan and ALLOWED (stand-in)', function () {
  this.timeout(120000);
  let h: StandinHarness;
  before(async () => {
    h = await startStandin({ databases: [{ name: 'cdc_db', cdc: true }, { name: 'ag_db', availabilityGroup: true }] });
  });
  after(async () => {
    await h?.close();
  });

  async function settingOf(database: string) {
    const s = await connect({ ...h.profile, database }, h.secret, { role: 'monitor' });
    try {
      return await readDurability(s, database);
    } finally {
      await s.close();
    }
  }

  for (const [database, code] of [['cdc_db', 'cdc'], ['ag_db', 'availability-group'], ['master', 'system-database']] as const) {
    it(`refuses ${database} (${code}) before changing anything`, async () => {
      const journal = new KeyValueRestoreJournal(new MemoryStore());
      let asked = false;
      const result = await runComparison({
        connections: profileConnectionSource({ ...h.profile, database }, h.secret),
        batches: analyze('SELECT 1;').batches,
        journal,
        confirm: () => (asked = true),
      });
      assert.equal(result.status, 'refused');
      assert.deepEqual(result.plan.refusals.map((r) => r.code), [code]);
      assert.equal(asked, false, 'a refused plan is never offered for confirmation');
      assert.equal(result.restore, null);
      assert.deepEqual(await journal.list(), []);
      assert.equal(await settingOf(database), 'DISABLED');
    });
  }

  it('ALLOWED delays the COMMITs written WITH (DELAYED_DURABILITY = ON): fewer log writes than DISABLED', async () => {
    const script = `SET NOCOUNT ON;
IF OBJECT_ID(N'dbo.allowed_t', N'U') IS NOT NULL DROP TABLE dbo.allowed_t;
CREATE TABLE dbo.allowed_t (id int IDENTITY(1,1), v int DEFAULT 1);
-- durability-lens: setup-end
GO
DECLARE @i int = 0;
WHILE @i < 200
BEGIN
  BEGIN TRANSACTION;
  INSERT INTO dbo.allowed_t DEFAULT VALUES;
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
    assert.ok(writes.cells.ALLOWED!.median * 10 < writes.cells.DISABLED!.median, `ALLOWED ${writes.cells.ALLOWED!.median}`);
    assert.equal(result.restore!.verifiedSetting, 'DISABLED');
  });
});
