// One sample run as the demo runs it (scripts/demoStandin.ts at the demo's speed): Profile, Compare and, when the
// sample's header names a sweep (`--sessions 1,8`), Compare --sessions — each through the real CLI, each timed with
// performance.now() around the run. The suite test/integration/demo/everySample.test.ts asserts what the runs produce;
// bench/samples.bench.ts holds their wall-clock times to issue 28's one-minute target (timing targets live in bench/,
// not in tests, which a loaded machine would fail). Figures are the stand-in model's, never SQL Server's.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyDemoCauses, DEMO_AG_DATABASE, DEMO_SPEED_FACTOR, DEMO_STANDIN_OPTIONS } from '../../../scripts/demoStandin';
import { runCase, SAMPLES, type CliRun } from '../causes/harness';

/** Every shipped sample, by file name, sorted. */
export function demoSampleFiles(): string[] {
  return readdirSync(SAMPLES).filter((f) => f.endsWith('.sql')).sort();
}

/** How each sample is run in the demo: c3 on the AG database (a comparison there needs the explicit allowance). */
function howToRun(file: string): { database: string | undefined; compareArgs: string[] } {
  if (file.startsWith('c3-')) return { database: DEMO_AG_DATABASE, compareArgs: ['--allow-availability-group'] };
  return { database: undefined, compareArgs: [] };
}

export interface TimedRun {
  run: CliRun;
  ms: number;
}

export interface DemoSampleRuns {
  file: string;
  script: string;
  profile: TimedRun;
  compare: TimedRun;
  /** Present when the sample's header names a sweep. */
  sweep: (TimedRun & { levels: number[] }) | null;
}

async function timed(run: () => Promise<CliRun>): Promise<TimedRun> {
  const started = performance.now();
  const result = await run();
  return { run: result, ms: performance.now() - started };
}

/** Profile (--json), Compare (--json --yes) and the header's sweep (--json --yes --out MD) of one sample. */
export async function runDemoSample(file: string): Promise<DemoSampleRuns> {
  const script = readFileSync(join(SAMPLES, file), 'utf8');
  const standin = { standin: { ...DEMO_STANDIN_OPTIONS, speedFactor: DEMO_SPEED_FACTOR }, setup: applyDemoCauses };
  const { database, compareArgs } = howToRun(file);
  const c = { ...standin, database };
  const profile = await timed(() => runCase(c, script, ['profile', 'FILE', '--json', '--yes']));
  const compare = await timed(() => runCase(c, script, ['compare', 'FILE', '--json', '--yes', ...compareArgs]));
  const sessions = /--sessions ([\d,]+)/.exec(script)?.[1];
  if (sessions === undefined) return { file, script, profile, compare, sweep: null };
  const sweep = await timed(() => runCase(c, script, ['compare', 'FILE', '--json', '--yes', '--sessions', sessions, '--out', 'MD', ...compareArgs]));
  return { file, script, profile, compare, sweep: { ...sweep, levels: sessions.split(',').map(Number) } };
}
