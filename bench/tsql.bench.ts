// T-SQL analysis speed (issue 19): our lex + GO split + structure on 10 MiB (target ≥ 100 MB/s of CPU time) and full
// analyze() (target ≥ 50 MB/s), each beside a plain byte scan of the same text (a charCodeAt loop counting newlines: the
// ceiling any lexer written in JS works under), sql-formatter's T-SQL tokenizer for comparison, and analyze() on a
// 5,000-line document (target ≤ 50 ms). MB here is MiB (1,048,576 characters; the workload is ASCII, so also bytes).
// src/tsql is measured as esbuild bundles it (as in dist/server.js): run from source through tsx it is several times slower.

import { build } from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateLines, generateScript } from './tsql-workload';
import { hostLoad, measure, ms, type BenchResult, type Timing } from './types';

const TEN_MB = 10 * 1024 * 1024;

interface ExternalTokenizer {
  tokenize(input: string, paramTypesOverrides: object): unknown[];
}

/**
 * sql-formatter (npm, MIT) exports its T-SQL dialect options but not its Tokenizer class, so the class is loaded
 * from the package's own CommonJS build by file path. Returns null when the package is not installed.
 */
function sqlFormatterTokenizer(): ExternalTokenizer | null {
  const req = createRequire(import.meta.url);
  try {
    const main = req.resolve('sql-formatter');
    const pkg = req('sql-formatter') as { transactsql: { tokenizerOptions: object } };
    const Tokenizer = (req(path.join(path.dirname(main), 'lexer', 'Tokenizer.js')) as {
      default: new (cfg: object, dialect: string) => ExternalTokenizer;
    }).default;
    return new Tokenizer(pkg.transactsql.tokenizerOptions, 'transactsql');
  } catch {
    return null;
  }
}

type TsqlCore = typeof import('../src/tsql/index');

/** Bundles src/tsql/index.ts the way the extension's webpack + esbuild-loader build does, and loads it. */
async function loadBundledCore(): Promise<TsqlCore> {
  const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-bench-'));
  const outfile = path.join(dir, 'tsql.cjs');
  await build({
    entryPoints: [path.join(root, 'src/tsql/index.ts')], bundle: true, platform: 'node', format: 'cjs',
    target: 'es2023', outfile, logLevel: 'warning',
  });
  try {
    return createRequire(import.meta.url)(outfile) as TsqlCore;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const WARM_UP = 5;

function warmUp(fn: () => unknown): void {
  for (let i = 0; i < WARM_UP; i++) fn();
}

export async function run(): Promise<BenchResult[]> {
  const { analyze, lex, LineIndex, scanStructure, splitBatches } = await loadBundledCore();
  const results: BenchResult[] = [];
  const both = (t: Timing): string => `${ms(t.wall)} (CPU ${ms(t.cpu)})`;
  const ofTarget = (t: Timing, target: number): string => `target ${target} ms: wall ${(t.wall / target * 100).toFixed(0)}%, CPU ${(t.cpu / target * 100).toFixed(0)}%`;
  const script = generateScript(TEN_MB);
  const mib = script.length / 1024 / 1024;
  const mb = mib.toFixed(1);
  // Throughput by CPU time: on this shared 2-core host wall time also counts other processes' turns.
  const mbps = (t: Timing): number => Math.round(mib / (t.cpu / 1000) * 10) / 10;

  let newlines = 0;
  const byteScan = measure(7, () => {
    let count = 0;
    for (let i = 0; i < script.length; i++) if (script.charCodeAt(i) === 10) count++;
    newlines = count;
  });
  results.push({
    name: `byte scan (charCodeAt loop counting newlines), ${mb} MB`, value: both(byteScan),
    note: `median of 7; ${newlines.toLocaleString('en-US')} newlines; ${mbps(byteScan)} MB/s by CPU: the ceiling`, key: 'byteScanMBps', metric: mbps(byteScan),
  });

  let tokenCount = 0;
  const lexStructure = (): unknown => {
    const tokens = lex(script);
    const structure = scanStructure(tokens, splitBatches(tokens, new LineIndex(script)));
    tokenCount = tokens.count + tokens.comments.count;
    return structure;
  };
  // Steady state, as in the language server that analyses on every edit: V8 optimises the scanner's many small
  // functions on a background thread, which a busy 2-core host starves, so the first runs are up to twice as slow.
  // WARM_UP runs (measure adds one more) come before anything is timed.
  warmUp(lexStructure);
  const ours = measure(7, lexStructure);
  results.push({
    name: `lex + GO split + structure, ${mb} MB`, value: both(ours),
    note: `median of 7 after ${WARM_UP + 1} warm-up runs; ${tokenCount.toLocaleString('en-US')} tokens; ${mbps(ours)} MB/s by CPU (${(byteScan.cpu / ours.cpu * 100).toFixed(0)}% of the byte scan's speed); ${hostLoad()}`,
    key: 'tsqlLexStructureMBps', metric: mbps(ours), target: { op: '>=', value: 100 },
  });

  const lexOnly = measure(7, () => lex(script));
  results.push({ name: `lex only, ${mb} MB`, value: both(lexOnly), note: `median of 7; ${mbps(lexOnly)} MB/s by CPU` });

  warmUp(() => analyze(script));
  // The analysis of 10 MiB is ~70 MB of objects, so about every other run also pays a full mark-compact of them: the
  // median shows a typical run, the mean what that collection costs on average.
  const cpuTimes: number[] = [];
  const full = measure(7, () => {
    const c0 = process.cpuUsage();
    const analysis = analyze(script);
    const c = process.cpuUsage(c0);
    cpuTimes.push((c.user + c.system) / 1000);
    return analysis;
  });
  const meanCpu = cpuTimes.slice(1).reduce((sum, v) => sum + v, 0) / (cpuTimes.length - 1);
  results.push({
    name: `analyze() incl. ranges and diagnostics, ${mb} MB`, value: both(full),
    note: `median of 7 after ${WARM_UP + 1} warm-up runs; ${mbps(full)} MB/s by CPU (${(byteScan.cpu / full.cpu * 100).toFixed(0)}% of the byte scan's speed); mean ${ms(meanCpu)} CPU = ${(mib / (meanCpu / 1000)).toFixed(1)} MB/s`,
    key: 'tsqlAnalyzeMBps', metric: mbps(full), target: { op: '>=', value: 50 },
  });

  const external = sqlFormatterTokenizer();
  if (external === null) {
    results.push({ name: 'sql-formatter transactsql tokenizer', value: '-', note: 'sql-formatter not installed (npm install -D sql-formatter)' });
  } else {
    let theirCount = 0;
    const theirs = measure(3, () => { theirCount = external.tokenize(script, {}).length; });
    results.push({ name: `sql-formatter transactsql tokenizer, ${mb} MB`, value: both(theirs), note: `median of 3; ${theirCount.toLocaleString('en-US')} tokens; tokens only, no structure` });
    results.push({
      name: 'ratio sql-formatter tokenizer / our lex + structure', value: `${(theirs.cpu / ours.cpu).toFixed(1)}x`,
      note: `by CPU time (by wall time ${(theirs.wall / ours.wall).toFixed(1)}x); > 1 means ours is faster`,
    });
  }

  const doc = generateLines(5000);
  const reanalyse = measure(21, () => analyze(doc));
  results.push({ name: 'analyze() on a 5,000-line document', value: both(reanalyse), note: `median of 21; ${ofTarget(reanalyse, 50)}` });
  return results;
}
