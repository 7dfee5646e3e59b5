// Child process of bench/tsql.bench.ts: measures the 10 MiB throughput figures in a fresh process, so the heap left by
// the benches that ran before (npm run bench runs them all in one process) does not weigh on the collector.
// Usage: node --import tsx bench/tsql-throughput.ts <bundled src/tsql as .cjs>; prints one JSON line.

import { createRequire } from 'node:module';
import { generateScript } from './tsql-workload';
import { measure, type Timing } from './types';

type TsqlCore = typeof import('../src/tsql/index');

export interface ThroughputResult {
  mib: number;
  newlines: number;
  tokenCount: number;
  warmUp: number;
  byteScan: Timing;
  lexStructure: Timing;
  lexOnly: Timing;
  analyze: Timing;
  /** Mean CPU time of the timed analyze() runs: about every other run also pays a full mark-compact. */
  analyzeMeanCpu: number;
}

/** Runs before anything is timed (measure adds one more). V8 optimises the scanner's many small functions on a
 * background thread, which a busy 2-core host starves: without these the first timed runs are up to twice as slow. */
const WARM_UP = 5;

function throughput(core: TsqlCore): ThroughputResult {
  const { analyze, lex, LineIndex, scanStructure, splitBatches } = core;
  const script = generateScript(10 * 1024 * 1024);
  let newlines = 0;
  const byteScan = measure(7, () => {
    let count = 0;
    for (let i = 0; i < script.length; i++) if (script.charCodeAt(i) === 10) count++;
    newlines = count;
  });
  let tokenCount = 0;
  const lexStructure = (): unknown => {
    const tokens = lex(script);
    const structure = scanStructure(tokens, splitBatches(tokens, new LineIndex(script)));
    tokenCount = tokens.count + tokens.comments.count;
    return structure;
  };
  for (let i = 0; i < WARM_UP; i++) lexStructure();
  const ours = measure(7, lexStructure);
  const lexOnly = measure(7, () => lex(script));
  for (let i = 0; i < WARM_UP; i++) analyze(script);
  const cpuTimes: number[] = [];
  const full = measure(7, () => {
    const c0 = process.cpuUsage();
    const analysis = analyze(script);
    const c = process.cpuUsage(c0);
    cpuTimes.push((c.user + c.system) / 1000);
    return analysis;
  });
  const timed = cpuTimes.slice(1); // measure's own warm-up run is not timed
  return {
    mib: script.length / 1024 / 1024, newlines, tokenCount, warmUp: WARM_UP + 1, byteScan, lexStructure: ours, lexOnly,
    analyze: full, analyzeMeanCpu: timed.reduce((sum, v) => sum + v, 0) / timed.length,
  };
}

const bundle = process.argv[2];
if (require.main === module && bundle !== undefined) {
  const core = createRequire(__filename)(bundle) as TsqlCore;
  process.stdout.write(`${JSON.stringify(throughput(core))}\n`);
}
