// The contract between bench/run.ts and each bench/*.bench.ts file: `export async function run(): Promise<BenchResult[]>`.

export interface BenchResult {
  /** What was measured, e.g. "tsql: lex + batches + structure, 10 MB". */
  name: string;
  /** The measurement with its unit, e.g. "212 ms". */
  value: string;
  /** How it was measured or what it compares to (median of N, ratio to a target). */
  note?: string;
  /**
   * When set, `npm run bench -- --json` records `metric` under this key in bench/results.json (e.g. "xeMBps").
   * Keys are stable: CI and the closing notes compare them across runs.
   */
  key?: string;
  /** The number recorded under `key`, in the unit the key names (MBps, Ms, MB, Bytes, a count). */
  metric?: number;
  /** The target this figure is held to, for results.json and the table (e.g. { op: '>=', value: 100 }). */
  target?: { op: '>=' | '<='; value: number };
}

export type BenchRun = () => Promise<BenchResult[]>;

import * as os from 'node:os';

export interface Timing {
  /** Median wall time, ms. */
  wall: number;
  /** Median CPU time of this process (user + system), ms: closer to an idle machine's wall time when the host is busy. */
  cpu: number;
}

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)]!;
}

/** Median wall and CPU time of `runs` calls after one warm-up call. */
export function measure(runs: number, fn: () => unknown): Timing {
  fn();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    fn();
    walls.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / 1000);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

/** Host load, so readers can tell a busy machine's numbers from an idle one's. */
export function hostLoad(): string {
  return `load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`;
}

export function ms(value: number): string {
  return value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`;
}
