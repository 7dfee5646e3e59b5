import assert from 'node:assert/strict';
import { RequestError } from 'tedious';
import type { QueryParameter, Row, SqlClient } from '../../../src/db/types';
import { captureSnapshot, diffSnapshots, type Snapshot } from '../../../src/probes/snapshot';
import { FILE_STATS_CURRENT_DB_SQL, FILE_STATS_SQL, VOLUME_CURRENT_DB_SQL, VOLUME_SQL } from '../../../src/probes/fileStats';
import { LOG_COUNTERS_SQL, PHYSICAL_DATABASE_NAME_SQL } from '../../../src/probes/perfCounters';
import { LOG_SPACE_SQL, LOG_STATS_SQL, VLF_SQL } from '../../../src/probes/logInfo';
import { HOST_INFO_SQL, SERVER_IDENTITY_SQL, START_TIME_SQL, TRACE_STATUS_SQL } from '../../../src/probes/serverInfo';
import { CHANGE_TRACKING_SQL, DATABASE_SQL } from '../../../src/probes/databaseInfo';
import { SERVER_WAITS_SQL, SESSION_VISIBILITY_SQL, SESSION_WAITS_SQL } from '../../../src/probes/waitStats';

function permissionDenied(): RequestError {
  const e = new RequestError('VIEW SERVER STATE permission was denied on object \'server\', database \'master\'.', 'EREQUEST');
  e.number = 300;
  e.class = 14;
  return e;
}

/** A SqlClient answering each probe's SQL from a table of rows (or errors), recording parameters. */
class ScriptedClient implements SqlClient {
  calls: { sql: string; parameters: readonly QueryParameter[] }[] = [];
  constructor(private readonly answers: Map<string, Row[] | (() => never)>) {}
  async query(sql: string, parameters: readonly QueryParameter[] = []): Promise<Row[]> {
    this.calls.push({ sql, parameters });
    const answer = this.answers.get(sql);
    if (answer === undefined) throw new Error(`unscripted SQL: ${sql.slice(0, 60)}`);
    if (typeof answer === 'function') answer();
    return answer as Row[];
  }
  async execute(sql: string, parameters?: readonly QueryParameter[]): Promise<void> {
    await this.query(sql, parameters);
  }
}

function script(opts: { startTime: Date; logWrites: string; writelog: string; sessionWritelog: string; denyServerState?: boolean }): Map<string, Row[] | (() => never)> {
  const deny = () => {
    throw permissionDenied();
  };
  const guarded = (rows: Row[]) => (opts.denyServerState ? deny : rows);
  return new Map<string, Row[] | (() => never)>([
    [SERVER_IDENTITY_SQL, [{ version_text: 'Microsoft SQL Server 2019', server_name: 'box', product_version: '15.0.4355.3', product_major_version: '15', edition: 'Developer Edition (64-bit)', engine_edition: 3, login_name: 'lens', user_name: 'dbo', current_database: 'Sales' }]],
    [START_TIME_SQL, guarded([{ sqlserver_start_time: opts.startTime }])],
    [HOST_INFO_SQL, [{ host_platform: 'Linux', host_distribution: 'Ubuntu', host_release: '22.04' }]],
    [TRACE_STATUS_SQL, [{ TraceFlag: 3979, Status: 1, Global: 1, Session: 0 }]],
    [DATABASE_SQL, [{ database_id: 5, name: 'Sales', state_desc: 'ONLINE', recovery_model_desc: 'FULL', delayed_durability: 0, delayed_durability_desc: 'DISABLED', is_cdc_enabled: false, is_published: false, log_reuse_wait_desc: 'NOTHING', group_database_id: null }]],
    [CHANGE_TRACKING_SQL, [{ tracked: 0 }]],
    [FILE_STATS_CURRENT_DB_SQL, guarded([
      { file_id: 1, sample_ms: '1000', num_of_reads: '1', num_of_bytes_read: '8192', io_stall_read_ms: '1', num_of_writes: '5', num_of_bytes_written: '40960', io_stall_write_ms: '3', io_stall: '4', size_on_disk_bytes: '8388608', type: 0, type_desc: 'ROWS', logical_name: 'Sales', physical_name: 'Sales.mdf' },
      { file_id: 2, sample_ms: '1000', num_of_reads: '0', num_of_bytes_read: '0', io_stall_read_ms: '0', num_of_writes: opts.logWrites, num_of_bytes_written: String(Number(opts.logWrites) * 4096), io_stall_write_ms: opts.logWrites, io_stall: opts.logWrites, size_on_disk_bytes: '8388608', type: 1, type_desc: 'LOG', logical_name: 'Sales_log', physical_name: 'Sales_log.ldf' },
    ])],
    [VOLUME_CURRENT_DB_SQL, guarded([{ file_id: 1, volume_mount_point: null, logical_volume_name: null, file_system_type: null, total_bytes: '1000000', available_bytes: '500000' }])],
    [SERVER_WAITS_SQL, guarded([{ wait_type: 'WRITELOG', waiting_tasks_count: opts.writelog, wait_time_ms: opts.writelog, max_wait_time_ms: '3', signal_wait_time_ms: '0' }])],
    [SESSION_WAITS_SQL, [{ wait_type: 'WRITELOG', waiting_tasks_count: opts.sessionWritelog, wait_time_ms: opts.sessionWritelog, max_wait_time_ms: '2', signal_wait_time_ms: '0' }]],
    [LOG_COUNTERS_SQL, guarded([{ object_name: 'SQLServer:Databases', counter_name: 'Log Flushes/sec', instance_name: 'Sales', cntr_value: opts.logWrites, cntr_type: 272696576 }])],
    [LOG_STATS_SQL, guarded([{ recovery_model: 'FULL', total_vlf_count: '4', active_vlf_count: '1', total_log_size_mb: 8, active_log_size_mb: 1 }])],
    [LOG_SPACE_SQL, guarded([{ database_id: 5, total_log_size_in_bytes: '8388608', used_log_space_in_bytes: '1000000', used_log_space_in_percent: 11.9 }])],
    [VLF_SQL, guarded([{ vlf_count: 4, active_vlf_count: 1 }])],
  ]);
}

const target = { databaseId: 5, databaseName: 'Sales', workloadSpid: 57 };
const started = new Date('2026-11-01T08:00:00Z');

async function snap(opts: Parameters<typeof script>[0], at: number): Promise<{ snapshot: Snapshot; client: ScriptedClient }> {
  const client = new ScriptedClient(script(opts));
  return { snapshot: await captureSnapshot(client, target, { now: () => at }), client };
}

describe('probes/snapshot: capture and diff', () => {
  it('captures every probe, passing ids as typed parameters', async () => {
    const { snapshot, client } = await snap({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '0' }, 1_000);
    assert.equal(snapshot.fileStats.status, 'ok');
    assert.equal(snapshot.server.identity.majorVersion, 15);
    assert.deepEqual(snapshot.server.traceFlags.status === 'ok' && snapshot.server.traceFlags.value, [{ flag: 3979, status: true, global: true, session: false }]);
    assert.equal(snapshot.database.status === 'ok' && snapshot.database.value.delayedDurability, 'DISABLED');
    const sessionCall = client.calls.find((c) => c.sql === SESSION_WAITS_SQL)!;
    assert.deepEqual(sessionCall.parameters, [{ name: 'spid', type: 'int', value: 57 }]);
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(snapshot)), 'snapshots are JSON-serialisable');
  });

  it('degrades without VIEW SERVER STATE: measurements unavailable with the GRANT, the snapshot continues', async () => {
    const { snapshot } = await snap({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '3', denyServerState: true }, 1_000);
    for (const m of [snapshot.fileStats, snapshot.serverWaits, snapshot.logCounters, snapshot.logStats, snapshot.vlfs, snapshot.server.startTime]) {
      assert.equal(m.status, 'unavailable');
      assert.equal(m.status === 'unavailable' && m.cause, 'permission');
      assert.equal(m.status === 'unavailable' && m.grant, 'USE [master];\nGRANT VIEW SERVER STATE TO [lens];');
      assert.equal(m.status === 'unavailable' && m.errorNumber, 300);
    }
    assert.equal(snapshot.sessionWaits.status, 'ok', 'own session waits are still readable');
  });

  it('diffs two snapshots: log writes, WRITELOG and the session waits, with per-second counter rates', async () => {
    const before = (await snap({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '0' }, 1_000)).snapshot;
    const after = (await snap({ startTime: started, logWrites: '10100', writelog: '10050', sessionWritelog: '9990' }, 11_000)).snapshot;
    const diff = diffSnapshots(before, after);
    assert.equal(diff.valid, true);
    assert.equal(diff.restartDetected, false);
    assert.equal(diff.elapsedMs, 10_000);
    const log = diff.files.status === 'ok' ? diff.files.value.files.find((f) => f.kind === 'log') : undefined;
    assert.equal(log?.writes, 10000);
    assert.equal(log?.avgBytesPerWrite, 4096);
    assert.equal(diff.serverWaits.status === 'ok' && diff.serverWaits.value.top[0]!.waitingTasks, 10000);
    assert.equal(diff.sessionWaits.status === 'ok' && diff.sessionWaits.value.top[0]!.waitTimeMs, 9990);
    assert.deepEqual(diff.logCounters.status === 'ok' && diff.logCounters.value[0], { counterName: 'Log Flushes/sec', kind: 'cumulative', type: 272696576, delta: 10000, perSecond: 1000 });
    assert.deepEqual(diff.log.vlfCount, { before: 4, after: 4 });
  });

  it('refuses to diff across a restart and says why', async () => {
    const before = (await snap({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '0' }, 1_000)).snapshot;
    const after = (await snap({ startTime: new Date('2026-11-01T09:00:00Z'), logWrites: '10', writelog: '5', sessionWritelog: '0' }, 11_000)).snapshot;
    const diff = diffSnapshots(before, after);
    assert.equal(diff.valid, false);
    assert.equal(diff.restartDetected, true);
    assert.match(diff.notes[0]!, /restarted between the snapshots/);
    assert.equal(diff.files.status, 'unavailable');
    assert.equal(diff.serverWaits.status, 'unavailable');
  });

  it('notes when restart detection was impossible and when the session was reset', async () => {
    const before = (await snap({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '500', denyServerState: true }, 1_000)).snapshot;
    const after = (await snap({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '20', denyServerState: true }, 2_000)).snapshot;
    const diff = diffSnapshots(before, after);
    assert.equal(diff.restartDetected, null);
    assert.ok(diff.notes.some((n) => /cannot be ruled out/.test(n)));
    assert.ok(diff.notes.some((n) => /session was reset/.test(n)));
    assert.equal(diff.files.status, 'unavailable');
  });
});

describe('probes/snapshot: an empty source is not measured, never zero (issue 11)', () => {
  const logFile = { file_id: 2, sample_ms: '1000', num_of_reads: '0', num_of_bytes_read: '0', io_stall_read_ms: '0', num_of_writes: '7', num_of_bytes_written: '28672', io_stall_write_ms: '7', io_stall: '7', size_on_disk_bytes: '8388608', type: 1, type_desc: 'LOG', logical_name: 'Sales_log', physical_name: 'Sales_log.ldf' };

  function base(overrides: [string, Row[] | (() => never)][], identity: Partial<Row> = {}): ScriptedClient {
    const answers = script({ startTime: started, logWrites: '100', writelog: '50', sessionWritelog: '0' });
    const id = { ...answers.get(SERVER_IDENTITY_SQL)![0 as never] as Row, ...identity };
    answers.set(SERVER_IDENTITY_SQL, [id]);
    for (const [sql, rows] of overrides) answers.set(sql, rows);
    return new ScriptedClient(answers);
  }

  it('reads file IO from sys.database_files in the target database, so a login without VIEW ANY DEFINITION still sees its files', async () => {
    const client = base([[FILE_STATS_SQL, []], [FILE_STATS_CURRENT_DB_SQL, [logFile]]]);
    const snapshot = await captureSnapshot(client, target);
    assert.equal(snapshot.fileStats.status === 'ok' && snapshot.fileStats.value[0]!.writes, '7');
    assert.ok(!client.calls.some((c) => c.sql === FILE_STATS_SQL), 'sys.master_files was not asked');
  });

  it('sys.master_files showing no files (monitor elsewhere) is not measured, with GRANT VIEW ANY DEFINITION', async () => {
    const client = base([[FILE_STATS_SQL, []], [VOLUME_SQL, []]], { current_database: 'master' });
    const snapshot = await captureSnapshot(client, target);
    assert.equal(snapshot.fileStats.status, 'unavailable');
    if (snapshot.fileStats.status === 'unavailable') {
      assert.equal(snapshot.fileStats.cause, 'empty');
      assert.match(snapshot.fileStats.reason, /^Not measured: per-file IO .*VIEW ANY DEFINITION/);
      assert.equal(snapshot.fileStats.grant, 'USE [master];\nGRANT VIEW ANY DEFINITION TO [lens];');
    }
  });

  it('a workload session invisible without VIEW SERVER STATE is not measured with the GRANT, not 0 waits', async () => {
    const client = base([[SESSION_WAITS_SQL, []], [SESSION_VISIBILITY_SQL, [{ own_spid: 60, can_see_all: 0 }]]]);
    const snapshot = await captureSnapshot(client, target);
    assert.equal(snapshot.sessionWaits.status, 'unavailable');
    if (snapshot.sessionWaits.status === 'unavailable') {
      assert.equal(snapshot.sessionWaits.cause, 'empty');
      assert.match(snapshot.sessionWaits.reason, /no row for the workload session \(57\)/);
      assert.equal(snapshot.sessionWaits.grant, 'USE [master];\nGRANT VIEW SERVER STATE TO [lens];');
    }
    assert.deepEqual(client.calls.find((c) => c.sql === SESSION_VISIBILITY_SQL)!.parameters, [{ name: 'permission', type: 'nvarchar', value: 'VIEW SERVER STATE' }]);
  });

  it('a visible workload session with no waits yet is measured as none (the permission is held)', async () => {
    const client = base([[SESSION_WAITS_SQL, []], [SESSION_VISIBILITY_SQL, [{ own_spid: 60, can_see_all: 1 }]]]);
    const snapshot = await captureSnapshot(client, target);
    assert.deepEqual(snapshot.sessionWaits, { status: 'ok', value: [] });
  });

  it('no SQLServer:Databases counter rows for the database is not measured, not zero flushes', async () => {
    const client = base([[LOG_COUNTERS_SQL, []]]);
    const snapshot = await captureSnapshot(client, target);
    assert.equal(snapshot.logCounters.status === 'unavailable' && snapshot.logCounters.cause, 'empty');
    const call = client.calls.find((c) => c.sql === LOG_COUNTERS_SQL)!;
    assert.deepEqual(call.parameters, [
      { name: 'database_name', type: 'nvarchar', value: 'Sales' },
      { name: 'physical_database_name', type: 'nvarchar', value: null },
    ]);
    assert.ok(!client.calls.some((c) => c.sql === PHYSICAL_DATABASE_NAME_SQL), 'SQL Server names counters by database name');
  });

  it('Managed Instance (EngineEdition 8): counters are matched on sys.databases.physical_database_name as well', async () => {
    const guid = '0f3a8c5e-2b1d-4c7e-9a6f-1d2e3f4a5b6c';
    const client = base([
      [PHYSICAL_DATABASE_NAME_SQL, [{ physical_database_name: guid }]],
      [LOG_COUNTERS_SQL, [{ object_name: 'SQLServer:Databases', counter_name: 'Log Flushes/sec', instance_name: guid, cntr_value: '5', cntr_type: 272696576 }]],
    ], { engine_edition: 8, product_major_version: '16', product_version: '16.0.4165.4' });
    const snapshot = await captureSnapshot(client, target);
    assert.equal(snapshot.server.identity.platform, 'azure-sql-managed-instance');
    assert.equal(snapshot.logCounters.status === 'ok' && snapshot.logCounters.value[0]!.instanceName, guid);
    assert.deepEqual(client.calls.find((c) => c.sql === LOG_COUNTERS_SQL)!.parameters[1], { name: 'physical_database_name', type: 'nvarchar', value: guid });
  });
});
