// The durability model through the Engine: the published S1/S3 directions (many small log writes and WRITELOG under
// DISABLED, few large ones under FORCED, no gain for one INSERT ... SELECT), flush triggers, in-flight waits, cancel.
import assert from 'node:assert/strict';
import type { SessionHandle } from '../../standin/engine';
import { createStandin, type Standin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

interface Snapshot { logWrites: number; logBytes: number; logStallMs: number; dataWrites: number; writelog: number; writelogMs: number; flushes: number }

async function snapshot(s: Standin, monitor: SessionHandle, spid: number): Promise<Snapshot> {
  const [f] = await rows(s, monitor, `SELECT SUM(CASE WHEN mf.type = 1 THEN vfs.num_of_writes ELSE 0 END) AS log_writes,
  SUM(CASE WHEN mf.type = 1 THEN vfs.num_of_bytes_written ELSE 0 END) AS log_bytes,
  SUM(CASE WHEN mf.type = 1 THEN vfs.io_stall_write_ms ELSE 0 END) AS log_stall,
  SUM(CASE WHEN mf.type = 0 THEN vfs.num_of_writes ELSE 0 END) AS data_writes
FROM sys.dm_io_virtual_file_stats(DB_ID(N'lab'), NULL) AS vfs JOIN sys.master_files AS mf ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id`);
  const w = await rows(s, monitor, `SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_exec_session_wait_stats WHERE session_id = ${spid} AND wait_type = N'WRITELOG'`);
  const [c] = await rows(s, monitor, "SELECT cntr_value FROM sys.dm_os_performance_counters WHERE counter_name = N'Log Flushes/sec' AND instance_name = N'lab'");
  return {
    logWrites: Number(f!.log_writes), logBytes: Number(f!.log_bytes), logStallMs: Number(f!.log_stall), dataWrites: Number(f!.data_writes),
    writelog: Number(w[0]?.waiting_tasks_count ?? 0), writelogMs: Number(w[0]?.wait_time_ms ?? 0), flushes: Number(c!.cntr_value),
  };
}

function delta(a: Snapshot, b: Snapshot): Snapshot {
  return Object.fromEntries(Object.keys(a).map((k) => [k, b[k as keyof Snapshot] - a[k as keyof Snapshot]])) as unknown as Snapshot;
}

const S1_SETUP = `IF OBJECT_ID(N'dbo.SingleRowInsert', N'U') IS NOT NULL DROP TABLE dbo.SingleRowInsert;
CREATE TABLE dbo.SingleRowInsert (id int IDENTITY(1, 1) NOT NULL, col1 int NOT NULL CONSTRAINT DF_c1 DEFAULT (100), col2 varchar(100) NOT NULL CONSTRAINT DF_c2 DEFAULT ('abcd'));`;
const S1_LOOP = (n: number) => `SET NOCOUNT ON; DECLARE @i int = 0;
WHILE @i < ${n}
BEGIN
    INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;
    SET @i += 1;
END`;

async function runMeasured(s: Standin, mode: string, sql: string, setup: string): Promise<Snapshot> {
  const monitor = await connect(s, { appName: 'monitor' });
  const work = await connect(s, { appName: 'workload' });
  await query(s, monitor, `ALTER DATABASE [lab] SET DELAYED_DURABILITY = ${mode} WITH NO_WAIT`);
  await query(s, work, setup);
  const before = await snapshot(s, monitor, work.spid);
  const r = await exec(s, work, sql);
  assert.deepEqual(r.errors, []);
  const after = await snapshot(s, monitor, work.spid);
  s.logout(work);
  s.logout(monitor);
  return delta(before, after);
}

describe('stand-in model: durability', () => {
  it('S1: DISABLED gives one small log write and one WRITELOG wait per insert; FORCED a few large writes and none', async () => {
    const s = createStandin({ speedFactor: 0, logWriteLatencyMs: 4 });
    const n = 2000;
    const disabled = await runMeasured(s, 'DISABLED', S1_LOOP(n), S1_SETUP);
    const forced = await runMeasured(s, 'FORCED', S1_LOOP(n), S1_SETUP);
    assert.equal(disabled.logWrites, n);
    assert.equal(disabled.writelog, n);
    assert.equal(disabled.writelogMs, n * 4);
    assert.equal(disabled.logStallMs, n * 4);
    assert.equal(disabled.flushes, n);
    assert.equal(disabled.logBytes / disabled.logWrites, 4096, 'each commit writes one 4 KB sector');
    assert.equal(forced.writelog, 0);
    assert.ok(forced.logWrites > 0 && forced.logWrites < n / 100, `FORCED wrote ${forced.logWrites} times`);
    assert.ok(forced.logBytes / forced.logWrites > 50 * 1024, 'FORCED writes are close to the 60 KB log block');
    assert.ok(forced.logBytes < disabled.logBytes / 5, 'less volume, as the S1 author found');
  });

  it('S3: one INSERT ... SELECT gains nothing from FORCED (same writes, one commit wait vs none)', async () => {
    const s = createStandin({ speedFactor: 0, logWriteLatencyMs: 4 });
    const setup = "IF OBJECT_ID(N'dbo.FlushTest', N'U') IS NOT NULL DROP TABLE dbo.FlushTest; CREATE TABLE dbo.FlushTest (id int IDENTITY(1, 1) PRIMARY KEY, val int NOT NULL, note char(100) NOT NULL DEFAULT ('inserted'));";
    const sql = 'INSERT INTO dbo.FlushTest (val) SELECT TOP (30000) ROW_NUMBER() OVER (ORDER BY (SELECT NULL)) FROM sys.all_columns AS a CROSS JOIN sys.all_columns AS b;';
    const disabled = await runMeasured(s, 'DISABLED', sql, setup);
    const forced = await runMeasured(s, 'FORCED', sql, setup);
    assert.ok(disabled.logWrites > 30, `${disabled.logWrites} writes`);
    assert.ok(Math.abs(disabled.logWrites - forced.logWrites) <= 1);
    assert.ok(Math.abs(disabled.logBytes - forced.logBytes) <= 4096);
    assert.equal(disabled.writelog, 1);
    assert.equal(forced.writelog, 0);
  });

  it('ALLOWED honours COMMIT WITH (DELAYED_DURABILITY = ON); sys.sp_flush_log hardens the rest and returns 1', async () => {
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s);
    const work = await connect(s);
    await query(s, monitor, 'ALTER DATABASE [lab] SET DELAYED_DURABILITY = ALLOWED WITH NO_WAIT');
    await query(s, work, S1_SETUP);
    const before = await snapshot(s, monitor, work.spid);
    await query(s, work, `SET NOCOUNT ON; DECLARE @i int = 0;
WHILE @i < 100 BEGIN BEGIN TRAN; INSERT INTO dbo.SingleRowInsert DEFAULT VALUES; COMMIT TRAN WITH (DELAYED_DURABILITY = ON); SET @i += 1; END`);
    const mid = await snapshot(s, monitor, work.spid);
    assert.equal(delta(before, mid).writelog, 0);
    assert.equal(delta(before, mid).logWrites, 0, '100 small delayed commits stay in the 60 KB buffer');
    const r = await exec(s, work, 'DECLARE @rc int; EXEC @rc = sys.sp_flush_log; SELECT @rc AS rc;');
    assert.deepEqual(r.resultSets[0]!.objects, [{ rc: 1 }]);
    const after = await snapshot(s, monitor, work.spid);
    assert.deepEqual([delta(mid, after).logWrites, delta(mid, after).writelog], [1, 1]);
    // Without the option, ALLOWED commits are fully durable.
    await query(s, work, 'BEGIN TRAN; INSERT INTO dbo.SingleRowInsert DEFAULT VALUES; COMMIT;');
    assert.equal(delta(after, await snapshot(s, monitor, work.spid)).writelog, 1);
  });

  it('a fully durable commit in the same database also hardens earlier delayed log', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, S1_SETUP + ' ALTER DATABASE [lab] SET DELAYED_DURABILITY = ALLOWED;');
    await query(s, h, 'BEGIN TRAN; INSERT INTO dbo.SingleRowInsert DEFAULT VALUES; COMMIT WITH (DELAYED_DURABILITY = ON);');
    const lab = s.state.dbByName('lab')!;
    assert.ok(lab.log.bufferBytes > 0);
    await query(s, h, 'INSERT INTO dbo.SingleRowInsert DEFAULT VALUES;');
    assert.equal(lab.log.bufferBytes, 0);
    assert.equal(lab.log.flushedLsn, lab.log.endLsn);
  });

  it('CHECKPOINT writes dirty data pages to the data file', async () => {
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s);
    const h = await connect(s);
    await query(s, h, S1_SETUP + S1_LOOP(500));
    const before = await snapshot(s, monitor, h.spid);
    await query(s, h, 'CHECKPOINT;');
    const d = delta(before, await snapshot(s, monitor, h.spid));
    assert.ok(d.dataWrites >= 1);
    await query(s, h, 'CHECKPOINT;');
    assert.equal(delta(before, await snapshot(s, monitor, h.spid)).dataWrites, d.dataWrites, 'nothing left to write');
  });

  it('grows the log (more VLFs, Log Growths) when the active log passes the file size', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const [before] = await rows(s, h, 'SELECT total_vlf_count, total_log_size_mb FROM sys.dm_db_log_stats(DB_ID())');
    await query(s, h, "CREATE TABLE wide (id int IDENTITY, filler char(2000) NOT NULL); INSERT INTO wide (filler) SELECT TOP (5000) REPLICATE('a', 2000) FROM sys.all_columns a CROSS JOIN sys.all_columns b;");
    const [after] = await rows(s, h, 'SELECT total_vlf_count, total_log_size_mb FROM sys.dm_db_log_stats(DB_ID())');
    assert.equal(before!.total_vlf_count, 4n);
    assert.ok((after!.total_vlf_count as bigint) > 4n);
    assert.equal(after!.total_log_size_mb, 71.992187, 'a 72 MB file reported 8 KB short, MB to six decimals (as real rows)');
    const [g] = await rows(s, h, "SELECT cntr_value FROM sys.dm_os_performance_counters WHERE counter_name = N'Log Growths' AND instance_name = N'lab'");
    assert.equal(g!.cntr_value, 1n);
    const vlfs = await rows(s, h, 'SELECT COUNT(*) AS n FROM sys.dm_db_log_info(DB_ID())');
    assert.equal(BigInt(vlfs[0]!.n as number), after!.total_vlf_count);
  });

  it('shows an in-flight WRITELOG to another connection while the workload waits, then stops at once on cancel', async () => {
    const s = createStandin({ speedFactor: 1, logWriteLatencyMs: 30 });
    const monitor = await connect(s);
    const work = await connect(s);
    await query(s, work, S1_SETUP);
    const cancel = new AbortController();
    const running = exec(s, work, S1_LOOP(1_000_000), { signal: cancel.signal });
    const deadline = Date.now() + 5000;
    let seen: Array<Record<string, unknown>> = [];
    while (Date.now() < deadline) {
      seen = await rows(s, monitor, `SELECT r.status, r.command, r.wait_type, t.wait_type AS task_wait, t.session_id FROM sys.dm_exec_requests AS r
LEFT JOIN sys.dm_os_waiting_tasks AS t ON t.session_id = r.session_id WHERE r.session_id = ${work.spid}`);
      if (seen[0]?.task_wait === 'WRITELOG') break;
      await new Promise((res) => setTimeout(res, 5));
    }
    assert.deepEqual(seen, [{ status: 'suspended', command: 'INSERT', wait_type: 'WRITELOG', task_wait: 'WRITELOG', session_id: work.spid }]);
    const t0 = performance.now(); // monotonic: a wall-clock step cannot fail (or pass) the bound
    cancel.abort();
    await running;
    assert.ok(performance.now() - t0 < 1000, 'cancel ends the wait at once');
    const [n] = await rows(s, monitor, 'SELECT COUNT(*) AS n FROM dbo.SingleRowInsert');
    assert.ok((n!.n as number) < 1000);
    assert.deepEqual(await rows(s, monitor, `SELECT session_id FROM sys.dm_exec_requests WHERE session_id = ${work.spid}`), []);
  });

  it('stops a long CPU-only loop when the request is cancelled (speedFactor 0)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const monitor = await connect(s);
    await query(s, h, 'CREATE TABLE counter_t (v int);');
    const cancel = new AbortController();
    const running = exec(s, h, 'SET NOCOUNT ON; WHILE 1 = 1 INSERT INTO counter_t VALUES (1);', { signal: cancel.signal });
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && ((await rows(s, monitor, 'SELECT COUNT(*) AS n FROM counter_t'))[0]!.n as number) < 100) await new Promise((r) => setImmediate(r));
    cancel.abort();
    await running;
    const [a] = await rows(s, monitor, 'SELECT COUNT(*) AS n FROM counter_t');
    await new Promise((r) => setTimeout(r, 20));
    const [b] = await rows(s, monitor, 'SELECT COUNT(*) AS n FROM counter_t');
    assert.ok((a!.n as number) >= 100);
    assert.equal(b!.n, a!.n, 'no rows after the cancel');
  });

  it('resets per-session waits at login and on RESETCONNECTION, not server-wide waits', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, S1_SETUP + S1_LOOP(10));
    const mine = `SELECT wait_type FROM sys.dm_exec_session_wait_stats WHERE session_id = @@SPID`;
    assert.deepEqual(await rows(s, h, mine), [{ wait_type: 'WRITELOG' }]);
    const fresh = await connect(s);
    assert.deepEqual(await rows(s, fresh, mine), []);
    const reset = await exec(s, h, mine, { resetConnection: true });
    assert.deepEqual(reset.resultSets[0]!.objects, []);
    const [server] = await rows(s, fresh, "SELECT waiting_tasks_count FROM sys.dm_os_wait_stats WHERE wait_type = N'WRITELOG'");
    assert.equal(server!.waiting_tasks_count, 11n);
  });

  it('keeps tempdb commits lazy: #temp inserts never wait on WRITELOG (modelling choice)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, 'SET NOCOUNT ON; CREATE TABLE #snap (v int); DECLARE @i int = 0; WHILE @i < 50 BEGIN INSERT INTO #snap VALUES (@i); SET @i += 1; END');
    assert.deepEqual(await rows(s, h, 'SELECT wait_type FROM sys.dm_exec_session_wait_stats WHERE session_id = @@SPID'), []);
    assert.deepEqual(await rows(s, h, 'SELECT COUNT(*) AS n, SUM(v) AS total FROM #snap'), [{ n: 50, total: 1225 }]);
  });

  it('a failing autocommit INSERT leaves no rows and no open transaction', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, 'CREATE TABLE strict_t (id int IDENTITY, v int NOT NULL);');
    const r = await exec(s, h, 'INSERT INTO strict_t (v) VALUES (1), (NULL);\nSELECT COUNT(*) AS n, @@TRANCOUNT AS tc FROM strict_t;');
    assert.deepEqual(r.errors.map((e) => [e.number, e.lineNumber]), [[515, 1]]);
    assert.deepEqual(r.resultSets[0]!.objects, [{ n: 0, tc: 0 }]);
    await query(s, h, 'INSERT INTO strict_t (v) VALUES (2);');
    assert.equal(s.session(h.spid)!.tran, null, 'the next autocommit statement committed');
    const inTran = await exec(s, h, 'BEGIN TRAN; INSERT INTO strict_t (v) VALUES (3); INSERT INTO strict_t (v) VALUES (4), (NULL); COMMIT; SELECT COUNT(*) AS n FROM strict_t;');
    assert.deepEqual(inTran.errors.map((e) => e.number), [515]);
    assert.deepEqual(inTran.resultSets[0]!.objects, [{ n: 2 }], 'the earlier insert of the transaction stays, the failed statement is undone');
  });

  it('rolls back a transaction: rows gone, identity not reused', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, S1_SETUP);
    const r = await exec(s, h, 'BEGIN TRAN; INSERT INTO dbo.SingleRowInsert DEFAULT VALUES; SAVE TRAN sp1; INSERT INTO dbo.SingleRowInsert DEFAULT VALUES; ROLLBACK TRAN sp1; SELECT @@TRANCOUNT AS tc; COMMIT; SELECT COUNT(*) AS n FROM dbo.SingleRowInsert; BEGIN TRAN; INSERT INTO dbo.SingleRowInsert DEFAULT VALUES; ROLLBACK; SELECT COUNT(*) AS n FROM dbo.SingleRowInsert; ROLLBACK;');
    assert.deepEqual(r.resultSets.map((x) => x.objects[0]), [{ tc: 1 }, { n: 1 }, { n: 1 }]);
    assert.deepEqual(r.errors.map((e) => e.number), [3903]);
  });
});
