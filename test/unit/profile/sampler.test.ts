// startSampler against a fake monitor: one request at a time, readings relative to the baseline, and an error that
// ends sampling with a note instead of failing the run.
import { strict as assert } from 'node:assert';
import type { QueryParameter, Row, SqlClient } from '../../../src/db/types';
import { startSampler } from '../../../src/profile/sampler';
import type { GrantContext } from '../../../src/probes/permissions';

/** A 2022 SQL Server login context: the GRANT texts and visibility permission these tests see. */
const CTX: GrantContext = { majorVersion: 16, engineEdition: 3, loginName: 'lens', userName: 'lens', databaseName: 'lab' };

/**
 * Answers the file-stats and counter probes with counters that grow by one write per reading; counts overlap. A
 * reading is one request: the two probes composed into one batch (db/batch.ts), answered as the server would —
 * each probe's rows, then its tag row.
 */
class FakeMonitor implements SqlClient {
  inFlight = 0;
  maxInFlight = 0;
  queries = 0;
  failAt: number | null = null;
  private writes = 0;
  async query(sql: string, _p?: readonly QueryParameter[]): Promise<Row[]> {
    this.queries++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      await new Promise<void>((resolve) => setImmediate(resolve)); // answer asynchronously, like a socket
      if (this.failAt !== null && this.queries >= this.failAt) throw new Error('The connection was closed.');
      const tag = (i: number) => ({ dl_probe: i, dl_error_number: null, dl_error_severity: null, dl_error_state: null, dl_error_message: null });
      if (/BEGIN TRY/.test(sql)) {
        const probes = [...sql.matchAll(/EXEC sys\.sp_executesql N'((?:[^']|'')*)'/g)].map((m) => m[1]!);
        const rows: Row[] = [];
        for (const [i, probe] of probes.entries()) rows.push(...this.answer(probe), tag(i));
        return rows;
      }
      return this.answer(sql);
    } finally {
      this.inFlight--;
    }
  }
  private answer(sql: string): Row[] {
    {
      if (/dm_io_virtual_file_stats/i.test(sql)) {
        this.writes++;
        return [{ file_id: 2, type: 1, type_desc: 'LOG', logical_name: 'lab_log', physical_name: '/l', sample_ms: '1', num_of_reads: '0', num_of_bytes_read: '0', io_stall_read_ms: '0', num_of_writes: String(this.writes), num_of_bytes_written: String(this.writes * 4096), io_stall_write_ms: String(this.writes), io_stall: '0', size_on_disk_bytes: '1' }];
      }
      return [{ object_name: 'SQLServer:Databases', counter_name: 'Log Flushes/sec', instance_name: 'lab', cntr_value: String(this.writes), cntr_type: 272696576 }];
    }
  }
  async execute(): Promise<void> {}
}

async function until(cond: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5)); // poll interval, not a timing assumption
  }
}

describe('profile: sampler', () => {
  it('never overlaps two requests on the monitor and reports cumulative readings since its baseline', async () => {
    const monitor = new FakeMonitor();
    let clock = 1000;
    const sampler = startSampler(monitor, { intervalMs: 10, databaseId: 5, databaseName: 'lab', monitorInTargetDb: false, grantContext: CTX, now: () => (clock += 10) });
    await until(() => monitor.queries >= 4, '4 readings, one request each');
    const result = await sampler.stop();
    assert.equal(monitor.maxInFlight, 1);
    assert.equal(result.intervalMs, 10);
    assert.ok(result.samples.length >= 3, String(result.samples.length));
    result.samples.forEach((s, i) => {
      assert.equal(s.files[0]!.writes, i + 1);
      assert.equal(s.files[0]!.bytesWritten, (i + 1) * 4096);
      assert.equal(s.logFlushes, i + 1);
    });
    assert.deepEqual(result.notes, []);
  });

  it('an error ends sampling with a note; the samples so far are kept', async () => {
    const monitor = new FakeMonitor();
    monitor.failAt = 4;
    const sampler = startSampler(monitor, { intervalMs: 10, databaseId: 5, databaseName: 'lab', monitorInTargetDb: false, grantContext: CTX });
    await until(() => monitor.queries >= 4, 'the failing reading');
    const result = await sampler.stop();
    assert.equal(result.samples.length, 2);
    assert.match(result.notes[0]!, /^Sampling stopped after 2 sample\(s\): No per-file IO \(sys\.dm_io_virtual_file_stats\): The connection was closed\. The before\/after figures are not affected\./);
  });

  it('a short run is sampled too: the first gaps ramp up from 50 ms, and stop() takes a last reading', async () => {
    const monitor = new FakeMonitor();
    const seen: number[] = [];
    // 1 s interval, as configured by default: a 2-second CHECKDB used to get one sample or none.
    const sampler = startSampler(monitor, { intervalMs: 1000, databaseId: 5, databaseName: 'lab', monitorInTargetDb: false, grantContext: CTX, onSample: (s) => seen.push(s.files[0]!.writes) });
    // baseline + 3 ramped readings (50, 100, 200 ms): 4 requests, well before the first 1 s interval would end.
    await until(() => monitor.queries >= 4, 'three ramped samples', 3000);
    const result = await sampler.stop();
    assert.ok(result.samples.length >= 3, String(result.samples.length));
    assert.deepEqual(seen, result.samples.map((s) => s.files[0]!.writes), 'every sample was reported live');

    const instant = new FakeMonitor();
    const quick = startSampler(instant, { intervalMs: 1000, databaseId: 5, databaseName: 'lab', monitorInTargetDb: false, grantContext: CTX });
    await until(() => instant.queries >= 1, 'the baseline reading');
    const ended = await quick.stop();
    assert.ok(ended.samples.length >= 1, 'stopping before the first gap still yields a last reading');
  });

  it('a last reading the caller already holds (the after-snapshot) ends a short series without a request of its own', async () => {
    const monitor = new FakeMonitor();
    const file = (writes: number) => ({ fileId: 2, kind: 'log' as const, typeDesc: 'LOG', logicalName: 'lab_log', physicalName: '/l', sampleMs: '1', reads: '0', bytesRead: '0', readStallMs: '0', writes: String(writes), bytesWritten: String(writes * 4096), writeStallMs: '0', ioStallMs: '0', sizeOnDiskBytes: '1' });
    const counter = (flushes: number) => ({ objectName: 'SQLServer:Databases', counterName: 'Log Flushes/sec', instanceName: 'lab', value: String(flushes), type: 272696576 });
    const baseline = { at: 1000, files: [file(10)], counters: [counter(10)] };
    // 1 s interval: the first ramped reading (50 ms) cannot come before stop() when stop() follows at once.
    const sampler = startSampler(monitor, { intervalMs: 1000, databaseId: 5, databaseName: 'lab', monitorInTargetDb: false, grantContext: CTX, baseline });
    await sampler.pause();
    const result = await sampler.stop({ at: 1250, files: [file(17)], counters: [counter(13)] });
    assert.equal(monitor.queries, 0, 'no reading was requested');
    assert.equal(result.samples.length, 1);
    assert.equal(result.samples[0]!.tMs, 250);
    assert.equal(result.samples[0]!.files[0]!.writes, 7);
    assert.equal(result.samples[0]!.logFlushes, 3);
  });
});
