// The probes issue 29 added: the log-rate cap (Azure SQL Database), Hyperscale's log-rate limits, SCHEMA_ONLY tables
// and the workload session's CPU — each a typed measurement: a value, "not supported" where the platform lacks it
// (without asking), or not measured with the GRANT.
import assert from 'node:assert/strict';
import { SqlQueryError } from '../../../src/db/errors';
import type { Row, SqlClient } from '../../../src/db/types';
import { captureHyperscaleLogRate, DATABASE_EDITION_SQL, HYPERSCALE_LOG_RATE_SQL, mapHyperscaleLogRateRow } from '../../../src/probes/hyperscaleLogRate';
import { captureInMemoryTables } from '../../../src/probes/inMemoryTables';
import { captureLogRateGovernance, LOG_RATE_GOVERNANCE_SQL } from '../../../src/probes/logRateGovernance';
import { evaluatePreflight, requiredPermission, type GrantContext } from '../../../src/probes/permissions';
import { captureSessionCpu, diffSessionCpu } from '../../../src/probes/sessionCpu';
import { ok } from '../../../src/probes/measurement';

const SQL_SERVER: GrantContext = { majorVersion: 16, engineEdition: 3, loginName: 'lens', userName: 'lens', databaseName: 'lab' };
const AZURE: GrantContext = { ...SQL_SERVER, majorVersion: 12, engineEdition: 5 };

/** Answers by SQL text; an Error value is thrown; anything else asked is a test failure. */
function client(answers: Record<string, Row[] | Error>): SqlClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async query(sql) {
      asked.push(sql);
      const a = answers[sql];
      if (a === undefined) throw new Error(`unexpected query: ${sql}`);
      if (a instanceof Error) throw a;
      return a;
    },
    async execute() {},
  };
}
const sqlError = (number: number, message: string) => new SqlQueryError(message, [{ number, state: 1, class: 14, message, lineNumber: 1 }], 'EREQUEST');

describe('probes: the commit path (issue 29)', () => {
  it('reads the log-rate cap and commit fee on Azure SQL Database', async () => {
    const c = client({ [LOG_RATE_GOVERNANCE_SQL]: [{ slo_name: 'GP_Gen5_2', primary_max_log_rate: '12582912', primary_log_commit_fee: 1024, instance_max_log_rate: '104857600' }] });
    const m = await captureLogRateGovernance(c, AZURE);
    assert.deepEqual(m, ok({ serviceObjective: 'GP_Gen5_2', maxLogRateBytesPerSec: 12582912, commitFeeBytes: 1024, instanceMaxLogRateBytesPerSec: 104857600 }));
  });

  it('says "not supported" on SQL Server without asking, and needs no GRANT there (the preflight does not list it)', async () => {
    const c = client({});
    const m = await captureLogRateGovernance(c, SQL_SERVER);
    assert.equal(m.status, 'unavailable');
    assert.equal(m.status === 'unavailable' && m.cause, 'not-supported');
    assert.deepEqual(c.asked, []);
    assert.equal(requiredPermission('logRateGovernance', SQL_SERVER), null);
    assert.equal(requiredPermission('hyperscaleLogRate', SQL_SERVER), null);
    assert.deepEqual(requiredPermission('logRateGovernance', AZURE), { permission: 'VIEW DATABASE STATE', scope: 'database' });
    const preflight = evaluatePreflight({ login_name: 'lens', user_name: 'lens', view_server_state: 1, view_server_performance_state: 1, alter_any_event_session: 1, view_any_definition: 1, alter_database: 1, view_database_state: 1 }, SQL_SERVER);
    assert.ok(!preflight.missing.some((m) => m.measurement === 'logRateGovernance' || m.measurement === 'hyperscaleLogRate' || m.measurement === 'inMemoryTables'));
  });

  it('a refused read of the cap is not measured with the GRANT for the database user', async () => {
    const m = await captureLogRateGovernance(client({ [LOG_RATE_GOVERNANCE_SQL]: sqlError(300, 'VIEW DATABASE STATE permission was denied') }), AZURE);
    assert.equal(m.status, 'unavailable');
    if (m.status !== 'unavailable') return;
    assert.equal(m.cause, 'permission');
    assert.match(m.grant ?? '', /GRANT VIEW DATABASE STATE TO \[lens\];/);
  });

  it('reads Hyperscale rows under either column naming of its page, and only on a Hyperscale database', async () => {
    assert.deepEqual(mapHyperscaleLogRateRow({ role: 1, role_desc: 'Storage', current_max_log_rate: '1048576', catchup_rate: '524288', catchup_bytes: '67108864' }), { role: 1, roleDesc: 'Storage', currentMaxLogRateBytesPerSec: 1048576, catchupRateBytesPerSec: 524288, catchupBytes: 67108864 });
    assert.deepEqual(mapHyperscaleLogRateRow({ role: 2, role_desc: 'Primary', current_max_log_rate_bps: 104857600, catchup_rate_bps: 0, catchup_distance_bytes: 0 }), { role: 2, roleDesc: 'Primary', currentMaxLogRateBytesPerSec: 104857600, catchupRateBytesPerSec: 0, catchupBytes: 0 });
    const hs = await captureHyperscaleLogRate(client({ [DATABASE_EDITION_SQL]: [{ edition: 'Hyperscale' }], [HYPERSCALE_LOG_RATE_SQL]: [{ role: 2, role_desc: 'Primary', current_max_log_rate: 104857600 }] }), AZURE);
    assert.equal(hs.status === 'ok' && hs.value.rows[0]!.roleDesc, 'Primary');
    const gp = client({ [DATABASE_EDITION_SQL]: [{ edition: 'GeneralPurpose' }] });
    const notHs = await captureHyperscaleLogRate(gp, AZURE);
    assert.equal(notHs.status === 'unavailable' && notHs.cause, 'not-supported');
    assert.match(notHs.status === 'unavailable' ? notHs.reason : '', /service tier is GeneralPurpose, not Hyperscale/);
    assert.deepEqual(gp.asked, [DATABASE_EDITION_SQL], 'the DMF is not asked where it does not apply');
    const onSqlServer = await captureHyperscaleLogRate(client({}), SQL_SERVER);
    assert.equal(onSqlServer.status === 'unavailable' && onSqlServer.cause, 'not-supported');
  });

  it('counts SCHEMA_ONLY tables in the measured database, and only there', async () => {
    const m = await captureInMemoryTables(client({ 'SELECT COUNT(*) AS schema_only_tables\nFROM sys.tables\nWHERE is_memory_optimized = 1 AND durability = 1;': [{ schema_only_tables: 3 }] }), true, SQL_SERVER);
    assert.deepEqual(m, ok({ schemaOnlyTables: 3 }));
    const elsewhere = await captureInMemoryTables(client({}), false, SQL_SERVER);
    assert.equal(elsewhere.status === 'unavailable' && elsewhere.cause, 'not-applicable');
  });

  it("the session's CPU: a missing row is not measured with the GRANT, a counter that went down is not a delta", async () => {
    const cpu = await captureSessionCpu(client({ 'SELECT cpu_time\nFROM sys.dm_exec_sessions\nWHERE session_id = @spid;': [{ cpu_time: 120 }] }), 55, SQL_SERVER);
    assert.deepEqual(cpu, ok({ cpuMs: 120 }));
    const hidden = await captureSessionCpu(client({ 'SELECT cpu_time\nFROM sys.dm_exec_sessions\nWHERE session_id = @spid;': [] }), 55, SQL_SERVER);
    assert.equal(hidden.status === 'unavailable' && hidden.cause, 'empty');
    assert.match(hidden.status === 'unavailable' ? (hidden.grant ?? '') : '', /GRANT VIEW SERVER PERFORMANCE STATE TO \[lens\];/);
    assert.deepEqual(diffSessionCpu(ok({ cpuMs: 100 }), ok({ cpuMs: 160 })), ok({ cpuMs: 60 }));
    const reset = diffSessionCpu(ok({ cpuMs: 100 }), ok({ cpuMs: 10 }));
    assert.equal(reset?.status, 'unavailable');
    assert.equal(diffSessionCpu(undefined, ok({ cpuMs: 1 })), undefined);
  });
});
