// Azure SQL Database traces through a database-scoped event session. Whether log-writer events reach such a session is
// NOT CONFIRMED (stand-in option databaseSessionsSeeLogFlushes, MODEL.md), so a profiled run must handle both: with the
// events, flushes are measured; without them, an empty trace of a run that committed is "not measured", never 0.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun } from '../../../src/profile';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useStandins } from '../../support/standin';
import { s1Script, serverState } from '../profile/standin';
import { standinOnlySuite } from '../support';

describe('integration: Azure SQL Database, database-scoped trace (stand-in only)', function () {
  this.timeout(60000);
  standinOnlySuite('plays Azure SQL Database (database-scoped sessions), with and without log-writer events');
  const standins = useStandins();

  for (const seesLogFlushes of [true, false]) {
    it(`profiles S1 with log-writer events ${seesLogFlushes ? 'delivered' : 'withheld'}: flushes are ${seesLogFlushes ? 'counted' : 'not measured, with why'}`, async () => {
      const h = await standins.start({ product: 'azure-sqldb', databaseSessionsSeeLogFlushes: seesLogFlushes });
      const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(s1Script(200)).batches });
      assert.equal(run.status, 'completed');
      const model = buildComparisonModel([run]);
      const flushes = rowById(model, 'flushes.xe')!;
      if (seesLogFlushes) {
        assert.ok(flushes.cells.DISABLED!.median >= 200, `XE flushes ${flushes.cells.DISABLED?.median}`);
        assert.equal(flushes.notMeasured, null);
      } else {
        assert.equal(flushes.cells.DISABLED ?? null, null, 'no figure, not 0');
        assert.match(JSON.stringify(run), /Azure SQL Database may not deliver log-writer events to database-scoped sessions/);
        // The trace's silence does not hide the commits: the workload's own WRITELOG waits are still counted.
        assert.ok(rowById(model, 'writelog.count')!.cells.DISABLED!.median >= 200);
      }
      assert.deepEqual((await serverState(h)).eventSessions, [], 'the database-scoped session is dropped');
    });
  }
});
