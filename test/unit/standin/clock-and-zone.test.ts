// The stand-in's clock is UTC by default (SYSDATETIMEOFFSET's offset is 0; a test may put the server in another zone),
// whatever the zone of the machine running the tests: a
// date/time text without an offset is read as UTC by CAST, DATEADD and DATEDIFF alike. JavaScript's own parser reads
// '2026-11-25 10:00:00' in the machine's zone, which made DATEADD/DATEDIFF answer differently in Chatham than in CI.
// Its wall clock can be set (Server.clock), so a test of Query Store's clock-aligned intervals need not depend on when
// it runs.
import assert from 'node:assert/strict';
import { createStandin } from '../../standin/model/index';
import { AWKWARD_ZONES, inTimeZone } from '../../support/timeZone';
import { connect, exec, rows } from './harness';

describe('stand-in model: date/time texts are UTC in every machine time zone', () => {
  const s = createStandin({ speedFactor: 0 });

  for (const zone of ['UTC', ...AWKWARD_ZONES]) {
    it(`reads '2026-11-25 10:00:00' as 10:00 UTC in CAST, DATEADD and DATEDIFF with the machine in ${zone}`, async () => {
      const [r] = await inTimeZone(zone, async () => rows(s, await connect(s), `SELECT
  CAST('2026-11-25 10:00:00' AS datetime2) AS cast_text,
  DATEADD(HOUR, 1, '2026-11-25 10:00:00') AS added,
  DATEDIFF(MINUTE, '2026-11-25 10:00:00', '2026-11-25T10:30:00Z') AS minutes,
  DATEDIFF(MINUTE, '2026-11-25', '2026-11-25 00:45') AS from_midnight`));
      assert.deepEqual(r, {
        cast_text: new Date(Date.UTC(2026, 10, 25, 10)),
        added: new Date(Date.UTC(2026, 10, 25, 11)),
        minutes: 30,
        from_midnight: 45,
      });
    });
  }
});

describe('stand-in model: a settable wall clock', () => {
  it('SYSUTCDATETIME and SYSDATETIMEOFFSET answer the clock a test set, and Query Store intervals follow it across the hour', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    let now = Date.UTC(2026, 11, 31, 23, 59, 59, 500);
    s.state.clock = () => now;
    const [clock] = await rows(s, h, 'SELECT SYSUTCDATETIME() AS utc, SYSDATETIMEOFFSET() AS offset_now, GETDATE() AS local_now');
    assert.deepEqual(clock, { utc: new Date(now), offset_now: { date: new Date(now), offsetMinutes: 0 }, local_now: new Date(now) });
    await exec(s, h, 'CREATE TABLE dbo.clock_t (id int); INSERT INTO dbo.clock_t VALUES (1);');
    now += 1000; // into the new year
    await exec(s, h, 'INSERT INTO dbo.clock_t VALUES (2);');
    const intervals = await rows(s, h, 'SELECT start_time, end_time FROM sys.query_store_runtime_stats_interval ORDER BY start_time');
    const at = (v: unknown) => (v as { date: Date }).date.toISOString();
    assert.deepEqual(intervals.map((i) => [at(i.start_time), at(i.end_time)]), [
      ['2026-12-31T23:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['2027-01-01T00:00:00.000Z', '2027-01-01T01:00:00.000Z'],
    ]);
    const [last] = await rows(s, h, `SELECT MAX(q.last_execution_time) AS last FROM sys.query_store_query AS q`);
    assert.equal(at(last!.last), '2027-01-01T00:00:00.500Z');
  });

  it('two starts of an event_file session in the same millisecond write two files, never one file for both runs', async () => {
    const s = createStandin({ speedFactor: 0 });
    const h = await connect(s);
    s.state.clock = () => Date.UTC(2026, 10, 25, 10, 0, 0, 0); // a frozen clock: both starts in one millisecond
    await exec(s, h, `CREATE EVENT SESSION [same_ms] ON SERVER ADD EVENT sqlserver.log_flush_complete
ADD TARGET package0.event_file (SET filename = N'same_ms.xel');`);
    const files: string[] = [];
    for (let run = 0; run < 2; run++) {
      await exec(s, h, 'ALTER EVENT SESSION [same_ms] ON SERVER STATE = START;');
      const [info] = await rows(s, h, "SELECT t.target_data FROM sys.dm_xe_session_targets t JOIN sys.dm_xe_sessions s ON t.event_session_address = s.address WHERE s.name = N'same_ms'");
      files.push(/<File name="([^"]+)"/.exec(String(info!.target_data))![1]!);
      await exec(s, h, 'ALTER EVENT SESSION [same_ms] ON SERVER STATE = STOP;');
    }
    assert.equal(files.length, 2);
    assert.notEqual(files[0], files[1]);
    for (const f of files) assert.match(f, /^\/var\/opt\/mssql\/log\/same_ms_0_\d+\.xel$/);
  });

  it("a server in another zone answers local time from SYSDATETIME, GETDATE and the DMVs' datetime columns, UTC from SYSUTCDATETIME", async () => {
    // Learn's own example (getdate-transact-sql): SYSDATETIME 13:10:02 with SYSUTCDATETIME 20:10:02 on a -07:00 server.
    const s = createStandin({ speedFactor: 0 });
    s.state.utcOffsetMinutes = -420;
    const now = Date.UTC(2007, 3, 30, 20, 10, 2, 47);
    s.state.clock = () => now;
    const h = await connect(s);
    const [r] = await rows(s, h, `SELECT SYSDATETIME() AS sys_local, GETDATE() AS local_now, SYSUTCDATETIME() AS utc,
  GETUTCDATE() AS utc_date, SYSDATETIMEOFFSET() AS with_offset, DATEDIFF(MINUTE, SYSDATETIME(), SYSUTCDATETIME()) AS to_utc_minutes`);
    const local = new Date(Date.UTC(2007, 3, 30, 13, 10, 2, 47));
    assert.deepEqual(r, { sys_local: local, local_now: local, utc: new Date(now), utc_date: new Date(now), with_offset: { date: new Date(now), offsetMinutes: -420 }, to_utc_minutes: 420 });
    const [session] = await rows(s, h, 'SELECT login_time FROM sys.dm_exec_sessions WHERE session_id = @@SPID');
    assert.equal((session!.login_time as Date).getTime(), new Date(now).getTime() - 420 * 60_000, 'login_time in the local time, 7 h before UTC');
  });
});
