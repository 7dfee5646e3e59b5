// ring_buffer rendering limits and statement-level error lines, at the model's unit level.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { ringBufferXml } from '../../standin/model/xe';
import { connect, exec } from './harness';

describe('stand-in model: ring_buffer rendering and error lines', () => {
  it('cuts target_data at the XML size limit and says truncated="1"', () => {
    const events = Array.from({ length: 10 }, (_, i) => `<event name="databases_log_flush" package="sqlserver" timestamp="2026-01-01T00:00:0${i}.000Z"></event>`);
    const rb = { events, sizes: events.map((e) => e.length), bytes: events.join('').length, totalProcessed: 10, maxMemoryBytes: Infinity, maxEvents: 1000 };
    const full = ringBufferXml(rb);
    assert.match(full, /^<RingBufferTarget truncated="0" processingTime="0" totalEventsProcessed="10" eventCount="10"/);
    // Each event is written on its own line (the real form is indented): its length plus the line break.
    const cut = ringBufferXml(rb, (events[0]!.length + 1) * 3 + 1);
    assert.match(cut, /^<RingBufferTarget truncated="1" processingTime="0" totalEventsProcessed="10" eventCount="3"/);
    assert.equal([...cut.matchAll(/<event /g)].length, 3);
  });

  it('reports the line of the failing statement inside a WHILE body and keeps running the batch', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, `DECLARE @i int = 0;
WHILE @i < 2
BEGIN
    SET @i += 1;
    DROP TABLE dbo.does_not_exist;
END
SELECT @i AS i;`);
    assert.deepEqual(r.errors.map((e) => [e.number, e.lineNumber]), [[3701, 5], [3701, 5]]);
    assert.deepEqual(r.resultSets[0]!.objects, [{ i: 2 }]);
  });

  it('formats PRINT and RAISERROR severity ≤ 10 as info messages with their lines', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    const r = await exec(s, h, "PRINT 'a';\nRAISERROR('step %d of %s', 0, 1, 3, 'five') WITH NOWAIT;\nRAISERROR('bad', 16, 2);");
    assert.deepEqual(r.infos.map((m) => [m.number, m.class, m.message, m.lineNumber]), [[0, 0, 'a', 1], [50000, 0, 'step 3 of five', 2]]);
    assert.deepEqual(r.errors.map((m) => [m.number, m.class, m.state, m.message, m.lineNumber]), [[50000, 16, 2, 'bad', 3]]);
  });
});
