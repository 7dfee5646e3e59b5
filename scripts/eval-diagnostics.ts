// `npm run eval:diagnostics -- <checkout root> [--split tuning|heldout|delayed] ...`: precision of each diagnostic code
// on public repositories checked out locally (test/eval/manifest.json says which, at which commit). Fetches nothing.
// See docs/analyze.md, "Measured precision", for the split, the sampling and the labelling rule.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeScript } from '../src/cli/textDecoding';
import type { DiagnosticCode } from '../src/tsql/types';
import { collectFindings, type Manifest, type ManifestRepository } from './eval-diagnostics-findings';
import { formatReport, formatRepositories, percent, precisionReport, type CodeReport, type LabelFile } from './eval-diagnostics-report';
import type { Sampler } from './eval-diagnostics-sample';

const ROOT = path.resolve(__dirname, '..');
const DELAYED_CODES: DiagnosticCode[] = ['delayed-commit-needs-allowed', 'forced-durability-data-loss'];

const USAGE = `Usage: npm run eval:diagnostics -- <checkout root> [options]
  <checkout root>        folder holding one checkout per repository: <root>/<owner>+<name>/
  --split S              tuning (default), heldout (the current held-out set), heldoutN (round N's held-out
                         set, spent, now tuning data: heldout1 to heldout4 reproduce their measurements), or
                         delayed (scripts that use delayed durability)
  --manifest FILE        default test/eval/manifest.json
  --labels FILE          default test/eval/labels.json
  --sample N             clusters (or loops) drawn per code (default 40; delayed: all)
  --sampler S            clusters (rounds 1-4) or loops (one per loop, at most ceil(n / repositories) from
                         any repository before the others are exhausted); default: the round's, from the
                         manifest (clusters for tuning and delayed)
  --hints                count hint findings too (default: information and warning only)
  --show unlabelled|all  print the sampled findings (to label them)
  --json                 print the reports as JSON`;

interface Options {
  root: string;
  /** `heldoutN`: round N's held-out set (spent once the next round ran). */
  split: 'tuning' | 'heldout' | `heldout${number}` | 'delayed';
  manifest: string;
  labels: string;
  sample: number | null;
  /** null: the round's sampler (the manifest's `rounds[].sampler`), else clusters. */
  sampler: Sampler | null;
  hints: boolean;
  show: 'none' | 'unlabelled' | 'all';
  json: boolean;
}

export function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    root: '', split: 'tuning', manifest: path.join(ROOT, 'test/eval/manifest.json'), labels: path.join(ROOT, 'test/eval/labels.json'),
    sample: null, sampler: null, hints: false, show: 'none', json: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--split') {
      const v = value();
      if (v !== 'tuning' && v !== 'heldout' && v !== 'delayed' && !/^heldout[1-9][0-9]*$/.test(v)) {
        throw new Error(`--split must be tuning, heldout, heldoutN (a spent round: heldout1, heldout2...) or delayed, not ${v}`);
      }
      o.split = v as Options['split'];
    } else if (a === '--manifest') o.manifest = path.resolve(value());
    else if (a === '--labels') o.labels = path.resolve(value());
    else if (a === '--sample') {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) throw new Error('--sample must be a whole number ≥ 1');
      o.sample = n;
    } else if (a === '--sampler') {
      const v = value();
      if (v !== 'clusters' && v !== 'loops') throw new Error('--sampler must be clusters or loops');
      o.sampler = v;
    } else if (a === '--hints') o.hints = true;
    else if (a === '--show') {
      const v = value();
      if (v !== 'unlabelled' && v !== 'all') throw new Error('--show must be unlabelled or all');
      o.show = v;
    } else if (a === '--json') o.json = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else if (o.root === '') o.root = path.resolve(a);
    else throw new Error(`one checkout root only (got ${o.root} and ${a})`);
  }
  if (o.root === '') throw new Error('name the folder that holds the checkouts');
  return o;
}

export interface Evaluation {
  split: Options['split'];
  sampler: Sampler;
  repositories: string[];
  files: number;
  missing: string[];
  skipped: number;
  reports: CodeReport[];
}

export function evaluate(o: Options): Evaluation {
  const manifest = JSON.parse(fs.readFileSync(o.manifest, 'utf8')) as Manifest;
  const labels: LabelFile = fs.existsSync(o.labels) ? JSON.parse(fs.readFileSync(o.labels, 'utf8')) as LabelFile : { labels: {} };
  const spentRound = /^heldout\d+$/.test(o.split) ? Number(o.split.slice('heldout'.length)) : null;
  const entries: ManifestRepository[] = o.split === 'delayed'
    ? manifest.delayedDurability ?? []
    : spentRound !== null
      ? manifest.repositories.filter((r) => r.heldOutIn === spentRound)
      : manifest.repositories.filter((r) => r.split === o.split);
  // The sampler a round was measured with: its own (a held-out split names the round its repositories were held out in).
  const round = spentRound ?? (o.split === 'heldout' ? entries[0]?.heldOutIn ?? null : null);
  const sampler = o.sampler ?? manifest.rounds?.find((r) => r.round === round)?.sampler ?? 'clusters';
  const collected = collectFindings(o.root, entries, manifest.exclude);
  const delayed = o.split === 'delayed';
  const findings = delayed ? collected.findings.filter((f) => DELAYED_CODES.includes(f.code)) : collected.findings;
  const reports = precisionReport(findings, labels, {
    seed: manifest.seed,
    // The delayed-durability set is small: every finding is labelled, hints included (one of its codes is a hint).
    sampleSize: o.sample ?? (delayed ? Number.MAX_SAFE_INTEGER : 40),
    includeHints: o.hints || delayed,
    codes: delayed ? DELAYED_CODES : undefined,
    sampler,
  });
  return {
    split: o.split, sampler, repositories: [...new Set(entries.map((e) => e.repository))], files: collected.files,
    missing: collected.missing, skipped: collected.skipped.length, reports,
  };
}

function showSample(o: Options, reports: readonly CodeReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    for (const { cluster, label, unitClusters } of r.sample) {
      if (o.show === 'unlabelled' && label !== null) continue;
      const f = cluster.representative;
      lines.push('', `## ${cluster.key}  ${cluster.severity}  ${label ? `${label.verdict}: ${label.why}` : 'UNLABELLED'}`,
        `   ${f.repository}:${f.path}:${f.line}:${f.column}  (${cluster.findings.length} in cluster${unitClusters > 1 ? `; its loop holds ${unitClusters} clusters` : ''})`, `   ${f.message}`);
      const file = path.join(o.root, f.repository.replace('/', '+'), f.path);
      const text = decodeScript(fs.readFileSync(file)).text.split(/\r\n|\r|\n/);
      for (let l = Math.max(1, f.line - 6); l <= Math.min(text.length, f.line + 6); l++) lines.push(`${l === f.line ? '>' : ' '}${String(l).padStart(6)} ${text[l - 1]}`);
    }
  }
  return lines.join('\n');
}

function main(): void {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`eval:diagnostics: ${(e as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const result = evaluate(o);
  if (o.json) { process.stdout.write(`${JSON.stringify(result, null, 2)}\n`); return; }
  const out: string[] = [
    `split ${result.split}: ${result.repositories.length} repositories, ${result.files} files, sampler ${result.sampler}` +
    (result.skipped > 0 ? ` (${result.skipped} not text, skipped)` : ''),
  ];
  if (result.missing.length > 0) out.push(`MISSING checkouts (not evaluated): ${result.missing.join(', ')}`);
  out.push('', formatReport(result.reports), '');
  for (const r of result.reports) out.push(`precision ${r.code} ${percent(r.precision)} (TP ${r.tp}, FP ${r.fp}, n ${r.sample.length})`);
  out.push('', formatRepositories(result.reports));
  if (o.show !== 'none') out.push(showSample(o, result.reports));
  process.stdout.write(`${out.join('\n')}\n`);
  if (result.missing.length > 0) process.exitCode = 1;
}

if (require.main === module) main();
