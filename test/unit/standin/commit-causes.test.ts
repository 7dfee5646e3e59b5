// The stand-in's commit-cause switches (commitCauses.ts, issue 29): each rule as its Learn page has it — a synchronous
// secondary's HADR_SYNC_COMMIT only on fully durable commits, log-rate governance on Azure SQL only and on delayed
// commits too, Hyperscale's Edition and log-rate DMF, the views only where the platform has them.
import assert from 'node:assert/strict';
import type { SessionHandle } from '../../standin/engine';
import { applyCommitCauses, commitCauses } from '../../standin/model/commitCauses';
import { createStandin, type Standin } from '../../standin/model/index';
import { connect, exec, query, rows } from './harness';

const LOOP = (n: number) => `SET NOCOUNT ON; IF OBJECT_ID(N'dbo.T', N'U') IS NULL CREATE TABLE dbo.T (id int IDENTITY(1, 1) NOT NULL, v char(100) NOT NULL);
DECLARE @i int = 0; WHILE @i < ${n} BEGIN INSERT INTO dbo.T (v) VALUES ('x'); SET @i += 1; END`;

async function sessionWait(s: Standin, monitor: SessionHandle, spid: number, type: string): Promise<{ count: number; ms: number }> {
  const [r] = await rows(s, monitor, `SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_exec_session_wait_stats WHERE session_id = ${spid} AND wait_type = N'${type}'`);
  return { count: Number(r?.waiting_tasks_count ?? 0), ms: Number(r?.wait_time_ms ?? 0) };
}

async function spidOf(s: Standin, session: SessionHandle): Promise<number> {
  return Number((await rows(s, session, 'SELECT @@SPID AS spid'))[0]!.spid);
}

describe('stand-in model: commit-cause switches (issue 29)', () => {
  it('HADR_SYNC_COMMIT: N ms per fully durable commit in an availability-group database; none under FORCED, none outside the AG', async () => {
    const s = createStandin({ speedFactor: 0, databases: [{ name: 'agdb', availabilityGroup: true }] });
    applyCommitCauses(s.state, { agSyncCommitMs: 4 }, 'agdb');
    const monitor = await connect(s);
    const ag = await connect(s, { database: 'agdb' });
    const lab = await connect(s);
    await query(s, ag, LOOP(20));
    await query(s, lab, LOOP(20));
    // 20 inserts and the CREATE TABLE: 21 fully durable commits, 4 ms each.
    assert.deepEqual(await sessionWait(s, monitor, await spidOf(s, ag), 'HADR_SYNC_COMMIT'), { count: 21, ms: 84 });
    assert.deepEqual(await sessionWait(s, monitor, await spidOf(s, lab), 'HADR_SYNC_COMMIT'), { count: 0, ms: 0 });
    await query(s, monitor, 'ALTER DATABASE agdb SET DELAYED_DURABILITY = FORCED WITH NO_WAIT;');
    const forced = await connect(s, { database: 'agdb' });
    await query(s, forced, LOOP(10));
    assert.deepEqual(await sessionWait(s, monitor, await spidOf(s, forced), 'HADR_SYNC_COMMIT'), { count: 0, ms: 0 }, 'delayed durable commits do not wait for the secondary');
  });

  it('log-rate governance: LOG_RATE_GOVERNOR on Azure SQL Database for durable and delayed commits alike; the cap in the DMV', async () => {
    const s = createStandin({ speedFactor: 0, product: 'azure-sqldb', databases: [{ name: 'lazy', delayedDurability: 'FORCED' }] });
    applyCommitCauses(s.state, { logRateLimitMbps: 1 });
    const monitor = await connect(s);
    const durable = await connect(s);
    const delayed = await connect(s, { database: 'lazy' });
    await query(s, durable, LOOP(40));
    await query(s, delayed, LOOP(40));
    const d = await sessionWait(s, monitor, await spidOf(s, durable), 'LOG_RATE_GOVERNOR');
    const f = await sessionWait(s, monitor, await spidOf(s, delayed), 'LOG_RATE_GOVERNOR');
    assert.ok(d.count >= 40 && d.ms > 0, JSON.stringify(d));
    assert.ok(f.count >= 40 && f.ms > 0, `governance applies to delayed commits too: ${JSON.stringify(f)}`);
    const [gov] = await rows(s, durable, 'SELECT primary_max_log_rate, slo_name FROM sys.dm_user_db_resource_governance WHERE database_id = DB_ID()');
    assert.equal(Number(gov!.primary_max_log_rate), 1024 * 1024);
  });

  it('SQL Server has no governance and no Azure views: the switch changes nothing and the views are invalid objects (208)', async () => {
    const s = createStandin({ speedFactor: 0 });
    applyCommitCauses(s.state, { logRateLimitMbps: 1 });
    const session = await connect(s);
    await query(s, session, LOOP(10));
    assert.deepEqual(await sessionWait(s, session, await spidOf(s, session), 'LOG_RATE_GOVERNOR'), { count: 0, ms: 0 });
    for (const sql of ['SELECT * FROM sys.dm_user_db_resource_governance', 'SELECT * FROM sys.dm_hs_database_log_rate(DB_ID())']) {
      const r = await exec(s, session, sql);
      assert.equal(r.errors[0]?.number, 208, sql);
    }
  });

  it('Hyperscale: Edition "Hyperscale", the DMF names the lagging component, and the cap waits on RBIO_RG_STORAGE', async () => {
    const s = createStandin({ speedFactor: 0, product: 'azure-sqldb' });
    applyCommitCauses(s.state, { hyperscale: true });
    const session = await connect(s);
    assert.equal((await rows(s, session, "SELECT CAST(DATABASEPROPERTYEX(DB_NAME(), 'Edition') AS nvarchar(64)) AS e"))[0]!.e, 'Hyperscale');
    assert.equal((await rows(s, session, 'SELECT role_desc, current_max_log_rate FROM sys.dm_hs_database_log_rate(DB_ID())'))[0]!.role_desc, 'Primary');
    commitCauses(s.state).logRateLimitMbps = 2;
    const [row] = await rows(s, session, 'SELECT role, role_desc, current_max_log_rate, catchup_bytes FROM sys.dm_hs_database_log_rate(DB_ID())');
    assert.deepEqual([row!.role, row!.role_desc, Number(row!.current_max_log_rate)], [1, 'Storage', 2 * 1024 * 1024]);
    await query(s, session, LOOP(20));
    const w = await sessionWait(s, session, await spidOf(s, session), 'RBIO_RG_STORAGE');
    assert.ok(w.count >= 20, JSON.stringify(w));
    assert.deepEqual(await sessionWait(s, session, await spidOf(s, session), 'LOG_RATE_GOVERNOR'), { count: 0, ms: 0 });
  });

  it('an outstanding-write limit makes concurrent commits queue behind several writes; off, the group-commit model is unchanged', async () => {
    const avgWait = async (limit: number | null): Promise<number> => {
      const s = createStandin({ speedFactor: 0, logWriteLatencyMs: 1 });
      applyCommitCauses(s.state, { logWriterOutstandingLimit: limit });
      const monitor = await connect(s);
      await query(s, monitor, LOOP(0));
      const workers = await Promise.all(Array.from({ length: 6 }, () => connect(s)));
      await Promise.all(workers.map((w) => query(s, w, LOOP(30))));
      const [w] = await rows(s, monitor, "SELECT waiting_tasks_count, wait_time_ms FROM sys.dm_os_wait_stats WHERE wait_type = N'WRITELOG'");
      return Number(w!.wait_time_ms) / Number(w!.waiting_tasks_count);
    };
    const free = await avgWait(null);
    const limited = await avgWait(1);
    assert.ok(free <= 1.5, `without a limit a commit waits at most 1.5 writes (${free} ms)`);
    assert.ok(limited > 2, `with one write outstanding commits queue behind several (${limited} ms)`);
  });
});
