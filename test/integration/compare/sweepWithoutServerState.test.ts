// Issue 33 D1 end to end: a login without the server-state permission runs `compare --sessions 1,2` through the real
// CLI against the stand-in. SQL Server hides other sessions' rows of sys.dm_exec_session_wait_stats from such a login
// without an error, so their WRITELOG must read "not measured" with the reason and the GRANT — in every run and at
// every level of the curve — and never 0. The figures the login can read stay measured.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/commands/shared';
import { processIO } from '../../../src/cli/io';
import type { ComparisonDocument } from '../../../src/report/document';
import { useStandin } from '../../support/standin';

/** May switch DELAYED_DURABILITY and create the script's table; holds no server permission at all. */
const NO_SERVER_STATE = { name: 'lens_sweeper', password: 'Sweeper-1', databases: ['lab'], databasePermissions: { lab: ['ALTER', 'CREATE TABLE'] } };

const SCRIPT = `-- durability-lens: setup
IF OBJECT_ID(N'dbo.Swept', N'U') IS NOT NULL DROP TABLE dbo.Swept;
CREATE TABLE dbo.Swept (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL);
-- durability-lens: measure
GO
-- durability-lens: session-param @session
SET NOCOUNT ON;
DECLARE @i int = 0;
WHILE @i < 60
BEGIN
    INSERT INTO dbo.Swept (session_no) VALUES (@session);
    SET @i += 1;
END
`;

describe('integration: compare --sessions as a login without server state (D1, CLI, stand-in)', function () {
  this.timeout(120000);
  const h = useStandin({ logins: [NO_SERVER_STATE] }, { expectConnectionsClosed: true });
  let dir: string;
  let out: string[];
  let err: string[];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-d1-'));
    await writeFile(join(dir, 'swept.sql'), SCRIPT);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function compare(...extra: string[]): Promise<number> {
    out = [];
    err = [];
    const io = { ...processIO(), cwd: dir, userSettings: join(dir, 'none.json'), env: { PW: NO_SERVER_STATE.password }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) };
    const connection = ['--server', '127.0.0.1', '--port', String(h.server.port), '--database', 'lab', '--user', NO_SERVER_STATE.name, '--password-env', 'PW', '--encrypt', 'false', '--journal', join(dir, 'j.json'), '--yes'];
    return runCli(['compare', join(dir, 'swept.sql'), ...connection, '--sessions', '1,2', '--repeat', '1', '--no-warmup', ...extra], io);
  }

  it('--json: WRITELOG is "not measured" with the reason and GRANT per run and per level, never 0', async () => {
    const code = await compare('--json');
    assert.equal(code, EXIT.ok, err.join(''));
    const doc = JSON.parse(out.join('')) as ComparisonDocument;
    const grant = /GRANT VIEW SERVER PERFORMANCE STATE TO \[lens_sweeper\]/;
    const runs = doc.modes.flatMap((m) => m.runs);
    assert.deepEqual(runs.map((r) => r.concurrency!.sessions).sort(), [1, 1, 2, 2]);
    for (const r of runs) {
      const label = `${r.mode} at ${r.concurrency!.sessions}`;
      assert.equal(r.concurrency!.writelog, null, label);
      assert.match(r.concurrency!.writelogNotMeasured ?? '', /not measured .*sees only its own session's waits/, label);
      assert.match(r.concurrency!.writelogNotMeasured ?? '', grant, label);
      assert.deepEqual(r.sessionWaits, [], `${label}: no session wait rows shown as figures`);
      const missing = r.missing.find((m) => m.measurement === 'sessionWaits');
      assert.ok(missing, `${label}: sessionWaits listed as missing`);
      assert.match(missing!.grant ?? '', grant, label);
      // The per-statement vs session checks cannot run, and say so.
      assert.equal(r.consistency!.find((c) => c.check === 'writelog-waits:statements-vs-session')!.status, 'not-possible', label);
    }
    assert.deepEqual(doc.concurrency.map((p) => [p.sessions, p.mode]), [[1, 'DISABLED'], [1, 'FORCED'], [2, 'DISABLED'], [2, 'FORCED']]);
    for (const p of doc.concurrency) {
      assert.equal(p.writelogMsPerCommit, null, `${p.mode} at ${p.sessions}`);
      const why = p.notMeasured.find((n) => n.metric === 'writelogMsPerCommit');
      assert.ok(why, `${p.mode} at ${p.sessions}: says why`);
      assert.match(why!.reason, grant);
    }
    // The comparison table's WRITELOG rows are "not measured" too (null cells, the reason attached), not 0.
    for (const id of ['writelog.count', 'writelog.ms']) {
      const row = doc.model.rows.find((r) => r.id === id)!;
      assert.ok(Object.values(row.cells).every((c) => c === null), id);
      assert.equal(row.notMeasured?.measurement, 'sessionWaits', id);
    }
  });

  it('Markdown: the WRITELOG column of the curve and the table rows read "not measured", with the GRANT', async () => {
    const code = await compare();
    assert.equal(code, EXIT.ok, err.join(''));
    const text = out.join('');
    assert.match(text, /\| WRITELOG waits \(session\) \| not measured \| not measured \|/);
    for (const line of text.split('\n').filter((l) => /^\| [12] \| (DISABLED|FORCED) \|/.test(l))) assert.match(line, /\| not measured \| not measured \|$/, line);
    assert.match(text, /- Not measured: The workload sessions' WRITELOG is not measured .*GRANT VIEW SERVER PERFORMANCE STATE TO \[lens_sweeper\]/);
  });
});
