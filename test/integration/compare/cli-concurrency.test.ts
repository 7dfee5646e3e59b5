// `durability-lens compare --sessions 1,8` through the real CLI against the stand-in: the JSON's `concurrency` entries
// carry the documented keys with real figures (DISABLED at 8 sessions below 0.5 flushes per commit), the Markdown has
// the Concurrency table and verdict, and bad levels are usage errors. On the suite's server (useTestServer); the stand-in
// model's exact thresholds are asserted only there, a given server gets the physical ordering.
import { strict as assert } from 'node:assert';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/dispatch';
import { processIO } from '../../../src/cli/io';
import { EXIT } from '../../../src/cli/commands/shared';
import { TEST_PASSWORD_ENV, useTestServer } from '../support';

const script = (table: string) => `-- durability-lens: setup
IF OBJECT_ID(N'${table}', N'U') IS NOT NULL DROP TABLE ${table};
CREATE TABLE ${table} (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL);
-- durability-lens: measure
GO
-- durability-lens: session-param @session
SET NOCOUNT ON;
DECLARE @i int = 0;
WHILE @i < 150
BEGIN
    INSERT INTO ${table} (session_no) VALUES (@session);
    SET @i += 1;
END
`;

describe('integration: compare --sessions (CLI)', function () {
  this.timeout(120000);
  const h = useTestServer();
  let dir: string;
  let out: string[];
  let err: string[];
  const io = () => ({ ...processIO(), cwd: dir, userSettings: join(dir, 'no-user-settings.json'), env: { [TEST_PASSWORD_ENV]: h.secret }, stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) });
  const connection = () => [...h.cliConnection(), '--journal', join(dir, 'j.json'), '--yes'];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lens-cli-conc-'));
    await writeFile(join(dir, 'keyed.sql'), script(h.table('cli_keyed')));
  });
  beforeEach(() => {
    out = [];
    err = [];
  });
  afterEach(async () => {
    await h.connectionsClosed();
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--json: concurrency [{sessions, mode, commitsPerSec, flushesPerCommit, writelogMsPerCommit, …}] per level and mode', async () => {
    const code = await runCli(['compare', join(dir, 'keyed.sql'), ...connection(), '--sessions', '1,8', '--repeat', '2', '--json'], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const doc = JSON.parse(out.join(''));
    assert.deepEqual(doc.concurrency.map((p: { sessions: number; mode: string }) => [p.sessions, p.mode]), [[1, 'DISABLED'], [1, 'FORCED'], [8, 'DISABLED'], [8, 'FORCED']]);
    for (const p of doc.concurrency) {
      for (const k of ['sessions', 'mode', 'runs', 'commitsPerSec', 'flushesPerCommit', 'averageFlushBytes', 'writelogMsPerCommit', 'p95CommitLatencyMs', 'spread', 'notMeasured']) assert.ok(k in p, `concurrency.${k}`);
      assert.equal(p.runs, 2);
      assert.ok(p.commitsPerSec > 0);
      assert.equal(p.p95CommitLatencyMs, null);
      assert.ok(p.notMeasured.some((n: { metric: string }) => n.metric === 'p95CommitLatencyMs'));
    }
    const at = (n: number, mode: string) => doc.concurrency.find((p: { sessions: number; mode: string }) => p.sessions === n && p.mode === mode);
    assert.ok(Math.abs(at(1, 'DISABLED').flushesPerCommit - 1) < (h.standin ? 0.02 : 0.1));
    assert.ok(at(8, 'DISABLED').flushesPerCommit < (h.standin ? 0.5 : at(1, 'DISABLED').flushesPerCommit), `DISABLED at 8 sessions: ${at(8, 'DISABLED').flushesPerCommit}`);
    assert.ok(at(8, 'DISABLED').writelogMsPerCommit > 0);
    if (h.standin) assert.equal(at(8, 'FORCED').writelogMsPerCommit, 0);
    else assert.ok(at(8, 'FORCED').writelogMsPerCommit < at(8, 'DISABLED').writelogMsPerCommit);
    assert.match(doc.concurrencyVerdict, /^Commits per second, FORCED vs DISABLED: at 8 sessions FORCED gains /);
    // Every level's runs are in the document, so a reload rebuilds the curve.
    assert.deepEqual(doc.modes.map((m: { runs: Array<{ concurrency: { sessions: number } }> }) => m.runs.map((r) => r.concurrency.sessions).sort()), [[1, 1, 8, 8], [1, 1, 8, 8]]);
  });

  it('Markdown: the Concurrency section with its verdict and one row per level and mode', async () => {
    const code = await runCli(['compare', join(dir, 'keyed.sql'), ...connection(), '--sessions', '2,4', '--repeat', '1', '--no-warmup'], io());
    assert.equal(code, EXIT.ok, err.join(''));
    const text = out.join('');
    assert.match(text, /## Concurrency\n\nCommits per second, FORCED vs DISABLED: at 4 sessions FORCED gains [\d.]+×, at 2 sessions FORCED gains [\d.]+×/);
    assert.match(text, /\| Sessions \| Mode \| Runs \| Commits per second \| Log flushes per commit \| Average flush size \| WRITELOG ms per commit \| p95 commit latency \|/);
    assert.match(text, /\n\| 4 \| DISABLED \| 1 \| [\d,]+ \| 0\.\d+ \|/);
    assert.match(text, /Concurrency sweep: the table shows the runs on 2 sessions; the concurrency table covers 2, 4 sessions\./);
  });

  it('rejects levels that are not whole numbers 1..64 as usage errors, before connecting', async () => {
    for (const [value, message] of [['0,4', "--sessions: '0' is not a whole number ≥ 1"], ['100', '--sessions: 100 is above the limit of 64 connections per level']] as const) {
      err = [];
      const code = await runCli(['compare', join(dir, 'keyed.sql'), ...connection(), '--sessions', value], io());
      assert.equal(code, EXIT.usage);
      assert.ok(err.join('').includes(message), err.join(''));
    }
  });
});
