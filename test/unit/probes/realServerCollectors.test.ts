// DMV rows real servers produced as monitoring collectors captured them (test/fixtures/real-server/dmv/otel-*,
// beats-*; provenance, the collectors' own transformations and trims in its manifest.json), turned back into the DMV's
// columns and fed through the product's own mappers and diffs; then the stand-in's answer to the same DMV is held to
// what the real rows show.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CounterType, diffCounters, LOG_COUNTER_NAMES, mapCounterRow, selectCounterInstance, type CounterRow } from '../../../src/probes/perfCounters';
import { diffWaits, mapWaitRow } from '../../../src/probes/waitStats';
import { diffFileStats, mapFileStatsRow } from '../../../src/probes/fileStats';
import { mapLogSpace, mapLogStats } from '../../../src/probes/logInfo';
import { mapServerIdentity } from '../../../src/probes/serverInfo';
import { figureSourceOf } from '../../../src/profile/runContext';
import { createStandin } from '../../standin/model/index';
import { connect, query, rows } from '../standin/harness';

const DIR = join(__dirname, '../../fixtures/real-server/dmv');
const json = <T>(file: string): T => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as T;
interface Manifest { samples: Array<{ file: string; expect: Record<string, unknown> }> }
const manifest = json<Manifest>('manifest.json');
const expectOf = (file: string) => manifest.samples.find((s) => s.file === file)!.expect;

// ── sys.dm_os_performance_counters (SQLServer:Databases), via the OpenTelemetry sqlserver receiver's query ──

interface CollectorCounter { counter: string; counter_type: string; instance: string; object: string; value: string }
const PERF = 'otel-perf-counters-databases.json';

/**
 * The collector's row back in the DMV's columns: it renamed the columns, wrote '_Total' as 'Total' (a CASE in its
 * query) and sent cntr_value through float(10), printed in Go's %g form (5.906432e+06). float(10) holds integers up to
 * 2^24 exactly, so a value below that is the server's value exactly; anything larger is refused rather than guessed.
 */
function dmvCounterRow(c: CollectorCounter): Record<string, unknown> {
  const value = Number(c.value);
  assert.ok(Number.isInteger(value) && value >= 0 && value < 2 ** 24, `${c.instance}/${c.counter}: ${c.value} is not exact in float(10)`);
  return { object_name: c.object, counter_name: c.counter, instance_name: c.instance === 'Total' ? '_Total' : c.instance, cntr_value: String(value), cntr_type: Number(c.counter_type) };
}
const realCounters = (): CounterRow[] => json<CollectorCounter[]>(PERF).map(dmvCounterRow).map(mapCounterRow);
const byInstance = (all: readonly CounterRow[], instance: string) => all.filter((r) => r.instanceName === instance);
const valueOf = (all: readonly CounterRow[], instance: string, counter: string) => Number(all.find((r) => r.instanceName === instance && r.counterName === counter)!.value);

describe('real-server DMV rows captured by monitoring collectors (test/fixtures/real-server/dmv)', () => {
  it('cntr_type of the log counters on a real SQL Server: running totals are 272696576 (Log Flush Wait Time too), levels 65792', () => {
    const all = realCounters();
    const e = expectOf(PERF) as { cumulative: string[]; point: string[]; instances: string[] };
    for (const db of ['_Total', ...e.instances]) {
      const zero = byInstance(all, db).map((r) => ({ ...r, value: '0' }));
      const d = diffCounters(zero, byInstance(all, db), 10);
      const kinds = Object.fromEntries(d.map((x) => [x.counterName, x.kind]));
      for (const c of e.cumulative) assert.equal(kinds[c], 'cumulative', `${db}: ${c}`);
      for (const c of e.point) assert.equal(kinds[c], 'point', `${db}: ${c}`);
      assert.ok(!d.some((x) => x.kind === 'unknown-type'), `${db}: every type is one diffCounters knows`);
    }
    for (const r of all) {
      if (e.cumulative.includes(r.counterName)) assert.equal(r.type, CounterType.bulkCount, r.counterName);
      if (e.point.includes(r.counterName)) assert.equal(r.type, CounterType.rawValue, r.counterName);
    }
    // Which of the probe's counters the sample settles, and which it does not hold at all.
    const held = new Set(all.map((r) => r.counterName));
    assert.deepEqual(LOG_COUNTER_NAMES.filter((n) => !held.has(n)), ['Log Flush Waits/sec', 'Log Flush Write Time (ms)']);
  });

  it('reads one database\'s rows by exact name (msdb, not model_msdb) and turns its running totals into per-second rates', () => {
    const all = realCounters();
    const picked = selectCounterInstance(all, { databaseName: 'msdb', physicalDatabaseName: null });
    assert.ok(picked && 'rows' in picked);
    assert.equal(picked.instanceName, 'msdb');
    assert.equal(picked.rows.length, 13);
    assert.ok(picked.rows.every((r) => r.instanceName === 'msdb' && r.objectName === 'SQLServer:Databases'));
    // From zero (server start) to the published values over 10 s: the diff is the published running total.
    const d = diffCounters(picked.rows.map((r) => ({ ...r, value: '0' })), picked.rows, 10);
    const bytes = d.find((x) => x.counterName === 'Log Bytes Flushed/sec')!;
    const flushes = d.find((x) => x.counterName === 'Log Flushes/sec')!;
    assert.ok(bytes.kind === 'cumulative' && flushes.kind === 'cumulative');
    assert.equal(bytes.delta, 724992);
    assert.equal(bytes.perSecond, 72499.2);
    assert.equal(flushes.delta, 79);
    // 724992 bytes in 79 flushes: 9177 bytes per flush, a whole number of 512-byte sectors (log blocks, Learn).
    assert.equal(724992 % 512, 0);
    const percent = d.find((x) => x.counterName === 'Percent Log Used')!;
    assert.ok(percent.kind === 'point');
    assert.equal(percent.after, 38);
  });

  it('the real rows are one consistent capture: _Total sums the databases, Percent Log Used is the used share truncated, log sizes are 8 KB short', () => {
    const all = realCounters();
    const e = expectOf(PERF) as { cumulative: string[]; instances: string[] };
    const dbs = [...new Set(all.map((r) => r.instanceName))].filter((i) => i !== '_Total');
    assert.deepEqual(dbs, e.instances);
    for (const c of [...e.cumulative, 'Log File(s) Size (KB)', 'Log File(s) Used Size (KB)', 'Log Growths', 'Data File(s) Size (KB)']) {
      assert.equal(valueOf(all, '_Total', c), dbs.reduce((s, db) => s + valueOf(all, db, c), 0), `_Total of ${c}`);
    }
    for (const instance of [...dbs, '_Total']) {
      const used = valueOf(all, instance, 'Log File(s) Used Size (KB)');
      const size = valueOf(all, instance, 'Log File(s) Size (KB)');
      assert.equal(valueOf(all, instance, 'Percent Log Used'), Math.floor((100 * used) / size), `Percent Log Used of ${instance}`);
      // 2040, 8184, 1272 KB: files of 2 MB, 8 MB, 1.25 MB less 8 KB, as DBCC SQLPERF(LOGSPACE) shows them.
      if (instance !== '_Total') assert.equal((size + 8) % 64, 0, `Log File(s) Size (KB) of ${instance}: ${size}`);
    }
  });

  it('the stand-in\'s SQLServer:Databases rows: the real types, _Total Percent Log Used from the totals, log size 8 KB short of the file', async () => {
    const e = expectOf(PERF) as { cumulative: string[]; point: string[] };
    const st = createStandin({ speedFactor: 0 });
    const h = await connect(st);
    await query(st, h, "CREATE TABLE t (id int IDENTITY, filler char(2000) NOT NULL); INSERT INTO t (filler) SELECT TOP (500) REPLICATE('a', 2000) FROM sys.all_columns a CROSS JOIN sys.all_columns b;");
    const got = (await rows(st, h, "SELECT RTRIM(object_name) AS object_name, RTRIM(counter_name) AS counter_name, RTRIM(instance_name) AS instance_name, cntr_value, cntr_type FROM sys.dm_os_performance_counters WHERE RTRIM(object_name) LIKE N'%:Databases'")).map(mapCounterRow);
    for (const r of got) {
      if (e.cumulative.includes(r.counterName)) assert.equal(r.type, CounterType.bulkCount, `stand-in ${r.counterName}`);
      if (e.point.includes(r.counterName)) assert.equal(r.type, CounterType.rawValue, `stand-in ${r.counterName}`);
    }
    const [file] = await rows(st, h, 'SELECT size FROM sys.database_files WHERE type = 1');
    assert.equal(valueOf(got, 'lab', 'Log File(s) Size (KB)'), Number(file!.size) * 8 - 8);
    const dbs = [...new Set(got.map((r) => r.instanceName))].filter((i) => i !== '_Total');
    const used = dbs.reduce((s, db) => s + valueOf(got, db, 'Log File(s) Used Size (KB)'), 0);
    const size = dbs.reduce((s, db) => s + valueOf(got, db, 'Log File(s) Size (KB)'), 0);
    assert.ok(used > 0);
    assert.equal(valueOf(got, '_Total', 'Percent Log Used'), Math.floor((100 * used) / size));
    for (const db of dbs) {
      assert.equal(valueOf(got, db, 'Percent Log Used'), Math.floor((100 * valueOf(got, db, 'Log File(s) Used Size (KB)')) / valueOf(got, db, 'Log File(s) Size (KB)')), db);
    }
  });

  it('a named instance spells the object MSSQL$<instance>:Databases and has every counter the probe reads', () => {
    const lines = readFileSync(join(DIR, 'otel-named-instance-databases-counters.txt'), 'utf8').split('\n').filter((l) => l !== '');
    const parsed = lines.map((l) => /^\\([^\\(]+)\(\*\)\\(.+)$/.exec(l)!);
    const objects = new Set(parsed.map((m) => m[1]!));
    assert.deepEqual([...objects], [expectOf('otel-named-instance-databases-counters.txt').object]);
    // The probe's filter, RTRIM(object_name) LIKE N'%:Databases', takes the named instance's object too.
    for (const o of objects) assert.match(o, /:Databases$/);
    const names = new Set(parsed.map((m) => m[2]!));
    assert.deepEqual(LOG_COUNTER_NAMES.filter((n) => !names.has(n)), []);
  });

  // ── sys.dm_os_wait_stats ──

  it('real sys.dm_os_wait_stats rows through the wait diff: WRITELOG figures, resource = wait − signal, the benign filter', () => {
    const real = json<Array<Record<string, string>>>('otel-wait-stats.json');
    const after = real.map(mapWaitRow);
    const all = diffWaits([], after, { filterBenign: false, topN: 100 });
    assert.equal(all.top.length, real.length);
    for (const r of real) {
      const d = all.top.find((x) => x.waitType === r.wait_type)!;
      assert.equal(d.resourceWaitTimeMs, Number(r.resource_wait_ms), `${r.wait_type}: the collector's wait − signal`);
      assert.ok(d.signalWaitTimeMs <= d.waitTimeMs && d.maxWaitTimeMsSinceStart <= d.waitTimeMs, r.wait_type);
    }
    const w = expectOf('otel-wait-stats.json') as { writelog: { waitingTasks: number; waitTimeMs: number; signalWaitTimeMs: number; maxWaitTimeMs: number }; benign: string[]; topNonBenign: string };
    const filtered = diffWaits([], after, { topN: 100 });
    const writelog = filtered.top.find((x) => x.waitType === 'WRITELOG')!;
    assert.equal(writelog.waitingTasks, w.writelog.waitingTasks);
    assert.equal(writelog.waitTimeMs, w.writelog.waitTimeMs);
    assert.equal(writelog.signalWaitTimeMs, w.writelog.signalWaitTimeMs);
    assert.equal(writelog.resourceWaitTimeMs, w.writelog.waitTimeMs - w.writelog.signalWaitTimeMs);
    assert.equal(writelog.maxWaitTimeMsSinceStart, w.writelog.maxWaitTimeMs);
    assert.equal(writelog.avgWaitMs, w.writelog.waitTimeMs / w.writelog.waitingTasks);
    // The product's benign list drops what the collector's own filter kept: a 194,761,474 ms background timer wait.
    const dropped = real.map((r) => r.wait_type!).filter((t) => !filtered.top.some((x) => x.waitType === t));
    assert.deepEqual(dropped, w.benign);
    assert.equal(filtered.benignWaitTimeMs, w.benign.reduce((s, t) => s + Number(real.find((r) => r.wait_type === t)!.wait_time_ms), 0));
    assert.equal(filtered.top[0]!.waitType, w.topNonBenign);
  });

  it('the stand-in\'s sys.dm_os_wait_stats has the real columns and a WRITELOG row after durable commits', async () => {
    const real = json<Array<Record<string, string>>>('otel-wait-stats.json');
    const st = createStandin({ speedFactor: 0 });
    const h = await connect(st);
    await query(st, h, 'CREATE TABLE c (id int); INSERT INTO c VALUES (1); INSERT INTO c VALUES (2);');
    const got = await rows(st, h, "SELECT wait_type, waiting_tasks_count, wait_time_ms, max_wait_time_ms, signal_wait_time_ms FROM sys.dm_os_wait_stats WHERE wait_type = N'WRITELOG'");
    const w = mapWaitRow(got[0]!);
    assert.ok(Number(w.waitingTasks) >= 2);
    assert.ok(Number(w.signalWaitTimeMs) <= Number(w.waitTimeMs) && Number(w.maxWaitTimeMs) <= Number(w.waitTimeMs));
    for (const c of ['wait_type', 'waiting_tasks_count', 'wait_time_ms', 'max_wait_time_ms', 'signal_wait_time_ms']) assert.ok(c in real[0]! && c in got[0]!, c);
  });

  // ── sys.dm_io_virtual_file_stats joined to sys.master_files ──

  it('real per-file IO through the file stats diff: log writes in 512-byte sectors, data writes in 8 KB pages, ms per write', () => {
    interface Io { database_name: string; file_type: string; logical_filename: string; physical_filename: string; reads: string; read_bytes: string; read_latency_ms: string; writes: string; write_bytes: string; write_latency_ms: string }
    const real = json<Io[]>('otel-database-io.json');
    // The sample has no file_id, sample_ms or size_on_disk_bytes: file ids are the row's position in its database
    // (the test's key, not a value of the sample); type from type_desc as sys.master_files defines it (ROWS 0, LOG 1).
    const of = (db: string) => real.filter((r) => r.database_name === db).map((r, i) => mapFileStatsRow({
      file_id: i + 1, type: r.file_type === 'LOG' ? 1 : 0, type_desc: r.file_type, logical_name: r.logical_filename, physical_name: r.physical_filename,
      num_of_reads: r.reads, num_of_bytes_read: r.read_bytes, io_stall_read_ms: r.read_latency_ms,
      num_of_writes: r.writes, num_of_bytes_written: r.write_bytes, io_stall_write_ms: r.write_latency_ms,
    }));
    const e = expectOf('otel-database-io.json') as { masterLog: { writes: number; bytesWritten: number; writeStallMs: number }; tempdbDataFiles: number };
    const master = diffFileStats(of('master').map((f) => ({ ...f, writes: '0', bytesWritten: '0', writeStallMs: '0', reads: '0', bytesRead: '0', readStallMs: '0' })), of('master'));
    const log = master.totals.find((t) => t.kind === 'log')!;
    assert.equal(log.writes, e.masterLog.writes);
    assert.equal(log.bytesWritten, e.masterLog.bytesWritten);
    assert.equal(log.msPerWrite, e.masterLog.writeStallMs / e.masterLog.writes);
    assert.equal(log.avgBytesPerWrite, e.masterLog.bytesWritten / e.masterLog.writes);
    assert.ok(log.avgBytesPerWrite! < 60 * 1024, 'a log write is at most one 60 KB block on average');
    assert.deepEqual(master.unmatchedFileIds, []);
    assert.equal(of('tempdb').filter((f) => f.kind === 'data').length, e.tempdbDataFiles);
    for (const r of real) {
      const unit = r.file_type === 'LOG' ? 512 : 8192;
      assert.equal(Number(r.write_bytes) % unit, 0, `${r.logical_filename}: ${r.write_bytes} bytes in ${unit}-byte units`);
    }
  });

  // ── sys.dm_db_log_space_usage and sys.dm_db_log_stats, via Metricbeat's mssql module ──

  it('real log space and log stats of master: a 2 MB log reported 8 KB short, percent as a real, stats in MB with six decimals', () => {
    const beat = json<{ mssql: { transaction_log: { space_usage: { total: { bytes: number }; used: { bytes: number; pct: number } }; stats: { total_size: { bytes: number }; active_size: { bytes: number }; since_last_checkpoint: { bytes: number }; recovery_size: { bytes: number }; backup_time: string } } } }>('beats-transaction-log-master.json');
    const { space_usage: u, stats: s } = beat.mssql.transaction_log;
    const space = mapLogSpace({ total_log_size_in_bytes: u.total.bytes, used_log_space_in_bytes: u.used.bytes, used_log_space_in_percent: u.used.pct });
    assert.equal(space.totalBytes, String(2 * 1024 * 1024 - 8192));
    assert.equal(space.usedPercent, Math.fround((100 * u.used.bytes) / u.total.bytes), 'used_log_space_in_percent is a real: used / total × 100');
    // Metricbeat multiplied the MB columns by 1048576 (all but log_recovery_size_mb); undone here.
    const stats = mapLogStats({ total_log_size_mb: s.total_size.bytes / 1048576, active_log_size_mb: s.active_size.bytes / 1048576, log_since_last_checkpoint_mb: s.since_last_checkpoint.bytes / 1048576, log_since_last_log_backup_mb: null });
    assert.equal(Number(stats.totalLogSizeMb!.toFixed(6)), 1.992187);
    assert.ok(Math.abs(stats.totalLogSizeMb! * 1048576 - u.total.bytes) < 1, 'the same 8 KB-short size as dm_db_log_space_usage');
    assert.equal(Number(stats.activeLogSizeMb!.toFixed(6)), s.recovery_size.bytes);
    assert.equal(stats.sinceLastLogBackupMb, null, 'NULL for a log never backed up (log_backup_time 1900-01-01)');
    assert.equal(s.backup_time, '1900-01-01T00:00:00Z');
  });

  it('the stand-in reports log size 8 KB short of the file in sys.dm_db_log_space_usage and sys.dm_db_log_stats, and a never-backed-up log, as the real rows do', async () => {
    const st = createStandin({ speedFactor: 0 });
    const h = await connect(st);
    const [file] = await rows(st, h, 'SELECT size FROM sys.database_files WHERE type = 1');
    const reported = Number(file!.size) * 8192 - 8192;
    const space = mapLogSpace((await rows(st, h, 'SELECT total_log_size_in_bytes, used_log_space_in_bytes, used_log_space_in_percent FROM sys.dm_db_log_space_usage'))[0]);
    assert.equal(space.totalBytes, String(reported));
    const [row] = await rows(st, h, 'SELECT total_log_size_mb, log_since_last_log_backup_mb, log_backup_time FROM sys.dm_db_log_stats(DB_ID())');
    const stats = mapLogStats(row);
    assert.equal(stats.totalLogSizeMb, Math.floor((reported / 1048576) * 1e6) / 1e6, 'MB to six decimals, cut, as the real 1.992187');
    // No log backup is modelled: the real row of a log never backed up.
    assert.equal(stats.sinceLastLogBackupMb, null);
    assert.equal((row!.log_backup_time as Date).toISOString(), '1900-01-01T00:00:00.000Z');
  });

  // ── SERVERPROPERTY of a current version ──

  it('a real SQL Server 2022 ProductVersion and version text read as major 16 and as a real server', () => {
    const [p] = json<Array<Record<string, string>>>('otel-server-properties.json');
    const e = expectOf('otel-server-properties.json') as { majorVersion: number; productVersion: string };
    const id = mapServerIdentity({ product_version: p!.sql_version, product_major_version: null, engine_edition: Number(p!.engine_edition), edition: p!.sku });
    assert.equal(id.productVersion, e.productVersion);
    assert.equal(id.majorVersion, e.majorVersion);
    assert.equal(id.platform, 'sql-server');
    assert.equal(figureSourceOf(p!.sql_version_desc!), 'sql-server');
  });
});
