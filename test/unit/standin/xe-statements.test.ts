// The stand-in's statement-completed and wait events (MODEL.md "Statement and wait events"): one event per executed
// statement with its batch line and UTF-16 byte offsets, WRITELOG waits before the committing statement's completion,
// the session_id predicate, and wait_types map keys that differ per version. Figures are the model's.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { readRingBufferXml } from '../../../src/xe/reader';
import { parseHistogramTextTarget } from '../../../src/xe/targetData';
import { connect, exec, rows } from './harness';

const ringOf = (name: string) =>
  `SELECT t.target_data FROM sys.dm_xe_session_targets AS t JOIN sys.dm_xe_sessions AS s ON t.event_session_address = s.address WHERE s.name = N'${name}' AND t.target_name = N'ring_buffer'`;

async function writelogKey(s: ReturnType<typeof createStandin>, h: Awaited<ReturnType<typeof connect>>): Promise<number> {
  const r = await rows(s, h, `SELECT map_key FROM sys.dm_xe_map_values WHERE name = N'wait_types' AND map_value = N'WRITELOG'`);
  assert.equal(r.length, 1);
  return r[0]!.map_key as number;
}

describe('stand-in model: statement and wait events', () => {
  it("charges each completed statement's cpu_time to the session: sys.dm_exec_sessions.cpu_time (ms) grows with the work", async () => {
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s);
    const workload = await connect(s);
    const spid = (await rows(s, workload, 'SELECT @@SPID AS spid'))[0]!.spid as number;
    const cpuOf = async () => (await rows(s, monitor, `SELECT cpu_time FROM sys.dm_exec_sessions WHERE session_id = ${spid}`))[0]!.cpu_time as number;
    const before = await cpuOf();
    await exec(s, workload, 'CREATE TABLE dbo.c (v int NOT NULL);');
    // 1 DECLARE + 1,000 × (INSERT + SET) = 2,001 statements (the WHILE and its BEGIN…END are containers, no event of
    // their own) at 5 µs each: 10.005 ms, floored to whole ms as the column's int holds it.
    await exec(s, workload, 'DECLARE @i int = 0;\nWHILE @i < 1000\nBEGIN\n  INSERT INTO dbo.c (v) VALUES (@i);\n  SET @i += 1;\nEND');
    const after = await cpuOf();
    assert.equal(after - before, 10);
    assert.ok(after > 0, 'never a constant 0');
  });

  it('reports each statement with its line and byte offsets, and the WRITELOG wait before the INSERT that committed', async () => {
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s);
    const workload = await connect(s);
    const other = await connect(s);
    const spid = (await rows(s, workload, 'SELECT @@SPID AS spid'))[0]!.spid as number;
    const key = await writelogKey(s, monitor);
    await exec(s, workload, 'CREATE TABLE dbo.t (v int NOT NULL);');
    const setup = await exec(s, monitor, `CREATE EVENT SESSION st ON SERVER
ADD EVENT sqlserver.sql_statement_completed (WHERE ([sqlserver].[session_id] = (${spid}))),
ADD EVENT sqlos.wait_completed (WHERE ([sqlserver].[session_id] = (${spid}) AND [wait_type] = (${key})))
ADD TARGET package0.ring_buffer (SET max_events_limit = 100000)
WITH (MAX_DISPATCH_LATENCY = 1 SECONDS);
ALTER EVENT SESSION st ON SERVER STATE = START;`);
    assert.deepEqual(setup.errors, []);
    const batch = 'DECLARE @i int = 0;\nWHILE @i < 3\nBEGIN\n  INSERT INTO dbo.t (v) VALUES (@i);\n  SET @i += 1;\nEND';
    await exec(s, workload, batch);
    await exec(s, other, 'INSERT INTO dbo.t (v) VALUES (99);');
    const read = readRingBufferXml((await rows(s, monitor, ringOf('st')))[0]!.target_data as string);
    const names = read.events.map((e) => (e.name === 'wait_completed' ? 'W' : String(e.data.line_number?.value)));
    assert.deepEqual(names, ['1', 'W', '4', '5', 'W', '4', '5', 'W', '4', '5'], 'the other session is filtered out; each wait precedes its INSERT');
    const insert = read.events.find((e) => e.data.line_number?.value === 4)!;
    const start = batch.indexOf('INSERT');
    assert.equal(insert.data.offset!.value, start * 2);
    // Inclusive: the byte offset of the statement's last character (real output, test/fixtures/real-server).
    assert.equal(insert.data.offset_end!.value, (start + 'INSERT INTO dbo.t (v) VALUES (@i)'.length - 1) * 2);
    assert.equal(insert.data.statement!.value, 'INSERT INTO dbo.t (v) VALUES (@i)');
    assert.equal(insert.data.row_count!.value, 1);
    const wait = read.events.find((e) => e.name === 'wait_completed')!;
    assert.equal(wait.package, 'sqlos');
    assert.deepEqual(wait.data.wait_type, { value: key, text: 'WRITELOG' });
    assert.ok(Number(insert.data.duration!.value) >= Number(wait.data.duration!.value), 'the statement lasts at least its wait');
    await exec(s, monitor, 'ALTER EVENT SESSION st ON SERVER STATE = STOP; DROP EVENT SESSION st ON SERVER;');
  });

  it('attaches query_hash (one per statement text) and buckets a histogram by that action (source_type 1)', async () => {
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s);
    const workload = await connect(s);
    const spid = (await rows(s, workload, 'SELECT @@SPID AS spid'))[0]!.spid as number;
    const key = await writelogKey(s, monitor);
    const action = (await rows(s, monitor, `SELECT type_name FROM sys.dm_xe_objects WHERE object_type = N'action' AND name = N'query_hash'`))[0]!;
    assert.equal(action.type_name, 'uint64');
    await exec(s, workload, 'CREATE TABLE dbo.h (v int NOT NULL);');
    const setup = await exec(s, monitor, `CREATE EVENT SESSION hq ON SERVER
ADD EVENT sqlserver.sql_statement_completed (ACTION (sqlserver.query_hash) WHERE ([sqlserver].[session_id] = (${spid}))),
ADD EVENT sqlos.wait_completed (ACTION (sqlserver.query_hash) WHERE ([sqlserver].[session_id] = (${spid}) AND [wait_type] = (${key})))
ADD TARGET package0.histogram (SET filtering_event_name = N'sqlos.wait_completed', source_type = 1, source = N'sqlserver.query_hash'),
ADD TARGET package0.ring_buffer (SET max_events_limit = 100000);
ALTER EVENT SESSION hq ON SERVER STATE = START;`);
    assert.deepEqual(setup.errors, []);
    await exec(s, workload, 'DECLARE @i int = 0;\nWHILE @i < 5\nBEGIN\n  INSERT INTO dbo.h (v) VALUES (@i);\n  SET @i += 1;\nEND\nUPDATE dbo.h SET v = 0;');
    const targets = await rows(s, monitor, `SELECT t.target_name, t.target_data FROM sys.dm_xe_session_targets AS t JOIN sys.dm_xe_sessions AS x ON t.event_session_address = x.address WHERE x.name = N'hq'`);
    const read = readRingBufferXml(targets.find((t) => t.target_name === 'ring_buffer')!.target_data as string);
    const hashOf = (line: number) => read.events.find((e) => e.name === 'sql_statement_completed' && e.data.line_number?.value === line)!.actions.query_hash!.value;
    const insertHash = String(hashOf(4));
    assert.notEqual(insertHash, String(hashOf(5)), 'different texts, different hashes');
    assert.ok(read.events.filter((e) => e.name === 'wait_completed').every((w) => String(w.actions.query_hash!.value) === insertHash || String(w.actions.query_hash!.value) === String(hashOf(7))), 'a wait carries the hash of the statement it waited in');
    const h = parseHistogramTextTarget(targets.find((t) => t.target_name === 'histogram')!.target_data as string);
    assert.equal(h.buckets.get(insertHash), 5);
    assert.equal(h.buckets.get(String(hashOf(7))), 1);
    assert.equal(h.buckets.size, 2);
    await exec(s, monitor, 'ALTER EVENT SESSION hq ON SERVER STATE = STOP; DROP EVENT SESSION hq ON SERVER;');
  });

  it('a procedure\'s statements: sp_statement_completed with its object_id and object_name, line and offsets into its definition', async () => {
    // As real output shows (test/fixtures/real-server/xelogstash-sp-statement-completed.xml: object_name, object_type
    // 8272 PROC, line_number 152 at offset 9014 of the procedure's text). Without them a client cannot tell a
    // procedure's statement from one of the batch that called it.
    const s = createStandin({ speedFactor: 0 });
    const monitor = await connect(s);
    const workload = await connect(s);
    const spid = (await rows(s, workload, 'SELECT @@SPID AS spid'))[0]!.spid as number;
    await exec(s, workload, 'CREATE TABLE dbo.pt (v int NOT NULL);');
    const definition = '-- keeps the rows\nCREATE PROCEDURE dbo.lens_put @v int\nAS\nBEGIN\n  SET NOCOUNT ON;\n  INSERT INTO dbo.pt (v) VALUES (@v);\nEND';
    assert.deepEqual((await exec(s, workload, definition)).errors, []);
    const setup = await exec(s, monitor, `CREATE EVENT SESSION sp ON SERVER
ADD EVENT sqlserver.sql_statement_completed (WHERE ([sqlserver].[session_id] = (${spid}))),
ADD EVENT sqlserver.sp_statement_completed (WHERE ([sqlserver].[session_id] = (${spid})))
ADD TARGET package0.ring_buffer (SET max_events_limit = 1000);
ALTER EVENT SESSION sp ON SERVER STATE = START;`);
    assert.deepEqual(setup.errors, []);
    await exec(s, workload, 'SET NOCOUNT ON;\nEXEC dbo.lens_put @v = 7;');
    const events = readRingBufferXml((await rows(s, monitor, ringOf('sp')))[0]!.target_data as string).events;
    assert.deepEqual(events.map((e) => `${e.name}:${String(e.data.line_number?.value)}`), ['sql_statement_completed:1', 'sp_statement_completed:5', 'sp_statement_completed:6', 'sql_statement_completed:2']);
    const objectId = (await rows(s, monitor, "SELECT OBJECT_ID(N'dbo.lens_put') AS id"))[0]!.id;
    for (const e of events.filter((x) => x.name === 'sp_statement_completed')) {
      assert.deepEqual([e.data.object_name!.value, e.data.object_id!.value, e.data.object_type!.value], ['lens_put', objectId, 8272]);
      const offset = Number(e.data.offset!.value);
      const offsetEnd = Number(e.data.offset_end!.value);
      const end = offsetEnd === -1 ? definition.length : offsetEnd / 2 + 1;
      assert.equal(definition.slice(offset / 2, end), e.data.statement!.value, 'the offsets index the definition');
      assert.equal(definition.slice(0, offset / 2).split('\n').length, e.data.line_number!.value, 'the line is the definition\'s');
    }
    assert.equal(events.find((e) => e.data.line_number?.value === 6)!.data.statement!.value, 'INSERT INTO dbo.pt (v) VALUES (@v)');
    await exec(s, monitor, 'ALTER EVENT SESSION sp ON SERVER STATE = STOP; DROP EVENT SESSION sp ON SERVER;');
  });

  it('gives WRITELOG a different wait_types key on 2019 than on 2022, so a hard-coded key would miss', async () => {
    const keys: number[] = [];
    for (const version of [2019, 2022] as const) {
      const s = createStandin({ speedFactor: 0, version });
      keys.push(await writelogKey(s, await connect(s)));
    }
    assert.notEqual(keys[0], keys[1]);
  });
});
