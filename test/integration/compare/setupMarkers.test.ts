// The comparison re-runs the setup section before every measured run (S1 recreates its table): the line
// markers and the samples' batch-level alias, against the stand-in.
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison, SetupMarkerError } from '../../../src/profile';
import { counter } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { waitFor } from '../support';
import { s1Script, serverState, startStandin, type StandinHarness } from '../profile/standin';

const script = (rows: number) => `SET NOCOUNT ON;
-- durability-lens: setup
IF OBJECT_ID(N'dbo.CmpMarker', N'U') IS NOT NULL DROP TABLE dbo.CmpMarker;
CREATE TABLE dbo.CmpMarker (v int NOT NULL);
INSERT INTO dbo.CmpMarker (v) VALUES (-1);
-- durability-lens: measure
GO
DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
  INSERT INTO dbo.CmpMarker (v) VALUES (@i);
  SET @i += 1;
END
GO`;

describe('integration: setup markers in a comparison (stand-in)', function () {
  this.timeout(60000);
  let h: StandinHarness;
  before(async () => {
    h = await startStandin();
  });
  after(async () => {
    await h?.close();
  });

  function rowsOf(table: string): number | undefined {
    const db = [...h.engine.state.databases.values()].find((d) => d.name === 'lab')!;
    return [...db.tables.values()].find((t) => t.name.toLowerCase() === table.toLowerCase())?.rows.length;
  }

  it('runs the lines between setup and measure before every run, unmeasured: each run counts only its own commits', async () => {
    const setupSteps: string[] = [];
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(script(40)).batches,
      repetitions: 2,
      warmup: true,
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: () => true,
      onProgress: (e) => {
        if (e.step === 'setup') setupSteps.push(e.detail ?? '');
      },
    });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.setupBatchCount, 1);
    assert.equal(setupSteps.length, 5, setupSteps.join('\n')); // warm-up + 2 × 2 measured runs
    for (const run of result.runs) {
      assert.equal(run.setupBatchCount, 1);
      assert.equal(counter(run, 'Write Transactions/sec'), 40, `${run.mode} rep ${run.repetition}`);
    }
    // The table was recreated before the last run: its seed row plus one run's inserts.
    assert.equal(rowsOf('CmpMarker'), 41);
    await waitFor(() => h.server.connections === 0, 'connections closed');
    assert.deepEqual(await serverState(h), { setting: 'DISABLED', eventSessions: [] });
  });

  it('keeps the batch-level setup-end alias of the samples working', async () => {
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(s1Script(25)).batches,
      repetitions: 1,
      warmup: false,
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: () => true,
    });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.setupBatchCount, 2);
    assert.deepEqual(result.runs.map((r) => counter(r, 'Write Transactions/sec')), [25, 25]);
    assert.equal(rowsOf('SingleRowInsert'), 25);
  });

  it('an unpaired marker is refused before anything connects or changes', async () => {
    await assert.rejects(
      runComparison({
        connections: profileConnectionSource(h.profile, h.secret),
        batches: analyze('-- durability-lens: setup\nSELECT 1;').batches,
        journal: new KeyValueRestoreJournal(new MemoryStore()),
        confirm: () => true,
      }),
      (e: unknown) => e instanceof SetupMarkerError,
    );
    assert.equal(h.server.connections, 0);
  });
});
