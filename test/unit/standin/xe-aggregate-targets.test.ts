// The stand-in's event_counter and histogram targets: exact counts, slots by exact value, slot overflow ignoring new
// values (Histogram Target page), power-of-two rounding, and the documented target_data shapes. Figures are the model's.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { histogramSlots } from '../../standin/model/xe';
import { parseCounterTarget, parseHistogramTarget } from '../../../src/xe/targetData';
import { connect, exec, rows } from './harness';

const targets = (name: string) =>
  `SELECT t.target_name, t.target_data FROM sys.dm_xe_session_targets AS t JOIN sys.dm_xe_sessions AS s ON t.event_session_address = s.address WHERE s.name = N'${name}'`;

describe('stand-in model: event_counter and histogram targets', () => {
  it('counts every flush exactly and buckets write_size by exact value, however many events the ring evicts', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const db = (await rows(s, h, 'SELECT DB_ID() AS id'))[0]!.id as number;
    const setup = await exec(s, h, `CREATE TABLE dbo.t (v int NOT NULL);
CREATE EVENT SESSION agg ON SERVER
ADD EVENT sqlserver.databases_log_flush (WHERE ([database_id] = (${db}))),
ADD EVENT sqlserver.log_flush_complete (WHERE ([database_id] = (${db})))
ADD TARGET package0.event_counter,
ADD TARGET package0.histogram (SET filtering_event_name = N'sqlserver.log_flush_complete', source = N'write_size', source_type = 0, slots = 1000),
ADD TARGET package0.ring_buffer (SET max_events_limit = 10)
WITH (MAX_DISPATCH_LATENCY = 1 SECONDS);
ALTER EVENT SESSION agg ON SERVER STATE = START;`);
    assert.deepEqual(setup.errors, []);
    await exec(s, h, 'DECLARE @i int = 0; WHILE @i < 200 BEGIN INSERT INTO dbo.t (v) VALUES (@i); SET @i += 1; END');
    const byName = new Map((await rows(s, h, targets('agg'))).map((r) => [r.target_name as string, r.target_data as string]));
    const counter = parseCounterTarget(byName.get('event_counter')!);
    assert.equal(counter.parseError, null);
    assert.ok(counter.counts.get('databases_log_flush')! >= 200);
    assert.equal(counter.counts.get('databases_log_flush'), counter.counts.get('log_flush_complete'));
    const histogram = parseHistogramTarget(byName.get('histogram')!);
    assert.equal(histogram.parseError, null);
    assert.equal(histogram.slots, 1024, 'slots=1000 rounded up to a power of two');
    assert.equal([...histogram.buckets.values()].reduce((a, b) => a + b, 0), counter.counts.get('log_flush_complete'));
    for (const size of histogram.buckets.keys()) assert.equal(size % 4096, 0, `write sizes are rounded to the 4 KB sector: ${size}`);
    // The ring buffer kept only its last 10 events; the aggregating targets kept everything.
    assert.match(byName.get('ring_buffer')!, /eventCount="10"/);
    assert.match(byName.get('event_counter')!, /^<CounterTarget truncated="0"><Packages><Package name="sqlserver"><Event name="databases_log_flush" count="\d+" \/>/);
    await exec(s, h, 'ALTER EVENT SESSION agg ON SERVER STATE = STOP; DROP EVENT SESSION agg ON SERVER;');
  });

  it('ignores new values once every slot is taken, and rounds slots up to a power of two (default 256)', async () => {
    assert.deepEqual([histogramSlots(null), histogramSlots(1), histogramSlots(59), histogramSlots(64), histogramSlots(65)], [256, 1, 64, 64, 128]);
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const db = (await rows(s, h, 'SELECT DB_ID() AS id'))[0]!.id as number;
    await exec(s, h, `CREATE TABLE dbo.w (v varchar(8000) NOT NULL);
CREATE EVENT SESSION few ON SERVER
ADD EVENT sqlserver.databases_log_flush (WHERE ([database_id] = (${db}))),
ADD EVENT sqlserver.log_flush_start (WHERE ([database_id] = (${db})))
ADD TARGET package0.event_counter,
ADD TARGET package0.histogram (SET filtering_event_name = N'sqlserver.log_flush_start', source = N'write_size', source_type = 0, slots = 2);
ALTER EVENT SESSION few ON SERVER STATE = START;`);
    // Transactions of 1..6 rows of 4,000 bytes: each commit flushes a block of a different size (8 KB, 12 KB, 16 KB, ...).
    const r = await exec(s, h, `DECLARE @i int = 1, @j int;
WHILE @i <= 6
BEGIN
  BEGIN TRANSACTION;
  SET @j = 0;
  WHILE @j < @i BEGIN INSERT INTO dbo.w (v) VALUES (REPLICATE('x', 4000)); SET @j += 1; END
  COMMIT TRANSACTION;
  SET @i += 1;
END`);
    assert.deepEqual(r.errors, []);
    const byName = new Map((await rows(s, h, targets('few'))).map((r) => [r.target_name as string, r.target_data as string]));
    const counted = parseCounterTarget(byName.get('event_counter')!).counts.get('log_flush_start')!;
    const histogram = parseHistogramTarget(byName.get('histogram')!);
    assert.equal(histogram.slots, 2);
    assert.equal(histogram.buckets.size, 2);
    const bucketed = [...histogram.buckets.values()].reduce((a, b) => a + b, 0);
    assert.ok(bucketed < counted, `slots full: ${bucketed} of ${counted} bucketed`);
  });
});
