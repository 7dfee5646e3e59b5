import assert from 'node:assert/strict';
import { RequestError } from 'tedious';
import { mapAgReplicas, mapDatabaseRow } from '../../../src/probes/databaseInfo';
import { captureFileStats, FILE_STATS_CURRENT_DB_SQL, FILE_STATS_SQL } from '../../../src/probes/fileStats';
import { captureVlfCount, diffLog, mapLogSpace, VLF_FALLBACK_SQL, VLF_SQL, vlfsFromLogInfo } from '../../../src/probes/logInfo';
import { mapServerIdentity, mapTraceFlags } from '../../../src/probes/serverInfo';
import { mapInFlightWait } from '../../../src/probes/waitStats';
import type { Row, SqlClient } from '../../../src/db/types';
import type { GrantContext } from '../../../src/probes/permissions';

/** A 2022 SQL Server login context: the GRANT texts and visibility permission these tests see. */
const CTX: GrantContext = { majorVersion: 16, engineEdition: 3, loginName: 'lens', userName: 'lens', databaseName: 'lab' };

function missing(name: string): RequestError {
  const e = new RequestError(`Invalid object name '${name}'.`, 'EREQUEST');
  e.number = 208;
  return e;
}

/** Answers by SQL text; a function answer throws. */
function client(answers: Record<string, Row[] | (() => never)>): SqlClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async query(sql) {
      asked.push(sql);
      const a = answers[sql];
      if (!a) throw new Error('unscripted');
      if (typeof a === 'function') a();
      return a as Row[];
    },
    async execute() {},
  };
}

describe('probes mappers: rows as tedious delivers them', () => {
  it('server identity: major version from ProductVersion when ProductMajorVersion is NULL; EngineEdition 5 is Azure SQL DB', () => {
    const id = mapServerIdentity({ product_version: '13.0.5026.0', product_major_version: null, engine_edition: 5, login_name: 'x', user_name: 'dbo', current_database: 'db' });
    assert.equal(id.majorVersion, 13);
    assert.equal(id.isAzureSqlDatabase, true);
  });

  it('trace flags: sorted, bit columns to booleans', () => {
    assert.deepEqual(mapTraceFlags([{ TraceFlag: 3982, Status: 1, Global: 1, Session: 0 }, { TraceFlag: 3979, Status: 1, Global: 1, Session: 0 }]).map((t) => t.flag), [3979, 3982]);
  });

  it('database: DELAYED_DURABILITY from the desc or the code, AG membership from group_database_id', () => {
    const forced = mapDatabaseRow({ database_id: 7, name: 'Sales', delayed_durability: 2, delayed_durability_desc: null, is_cdc_enabled: true, is_published: false, group_database_id: 'A1B2C3D4-0000-0000-0000-000000000000' });
    assert.equal(forced.delayedDurability, 'FORCED');
    assert.equal(forced.cdcEnabled, true);
    assert.equal(forced.inAvailabilityGroup, true);
    assert.equal(mapDatabaseRow({ delayed_durability_desc: 'ALLOWED', group_database_id: null }).inAvailabilityGroup, false);
    assert.deepEqual(mapAgReplicas([{ replica_server_name: 'n2', availability_mode_desc: 'SYNCHRONOUS_COMMIT', is_local: false, synchronization_state_desc: 'SYNCHRONIZED' }]), [
      { serverName: 'n2', availabilityMode: 'SYNCHRONOUS_COMMIT', isLocal: false, synchronizationState: 'SYNCHRONIZED' },
    ]);
  });

  it('in-flight waits: bigint durations (strings) become numbers', () => {
    const w = mapInFlightWait({ session_id: 57, status: 'suspended', command: 'INSERT', wait_type: 'WRITELOG', wait_time_ms: 3, last_wait_type: 'WRITELOG', blocking_session_id: 0, task_wait_type: 'WRITELOG', task_wait_duration_ms: '3', resource_description: null });
    assert.equal(w.taskWaitDurationMs, 3);
    assert.equal(w.waitType, 'WRITELOG');
  });

  it('log: DBCC LOGINFO rows count VLFs (Status 2 active); before/after diff of space and VLFs', () => {
    assert.deepEqual(vlfsFromLogInfo([{ Status: 2 }, { Status: 0 }, { Status: 0 }]), { count: 3, active: 1, source: 'DBCC LOGINFO' });
    const d = diffLog(
      { stats: null, space: mapLogSpace({ total_log_size_in_bytes: '8388608', used_log_space_in_bytes: '1000', used_log_space_in_percent: 0.01 }), vlfs: { count: 4, active: 1, source: 'sys.dm_db_log_info' } },
      { stats: null, space: mapLogSpace({ total_log_size_in_bytes: '8388608', used_log_space_in_bytes: '5000', used_log_space_in_percent: 0.06 }), vlfs: { count: 8, active: 2, source: 'sys.dm_db_log_info' } },
    );
    assert.deepEqual(d.vlfCount, { before: 4, after: 8 });
    assert.deepEqual(d.usedBytes, { before: 1000, after: 5000, delta: 4000 });
    assert.equal(d.logSizeMb, null, 'no log stats → no size');
  });
});

describe('probes fallbacks for older versions and Azure SQL Database', () => {
  it('falls back to DBCC LOGINFO where sys.dm_db_log_info does not exist (pre-2016 SP2), current database only', async () => {
    const c = client({ [VLF_SQL]: () => { throw missing('sys.dm_db_log_info'); }, [VLF_FALLBACK_SQL]: [{ Status: 2 }, { Status: 0 }] });
    assert.deepEqual(await captureVlfCount(c, 5, true, CTX), { status: 'ok', value: { count: 2, active: 1, source: 'DBCC LOGINFO' } });
    const elsewhere = await captureVlfCount(c, 5, false, CTX);
    assert.equal(elsewhere.status, 'unavailable');
    assert.match(elsewhere.status === 'unavailable' ? elsewhere.reason : '', /Invalid object name/);
  });

  it('in the target database reads sys.database_files (visible to public; sys.master_files is not asked)', async () => {
    const row = { file_id: 1, sample_ms: '1', num_of_reads: '0', num_of_bytes_read: '0', io_stall_read_ms: '0', num_of_writes: '0', num_of_bytes_written: '0', io_stall_write_ms: '0', io_stall: '0', size_on_disk_bytes: null, type: 1, type_desc: 'LOG', logical_name: 'log', physical_name: 'x' };
    const c = client({ [FILE_STATS_SQL]: () => { throw missing('sys.master_files'); }, [FILE_STATS_CURRENT_DB_SQL]: [row] });
    const files = await captureFileStats(c, 5, true, CTX);
    assert.equal(files.status === 'ok' ? files.value[0]!.kind : files.reason, 'log');
    assert.deepEqual(c.asked, [FILE_STATS_CURRENT_DB_SQL]);
  });
});
