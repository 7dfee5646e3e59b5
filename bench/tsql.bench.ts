// T-SQL analysis speed (issue 19): our lex + GO split + structure on 10 MiB (target ≥ 100 MB/s of CPU time) and full
// analyze() (target ≥ 50 MB/s), each beside a plain byte scan of the same text (a charCodeAt loop counting newlines: the
// ceiling any lexer written in JS works under), sql-formatter's T-SQL tokenizer for comparison, and analyze() on a
// 5,000-line document (target ≤ 50 ms). MB here is MiB (1,048,576 characters; the workload is ASCII, so also bytes).
// The 10 MiB figures come from a fresh process (bench/tsql-throughput.ts), as the XE bench's do.
// src/tsql is measured as esbuild bundles it (as in dist/server.js): run from source through tsx it is several times slower.

import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ThroughputResult } from './tsql-throughput';
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

/**
 * Bundles `root`'s src/tsql/index.ts (this checkout's by default; bench/versus.ts passes another commit's tree) the way
 * the extension's webpack + esbuild-loader build does, into `dir`.
 */
export async function bundleCore(dir: string, root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')): Promise<string> {
  const outfile = path.join(dir, 'tsql.cjs');
  await build({
    entryPoints: [path.join(root, 'src/tsql/index.ts')], bundle: true, platform: 'node', format: 'cjs',
    target: 'es2023', outfile, logLevel: 'warning',
  });
  return outfile;
}

/** The 10 MiB figures, measured by bench/tsql-throughput.ts in a fresh process (as the XE bench does). */
export function throughputInChild(bundle: string): ThroughputResult {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'tsql-throughput.ts');
  const r = spawnSync(process.execPath, ['--import', 'tsx', child, bundle], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`tsql throughput child failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as ThroughputResult;
}

export async function run(): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-bench-'));
  let core: TsqlCore;
  let t: ThroughputResult;
  try {
    const bundle = await bundleCore(dir);
    t = throughputInChild(bundle);
    core = createRequire(import.meta.url)(bundle) as TsqlCore;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const { analyze } = core;
  const results: BenchResult[] = [];
  const both = (x: Timing): string => `${ms(x.wall)} (CPU ${ms(x.cpu)})`;
  const ofTarget = (x: Timing, target: number): string => `target ${target} ms: wall ${(x.wall / target * 100).toFixed(0)}%, CPU ${(x.cpu / target * 100).toFixed(0)}%`;
  const script = generateScript(TEN_MB);
  const mb = t.mib.toFixed(1);
  // Throughput by CPU time: on this shared 2-core host wall time also counts other processes' turns.
  const mbps = (cpuMs: number): number => Math.round(t.mib / (cpuMs / 1000) * 10) / 10;
  const ofScan = (x: Timing): string => `${(t.byteScan.cpu / x.cpu * 100).toFixed(0)}% of the byte scan's speed`;
  const child = `in a fresh process, after ${t.warmUp} warm-up runs`;

  results.push({
    name: `byte scan (charCodeAt loop counting newlines), ${mb} MB`, value: both(t.byteScan),
    note: `median of 7; ${t.newlines.toLocaleString('en-US')} newlines; ${mbps(t.byteScan.cpu)} MB/s by CPU: the ceiling`,
    key: 'byteScanMBps', metric: mbps(t.byteScan.cpu),
  });
  const ours = t.lexStructure;
  results.push({
    name: `lex + GO split + structure, ${mb} MB`, value: both(ours),
    note: `median of 7 ${child}; ${t.tokenCount.toLocaleString('en-US')} tokens; ${mbps(ours.cpu)} MB/s by CPU (${ofScan(ours)}); ${hostLoad()}`,
    key: 'tsqlLexStructureMBps', metric: mbps(ours.cpu), target: { op: '>=', value: 100 },
  });
  results.push({ name: `lex only, ${mb} MB`, value: both(t.lexOnly), note: `median of 7; ${mbps(t.lexOnly.cpu)} MB/s by CPU` });
  // The analysis of 10 MiB is ~70 MB of objects, so about every other run also pays a full mark-compact of them: the
  // median shows a typical run, the mean what that collection costs on average.
  results.push({
    name: `analyze() incl. ranges and diagnostics, ${mb} MB`, value: both(t.analyze),
    note: `median of 7 ${child}; ${mbps(t.analyze.cpu)} MB/s by CPU (${ofScan(t.analyze)}); mean ${ms(t.analyzeMeanCpu)} CPU = ${mbps(t.analyzeMeanCpu)} MB/s`,
    key: 'tsqlAnalyzeMBps', metric: mbps(t.analyze.cpu), target: { op: '>=', value: 50 },
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
  // The language server re-analyses on every edit: steady state, as for the 10 MiB figures.
  for (let i = 0; i < t.warmUp; i++) analyze(doc);
  const reanalyse = measure(21, () => analyze(doc));
  results.push({ name: 'analyze() on a 5,000-line document', value: both(reanalyse), note: `median of 21 after ${t.warmUp + 1} warm-up runs; ${ofTarget(reanalyse, 50)}` });
  return results;
}
