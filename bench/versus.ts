// `npm run bench:versus -- <ref>... [--rounds N]`: the T-SQL core of this checkout beside the same core at other
// commits, on one machine in one run, so "the figures hold" is a comparison rather than two tables from different days.
// Each commit's src/ is taken with `git archive`, bundled as bench/tsql.bench.ts bundles it, and measured by
// bench/tsql-throughput.ts in a fresh process on this checkout's 10 MiB script; the processes alternate (this checkout,
// then each ref, N rounds), so a change in the host's load falls on all of them. A process's figure is its median of
// 7 runs; the table gives, per commit, the lowest and the median of those figures over the rounds (CPU time), and the
// median's ratio to this checkout's. It changes nothing in the checkout.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ThroughputResult } from './tsql-throughput';
import { bundleCore, throughputInChild } from './tsql.bench';
import { hostLoad } from './types';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The figures compared, each a CPU time in ms from one process. */
export const FIGURES = {
  lexStructure: 'lex + GO split + structure, 10 MiB',
  lexOnly: 'lex only, 10 MiB',
  analyze: 'analyze() incl. ranges and diagnostics, 10 MiB',
  byteScan: 'byte scan (the machine, not the code)',
} as const;
export type Figure = keyof typeof FIGURES;

export interface Summary {
  label: string;
  figure: Figure;
  min: number;
  median: number;
  /** median ÷ the first label's median (1 for the first). */
  ratio: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Per label (the first is the baseline) and figure: lowest and median CPU ms over the rounds, and the median's ratio. */
export function summarise(samples: ReadonlyMap<string, readonly ThroughputResult[]>): Summary[] {
  const labels = [...samples.keys()];
  const out: Summary[] = [];
  for (const figure of Object.keys(FIGURES) as Figure[]) {
    const medians = new Map(labels.map((label) => [label, median(samples.get(label)!.map((r) => r[figure].cpu))]));
    const base = medians.get(labels[0]!)!;
    for (const label of labels) {
      const cpus = samples.get(label)!.map((r) => r[figure].cpu);
      out.push({ label, figure, min: Math.min(...cpus), median: medians.get(label)!, ratio: medians.get(label)! / base });
    }
  }
  return out;
}

export interface VersusArgs {
  refs: string[];
  rounds: number;
}

export function parseVersusArgs(argv: readonly string[]): VersusArgs {
  const refs: string[] = [];
  let rounds = 4;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--rounds') {
      rounds = Number(argv[++i]);
      if (!Number.isInteger(rounds) || rounds < 1 || rounds > 50) throw new Error('--rounds takes a whole number from 1 to 50.');
    } else if (arg.startsWith('-')) {
      throw new Error(`Unknown option ${arg}. Usage: npm run bench:versus -- <ref>... [--rounds N]`);
    } else {
      refs.push(arg);
    }
  }
  if (refs.length === 0) throw new Error('Name at least one commit to compare with, e.g. npm run bench:versus -- main~20');
  return { refs, rounds };
}

/** `ref`'s src/ in a folder of its own under `dir` (git archive | tar), resolved to its commit first. */
function checkoutSrc(ref: string, dir: string): { commit: string; tree: string } {
  const commit = execFileSync('git', ['rev-parse', '--verify', '--short', `${ref}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
  const tree = path.join(dir, commit);
  fs.mkdirSync(tree, { recursive: true });
  const archive = path.join(dir, `${commit}.tar`);
  execFileSync('git', ['archive', '--format=tar', '-o', archive, commit, 'src'], { cwd: root });
  execFileSync('tar', ['-xf', archive, '-C', tree]);
  return { commit, tree };
}

async function main(): Promise<void> {
  const { refs, rounds } = parseVersusArgs(process.argv.slice(2));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-versus-'));
  try {
    const bundles: Array<{ label: string; bundle: string }> = [{ label: 'this checkout', bundle: await bundleCore(path.join(dir, 'this')) }];
    for (const ref of refs) {
      const { commit, tree } = checkoutSrc(ref, dir);
      bundles.push({ label: ref === commit ? commit : `${ref} (${commit})`, bundle: await bundleCore(path.join(dir, `${commit}-bundle`), tree) });
    }
    const samples = new Map<string, ThroughputResult[]>(bundles.map((b) => [b.label, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const { label, bundle } of bundles) {
        process.stderr.write(`round ${round}/${rounds}: ${label} ...\n`);
        samples.get(label)!.push(throughputInChild(bundle));
      }
    }
    const width = Math.max(...bundles.map((b) => b.label.length));
    console.log(`CPU ms per process (median of 7 runs each), ${rounds} alternating rounds; ${hostLoad()} at the end`);
    for (const s of summarise(samples)) {
      if (s.label === bundles[0]!.label) console.log(`\n${FIGURES[s.figure]}`);
      console.log(`  ${s.label.padEnd(width)}  lowest ${s.min.toFixed(0).padStart(5)}  median ${s.median.toFixed(0).padStart(5)}  ${s.ratio.toFixed(2)}x this checkout`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
