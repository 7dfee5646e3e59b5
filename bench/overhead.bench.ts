// Profiling overhead on a trivial batch: what the before/after snapshots and the log-flush XE session add to one
// round trip, as ratios to the plain run. Plain, snapshots-only and full profiled runs alternate in one process
// against the in-process stand-in (speedFactor 0), so these are stand-in figures: our code + TDS round trips only.
import { performance } from 'node:perf_hooks';
import { connect, runWorkload } from '../src/db';
import { profileConnectionSource, profileRun } from '../src/profile';
import { analyze } from '../src/tsql';
import { createStandin } from '../test/standin/model/index';
import { startStandinServer } from '../test/standin/server';
import { hostLoad, ms, type BenchResult } from './types';

const RUNS = 25;
const TRIVIAL = 'INSERT INTO dbo.overhead_t DEFAULT VALUES;';

function quantile(values: number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}
const median = (values: number[]) => quantile(values, 0.5);
/** Interquartile range: how noisy the runs were, so a small difference can be read as noise. */
const spread = (values: number[]) => `IQR ${ms(quantile(values, 0.25))}–${ms(quantile(values, 0.75))}`;

export async function run(): Promise<BenchResult[]> {
  const engine = createStandin({ speedFactor: 0 });
  const server = await startStandinServer({ engine });
  const profile = { server: '127.0.0.1', port: server.port, database: 'lab', authentication: { type: 'sql' as const, user: 'sa' }, encrypt: false, trustServerCertificate: false };
  const secret = 'StandIn-1';
  const batches = analyze(TRIVIAL).batches;
  const plain: number[] = [];
  const snapshotsOnly: number[] = [];
  const full: number[] = [];
  let traced = false;
  try {
    const setup = await connect(profile, secret, { role: 'workload' });
    await runWorkload(setup, { text: 'CREATE TABLE dbo.overhead_t (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL DEFAULT (1));', repeat: 1, firstLine: 0 }).done;
    await setup.close();
    // One warm-up of each kind (module loading, JIT), then the three kinds side by side so drift hits all equally.
    for (let i = -1; i < RUNS; i++) {
      let t0 = performance.now();
      // Plain: what running the batch costs without Durability Lens (a connection, the batch, close).
      const session = await connect(profile, secret, { role: 'workload' });
      await runWorkload(session, batches[0]!).done;
      await session.close();
      const tPlain = performance.now() - t0;

      t0 = performance.now();
      await profileRun({ connections: profileConnectionSource(profile, secret), batches, xe: { enabled: false } });
      const tSnap = performance.now() - t0;

      t0 = performance.now();
      const result = await profileRun({ connections: profileConnectionSource(profile, secret), batches });
      const tFull = performance.now() - t0;
      if (i < 0) continue;
      plain.push(tPlain);
      snapshotsOnly.push(tSnap);
      full.push(tFull);
      traced = result.logFlushTrace !== null;
    }
  } finally {
    await server.close();
  }
  const p = median(plain);
  const s = median(snapshotsOnly);
  const f = median(full);
  const note = `median of ${RUNS}, interleaved; stand-in figures (speedFactor 0), ${hostLoad()}`;
  // The XE difference is small next to run-to-run noise on a busy host: say so instead of printing a bare number.
  const xeWithinNoise = Math.abs(f - s) < Math.max(quantile(full, 0.75) - quantile(full, 0.25), quantile(snapshotsOnly, 0.75) - quantile(snapshotsOnly, 0.25));
  return [
    { name: 'overhead: plain trivial batch (connect + 1 INSERT + close)', value: ms(p), note: `${spread(plain)}; ${note}` },
    { name: 'overhead: profiled, snapshots only (2 connections, preflight, 2 snapshots)', value: ms(s), note: `${(s / p).toFixed(1)}× plain; ${spread(snapshotsOnly)}` },
    {
      name: 'overhead: profiled, snapshots + XE session',
      value: ms(f),
      note: `${(f / p).toFixed(1)}× plain; XE adds ${ms(f - s)} (${(f / s).toFixed(2)}× snapshots only${xeWithinNoise ? ', within the noise' : ''}); ${spread(full)}${traced ? '' : '; the trace was NOT captured'}`,
    },
    { name: 'overhead: added per profiled run', value: ms(f - p), note: 'profiled minus plain on a trivial batch: the cost of measuring, per run (bench/profile.bench.ts measures it on 2,000 commits)' },
  ];
}
