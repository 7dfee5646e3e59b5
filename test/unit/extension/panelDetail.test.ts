// The panel's per-run parts: sampled series as amounts per interval, PRINT series reduced by maximum, per-file IO
// series per mode, server waits per mode, and the environment block.
import * as assert from 'node:assert/strict';
import { environmentFrom, fileIoChartFrom, fileThroughputChartFrom, MAX_PRINT_POINTS, printChartFrom, samplesChartFrom, serverWaitRowsFrom } from '../../../src/extension/panel/panelDetail';
import { ok } from '../../../src/probes/measurement';
import type { RunResult } from '../../../src/profile/types';
import { makeRun } from '../report/runFixture';
import { panelDataFromRun } from '../../../src/extension/panel/panelData';
import { renderPanel, toHtml } from '../../../src/webview/view';

function withFiles(run: RunResult, files: { fileId: number; kind: 'data' | 'log'; name: string; bytes: number }[]): RunResult {
  run.diff.files = ok({
    files: files.map((f) => ({ fileId: f.fileId, kind: f.kind, logicalName: f.name, physicalName: '/x', intervalMs: 1, reads: 0, bytesRead: 0, readStallMs: 0, writes: 1, bytesWritten: f.bytes, writeStallMs: 0, ioStallMs: 0, avgBytesPerWrite: f.bytes, msPerWrite: 0, avgBytesPerRead: null, msPerRead: null })),
    totals: [],
    unmatchedFileIds: [],
  } as never);
  return run;
}

describe('extension/panelDetail', () => {
  it('samples become amounts per interval, log and data files apart', () => {
    const run = withFiles(makeRun({ mode: null }), [{ fileId: 1, kind: 'data', name: 'd', bytes: 0 }, { fileId: 2, kind: 'log', name: 'l', bytes: 0 }]);
    const sample = (tMs: number, flushes: number | null, logBytes: number, dataBytes: number, dataRead = 0) => ({ tMs, files: [{ fileId: 1, reads: 0, bytesRead: dataRead, writes: 0, bytesWritten: dataBytes, ioStallReadMs: 0, ioStallWriteMs: 0 }, { fileId: 2, reads: 0, bytesRead: 0, writes: 0, bytesWritten: logBytes, ioStallReadMs: 0, ioStallWriteMs: 0 }], logFlushes: flushes, logBytesFlushed: null, logFlushWaitTimeMs: null });
    run.samples = [sample(0, 0, 0, 0), sample(1000, 10, 10240, 0), sample(2000, null, 10240, 8192), sample(3000, 25, 20480, 8192, 4096)];
    assert.deepEqual(samplesChartFrom([run]), {
      labels: ['1', '2', '3'],
      series: [
        { label: 'log flushes (counter)', values: [10, null, null] },
        { label: 'log KiB written', values: [10, 0, 10] },
        { label: 'data KiB written', values: [0, 8, 0] },
        { label: 'KiB read (all files)', values: [0, 0, 4] },
      ],
    });
    run.samples = run.samples.slice(0, 1);
    assert.equal(samplesChartFrom([run]), null, 'one sample has no interval');
  });

  it('PRINT series keep every point when short, and the maximum of each group when long', () => {
    const run = makeRun({ mode: null });
    run.printSeries = [{ label: 'INS', values: [3, 1, 4], atMs: [1, 2, 3] }, { label: 'CHKPT', values: [9], atMs: [3] }];
    assert.deepEqual(printChartFrom([run]), { labels: ['1', '2', '3'], perPoint: 1, series: [{ label: 'INS', values: [3, 1, 4] }, { label: 'CHKPT', values: [9, null, null] }] });
    const n = MAX_PRINT_POINTS * 3 + 1;
    const values = Array.from({ length: n }, (_, i) => (i === 4500 ? 1000 : 1));
    run.printSeries = [{ label: 'INS', values, atMs: values.map((_, i) => i) }];
    const long = printChartFrom([run])!;
    assert.equal(long.perPoint, 4);
    assert.equal(long.labels.length, Math.ceil(n / 4));
    assert.equal(long.series[0]!.values[1125], 1000, 'the spike survives the reduction');
    assert.equal(Math.max(...long.series[0]!.values.map((v) => v ?? 0)), 1000);
    run.printSeries = [];
    assert.equal(printChartFrom([run]), null);
  });

  it('per-file IO is one series per mode over the union of files; server waits are listed per mode', () => {
    const a = withFiles(makeRun({ mode: 'DISABLED' }), [{ fileId: 1, kind: 'data', name: 'lab', bytes: 8192 }, { fileId: 2, kind: 'log', name: 'lab_log', bytes: 100 }]);
    const b = withFiles(makeRun({ mode: 'FORCED' }), [{ fileId: 2, kind: 'log', name: 'lab_log', bytes: 50 }]);
    assert.deepEqual(fileIoChartFrom([a, b], ['DISABLED', 'FORCED']), {
      labels: ['lab (data)', 'lab_log (log)'],
      series: [
        { label: 'DISABLED', values: [8192, 100] },
        { label: 'FORCED', values: [null, 50] },
      ],
    });
    a.diff.serverWaits = ok({ top: [{ waitType: 'WRITELOG', waitingTasks: 5, waitTimeMs: 7, signalWaitTimeMs: 0, resourceWaitTimeMs: 7, percent: 70, avgWaitMs: 1.4, avgResourceWaitMs: 1.4, avgSignalWaitMs: 0, maxWaitTimeMsSinceStart: 3 }], others: { waitTypes: 0, waitTimeMs: 0, waitingTasks: 0 }, totalWaitTimeMs: 10, totalSignalWaitTimeMs: 0, totalResourceWaitTimeMs: 10, benignWaitTimeMs: 0 });
    assert.deepEqual(serverWaitRowsFrom([a, b], ['DISABLED', 'FORCED']), [{ mode: 'DISABLED', waitType: 'WRITELOG', waitingTasks: 5, waitTimeMs: 7, percent: 70 }]);
  });

  it('environment: trace flags with their scope, or unknown when DBCC TRACESTATUS was not readable', () => {
    const run = makeRun({ mode: null, environment: { traceFlags: [{ flag: 3982, status: true, global: true, session: true }] } });
    const env = environmentFrom([run]);
    assert.equal(env.traceFlag3979, 'off');
    assert.equal(env.traceFlag3982, 'on (global, session)');
    run.server.traceFlags = { status: 'unavailable', measurement: 'traceFlags', cause: 'permission', reason: 'no', grant: null, errorNumber: 2571 } as never;
    assert.equal(environmentFrom([run]).traceFlag3979, null);
  });

  it('S5: reads per file become a read-throughput series next to the writes, per mode', () => {
    const run = withFiles(makeRun({ mode: null }), [{ fileId: 1, kind: 'data', name: 'lab', bytes: 1024 }, { fileId: 2, kind: 'log', name: 'lab_log', bytes: 2048 }]);
    const files = (run.diff.files as { value: { files: { bytesRead: number }[] } }).value.files;
    files[0]!.bytesRead = 200 * 1024 * 1024; // CHECKDB reading the data file
    run.diff.elapsedMs = 2000;
    const chart = fileThroughputChartFrom([run], ['RUN'])!;
    assert.deepEqual(chart.labels, ['lab (data)', 'lab_log (log)']);
    assert.deepEqual(chart.series, [
      { label: 'RUN read', values: [100 * 1024 * 1024, 0] },
      { label: 'RUN written', values: [512, 1024] },
    ]);
  });
});

describe('extension/panelDetail: environment figures that were not read say why (outside attack notzero42)', () => {
  it('trace flags, VLF count and log size carry their reason and GRANT into the panel, which shows "not measured — why", never a bare "unknown"', () => {
    const run = makeRun({ mode: null });
    run.server.traceFlags = { status: 'unavailable', measurement: 'traceFlags', cause: 'permission', reason: 'DBCC TRACESTATUS was denied.', grant: 'GRANT VIEW SERVER STATE TO [low];', errorNumber: 2571 } as never;
    run.diff.log.vlfCount = null;
    run.diff.log.logSizeMb = null;
    run.missing = [
      { measurement: 'vlfs', reason: 'sys.dm_db_log_info was denied.', grant: 'GRANT VIEW DATABASE STATE TO [low];' },
      { measurement: 'logStats', reason: 'sys.dm_db_log_stats was denied.', grant: 'GRANT VIEW DATABASE STATE TO [low];' },
    ];
    const env = environmentFrom([run]);
    assert.equal(env.traceFlag3979, null);
    assert.deepEqual(env.notMeasured, {
      traceFlags: 'DBCC TRACESTATUS was denied. To enable: GRANT VIEW SERVER STATE TO [low];',
      vlfCount: 'sys.dm_db_log_info was denied. To enable: GRANT VIEW DATABASE STATE TO [low];',
      logSize: 'sys.dm_db_log_stats was denied. To enable: GRANT VIEW DATABASE STATE TO [low];',
    });
    const data = panelDataFromRun(run, 'SQL1');
    data.environment = env;
    const html = toHtml(renderPanel(data));
    const section = html.slice(html.indexOf('dl-env-facts'));
    assert.match(section, /VLF count<\/dt><dd>not measured — sys\.dm_db_log_info was denied\. To enable: GRANT VIEW DATABASE STATE TO \[low\];<\/dd>/);
    assert.match(section, /Log size<\/dt><dd>not measured — sys\.dm_db_log_stats was denied\./);
    assert.match(section, /Trace flag 3979<\/dt><dd>not measured — DBCC TRACESTATUS was denied\. To enable: GRANT VIEW SERVER STATE/);
    const figures = section.slice(section.indexOf('VLF count'), section.indexOf('</dl>'));
    assert.doesNotMatch(figures, />unknown</);
  });

  it('a figure that was read has no reason', () => {
    const run = makeRun({ mode: null });
    run.diff.log.vlfCount = { before: 4, after: 6 };
    run.diff.log.logSizeMb = { before: 8, after: 16 };
    run.missing = [{ measurement: 'vlfs', reason: 'sys.dm_db_log_info was denied.', grant: null }];
    const env = environmentFrom([run]);
    assert.equal(env.vlfCount, 6);
    assert.deepEqual(env.notMeasured, { traceFlags: null, vlfCount: null, logSize: null });
  });
});
