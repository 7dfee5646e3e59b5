// Fault injection and restart through the control API: dropped connections, delays, failing statements, restart.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

describe('stand-in model: faults and restart', () => {
  it('drops the connection at the k-th request of a session', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    s.faults.dropAtRequest = 2;
    assert.equal((await exec(s, h, 'SELECT 1 AS a')).dropped, false);
    const second = await exec(s, h, 'SELECT 1 AS a');
    assert.equal(second.dropped, true);
    assert.deepEqual(second.outputs, [{ kind: 'dropConnection' }]);
  });

  it('drops a running request after t ms', async () => {
    const s = createStandin({ speedFactor: 1, logWriteLatencyMs: 20 });
    const h = await connect(s);
    await query(s, h, 'CREATE TABLE t (v int);');
    s.faults.dropAfterMs = 30;
    const r = await exec(s, h, 'SET NOCOUNT ON; WHILE 1 = 1 INSERT INTO t VALUES (1);');
    assert.equal(r.dropped, true);
    assert.equal(r.outputs.at(-1)!.kind, 'dropConnection');
  });

  it('delays answers by the configured time', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    s.faults.delayMs = 40;
    const t0 = performance.now();
    await exec(s, h, 'SELECT 1 AS a');
    assert.ok(performance.now() - t0 >= 35);
  });

  it('fails statements matching a pattern with the given error, a limited number of times', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    s.faults.statements.push({ pattern: /sys\.dm_os_wait_stats/i, number: 1205, class: 13, message: 'Transaction (Process ID 51) was deadlocked on lock resources with another process and has been chosen as the deadlock victim. Rerun the transaction.', times: 1 });
    const first = await exec(s, h, 'SELECT wait_type FROM sys.dm_os_wait_stats');
    assert.deepEqual(first.errors.map((e) => [e.number, e.class]), [[1205, 13]]);
    const second = await exec(s, h, "SELECT wait_type FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG'");
    assert.deepEqual(second.errors, []);
  });

  it('restart: counters start over, new start time, sessions dropped, running XE sessions stopped', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, "CREATE TABLE t (v int); INSERT INTO t VALUES (1); CREATE EVENT SESSION [durability_lens_a] ON SERVER ADD EVENT sqlserver.databases_log_flush ADD TARGET package0.ring_buffer; ALTER EVENT SESSION [durability_lens_a] ON SERVER STATE = START;");
    const [before] = await rows(s, h, 'SELECT sqlserver_start_time FROM sys.dm_os_sys_info');
    const [w] = await rows(s, h, "SELECT num_of_writes FROM sys.dm_io_virtual_file_stats(DB_ID(), 2)");
    assert.ok((w!.num_of_writes as bigint) > 0n);
    s.restart();
    assert.equal((await exec(s, h, 'SELECT 1 AS a')).dropped, true);
    const h2 = await connect(s);
    const [after] = await rows(s, h2, 'SELECT sqlserver_start_time FROM sys.dm_os_sys_info');
    assert.ok((after!.sqlserver_start_time as Date).getTime() > (before!.sqlserver_start_time as Date).getTime());
    const [w2] = await rows(s, h2, "SELECT num_of_writes FROM sys.dm_io_virtual_file_stats(DB_ID(), 2)");
    assert.equal(w2!.num_of_writes, 0n);
    assert.deepEqual(await rows(s, h2, "SELECT waiting_tasks_count FROM sys.dm_os_wait_stats WHERE wait_type = N'WRITELOG'"), [{ waiting_tasks_count: 0n }]);
    // Definitions survive a restart (so orphans can be found); only running state is gone.
    assert.deepEqual(await rows(s, h2, 'SELECT name FROM sys.server_event_sessions'), [{ name: 'durability_lens_a' }]);
    assert.deepEqual(await rows(s, h2, 'SELECT name FROM sys.dm_xe_sessions'), []);
    assert.deepEqual(await rows(s, h2, 'SELECT COUNT(*) AS n FROM t'), [{ n: 1 }]);
  });

  it('setDeviceLatency changes the WRITELOG time per commit', async () => {
    const s = createStandin({ speedFactor: 0 });
    s.setDeviceLatency({ logWriteMs: 10 });
    const h = await connect(s);
    await query(s, h, 'CREATE TABLE t (v int); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2);');
    const [w] = await rows(s, h, "SELECT waiting_tasks_count, wait_time_ms, max_wait_time_ms FROM sys.dm_exec_session_wait_stats WHERE session_id = @@SPID AND wait_type = N'WRITELOG'");
    assert.deepEqual(w, { waiting_tasks_count: 3n, wait_time_ms: 30n, max_wait_time_ms: 10n });
  });
});
