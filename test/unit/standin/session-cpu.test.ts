// The stand-in's session CPU (MODEL.md, "Session CPU"): every executed statement costs STATEMENT_CPU_US of modelled CPU
// — the figure its statement-completed events and Query Store report — and sys.dm_exec_sessions.cpu_time /
// sys.dm_exec_requests.cpu_time report it in whole milliseconds, so the product's CPU share is exercised with a value
// that is not 0. Column units: https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-exec-sessions-transact-sql
import { strict as assert } from 'node:assert';
import { createStandin } from '../../standin/model/index';
import { STATEMENT_CPU_US } from '../../standin/model/xe-statements';
import { connect, exec } from './harness';

async function sessionCpuMs(s: ReturnType<typeof createStandin>, h: Awaited<ReturnType<typeof connect>>, spid: number): Promise<number> {
  const r = await exec(s, h, `SELECT cpu_time FROM sys.dm_exec_sessions WHERE session_id = ${spid}`);
  return Number(r.resultSets[0]!.objects[0]!.cpu_time);
}

describe('stand-in: session CPU time is modelled, not 0', () => {
  it('a 500-insert loop (1,000 statements) adds 1,000 × STATEMENT_CPU_US to the session\'s cpu_time, in whole ms', async () => {
    const s = createStandin({ speedFactor: 0 });
    const work = await connect(s);
    const monitor = await connect(s);
    await exec(s, work, 'CREATE TABLE dbo.cpu_t (id int IDENTITY(1,1) PRIMARY KEY, v int)');
    assert.equal(await sessionCpuMs(s, monitor, work.spid), 0, 'one statement so far: 5 µs, under a millisecond');
    // WHILE and BEGIN … END are containers (not statements of their own here): DECLARE once, INSERT and SET 500 times.
    const r = await exec(s, work, 'DECLARE @i int = 0; WHILE @i < 500 BEGIN INSERT INTO dbo.cpu_t (v) VALUES (@i); SET @i += 1; END');
    assert.deepEqual(r.errors, []);
    assert.equal(STATEMENT_CPU_US, 5);
    // (1 CREATE + 1 DECLARE + 1,000) × 5 µs = 5,010 µs → 5 ms. Observed before the model: 0, whatever the session ran.
    assert.equal(await sessionCpuMs(s, monitor, work.spid), 5);
  });

  it("another session's work does not count in this session's cpu_time", async () => {
    const s = createStandin({ speedFactor: 0 });
    const work = await connect(s);
    const other = await connect(s);
    await exec(s, other, 'DECLARE @i int = 0; WHILE @i < 1000 BEGIN SET @i += 1; END');
    assert.equal(await sessionCpuMs(s, other, work.spid), 0, 'the idle session used none');
    assert.equal(await sessionCpuMs(s, work, other.spid), 5, '1,001 statements × 5 µs = 5.005 ms → 5');
  });
});
