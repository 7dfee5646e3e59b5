// PRINT series parsing, sample deltas from crafted DMV rows, and the flat RunResult fields from a diff.
import { strict as assert } from 'node:assert';
import type { WorkloadMessage } from '../../../src/db/types';
import type { CounterRow } from '../../../src/probes/perfCounters';
import type { FileStatsRow } from '../../../src/probes/fileStats';
import { parsePrintPairs, PrintSeriesCollector, MAX_SERIES } from '../../../src/profile/printSeries';
import { sampleFrom } from '../../../src/profile/sampler';
import { runSchemaFields } from '../../../src/profile/runSchema';
import { makeRun } from '../report/runFixture';

function message(text: string, at: number, kind: 'info' | 'error' = 'info'): WorkloadMessage {
  return { kind, at, elapsedMs: 0, iteration: 0, number: 0, state: 1, class: 0, message: text, lineNumber: 1, documentLine: 0 };
}

function file(fileId: number, writes: number, bytes: number, stallMs: number): FileStatsRow {
  return { fileId, kind: fileId === 2 ? 'log' : 'data', typeDesc: fileId === 2 ? 'LOG' : 'ROWS', logicalName: `f${fileId}`, physicalName: '', sampleMs: '0', reads: '5', bytesRead: '40960', readStallMs: '1', writes: String(writes), bytesWritten: String(bytes), writeStallMs: String(stallMs), ioStallMs: '0', sizeOnDiskBytes: null };
}

const counterRow = (name: string, value: number, type = 272696576): CounterRow => ({ objectName: 'SQLServer:Databases', counterName: name, instanceName: 'lab', value: String(value), type });

describe('profile: PRINT series', () => {
  it('reads every "label: number" pair, S4 style', () => {
    assert.deepEqual(parsePrintPairs('INS: 153 - CHKPT: 12'), [
      { label: 'INS', value: 153 },
      { label: 'CHKPT', value: 12 },
    ]);
    assert.deepEqual(parsePrintPairs('Iteration 3: rows=1000, avg ms: 0.25'), [
      { label: 'rows', value: 1000 },
      { label: 'avg ms', value: 0.25 },
    ]);
    assert.deepEqual(parsePrintPairs('started at 12:30:01'), []);
    assert.deepEqual(parsePrintPairs('no numbers here'), []);
  });

  it('collects series relative to the workload start, ignoring error messages and capping the label count', () => {
    const c = new PrintSeriesCollector(1000);
    c.add(message('INS: 1 - CHKPT: 2', 1010));
    c.add(message('INS: 3 - CHKPT: 4', 1030));
    c.add(message('INS: 99', 1040, 'error'));
    assert.deepEqual(c.result().series, [
      { label: 'INS', values: [1, 3], atMs: [10, 30] },
      { label: 'CHKPT', values: [2, 4], atMs: [10, 30] },
    ]);
    const many = new PrintSeriesCollector(0);
    for (let i = 0; i < MAX_SERIES + 5; i++) many.add(message(`L${i}: ${i}`, i));
    assert.equal(many.result().series.length, MAX_SERIES);
    assert.equal(many.result().droppedPoints, 5);
  });
});

describe('profile: samples', () => {
  it('a sample is cumulative since the baseline, per file and for the cumulative log counters only', () => {
    const baseline = { at: 100, files: [file(1, 10, 81920, 3), file(2, 50, 204800, 7)], counters: [counterRow('Log Flushes/sec', 900), counterRow('Log Bytes Flushed/sec', 1_000_000), counterRow('Log Flush Wait Time', 40)] };
    const reading = { at: 350, files: [file(1, 12, 98304, 3), file(2, 80, 327680, 19), file(3, 1, 1, 1)], counters: [counterRow('Log Flushes/sec', 930), counterRow('Log Bytes Flushed/sec', 1_122_880), counterRow('Log Flush Wait Time', 55, 65792)] };
    const s = sampleFrom(baseline, reading);
    assert.equal(s.tMs, 250);
    assert.deepEqual(s.files, [
      { fileId: 1, reads: 0, bytesRead: 0, writes: 2, bytesWritten: 16384, ioStallReadMs: 0, ioStallWriteMs: 0 },
      { fileId: 2, reads: 0, bytesRead: 0, writes: 30, bytesWritten: 122880, ioStallReadMs: 0, ioStallWriteMs: 12 },
    ]);
    assert.equal(s.logFlushes, 30);
    assert.equal(s.logBytesFlushed, 122880);
    // A raw (point-in-time) type has no meaningful difference.
    assert.equal(s.logFlushWaitTimeMs, null);
  });
});

describe('profile: flat RunResult fields', () => {
  it('maps file kinds to ROWS/LOG and waits/counters to the issue\'s names', () => {
    const run = makeRun({ waits: { WRITELOG: { count: 100, ms: 250 } }, flushesCounter: 100 });
    const fields = runSchemaFields(run.diff, 1234);
    assert.equal(fields.elapsedMs, 1234);
    assert.deepEqual(fields.sessionWaits, [{ waitType: 'WRITELOG', waitingTasks: 100, waitTimeMs: 250, signalWaitTimeMs: 0 }]);
    assert.deepEqual(fields.logCounters, { logFlushes: 100, logBytesFlushed: null, logFlushWaitTimeMs: null });
    const withFiles = runSchemaFields({ ...run.diff, files: { status: 'ok', value: { files: [{ fileId: 2, kind: 'log', logicalName: 'lab_log', physicalName: '/x', intervalMs: 1, reads: 1, bytesRead: 2, readStallMs: 3, writes: 4, bytesWritten: 5, writeStallMs: 6, ioStallMs: 9, avgBytesPerWrite: null, msPerWrite: null, avgBytesPerRead: null, msPerRead: null }], totals: [], unmatchedFileIds: [] } } }, 1);
    assert.deepEqual(withFiles.files, [{ fileId: 2, type: 'LOG', logicalName: 'lab_log', reads: 1, bytesRead: 2, writes: 4, bytesWritten: 5, ioStallReadMs: 3, ioStallWriteMs: 6 }]);
  });
});
