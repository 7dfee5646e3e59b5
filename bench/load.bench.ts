// Streaming throughput and peak memory of src/db runWorkload on large results: 1,000,000 rows of a cross join and
// GO 10000 of a tiny batch, against the in-process stand-in (speedFactor 0). Stand-in figures: the server side runs
// in this same process, so throughput is shared between the model, the TDS layer, tedious and our runner.
import { performance } from 'node:perf_hooks';
import { connect, runWorkload } from '../src/db';
import type { BatchReport, WorkloadBatch } from '../src/db/types';
import { createStandin } from '../test/standin/model/index';
import { startStandinServer } from '../test/standin/server';
import { hostLoad, ms, type BenchResult } from './types';

const RUNS = 3;
const MILLION: WorkloadBatch = {
  text: 'SELECT TOP (1000000) a.object_id AS a, b.object_id AS b, a.name AS n FROM sys.all_objects AS a CROSS JOIN sys.all_objects AS b;',
  repeat: 1,
  firstLine: 0,
};
const GO_10000: WorkloadBatch = { text: 'SELECT 1 AS one;', repeat: 10000, firstLine: 0 };

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

interface Sample {
  wallMs: number;
  peakHeapGrowthMb: number;
  peakRssMb: number;
  report: BatchReport;
}

async function sample(runOnce: () => Promise<BatchReport>): Promise<Sample> {
  globalThis.gc?.();
  const baseline = process.memoryUsage().heapUsed;
  let peakHeap = baseline;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  }, 10);
  const t0 = performance.now();
  try {
    const report = await runOnce();
    return { wallMs: performance.now() - t0, peakHeapGrowthMb: (peakHeap - baseline) / 2 ** 20, peakRssMb: peakRss / 2 ** 20, report };
  } finally {
    clearInterval(sampler);
  }
}

export async function run(): Promise<BenchResult[]> {
  const engine = createStandin({ speedFactor: 0 });
  const server = await startStandinServer({ engine });
  const profile = { server: '127.0.0.1', port: server.port, database: 'lab', authentication: { type: 'sql' as const, user: 'sa' }, encrypt: false, trustServerCertificate: false };
  const once = (batch: WorkloadBatch) => async () => {
    const session = await connect(profile, 'StandIn-1', { role: 'workload' });
    try {
      return await runWorkload(session, batch).done;
    } finally {
      await session.close();
    }
  };
  const million: Sample[] = [];
  const go: Sample[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      million.push(await sample(once(MILLION)));
      go.push(await sample(once(GO_10000)));
    }
  } finally {
    await server.close();
  }
  for (const s of million) if (s.report.rowsReturned !== 1_000_000) throw new Error(`1M-row run returned ${s.report.rowsReturned} rows`);
  for (const s of go) if (s.report.iterationsCompleted !== 10000) throw new Error(`GO 10000 completed ${s.report.iterationsCompleted}`);
  const wall = median(million.map((s) => s.wallMs));
  const goWall = median(go.map((s) => s.wallMs));
  const note = `median of ${RUNS}; stand-in in the same process (speedFactor 0), ${hostLoad()}`;
  return [
    { name: 'load: 1,000,000 rows (3 columns) streamed', value: ms(wall), note },
    { name: 'load: 1,000,000 rows throughput', value: `${Math.round(1_000_000 / (wall / 1000)).toLocaleString('en-US')} rows/s`, note: 'rows counted, never kept' },
    { name: 'load: 1,000,000 rows peak heap growth', value: `${Math.max(...million.map((s) => s.peakHeapGrowthMb)).toFixed(1)} MB`, note: `worst of ${RUNS}; sampled every 10 ms, garbage between GCs included` },
    { name: 'load: peak RSS during the 1M-row runs', value: `${Math.max(...million.map((s) => s.peakRssMb)).toFixed(0)} MB`, note: 'whole process (stand-in + client)' },
    { name: 'load: GO 10000 of SELECT 1', value: ms(goWall), note: `${Math.round(10000 / (goWall / 1000)).toLocaleString('en-US')} round trips/s; ${note}` },
    { name: 'load: GO 10000 peak heap growth', value: `${Math.max(...go.map((s) => s.peakHeapGrowthMb)).toFixed(1)} MB`, note: `worst of ${RUNS}` },
  ];
}
