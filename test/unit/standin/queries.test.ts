// The SELECT evaluator over catalog views and DMVs: the reference's sample query forms, column types,
// permission errors, and realistic errors (208/102/207) with 1-based batch line numbers.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

describe('stand-in model: queries', () => {
  const s = createStandin({ speedFactor: 0, logins: [{ name: 'reader', password: 'r' }, { name: 'perf', password: 'p', serverPermissions: ['VIEW SERVER PERFORMANCE STATE'] }] });

  it('answers the file-stats join of the reference with bigint counters and the log file labelled', async () => {
    const h = await connect(s);
    const [set] = await query(s, h, `SELECT DB_NAME(vfs.database_id) AS db, mf.type_desc, mf.physical_name,
       vfs.sample_ms, vfs.num_of_writes, vfs.num_of_bytes_written, vfs.io_stall_write_ms
FROM sys.dm_io_virtual_file_stats(NULL, NULL) AS vfs
JOIN sys.master_files AS mf
  ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id
WHERE mf.type = 1;   -- log files only`);
    assert.deepEqual(set!.columns.map((c) => [c.name, c.type.kind]), [
      ['db', 'nvarchar'], ['type_desc', 'nvarchar'], ['physical_name', 'nvarchar'], ['sample_ms', 'bigint'], ['num_of_writes', 'bigint'], ['num_of_bytes_written', 'bigint'], ['io_stall_write_ms', 'bigint'],
    ]);
    assert.deepEqual(set!.objects.map((r) => r.db), ['master', 'tempdb', 'model', 'msdb', 'lab']);
    assert.ok(set!.objects.every((r) => r.type_desc === 'LOG' && typeof r.num_of_writes === 'bigint'));
    assert.equal(set!.objects[4]!.physical_name, '/var/opt/mssql/data/lab_log.ldf');
  });

  it('answers CROSS APPLY sys.dm_os_volume_stats with NULL volume names on Linux', async () => {
    const h = await connect(s);
    const r = await rows(s, h, `SELECT f.database_id, f.file_id, f.type_desc, v.volume_mount_point, v.file_system_type, v.total_bytes
FROM sys.master_files AS f CROSS APPLY sys.dm_os_volume_stats(f.database_id, f.file_id) AS v WHERE f.database_id = DB_ID()`);
    assert.equal(r.length, 2);
    assert.equal(r[0]!.volume_mount_point, null);
    assert.equal(r[0]!.file_system_type, null);
    assert.equal(typeof r[0]!.total_bytes, 'bigint');
  });

  it('pads perf-counter names to nchar(128) and matches them with RTRIM(...) LIKE, IN and RTRIM', async () => {
    const h = await connect(s);
    const r = await rows(s, h, `SELECT object_name, RTRIM(counter_name) AS counter_name, RTRIM(instance_name) AS instance_name, cntr_value, cntr_type
FROM sys.dm_os_performance_counters
WHERE RTRIM(object_name) LIKE N'%:Databases'
  AND counter_name IN (N'Log Flushes/sec', N'Log Bytes Flushed/sec', N'Log Flush Waits/sec', N'Log Flush Wait Time', N'Log Flush Write Time (ms)')
  AND instance_name = N'lab'
ORDER BY counter_name`);
    assert.deepEqual(r.map((x) => x.counter_name), ['Log Bytes Flushed/sec', 'Log Flush Wait Time', 'Log Flush Waits/sec', 'Log Flush Write Time (ms)', 'Log Flushes/sec']);
    assert.equal(String(r[0]!.object_name).length, 128);
    assert.equal(String(r[0]!.object_name).trimEnd(), 'SQLServer:Databases');
    assert.equal(r.find((x) => x.counter_name === 'Log Flushes/sec')!.cntr_type, 272696576);
    assert.equal(r.find((x) => x.counter_name === 'Log Flush Write Time (ms)')!.cntr_type, 65792);
  });

  it('evaluates GROUP BY with COUNT/SUM/MAX, CASE, ISNULL, TOP and ORDER BY DESC', async () => {
    const h = await connect(s);
    const r = await rows(s, h, `SELECT TOP 2 type_desc, COUNT(*) AS files, SUM(size) AS pages, MAX(file_id) AS max_id,
  CASE WHEN type_desc = 'LOG' THEN 'log' ELSE 'data' END AS kind, ISNULL(NULL, 7) AS seven
FROM sys.master_files GROUP BY type_desc ORDER BY type_desc DESC`);
    assert.deepEqual(r.map((x) => [x.type_desc, x.files, x.max_id, x.kind, x.seven]), [['ROWS', 5, 1, 'data', 7], ['LOG', 5, 2, 'log', 7]]);
    assert.equal(r[1]!.pages, 5 * 1024);
  });

  it('runs several statements per batch: variables, SELECT @v =, SET NOCOUNT, USE with ENVCHANGE', async () => {
    const h = await connect(s);
    const r = await exec(s, h, `DECLARE @db sysname, @n int = 0;
SELECT @db = name FROM sys.databases WHERE database_id = 5;
SELECT @n = COUNT(*) FROM sys.databases;
SELECT @db AS db, @n AS n, @@TRANCOUNT AS tc;
SET NOCOUNT ON;
SELECT 1 AS one;
USE master;
SELECT DB_NAME() AS current_db;`);
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.resultSets.map((x) => x.objects[0]), [{ db: 'lab', n: 5, tc: 0 }, { one: 1 }, { current_db: 'master' }]);
    const counted = r.dones.filter((d) => d.rowCount !== undefined).map((d) => d.rowCount);
    assert.deepEqual(counted, [1, 1, 1]);
    const env = r.outputs.find((o) => o.kind === 'envChange');
    assert.deepEqual(env, { kind: 'envChange', change: { type: 'database', newValue: 'master', oldValue: 'lab' } });
  });

  it('binds sp_executesql parameters (RPC) and answers in-proc', async () => {
    const h = await connect(s);
    const r = await exec(s, h, { kind: 'rpc', procedure: 'sp_executesql', statement: 'SELECT name, recovery_model_desc FROM sys.databases WHERE database_id = @database_id', parameters: [{ name: '@database_id', value: 5, typeName: 'int', output: false }] });
    assert.deepEqual(r.resultSets[0]!.objects, [{ name: 'lab', recovery_model_desc: 'FULL' }]);
    assert.equal(r.dones[0]!.inProc, true);
  });

  it('raises 208 for an unknown object with its batch line and stops the batch', async () => {
    const h = await connect(s);
    const r = await exec(s, h, 'SELECT 1 AS a;\n\nSELECT * FROM sys.dm_no_such_view;\nSELECT 2 AS b;');
    assert.deepEqual(r.errors.map((e) => [e.number, e.class, e.message, e.lineNumber]), [[208, 16, "Invalid object name 'sys.dm_no_such_view'.", 3]]);
    assert.equal(r.resultSets.length, 1);
  });

  it('raises 102 for syntax it does not understand, before running anything', async () => {
    const h = await connect(s);
    const r = await exec(s, h, 'SELECT 1 AS a\nSELECT FROM WHERE');
    assert.deepEqual(r.errors.map((e) => [e.number, e.lineNumber]), [[102, 2]]);
    assert.equal(r.errors[0]!.message, "Incorrect syntax near 'FROM'.");
    assert.equal(r.resultSets.length, 0);
  });

  it('raises 207 for an unknown column and 137 for an undeclared variable', async () => {
    const h = await connect(s);
    const a = await exec(s, h, 'SELECT no_such_column FROM sys.databases');
    assert.deepEqual(a.errors.map((e) => [e.number, e.message, e.lineNumber]), [[207, "Invalid column name 'no_such_column'.", 1]]);
    const b = await exec(s, h, 'SELECT 1;\nSELECT @nope;');
    assert.deepEqual(b.errors.map((e) => [e.number, e.lineNumber]), [[137, 2]]);
  });

  it('refuses server DMVs without the permission: 300 then 297, naming the 2022 permission', async () => {
    const h = await connect(s, { user: 'reader', password: 'r' });
    const r = await exec(s, h, 'SELECT wait_type FROM sys.dm_os_wait_stats');
    assert.deepEqual(r.errors.map((e) => [e.number, e.class, e.message]), [
      [300, 14, "VIEW SERVER PERFORMANCE STATE permission was denied on object 'server', database 'master'."],
      [297, 16, 'The user does not have permission to perform this action.'],
    ]);
    const own = await rows(s, h, 'SELECT session_id FROM sys.dm_exec_sessions');
    assert.deepEqual(own, [{ session_id: h.spid }]);
    const p = await connect(s, { user: 'perf', password: 'p' });
    const ok = await exec(s, p, "SELECT wait_type FROM sys.dm_os_wait_stats WHERE wait_type = 'WRITELOG'");
    assert.deepEqual(ok.resultSets[0]!.objects, [{ wait_type: 'WRITELOG' }]);
  });

  it('names VIEW SERVER STATE on a 2019 server and reports permissions through HAS_PERMS_BY_NAME / fn_my_permissions', async () => {
    const s19 = createStandin({ speedFactor: 0, version: 2019, logins: [{ name: 'reader', password: 'r', databasePermissions: { lab: ['ALTER'] } }] });
    const h = await connect(s19, { user: 'reader', password: 'r' });
    const r = await exec(s19, h, 'SELECT * FROM sys.dm_io_virtual_file_stats(DB_ID(), NULL)');
    assert.equal(r.errors[0]!.message, "VIEW SERVER STATE permission was denied on object 'server', database 'master'.");
    const [p] = await rows(s19, h, `SELECT HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER STATE') AS vss, HAS_PERMS_BY_NAME(NULL, NULL, N'VIEW SERVER PERFORMANCE STATE') AS vsps,
  HAS_PERMS_BY_NAME(N'lab', N'DATABASE', N'ALTER') AS alter_lab`);
    assert.deepEqual(p, { vss: 0, vsps: null, alter_lab: 1 });
    const mine = await rows(s19, h, "SELECT permission_name FROM sys.fn_my_permissions(NULL, N'DATABASE') ORDER BY permission_name");
    assert.deepEqual(mine.map((x) => x.permission_name), ['ALTER', 'CONNECT']);
  });

  it('reports DBCC TRACESTATUS(-1), DBCC SQLPERF(LOGSPACE) and DBCC LOGINFO as result sets', async () => {
    const st = createStandin({ speedFactor: 0, traceFlags: [3979] });
    const h = await connect(st);
    const [tf] = await query(st, h, 'DBCC TRACESTATUS(-1) WITH NO_INFOMSGS');
    assert.deepEqual(tf!.columns.map((c) => c.name), ['TraceFlag', 'Status', 'Global', 'Session']);
    assert.deepEqual(tf!.rows, [[3979, 1, 1, 0]]);
    const r = await exec(st, h, 'DBCC SQLPERF(LOGSPACE)');
    assert.equal(r.resultSets[0]!.objects.find((x) => x['Database Name'] === 'lab')!['Log Size (MB)'], 8 - 8 / 1024, 'the 8 MB file less 8 KB (real samples, fixtures/real-server/dmv)');
    assert.equal(r.infos.at(-1)!.number, 2528);
    const vlfs = await rows(st, h, 'DBCC LOGINFO');
    assert.equal(vlfs.length, 4);
  });

  it('streams a large user table lazily and counts it', async () => {
    const h = await connect(s);
    await query(s, h, 'CREATE TABLE big (id int IDENTITY, v int DEFAULT 1); INSERT INTO big (v) SELECT TOP (50000) 2 FROM sys.all_objects a CROSS JOIN sys.all_objects b;');
    const [c] = await rows(s, h, 'SELECT COUNT(*) AS n, MAX(id) AS top_id FROM big');
    assert.deepEqual(c, { n: 50000, top_id: 50000 });
    const outs = s.execute(h, { kind: 'batch', sql: 'SELECT * FROM big' }, { signal: new AbortController().signal, resetConnection: false });
    const first = await outs[Symbol.asyncIterator]().next();
    assert.equal(first.value!.kind, 'resultSet');
    if (first.value!.kind === 'resultSet') assert.ok(!Array.isArray(first.value.rows), 'rows stay a lazy iterable');
  });
});
