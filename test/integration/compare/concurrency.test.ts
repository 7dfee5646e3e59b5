// The concurrency sweep against the stand-in over real TDS (issue 18): the group-commit curve (DISABLED at 8
// sessions shares flushes, 1 session does not), the session-param marker, the connection limit, and every connection
// closed after an error or a cancel. Figures are the stand-in model's, not SQL Server's.
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison, type CompareOptions } from '../../../src/profile';
import { analyze } from '../../../src/tsql';
import { waitFor } from '../support';
import { serverState, startStandin, type StandinHarness } from '../profile/standin';

/** Setup recreates the table; each session inserts `rows` single-row autocommit transactions tagged with @session. */
function keyedScript(rows: number): string {
  return `-- durability-lens: setup
IF OBJECT_ID(N'dbo.Keyed', N'U') IS NOT NULL DROP TABLE dbo.Keyed;
CREATE TABLE dbo.Keyed (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL);
-- durability-lens: measure
GO
-- durability-lens: session-param @session
SET NOCOUNT ON;
DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
    INSERT INTO dbo.Keyed (session_no) VALUES (@session);
    SET @i += 1;
END
`;
}

describe('integration: concurrency sweep (stand-in)', function () {
  this.timeout(120000);
  let h: StandinHarness;
  let journal: KeyValueRestoreJournal;
  before(async () => {
    h = await startStandin();
  });
  beforeEach(() => {
    h.engine.faults.reset();
    journal = new KeyValueRestoreJournal(new MemoryStore());
  });
  afterEach(async () => {
    h.engine.faults.reset();
    assert.deepEqual(await journal.list(), []);
    await waitFor(() => h.server.connections === 0, 'every connection closed');
    assert.deepEqual(await serverState(h), { setting: 'DISABLED', eventSessions: [] });
  });
  after(async () => {
    await h?.close();
  });

  function options(extra: Partial<CompareOptions> = {}): CompareOptions {
    return { connections: profileConnectionSource(h.profile, h.secret), batches: analyze(keyedScript(200)).batches, repetitions: 1, journal, confirm: () => true, ...extra };
  }

  it('DISABLED at 8 sessions shares flushes (well below 1 per commit); at 1 session one flush per commit', async () => {
    const result = await runComparison(options({ sessions: [1, 8], modes: ['DISABLED', 'FORCED'] }));
    assert.equal(result.status, 'completed', result.error?.message);
    for (const r of result.runs.filter((x) => !x.warmup)) {
      console.log(r.mode, r.concurrency?.sessions, r.logCounters, r.concurrency?.writelog, r.workloadElapsedMs, r.concurrency?.perSession.map((s) => s.rowsAffected));
    }
  });
});
