// Group commit in the stand-in's log writer (logWriter.ts): concurrent durable commits share flushes, one session
// alone gets a flush per commit, and at speedFactor > 0 recorded WRITELOG stays within the real elapsed time.
import assert from 'node:assert/strict';
import type { SessionHandle } from '../../standin/engine';
import { createStandin, type Standin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

const SETUP = `IF OBJECT_ID(N'dbo.Keyed', N'U') IS NOT NULL DROP TABLE dbo.Keyed;
CREATE TABLE dbo.Keyed (id int IDENTITY(1, 1) NOT NULL, session_no int NOT NULL);`;
const LOOP = (n: number, session: number) => `SET NOCOUNT ON; DECLARE @i int = 0;
WHILE @i < ${n}
BEGIN
    INSERT INTO dbo.Keyed (session_no) VALUES (${session});
    SET @i += 1;
END`;

interface Figures { flushes: number; commits: number; writelog: number; writelogMs: number; logBytes: number }

async function figures(s: Standin, monitor: SessionHandle): Promise<Figures> {
  const counter = async (name: string) =>
    Number((await rows(s, monitor, `SELECT cntr_value FROM sys.dm_os_performance_counters WHERE counter_name = N'${name}' AND instance_name = N'lab'`))[0]!.cntr_value);
  const [w] = await rows(s, monitor, "SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats WHERE wait_type = N'WRITELOG'");
  const [f] = await rows(s, monitor, `SELECT SUM(vfs.num_of_bytes_written) AS b FROM sys.dm_io_virtual_file_stats(DB_ID(N'lab'), NULL) AS vfs
JOIN sys.master_files AS mf ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id WHERE mf.type = 1`);
  return {
    flushes: await counter('Log Flushes/sec'),
    commits: await counter('Write Transactions/sec'),
    writelog: Number(w?.waiting_tasks_count ?? 0),
    writelogMs: Number(w?.wait_time_ms ?? 0),
    logBytes: Number(f!.b),
  };
}

/** `sessions` connections run `perSession` single-row autocommit inserts each, started together. */
async function run(s: Standin, sessions: number, perSession: number): Promise<Figures & { elapsedMs: number }> {
  const monitor = await connect(s, { appName: 'monitor' });
  await query(s, monitor, SETUP);
  const workers = await Promise.all(Array.from({ length: sessions }, () => connect(s, { appName: 'workload' })));
  const before = await figures(s, monitor);
  const t0 = performance.now();
  const results = await Promise.all(workers.map((w, i) => exec(s, w, LOOP(perSession, i + 1))));
  const elapsedMs = performance.now() - t0;
  for (const r of results) assert.deepEqual(r.errors, []);
  const after = await figures(s, monitor);
  for (const w of workers) s.logout(w);
  s.logout(monitor);
  const d = Object.fromEntries(Object.keys(before).map((k) => [k, after[k as keyof Figures] - before[k as keyof Figures]])) as unknown as Figures;
  return { ...d, elapsedMs };
}

describe('stand-in model: group commit', () => {
  it('gives one session one flush and one WRITELOG of one write latency per commit', async () => {
    const s = createStandin({ speedFactor: 0, logWriteLatencyMs: 4 });
    const r = await run(s, 1, 300);
    assert.equal(r.commits, 300);
    assert.equal(r.flushes, 300);
    assert.equal(r.writelog, 300);
    assert.equal(r.writelogMs, 300 * 4);
  });

  it('lets 8 concurrent sessions share flushes: flushes per commit well below 1, every commit still waits', async () => {
    const s = createStandin({ speedFactor: 0, logWriteLatencyMs: 4 });
    const r = await run(s, 8, 300);
    assert.equal(r.commits, 2400);
    assert.equal(r.writelog, 2400, 'every fully durable commit waits for its flush');
    const perCommit = r.flushes / r.commits;
    assert.ok(perCommit < 0.5, `flushes per commit ${perCommit.toFixed(3)} with 8 sessions`);
    assert.ok(perCommit > 1 / 8 - 0.01, `a group is at most the 8 waiting sessions (${perCommit.toFixed(3)})`);
    // A joiner waits the rest of the flush in flight (half a write, modelled) plus its own: between 1 and 1.5 writes.
    const msPerCommit = r.writelogMs / r.commits;
    assert.ok(msPerCommit > 4 && msPerCommit <= 6, `WRITELOG ${msPerCommit} ms per commit`);
    // Commits share sector-rounded writes: less log written per commit than one 4 KB sector.
    assert.ok(r.logBytes / r.commits < 4096, `${r.logBytes / r.commits} log bytes written per commit`);
  });

  it('cuts large groups at the 60 KB log block', async () => {
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s, { appName: 'monitor' });
    await query(s, monitor, "CREATE TABLE dbo.Wide (id int IDENTITY, filler char(3000) NOT NULL DEFAULT (REPLICATE('x', 3000)));");
    const workers = await Promise.all(Array.from({ length: 32 }, () => connect(s)));
    const before = await figures(s, monitor);
    await Promise.all(workers.map((w) => query(s, w, 'SET NOCOUNT ON; DECLARE @i int = 0; WHILE @i < 20 BEGIN INSERT INTO dbo.Wide DEFAULT VALUES; SET @i += 1; END')));
    const after = await figures(s, monitor);
    const flushes = after.flushes - before.flushes;
    assert.ok(flushes < 640, `32 sessions shared flushes (${flushes} for 640 commits)`);
    const avg = (after.logBytes - before.logBytes) / flushes;
    assert.ok(avg > 8 * 1024 && avg <= 60 * 1024, `average write ${avg} bytes: large groups, cut at the 60 KB log block`);
  });

  it('at speedFactor 0.05 records WRITELOG at device speed, within the elapsed time of one serial session', async () => {
    const s = createStandin({ speedFactor: 0.05, logWriteLatencyMs: 2 });
    const r = await run(s, 1, 400);
    assert.equal(r.writelog, 400);
    // 2 ms at speedFactor 0.05 = 0.1 ms per write, as recorded and as really waited.
    assert.ok(Math.abs(r.writelogMs - 40) <= 1, `WRITELOG ${r.writelogMs} ms`);
    assert.ok(r.writelogMs <= r.elapsedMs + 2, `WRITELOG ${r.writelogMs} ms in ${r.elapsedMs.toFixed(0)} ms elapsed`);
  });
});
