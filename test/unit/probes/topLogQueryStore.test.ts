// The Query Store probe's SQL and mappers (issue 30): what each server version can be asked, how a ranking falls back
// when the server cannot give it, and rows as drivers deliver them (bigint as text, datetimeoffset as Date).
import { strict as assert } from 'node:assert';
import { historyReadable, mapCoverage, mapQueryRow, mapQueryStoreOptions } from '../../../src/probes/queryStore';
import { planRanking, queryStoreCapabilities, queryStoreOptionsSql, queryStoreTotalsSql, topLogWritersSql } from '../../../src/probes/queryStoreSql';

describe('Query Store probe: versions, rankings, mappers', () => {
  it('SQL Server 2016 has neither log bytes nor wait statistics; 2017+, Azure SQL Database (5) and MI (8, version 12) have both', () => {
    assert.deepEqual(queryStoreCapabilities({ majorVersion: 13, engineEdition: 3 }), { logBytes: false, waits: false });
    assert.deepEqual(queryStoreCapabilities({ majorVersion: 14, engineEdition: 2 }), { logBytes: true, waits: true });
    assert.deepEqual(queryStoreCapabilities({ majorVersion: 12, engineEdition: 5 }), { logBytes: true, waits: true });
    assert.deepEqual(queryStoreCapabilities({ majorVersion: 12, engineEdition: 8 }), { logBytes: true, waits: true });
  });

  it('falls back to what the server keeps: wait → log without waits, anything → executions without log bytes', () => {
    const full = { logBytes: true, waits: true };
    const y2016 = { logBytes: false, waits: false };
    assert.equal(planRanking('wait', full, true).used, 'wait');
    assert.equal(planRanking('wait', full, false).used, 'log');
    assert.equal(planRanking('alone', full, false).used, 'alone');
    assert.equal(planRanking('alone', full, false).waits, false);
    for (const r of ['log', 'wait', 'alone'] as const) assert.equal(planRanking(r, y2016, true).used, 'executions');
  });

  it('never names the 2017+ columns or views on SQL Server 2016', () => {
    const y2016 = planRanking('log', { logBytes: false, waits: false }, false);
    const sql = topLogWritersSql(y2016);
    assert.doesNotMatch(sql, /avg_log_bytes_used|query_store_wait_stats/);
    assert.match(sql, /ORDER BY r\.executions DESC, r\.query_id;$/);
    assert.doesNotMatch(queryStoreOptionsSql({ logBytes: false, waits: false }), /,\s*wait_stats_capture_mode_desc/);
    assert.match(queryStoreOptionsSql({ logBytes: true, waits: true }), /,\s*wait_stats_capture_mode_desc\nFROM/);
    assert.match(queryStoreOptionsSql({ logBytes: false, waits: false }), /CAST\(NULL AS nvarchar\(60\)\) AS wait_stats_capture_mode_desc/);
    assert.doesNotMatch(queryStoreTotalsSql({ logBytes: false, waits: false }), /avg_log_bytes_used/);
  });

  it('totals are Σ average × executions, bounded by TOP (@top), windowed by a parameter, ranked on the server', () => {
    const sql = topLogWritersSql(planRanking('alone', { logBytes: true, waits: true }, true));
    assert.match(sql, /^SELECT TOP \(@top\)/);
    assert.match(sql, /SUM\(rs\.avg_log_bytes_used \* rs\.count_executions\) AS log_bytes/);
    assert.match(sql, /SUM\(rs\.avg_duration \* rs\.count_executions\) AS duration_us/);
    assert.match(sql, /WHERE i\.end_time > DATEADD\(MINUTE, -@window_minutes, SYSDATETIMEOFFSET\(\)\)/);
    assert.match(sql, /ws\.wait_category = 14/);
    assert.match(sql, /ORDER BY commits_alone_score DESC, r\.executions DESC, r\.query_id;$/);
    assert.doesNotMatch(sql, /'\s*\+|\$\{/, 'no value is spliced into the text');
  });

  it('maps rows as tedious delivers them: bigint as text, float sums, datetimeoffset as Date, cut text with its length', () => {
    const row = mapQueryRow({
      query_id: '9007199254740993', object_id: '1600000000', schema_name: 'dbo', object_name: 'load', query_hash: '0x00AB', query_sql_text: 'INSERT x',
      query_sql_text_length: 9000, executions: '300', unfinished_executions: '2', log_bytes: 96900.00000001, duration_us: 61500, first_execution_time: new Date('2026-01-02T03:04:05Z'),
      last_execution_time: new Date('2026-01-02T04:00:00Z'), log_wait_ms: '60', total_wait_ms: '61', commits_alone_score: 292.68,
    });
    assert.equal(row.queryId, '9007199254740993');
    assert.equal(row.objectId, 1600000000);
    assert.equal(row.executions, 300);
    assert.equal(row.unfinishedExecutions, 2);
    assert.equal(row.fullTextLength, 9000);
    assert.equal(row.firstExecution, '2026-01-02T03:04:05.000Z');
    assert.equal(row.logWaitMs, 60);
    const adHoc = mapQueryRow({ query_id: 1, object_id: 0, query_sql_text: 'SELECT 1', query_sql_text_length: 8, executions: 1, log_bytes: null, log_wait_ms: null, total_wait_ms: null });
    assert.equal(adHoc.fullTextLength, null);
    assert.equal(adHoc.logBytes, null, 'NULL stays null, never 0');
    assert.equal(adHoc.logWaitMs, null);
  });

  it('reads options and coverage, and knows which states hold readable history', () => {
    const o = mapQueryStoreOptions({ desired_state_desc: 'READ_WRITE', actual_state_desc: 'READ_ONLY', readonly_reason: 65536, wait_stats_capture_mode_desc: null });
    assert.equal(o.waitStatsCaptureMode, null);
    assert.equal(historyReadable(o), true);
    assert.equal(historyReadable({ ...o, actualState: 'OFF' }), false);
    assert.equal(historyReadable({ ...o, actualState: 'ERROR' }), false);
    const c = mapCoverage({ intervals: '2', first_start: new Date('2026-01-01T00:00:00Z'), last_end: '2026-01-01T02:00:00+00:00', server_now: null });
    assert.deepEqual(c, { intervals: 2, firstStart: '2026-01-01T00:00:00.000Z', lastEnd: '2026-01-01T02:00:00.000Z', serverNow: null });
  });
});
