// Change tracking / CDC / replication and error 22892: "Starting in SQL Server 2022 CU2 and SQL Server 2019 CU20",
// enabling delayed durability on such a database raises 22892 (Control Transaction Durability). The plan refuses up
// front on those builds — nothing is changed — instead of starting and failing at the first ALTER (issue 11 finding 4).
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, readDurability, runComparison } from '../../../src/profile';
import { connect } from '../../../src/db/connect';
import { analyze } from '../../../src/tsql';
import { useStandins } from '../../support/standin';
import { standinOnlySuite } from '../support';

describe('integration: change tracking and 22892 (stand-in only)', function () {
  this.timeout(60000);
  standinOnlySuite('plays SQL Server 2022 CU1 and CU20 with a change-tracking database');
  const standins = useStandins();

  async function compareOn(cumulativeUpdate: number) {
    const h = await standins.start({ version: 2022, cumulativeUpdate, databases: [{ name: 'ct_db', changeTracking: true }] });
    const journal = new KeyValueRestoreJournal(new MemoryStore());
    let asked = false;
    const result = await runComparison({
      connections: profileConnectionSource({ ...h.profile, database: 'ct_db' }, h.secret),
      batches: analyze('SELECT 1;').batches,
      journal,
      confirm: () => (asked = true),
    });
    const s = await connect({ ...h.profile, database: 'ct_db' }, h.secret, { role: 'monitor' });
    const setting = await readDurability(s, 'ct_db');
    await s.close();
    return { result, asked, setting, journal };
  }

  it('2022 CU20 (raises 22892): refused before anything changes, the reason names 22892', async () => {
    const { result, asked, setting, journal } = await compareOn(20);
    assert.equal(result.status, 'refused');
    assert.deepEqual(result.plan.refusals.map((r) => r.code), ['change-tracking']);
    assert.match(result.plan.refusals[0]!.message, /error 22892/);
    assert.equal(asked, false, 'a refused plan is never offered for confirmation');
    assert.equal(setting, 'DISABLED');
    assert.deepEqual(await journal.list(), []);
  });

  it('2022 CU1 (before 22892): only the documented warning, the comparison may run', async () => {
    const { result } = await compareOn(1);
    assert.deepEqual(result.plan.refusals, []);
    assert.deepEqual(result.plan.warnings.map((w) => w.code), ['change-tracking']);
  });
});
