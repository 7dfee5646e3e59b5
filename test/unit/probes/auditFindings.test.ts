// The documentation audit's findings of issue 33, one behaviour each: D3 (platform replicas are no availability group),
// D6 (a suffixed counter instance), D9 (doctor proves another session's visibility), D10 (an empty encrypt_option, a
// refused DBCC LOGINFO, the lock holder on 32 characters). D1, D4, D7 and D8 are in permissions.test.ts and
// test/unit/profile/concurrency.test.ts; D2 in consistency.test.ts.
import assert from 'node:assert/strict';
import { RequestError } from 'tedious';
import { encryptOptionOf } from '../../../src/db/connect';
import type { Row, SqlClient } from '../../../src/db/types';
import { AG_REPLICAS_SQL, captureDatabaseInfo, DATABASE_SQL, mapDatabaseRow, PAAS_REPLICAS_SQL } from '../../../src/probes/databaseInfo';
import { captureVlfCount, LOGINFO_REFUSED, VLF_FALLBACK_SQL, VLF_SQL } from '../../../src/probes/logInfo';
import { captureLogCounters, LOG_COUNTERS_SQL, selectCounterInstance, type CounterRow } from '../../../src/probes/perfCounters';
import type { GrantContext } from '../../../src/probes/permissions';
import { snapshotQueries } from '../../../src/probes/snapshot';
import { mapServerIdentity } from '../../../src/probes/serverInfo';
import { describesLock, readLockHolder } from '../../../src/profile/databaseLock';
import { evaluatePlanIssues } from '../../../src/profile/plan';
import { otherSessionWaits, PROVE_VISIBILITY_SQL } from '../../../src/profile/readiness';

const CTX: GrantContext = { majorVersion: 16, engineEdition: 3, loginName: 'lens', userName: 'lens', databaseName: 'lab' };
const AZURE: GrantContext = { ...CTX, majorVersion: 12, engineEdition: 5 };

function serverError(number: number, message: string): RequestError {
  const e = new RequestError(message, 'EREQUEST');
  e.number = number;
  return e;
}

/** Answers by SQL text; a function answer throws. Records what was asked. */
function client(answers: Record<string, Row[] | (() => never)>): SqlClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async query(sql) {
      asked.push(sql);
      const a = answers[sql];
      if (!a) throw new Error(`unscripted: ${sql.slice(0, 40)}`);
      if (typeof a === 'function') a();
      return a as Row[];
    },
    async execute() {},
  };
}

const dbRow = (groupDatabaseId: string | null) => ({ database_id: 5, name: 'appdb', state_desc: 'ONLINE', recovery_model_desc: 'FULL', delayed_durability: 0, delayed_durability_desc: 'DISABLED', group_database_id: groupDatabaseId });

describe('issue 33 audit: D3 group_database_id on Azure SQL Database / Managed Instance', () => {
  const guid = '6A1F2C3D-0000-4000-8000-000000000001';

  it('is an availability group on SQL Server only; on PaaS it reads as platform replicas', () => {
    assert.equal(mapDatabaseRow(dbRow(guid), 3).inAvailabilityGroup, true);
    for (const edition of [5, 8]) {
      const paas = mapDatabaseRow(dbRow(guid), edition);
      assert.equal(paas.inAvailabilityGroup, false, `EngineEdition ${edition}`);
      assert.equal(paas.platformReplicated, true, `EngineEdition ${edition}`);
    }
    assert.equal(mapDatabaseRow(dbRow(null), 5).platformReplicated, false);
  });

  it('a PaaS database is not refused as "in an availability group"; it gets a warning about failover instead', () => {
    const db = { ...mapDatabaseRow(dbRow(guid), 5), changeTracking: { status: 'ok' as const, value: false }, agReplicas: { status: 'ok' as const, value: [] } };
    const { refusals, warnings } = evaluatePlanIssues(db, null, { server: 'x', platform: 'azure-sql-database' });
    assert.deepEqual(refusals.map((r) => r.code), []);
    assert.deepEqual(warnings.map((w) => w.code), ['platform-replicas']);
    const onPrem = { ...mapDatabaseRow(dbRow(guid), 3), changeTracking: db.changeTracking, agReplicas: db.agReplicas };
    assert.deepEqual(evaluatePlanIssues(onPrem, null, { server: 'x', platform: 'sql-server' }).refusals.map((r) => r.code), ['availability-group']);
  });

  it('reads PaaS replicas from sys.dm_database_replica_states, never the SQL-Server-only sys.dm_hadr_* views', async () => {
    const c = client({
      [DATABASE_SQL]: [dbRow(guid)],
      'SELECT COUNT(*) AS tracked\nFROM sys.change_tracking_databases\nWHERE database_id = @database_id;': [{ tracked: 0 }],
      [PAAS_REPLICAS_SQL]: [{ is_local: true, is_primary_replica: true, synchronization_state_desc: 'SYNCHRONIZED' }, { is_local: false, is_primary_replica: false, synchronization_state_desc: 'SYNCHRONIZED' }],
    });
    const m = await captureDatabaseInfo(c, 5, AZURE);
    assert.equal(m.status, 'ok');
    assert.ok(!c.asked.includes(AG_REPLICAS_SQL));
    const replicas = m.status === 'ok' && m.value.agReplicas.status === 'ok' ? m.value.agReplicas.value : [];
    assert.deepEqual(replicas.map((r) => [r.serverName, r.isLocal]), [['(this replica)', true], ['(platform replica)', false]]);
    // The composed snapshot plans the platform's replica query too.
    const identity = mapServerIdentity({ product_version: '12.0.2000.8', engine_edition: 5, login_name: 'lens', user_name: 'lens', current_database: 'appdb' });
    const planned = snapshotQueries({ databaseId: 5, databaseName: 'appdb', workloadSpid: 60 }, identity).map((q) => q.sql);
    assert.ok(planned.includes(PAAS_REPLICAS_SQL) && !planned.includes(AG_REPLICAS_SQL));
  });
});

describe('issue 33 audit: D6 a counter instance named by the GUID plus a suffix', () => {
  const guid = '6a1f2c3d-0000-4000-8000-000000000001';
  const row = (instanceName: string, counterName = 'Log Flushes/sec', value = '10'): CounterRow => ({ objectName: 'MSSQL$X:Databases', counterName, instanceName, value, type: 272696576 });

  it('asks for instances that start with the GUID, not only those equal to it', () => {
    assert.match(LOG_COUNTERS_SQL, /LEFT\(RTRIM\(instance_name\), 36\) = @physical_database_name/);
  });

  it('keeps one instance: the name, then the GUID exactly, then one suffixed instance; two suffixed ones are ambiguous', () => {
    const instance = { databaseName: 'appdb', physicalDatabaseName: guid };
    assert.deepEqual(selectCounterInstance([row(`${guid}.1`)], instance), { rows: [row(`${guid}.1`)], instanceName: `${guid}.1` });
    assert.equal((selectCounterInstance([row(`${guid}.1`), row(guid)], instance) as { instanceName: string }).instanceName, guid);
    assert.equal((selectCounterInstance([row('APPDB'), row(guid)], instance) as { instanceName: string }).instanceName, 'APPDB');
    assert.deepEqual(selectCounterInstance([row(`${guid}.1`), row(`${guid}.2`)], instance), { ambiguous: [`${guid}.1`, `${guid}.2`] });
    assert.equal(selectCounterInstance([], instance), null);
  });

  it('two suffixed instances are "not measured" with why, never their sum', async () => {
    const c: SqlClient = { query: async () => [`${guid}.1`, `${guid}.2`].map((i) => ({ object_name: 'MSSQL$X:Databases', counter_name: 'Log Flushes/sec', instance_name: i, cntr_value: '5', cntr_type: 272696576 })), execute: async () => undefined };
    const m = await captureLogCounters(c, { databaseName: 'appdb', physicalDatabaseName: guid }, AZURE);
    assert.equal(m.status, 'unavailable');
    assert.match(m.status === 'unavailable' ? m.reason : '', /several SQLServer:Databases instances starting with/);
  });
});

describe('issue 33 audit: D10', () => {
  it('an empty, NULL or missing encrypt_option is "not said" (the TLS handshake decides), never "not encrypted"', () => {
    assert.equal(encryptOptionOf([{ encrypt_option: 'TRUE' }]), true);
    assert.equal(encryptOptionOf([{ encrypt_option: 'FALSE ' }]), false);
    for (const rows of [[], [{ encrypt_option: '' }], [{ encrypt_option: null }], [{ encrypt_option: 'maybe' }]]) assert.equal(encryptOptionOf(rows), null, JSON.stringify(rows));
  });

  it('a refused DBCC LOGINFO fallback is not measured without a GRANT (none is documented), never VIEW SERVER STATE', async () => {
    const c = client({
      [VLF_SQL]: () => {
        throw serverError(208, "Invalid object name 'sys.dm_db_log_info'.");
      },
      [VLF_FALLBACK_SQL]: () => {
        throw serverError(2571, "User 'lens' does not have permission to run DBCC LOGINFO.");
      },
    });
    const m = await captureVlfCount(c, 5, true, { ...CTX, majorVersion: 13 });
    assert.equal(m.status, 'unavailable');
    if (m.status !== 'unavailable') return;
    assert.equal(m.cause, 'permission');
    assert.equal(m.grant, null);
    assert.ok(m.reason.endsWith(LOGINFO_REFUSED));
  });

  it('the lock holder matches the whole 32-character plain text, and two sessions sharing it are not guessed', async () => {
    assert.equal(describesLock('0:[durability_lens:lab]:(8a1b2c3d)', 'durability_lens:lab'), true);
    assert.equal(describesLock('0:[durability_lens:lab2]:(8a1b2c3d)', 'durability_lens:lab'), false, 'a longer name is another lock');
    assert.equal(describesLock('0:durability_lens:lab:(8a1b)', 'durability_lens:lab'), true, 'brackets optional');
    const long = `durability_lens:${'x'.repeat(40)}`;
    assert.equal(describesLock(`0:[${long.slice(0, 32)}]:(1)`, long), true);
    const rows = [57, 58].map((session_id) => ({ session_id, resource_description: `0:[${long.slice(0, 32)}]:(${session_id})`, host_name: 'h', program_name: 'p', host_process_id: 1, login_name: 'l', login_time_utc: null }));
    const holder = await readLockHolder({ query: async () => rows, execute: async () => undefined }, long);
    assert.equal(holder.sessionId, null);
    assert.match(holder.unknownReason ?? '', /2 sessions hold application locks whose names share the first 32 characters/);
    const one = await readLockHolder({ query: async () => rows.slice(0, 1), execute: async () => undefined }, long);
    assert.equal(one.sessionId, 57);
  });
});

describe('issue 33 audit: D9 doctor and another session it cannot see', () => {
  // The visibility check passes (HAS_PERMS_BY_NAME 1) but the rows are still filtered — e.g. Azure SQL Database's small
  // tiers, where VIEW DATABASE STATE is held and not enough (reference §0).
  const seesNothing: SqlClient = { query: async (sql) => (/HAS_PERMS_BY_NAME/.test(sql) ? [{ own_spid: 1, can_see_all: 1 }] : []), execute: async () => undefined };

  it('after the second session waited (WAITFOR DELAY), no row is "empty" with the GRANT, never "ok, 0 rows"', async () => {
    const ran: string[] = [];
    const m = await otherSessionWaits(seesNothing, 61, CTX, { spid: 61, execute: async (sql) => void ran.push(sql) });
    assert.deepEqual(ran, [PROVE_VISIBILITY_SQL]);
    assert.match(PROVE_VISIBILITY_SQL, /^WAITFOR DELAY '00:00:00\.010';$/);
    assert.equal(m.status, 'unavailable');
    if (m.status !== 'unavailable') return;
    assert.equal(m.cause, 'empty');
    assert.equal(m.grant, 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [lens];');
  });

  it('without a session that waited, no row is "not proven", not ok; a visible WAITFOR row is ok', async () => {
    const unproven = await otherSessionWaits(seesNothing, 61, CTX, undefined);
    assert.equal(unproven.status, 'unavailable');
    assert.match(unproven.status === 'unavailable' ? unproven.reason : '', /not proven/);
    const sees: SqlClient = { query: async () => [{ wait_type: 'WAITFOR', waiting_tasks_count: '1', wait_time_ms: '10', max_wait_time_ms: '10', signal_wait_time_ms: '0' }], execute: async () => undefined };
    const visible = await otherSessionWaits(sees, 61, CTX, { spid: 61, execute: async () => undefined });
    assert.equal(visible.status, 'ok');
  });
});
