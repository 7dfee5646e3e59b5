// Lean and quick to start (issue 19): the size of what activation loads (dist/extension.js; the tedious driver is a
// chunk of its own, dist/extension.driver.js, loaded on first connect), activation time as the end-to-end suite
// measured it in code-server's real extension host (test-results/e2e/metrics.json), and `analyze`'s cold start:
// a fresh `node dist/cli.js analyze` process against a bare `node -e 0` started side by side in the same run.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { hostLoad, ms, type BenchResult } from './types';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const RUNS = 9;
const BUNDLE_TARGET_BYTES = 1_500_000;
const ACTIVATION_TARGET_MS = 50;
const COLD_START_TARGET_MS = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

/** Wall time of a whole process, ms; throws with its stderr when it fails. */
function timeProcess(args: string[]): number {
  const t0 = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const elapsed = performance.now() - t0;
  if (result.status !== 0 && result.status !== 1) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr.slice(0, 400)}`);
  return elapsed;
}

function bundleResults(): BenchResult[] {
  const extension = path.join(dist, 'extension.js');
  if (!fs.existsSync(extension)) {
    return [{ name: 'extension bundle (dist/extension.js)', value: 'not measured', note: 'dist/ is not built: run `npm run build` first' }];
  }
  const bytes = fs.statSync(extension).size;
  const chunks = fs.readdirSync(dist).filter((f) => /^extension\..+\.js$/.test(f));
  const chunkNote = chunks.map((f) => `${f} ${kib(fs.statSync(path.join(dist, f)).size)}`).join(', ');
  return [{
    name: 'extension bundle loaded at activation (dist/extension.js)',
    value: kib(bytes),
    note: `lazy chunks: ${chunkNote || 'none'}; built ${fs.statSync(extension).mtime.toISOString()}`,
    key: 'extensionBundleBytes',
    metric: bytes,
    target: { op: '<=', value: BUNDLE_TARGET_BYTES },
  }];
}

function activationResults(): BenchResult[] {
  const file = path.join(root, 'test-results', 'e2e', 'metrics.json');
  if (!fs.existsSync(file)) {
    return [{ name: 'activation in the extension host', value: 'not measured', note: 'no end-to-end run on record: `npm run e2e` (or `npm test`) writes test-results/e2e/metrics.json' }];
  }
  const recorded = JSON.parse(fs.readFileSync(file, 'utf8')) as { measuredAt?: string; codeServer?: string; activationMs?: number; activationCodeLoadingMs?: number; activationCallMs?: number; featuresLoadMs?: number };
  if (typeof recorded.activationMs !== 'number') {
    return [{ name: 'activation in the extension host', value: 'not measured', note: `${path.relative(root, file)} has no activationMs` }];
  }
  // The features chunk loads in the turn after activate() returns: start-up work VS Code's activation time leaves out.
  const features: BenchResult[] = typeof recorded.featuresLoadMs === 'number'
    ? [{
        name: 'commands ready, after activation (dist/extension.features.js loaded and wired)',
        value: ms(recorded.featuresLoadMs),
        note: `from the turn after activate() until the commands are registered, in the same e2e run (the language client loads in the same turns); activation + this: ${ms(recorded.activationMs + recorded.featuresLoadMs)} of the host's start-up`,
        key: 'featuresLoadMs',
        metric: recorded.featuresLoadMs,
      }]
    : [{ name: 'commands loaded right after activation', value: 'not measured', note: `${path.relative(root, file)} has no featuresLoadMs (an e2e run from before it was recorded)` }];
  return [{
    name: 'activation in the extension host (code loading + activate)',
    value: ms(recorded.activationMs),
    note: `code loading ${ms(recorded.activationCodeLoadingMs ?? NaN)}, activate ${ms(recorded.activationCallMs ?? NaN)}; measured by the e2e suite at ${recorded.measuredAt ?? '?'} in code-server ${recorded.codeServer ?? '?'}`,
    key: 'activationMs',
    metric: recorded.activationMs,
    target: { op: '<=', value: ACTIVATION_TARGET_MS },
  }, ...features];
}

function coldStartResults(): BenchResult[] {
  const cli = path.join(dist, 'cli.js');
  if (!fs.existsSync(cli)) return [{ name: 'analyze cold start', value: 'not measured', note: 'dist/cli.js is not built: run `npm run build` first' }];
  const sample = path.join(root, 'samples', 's1-single-row-inserts.sql');
  const bare: number[] = [];
  const analyze: number[] = [];
  timeProcess([cli, 'analyze', sample]);
  // Interleaved, so a busy moment of the machine falls on both.
  for (let i = 0; i < RUNS; i++) {
    bare.push(timeProcess(['-e', '0']));
    analyze.push(timeProcess([cli, 'analyze', sample]));
  }
  const analyzeMs = median(analyze);
  const bareMs = median(bare);
  return [
    { name: 'node start, nothing loaded (node -e 0)', value: ms(bareMs), note: `median of ${RUNS}; the floor under any CLI start` },
    {
      name: 'analyze cold start (node dist/cli.js analyze s1, whole process)',
      value: ms(analyzeMs),
      note: `median of ${RUNS}, interleaved with the bare start; ${ms(analyzeMs - bareMs)} above it; ${hostLoad()}`,
      key: 'analyzeColdStartMs',
      metric: analyzeMs,
      target: { op: '<=', value: COLD_START_TARGET_MS },
    },
  ];
}

export async function run(): Promise<BenchResult[]> {
  return [...bundleResults(), ...activationResults(), ...coldStartResults()];
}
