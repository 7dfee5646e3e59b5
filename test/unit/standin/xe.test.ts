// Extended Events through the model: session lifecycle, ring_buffer target_data XML, event_file reads,
// name round-trips, unknown events and permissions.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

const createSql = (name: string, target: string, dbId = 5) => `CREATE EVENT SESSION ${name} ON SERVER
ADD EVENT sqlserver.log_flush_complete ( WHERE ([database_id] = (${dbId})) ),
ADD EVENT sqlserver.databases_log_flush  ( WHERE ([database_id] = (${dbId})) )
ADD TARGET ${target}
WITH ( MAX_MEMORY = 4 MB, EVENT_RETENTION_MODE = ALLOW_SINGLE_EVENT_LOSS, MAX_DISPATCH_LATENCY = 1 SECONDS, STARTUP_STATE = OFF );`;

const readRing = `SELECT t.target_data FROM sys.dm_xe_session_targets AS t
JOIN sys.dm_xe_sessions AS s ON t.event_session_address = s.address
WHERE s.name = N'dur_probe' AND t.target_name = N'ring_buffer'`;

const workload = `SET NOCOUNT ON; CREATE TABLE t (id int IDENTITY, v int DEFAULT 1);
DECLARE @i int = 0; WHILE @i < 20 BEGIN INSERT INTO t DEFAULT VALUES; SET @i += 1; END`;

describe('stand-in model: extended events', () => {
  it('collects log-flush events of one database into a ring_buffer with the documented XML layout', async () => {
    const s = createStandin({ speedFactor: 0, logWriteLatencyMs: 4 });
    const h = await connect(s);
    assert.deepEqual((await exec(s, h, createSql('[dur_probe]', 'package0.ring_buffer ( SET MAX_EVENTS_LIMIT = 5000, MAX_MEMORY = 1024 )'))).errors, []);
    const [def] = await rows(s, h, "SELECT name, max_dispatch_latency, startup_state FROM sys.server_event_sessions WHERE name = N'dur_probe'");
    assert.deepEqual(def, { name: 'dur_probe', max_dispatch_latency: 1000, startup_state: false });
    assert.deepEqual(await rows(s, h, "SELECT name FROM sys.dm_xe_sessions WHERE name = N'dur_probe'"), []);
    await query(s, h, 'ALTER EVENT SESSION [dur_probe] ON SERVER STATE = START;');
    await query(s, h, workload);
    // tempdb activity must not reach the session (predicate on database_id = 5).
    await query(s, h, 'CREATE TABLE #x (a int); INSERT INTO #x VALUES (1);');
    const [{ target_data }] = (await rows(s, h, readRing)) as Array<{ target_data: string }>;
    const xml = String(target_data);
    const head = /^<RingBufferTarget truncated="0" processingTime="\d+" totalEventsProcessed="(\d+)" eventCount="(\d+)" droppedCount="0" memoryUsed="\d+">/.exec(xml);
    assert.ok(head, xml.slice(0, 200));
    const events = [...xml.matchAll(/<event name="(\w+)" package="sqlserver" timestamp="(\d{4}-\d\d-\d\dT[\d:.]+Z)">([\s\S]*?)<\/event>/g)];
    // 1 CREATE TABLE commit + 20 autocommit inserts = 21 flushes, each a log_flush_complete and a databases_log_flush.
    assert.equal(events.length, 42);
    assert.equal(head![1], '42');
    assert.equal(head![2], '42');
    const complete = events.filter((e) => e[1] === 'log_flush_complete');
    assert.equal(complete.length, 21);
    // The raw target_data form real servers send (test/fixtures/real-server): indented, <type …></type>.
    assert.match(complete[0]![3]!, /\n {4}<data name="database_id">\n {6}<type name="uint32" package="package0"><\/type>\n {6}<value>5<\/value>\n {4}<\/data>\n/);
    assert.match(complete[1]![3]!, /<data name="duration">\n {6}<type name="uint64" package="package0"><\/type>\n {6}<value>4000<\/value>\n {4}<\/data>/);
    assert.match(complete[1]![3]!, /<data name="write_size">\n {6}<type name="uint32" package="package0"><\/type>\n {6}<value>4096<\/value>\n {4}<\/data>/);
    await query(s, h, 'ALTER EVENT SESSION [dur_probe] ON SERVER STATE = STOP;');
    assert.deepEqual(await rows(s, h, readRing), []);
    await query(s, h, 'DROP EVENT SESSION [dur_probe] ON SERVER;');
    assert.deepEqual(await rows(s, h, 'SELECT name FROM sys.server_event_sessions'), []);
    const again = await exec(s, h, 'DROP EVENT SESSION [dur_probe] ON SERVER;');
    assert.deepEqual(again.errors.map((e) => [e.number, e.message]), [[15151, "Cannot drop the event session 'dur_probe', because it does not exist or you do not have permission."]]);
  });

  it('keeps only MAX_EVENTS_LIMIT events while totalEventsProcessed counts them all', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, createSql('[dur_probe]', 'package0.ring_buffer ( SET max_events_limit = 10 )'));
    await query(s, h, 'ALTER EVENT SESSION [dur_probe] ON SERVER STATE = START;');
    await query(s, h, workload);
    const [{ target_data }] = (await rows(s, h, readRing)) as Array<{ target_data: string }>;
    assert.match(String(target_data), /totalEventsProcessed="42" eventCount="10"/);
    assert.equal([...String(target_data).matchAll(/<event /g)].length, 10);
  });

  it('round-trips session names with brackets, quotes and unicode', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const name = "durability_lens_]x'\"ü雪";
    const quoted = '[' + name.replace(/]/g, ']]') + ']';
    await query(s, h, createSql(quoted, 'package0.ring_buffer'));
    await query(s, h, `ALTER EVENT SESSION ${quoted} ON SERVER STATE = START`);
    const r = await exec(s, h, { kind: 'rpc', procedure: 'sp_executesql', statement: 'SELECT d.name, CASE WHEN r.address IS NULL THEN 0 ELSE 1 END AS is_running FROM sys.server_event_sessions AS d LEFT JOIN sys.dm_xe_sessions AS r ON r.name = d.name WHERE d.name = @name', parameters: [{ name: '@name', value: name, typeName: 'nvarchar(128)', output: false }] });
    assert.deepEqual(r.resultSets[0]!.objects, [{ name, is_running: 1 }]);
    const orphans = await rows(s, h, "SELECT name FROM sys.server_event_sessions WHERE name LIKE N'durability[_]lens[_]%'");
    assert.deepEqual(orphans, [{ name }]);
  });

  it('rejects an unknown event with 25623 and an event this server lacks', async () => {
    const s = createStandin({ speedFactor: 0, missingXeEvents: ['log_flush_complete'] });
    const h = await connect(s);
    const r = await exec(s, h, 'CREATE EVENT SESSION [x] ON SERVER ADD EVENT sqlserver.log_block_generated ADD TARGET package0.ring_buffer');
    assert.deepEqual(r.errors.map((e) => [e.number, e.message]), [[25623, 'The event name, "sqlserver.log_block_generated", is invalid, or the object could not be found']]);
    const lacking = await exec(s, h, createSql('[y]', 'package0.ring_buffer'));
    assert.equal(lacking.errors[0]!.number, 25623);
    const catalog = await rows(s, h, "SELECT o.name FROM sys.dm_xe_objects AS o JOIN sys.dm_xe_packages AS p ON o.package_guid = p.guid WHERE o.object_type = 'event' AND p.name = 'sqlserver' AND o.name LIKE 'log_flush%' ORDER BY o.name");
    assert.deepEqual(catalog.map((x) => x.name), ['log_flush_requested', 'log_flush_start']);
  });

  it('writes event_file events that sys.fn_xe_file_target_read_file reads incrementally', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    await query(s, h, createSql('[dur_file]', "package0.event_file ( SET filename = N'dur_file.xel', max_file_size = 64, max_rollover_files = 4 )"));
    await query(s, h, 'ALTER EVENT SESSION [dur_file] ON SERVER STATE = START');
    await query(s, h, workload);
    const [info] = await rows(s, h, "SELECT t.target_data FROM sys.dm_xe_session_targets t JOIN sys.dm_xe_sessions s ON t.event_session_address = s.address WHERE s.name = N'dur_file' AND t.target_name = N'event_file'");
    const file = /<File name="([^"]+)"/.exec(String(info!.target_data))![1]!;
    assert.match(file, /^\/var\/opt\/mssql\/log\/dur_file_0_\d+\.xel$/);
    const all = await rows(s, h, "SELECT object_name, event_data, file_name, file_offset FROM sys.fn_xe_file_target_read_file(N'/var/opt/mssql/log/dur_file*.xel', NULL, NULL, NULL)");
    assert.equal(all.length, 42);
    assert.match(String(all[0]!.event_data), /^<event name="log_flush_complete"/);
    const last = all[9]!;
    const rest = await exec(s, h, { kind: 'rpc', procedure: 'sp_executesql', statement: 'SELECT object_name FROM sys.fn_xe_file_target_read_file(@path, NULL, @file, @offset)', parameters: [
      { name: '@path', value: '/var/opt/mssql/log/dur_file*.xel', typeName: 'nvarchar(260)', output: false },
      { name: '@file', value: String(last.file_name), typeName: 'nvarchar(260)', output: false },
      { name: '@offset', value: last.file_offset as bigint, typeName: 'bigint', output: false },
    ] });
    assert.equal(rest.resultSets[0]!.rows.length, 32);
  });

  it('refuses CREATE EVENT SESSION without ALTER ANY EVENT SESSION, and under the deny fault', async () => {
    const s = createStandin({ speedFactor: 0, logins: [{ name: 'mon', password: 'm', serverPermissions: ['VIEW SERVER STATE'] }, { name: 'xe', password: 'x', serverPermissions: ['ALTER ANY EVENT SESSION', 'VIEW SERVER STATE'] }] });
    const mon = await connect(s, { user: 'mon', password: 'm' });
    const r = await exec(s, mon, createSql('[a]', 'package0.ring_buffer'));
    assert.deepEqual(r.errors.map((e) => [e.number, e.message]), [[15247, 'User does not have permission to perform this action.']]);
    const xe = await connect(s, { user: 'xe', password: 'x' });
    assert.deepEqual((await exec(s, xe, createSql('[a]', 'package0.ring_buffer'))).errors, []);
    s.faults.createEventSessionDenied = true;
    assert.equal((await exec(s, xe, createSql('[b]', 'package0.ring_buffer'))).errors[0]!.number, 15247);
  });

  it('keeps database-scoped sessions per database on a simulated Azure SQL Database', async () => {
    const s = createStandin({ speedFactor: 0, azure: true });
    const h = await connect(s);
    const server = await exec(s, h, createSql('[a]', 'package0.ring_buffer'));
    assert.equal(server.errors[0]!.number, 40516);
    await query(s, h, createSql('[a]', 'package0.ring_buffer').replace('ON SERVER', 'ON DATABASE'));
    await query(s, h, 'ALTER EVENT SESSION [a] ON DATABASE STATE = START');
    await query(s, h, workload);
    const [row] = await rows(s, h, "SELECT t.target_data FROM sys.dm_xe_database_session_targets t JOIN sys.dm_xe_database_sessions s ON t.event_session_address = s.address WHERE s.name = N'a'");
    assert.match(String(row!.target_data), /eventCount="42"/);
    // Objects Azure SQL Database does not have (reference §1, §6) are invalid object names there.
    const missing = await exec(s, h, 'SELECT * FROM sys.master_files');
    assert.deepEqual(missing.errors.map((e) => e.number), [208]);
  });
});
