// Round trips of a profiled run and what they cost at a distance: the stand-in counts the monitor connection's
// requests (server.connectionStats()) per step, and simulates a server 0 ms and 20 ms away (rttMs: every response
// leaves one round trip after its request). Plain and profiled runs of a trivial batch alternate at both distances in
// one process, so the overheads are measured side by side. Stand-in figures: our code + TDS round trips, not SQL Server.
import { performance } from 'node:perf_hooks';
import { connect, runWorkload } from '../src/db';
import { profileConnectionSource, profileRun, type ProfileStep } from '../src/profile';
import { analyze } from '../src/tsql';
import { createStandin } from '../test/standin/model/index';
import { startStandinServer, type StandinServer } from '../test/standin/server';
import { hostLoad, ms, type BenchResult } from './types';

const RUNS = 9;
const RTTS = [0, 20] as const;
const TRIVIAL = 'INSERT INTO dbo.roundtrip_t DEFAULT VALUES;';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function monitorRequests(server: StandinServer): number {
  return server.connectionStats().filter((c) => c.appName?.endsWith('(monitor)')).reduce((n, c) => n + c.requests, 0);
}

export async function run(): Promise<BenchResult[]> {
  const engine = createStandin({ speedFactor: 0 });
  const server = await startStandinServer({ engine });
  const profile = { server: '127.0.0.1', port: server.port, database: 'lab', authentication: { type: 'sql' as const, user: 'sa' }, encrypt: false, trustServerCertificate: false };
  const secret = 'StandIn-1';
  const batches = analyze(TRIVIAL).batches;
  const plain: Record<number, number[]> = { 0: [], 20: [] };
  const profiled: Record<number, number[]> = { 0: [], 20: [] };
  let perStep = new Map<ProfileStep, number>();
  let monitorTotal = 0;
  let traced = true;
  let statementsTraced = true;
  try {
    const setup = await connect(profile, secret, { role: 'workload' });
    await runWorkload(setup, { text: 'CREATE TABLE dbo.roundtrip_t (id int IDENTITY(1, 1) NOT NULL, v int NOT NULL DEFAULT (1));', repeat: 1, firstLine: 0 }).done;
    await setup.close();
    // One warm-up round (module loading, JIT), then plain and profiled alternate at each distance.
    for (let i = -1; i < RUNS; i++) {
      for (const rtt of RTTS) {
        server.rttMs = rtt;
        let t0 = performance.now();
        const session = await connect(profile, secret, { role: 'workload' });
        await runWorkload(session, batches[0]!).done;
        await session.close();
        const tPlain = performance.now() - t0;

        server.resetConnectionStats();
        const marks: Array<{ step: ProfileStep; at: number }> = [];
        t0 = performance.now();
        const result = await profileRun({
          connections: profileConnectionSource(profile, secret),
          batches,
          onProgress: (e) => void (e.step !== 'workload-progress' && marks.push({ step: e.step, at: monitorRequests(server) })),
        });
        const tProfiled = performance.now() - t0;
        if (i < 0) continue;
        plain[rtt]!.push(tPlain);
        profiled[rtt]!.push(tProfiled);
        traced &&= result.logFlushTrace !== null;
        statementsTraced &&= result.statementAttribution?.status === 'measured';
        monitorTotal = monitorRequests(server);
        perStep = new Map();
        marks.forEach((m, k) => perStep.set(m.step, (marks[k + 1]?.at ?? monitorTotal) - m.at));
      }
    }
  } finally {
    await server.close();
  }
  const snapshots = (perStep.get('snapshot-before') ?? 0) + (perStep.get('snapshot-after') ?? 0);
  const steps = [...perStep].filter(([, n]) => n > 0).map(([step, n]) => `${step} ${n}`).join(', ');
  const overhead = (rtt: number) => median(profiled[rtt]!) - median(plain[rtt]!);
  const note = (rtt: number) =>
    `profiled ${ms(median(profiled[rtt]!))} − plain ${ms(median(plain[rtt]!))} (connect + INSERT + close), median of ${RUNS}, interleaved; stand-in at ${rtt} ms RTT, ${hostLoad()}${traced ? '' : '; the XE trace was NOT captured'}${statementsTraced ? '; per-statement trace on' : '; the per-statement trace was NOT captured'}`;
  return [
    { name: 'round trips: snapshots per profiled run (before + after)', value: String(snapshots), note: 'monitor requests during snapshot-before + snapshot-after', key: 'snapshotRoundTrips', metric: snapshots, target: { op: '<=', value: 2 } },
    { name: 'round trips: monitor requests per profiled run', value: String(monitorTotal), note: `by step: ${steps} (the workload step's requests are the sampler's readings, one each; both event sessions, log flush and per statement${statementsTraced ? '' : ' (NOT captured)'}: planning reads with the preflight, CREATE + START with the before-snapshot, targets + STOP with the after-snapshot, DROPs in xe-drop's one; the target database is read with the monitor's login setup; a short run's last sample is the after-snapshot)`, key: 'monitorRoundTrips', metric: monitorTotal, target: { op: '<=', value: 10 } },
    { name: 'overhead per profiled run at 0 ms RTT', value: ms(overhead(0)), note: note(0), key: 'overheadMsRtt0', metric: Math.round(overhead(0) * 10) / 10 },
    { name: 'overhead per profiled run at 20 ms RTT', value: ms(overhead(20)), note: note(20), key: 'overheadMsRtt20', metric: Math.round(overhead(20) * 10) / 10, target: { op: '<=', value: 250 } },
  ];
}
