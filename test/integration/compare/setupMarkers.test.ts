// The comparison re-runs the setup section before every measured run (S1 recreates its table): the line
// markers and the samples' batch-level alias, on the suite's server (useTestServer).
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison, SetupMarkerError } from '../../../src/profile';
import { counter } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';
import { s1Script } from '../samples';

const script = (rows: number, table: string) => `SET NOCOUNT ON;
-- durability-lens: setup
IF OBJECT_ID(N'${table}', N'U') IS NOT NULL DROP TABLE ${table};
CREATE TABLE ${table} (v int NOT NULL);
INSERT INTO ${table} (v) VALUES (-1);
-- durability-lens: measure
GO
DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
  INSERT INTO ${table} (v) VALUES (@i);
  SET @i += 1;
END
GO`;

describe('integration: setup markers in a comparison', function () {
  this.timeout(60000);
  const h = useTestServer();
  const marker = h.table('cmp_marker');
  const s1 = h.table('marker_s1');

  async function rowsOf(table: string): Promise<number> {
    const s = await h.connect();
    try {
      return Number((await s.query(`SELECT COUNT(*) AS n FROM ${table};`))[0]!.n);
    } finally {
      await s.close();
    }
  }
  /** Write transactions of a run: exactly the commits on the stand-in; a server may add a few of its own. */
  const commitsOk = (n: number | null | undefined, expected: number) => n !== null && n !== undefined && (h.standin ? n === expected : n >= expected && n <= expected + 2);

  it('runs the lines between setup and measure before every run, unmeasured: each run counts only its own commits', async () => {
    const setupSteps: string[] = [];
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(script(40, marker)).batches,
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
      assert.ok(commitsOk(counter(run, 'Write Transactions/sec'), 40), `${run.mode} rep ${run.repetition}: ${counter(run, 'Write Transactions/sec')}`);
    }
    // The table was recreated before the last run: its seed row plus one run's inserts.
    assert.equal(await rowsOf(marker), 41);
    await h.connectionsClosed();
    assert.deepEqual((await h.state()).eventSessions, []);
  });

  it('keeps the batch-level setup-end alias of the samples working', async () => {
    const result = await runComparison({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(s1Script(25, s1)).batches,
      repetitions: 1,
      warmup: false,
      journal: new KeyValueRestoreJournal(new MemoryStore()),
      confirm: () => true,
    });
    assert.equal(result.status, 'completed', result.error?.message);
    assert.equal(result.setupBatchCount, 2);
    assert.ok(result.runs.every((r) => commitsOk(counter(r, 'Write Transactions/sec'), 25)), JSON.stringify(result.runs.map((r) => counter(r, 'Write Transactions/sec'))));
    assert.equal(await rowsOf(s1), 25);
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
    if (h.standinServer) assert.equal(h.standinServer.connections, 0);
  });
});
