// Issue 33 D6 end to end: on Azure SQL Database a database's SQLServer:Databases counter instance may carry a suffix
// after its GUID (telegraf's Azure queries join on LEFT(instance_name, 36)). The stand-in's counterInstanceSuffix
// switch plays that; the snapshot and a whole profile run still read the database's counters — never "not measured"
// for a name the server spells with a suffix, and never another instance's figures.
import { strict as assert } from 'node:assert';
import { connect } from '../../src/db/connect';
import { captureSnapshot } from '../../src/probes/snapshot';
import { profileConnectionSource, profileRun } from '../../src/profile';
import { analyze } from '../../src/tsql';
import { consistencyFaults } from '../standin/model/consistencyFaults';
import { useStandin } from '../support/standin';

describe('integration: a suffixed counter instance name on Azure SQL Database (D6, stand-in)', function () {
  this.timeout(60000);
  const h = useStandin({ product: 'azure-sqldb' }, { expectConnectionsClosed: true });

  before(() => {
    consistencyFaults(h.engine.state).counterInstanceSuffix = '.1';
  });

  it('the snapshot reads the counters of "<guid>.1" as the database\'s', async () => {
    const monitor = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      const [row] = await monitor.query('SELECT DB_ID() AS id, DB_NAME() AS name, physical_database_name AS guid FROM sys.databases WHERE database_id = DB_ID();');
      const snapshot = await captureSnapshot(monitor, { databaseId: Number(row!.id), databaseName: String(row!.name), workloadSpid: null });
      assert.equal(snapshot.logCounters.status, 'ok', snapshot.logCounters.status === 'unavailable' ? snapshot.logCounters.reason : '');
      assert.ok(snapshot.logCounters.status === 'ok' && snapshot.logCounters.value.every((c) => c.instanceName === `${String(row!.guid)}.1`));
    } finally {
      await monitor.close();
    }
  });

  it('a profile run has its Log Flushes/sec delta and every sample its counters', async () => {
    const script = "IF OBJECT_ID(N'dbo.d6_t') IS NULL CREATE TABLE dbo.d6_t (id int);\nGO\nDECLARE @i int = 0;\nWHILE @i < 40\nBEGIN\n  INSERT INTO dbo.d6_t VALUES (@i);\n  SET @i += 1;\nEND";
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(script).batches, xe: { enabled: false }, sampling: { intervalMs: 10 } });
    assert.ok((run.logCounters.logFlushes ?? 0) >= 40, `Log Flushes/sec delta ${run.logCounters.logFlushes}`);
    assert.ok(!run.missing.some((m) => m.measurement === 'perfCounters'), JSON.stringify(run.missing));
    assert.ok(run.samples.every((s) => s.logFlushes !== null));
  });
});
