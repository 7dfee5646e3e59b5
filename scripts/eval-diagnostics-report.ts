// Precision per diagnostic code from a labelled random sample: findings merged into clusters of near-identical ones
// (same code, same normalised text around them), clusters drawn with a fixed seed, labels looked up by cluster key.
// The labelling rule (TP / FP / debatable) is in docs/analyze.md, "Measured precision".

import type { DiagnosticCode, DiagnosticSeverity } from '../src/tsql/types';
import type { Finding } from './eval-diagnostics-findings';
import { drawPerRepository, loopUnits, sampleByPriority, type Sampler } from './eval-diagnostics-sample';

export type Verdict = 'tp' | 'fp' | 'debatable';

export interface Label {
  verdict: Verdict;
  /** Why, in our own words (never third-party code). */
  why: string;
  /** Where the cluster was first seen (`owner/name:path:line`), for the reader; not part of the key. */
  example?: string;
}

export interface LabelFile {
  labels: Record<string, Label>;
}

export interface Cluster {
  key: string;
  code: DiagnosticCode;
  findings: Finding[];
  /** The first finding by repository, path and line: the one shown for labelling. */
  representative: Finding;
  /** The most severe severity any member reports at. */
  severity: DiagnosticSeverity;
}

export interface CodeReport {
  code: DiagnosticCode;
  /** Findings (not clusters) at a counted severity. */
  findings: number;
  /** Findings reported as hints only (no squiggle): not counted unless asked. */
  hintFindings: number;
  clusters: number;
  /** How the sample was drawn; with `loops`, `units` counts the loops (and lone statements) the clusters form. */
  sampler: Sampler;
  units: number;
  /** Units (loops, or clusters) each repository has, by its name. */
  unitsByRepository: Record<string, number>;
  /** Each drawn cluster, its label and (per-loop sampler) how many clusters its loop holds (1 for clusters). */
  sample: { cluster: Cluster; label: Label | null; unitClusters: number }[];
  tp: number;
  fp: number;
  debatable: number;
  unlabelled: number;
  /** TP / (TP + FP); null when nothing labelled TP or FP. */
  precision: number | null;
}

const RANK: Record<DiagnosticSeverity, number> = { hint: 0, information: 1, warning: 2 };

function byPlace(a: Finding, b: Finding): number {
  return a.repository.localeCompare(b.repository) || a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column;
}

/**
 * Findings merged into clusters: the same key (the same text around them) or the same family (copies of a routine in
 * several schema versions, a script copied with other names) are one cluster, so each copy counts once.
 */
export function clusterFindings(findings: readonly Finding[]): Cluster[] {
  // Union-find over findings, joined through their keys and their families.
  const parent = findings.map((_, i) => i);
  const root = (i: number): number => { while (parent[i] !== i) { parent[i] = parent[parent[i]!]!; i = parent[i]!; } return i; };
  const firstBy = new Map<string, number>();
  findings.forEach((f, i) => {
    for (const id of [`k:${f.key}`, `f:${f.family}`]) {
      const seen = firstBy.get(id);
      if (seen === undefined) firstBy.set(id, i); else parent[root(i)] = root(seen);
    }
  });
  const groups = new Map<number, Finding[]>();
  findings.forEach((f, i) => {
    const r = root(i);
    const list = groups.get(r);
    if (list) list.push(f); else groups.set(r, [f]);
  });
  return [...groups.values()].map((members) => {
    const sorted = members.slice().sort(byPlace);
    const severity = sorted.reduce<DiagnosticSeverity>((s, f) => (RANK[f.severity] > RANK[s] ? f.severity : s), 'hint');
    return { key: sorted[0]!.key, code: sorted[0]!.code, findings: sorted, representative: sorted[0]!, severity };
  }).sort((a, b) => byPlace(a.representative, b.representative));
}

/** A cluster's label: its representative's, else the first member key that has one (a copy labelled earlier). */
export function labelOf(cluster: Cluster, labels: LabelFile): Label | null {
  const own = labels.labels[cluster.key];
  if (own !== undefined) return own;
  for (const f of cluster.findings) {
    const label = labels.labels[f.key];
    if (label !== undefined) return label;
  }
  return null;
}

export interface ReportOptions {
  seed: number;
  /** Clusters drawn per code. */
  sampleSize: number;
  /** Count hint findings too (by default only information and warning, what the editor squiggles). */
  includeHints: boolean;
  codes?: readonly DiagnosticCode[] | undefined;
  /** Default `clusters`: what rounds 1–4 were measured with. */
  sampler?: Sampler | undefined;
}

/** The loops a cluster's findings sit in (their outermost loops), named across files. */
function loopsOf(cluster: Cluster): string[] {
  const out: string[] = [];
  for (const f of cluster.findings) if (f.loop !== null) out.push(`${f.repository}\0${f.path}\0${f.loop}`);
  return out;
}

/** The sample of one code's eligible clusters, by the sampler asked for. */
function draw(eligible: readonly Cluster[], options: ReportOptions): { repositories: string[]; drawn: { cluster: Cluster; unitClusters: number }[] } {
  if ((options.sampler ?? 'clusters') === 'clusters') {
    return {
      repositories: eligible.map((c) => c.representative.repository),
      drawn: sampleByPriority(eligible, (c) => c.key, options.seed, options.sampleSize).map((cluster) => ({ cluster, unitClusters: 1 })),
    };
  }
  const units = loopUnits(eligible, (c) => ({ key: c.key, repository: c.representative.repository, loops: loopsOf(c) }), options.seed);
  return {
    repositories: units.map((u) => u.repository),
    drawn: drawPerRepository(units, options.sampleSize).map((u) => ({ cluster: u.items[0]!, unitClusters: u.items.length })),
  };
}

export function precisionReport(findings: readonly Finding[], labels: LabelFile, options: ReportOptions): CodeReport[] {
  const counted = (s: DiagnosticSeverity): boolean => options.includeHints || s !== 'hint';
  const clusters = clusterFindings(findings);
  const codes = options.codes ?? [...new Set(findings.map((f) => f.code))].sort();
  return codes.map((code) => {
    const mine = findings.filter((f) => f.code === code);
    const eligible = clusters.filter((c) => c.code === code && counted(c.severity));
    const { repositories, drawn } = draw(eligible, options);
    const unitsByRepository: Record<string, number> = {};
    for (const repo of repositories) unitsByRepository[repo] = (unitsByRepository[repo] ?? 0) + 1;
    const sample = drawn
      .sort((a, b) => byPlace(a.cluster.representative, b.cluster.representative))
      .map(({ cluster, unitClusters }) => ({ cluster, label: labelOf(cluster, labels), unitClusters }));
    const count = (v: Verdict): number => sample.filter((s) => s.label?.verdict === v).length;
    const tp = count('tp'), fp = count('fp');
    return {
      code, findings: mine.filter((f) => counted(f.severity)).length, hintFindings: mine.filter((f) => f.severity === 'hint').length,
      clusters: eligible.length, sampler: options.sampler ?? 'clusters', units: repositories.length, unitsByRepository, sample, tp, fp, debatable: count('debatable'), unlabelled: sample.filter((s) => s.label === null).length,
      precision: tp + fp === 0 ? null : tp / (tp + fp),
    };
  });
}

export function percent(p: number | null): string {
  return p === null ? 'n/a' : `${Math.round(p * 1000) / 10} %`;
}

/** The table docs/analyze.md quotes: one row per code (with a `loops` column when the sample drew loops). */
export function formatReport(reports: readonly CodeReport[]): string {
  const loops = reports.some((r) => r.sampler === 'loops');
  const header = ['code', 'findings', 'hints', 'clusters', 'sampled n', 'TP', 'FP', 'debatable', 'unlabelled', 'precision TP/(TP+FP)'];
  const rows = reports.map((r) => [r.code, r.findings, r.hintFindings, r.clusters, r.sample.length, r.tp, r.fp, r.debatable, r.unlabelled, percent(r.precision)].map(String));
  if (loops) {
    header.splice(4, 0, 'loops');
    reports.forEach((r, i) => rows[i]!.splice(4, 0, String(r.units)));
  }
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** Per code, what each repository has and gives to the sample (units: loops or clusters, as the sampler drew). */
export function formatRepositories(reports: readonly CodeReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    const drawn = new Map<string, number>();
    for (const s of r.sample) drawn.set(s.cluster.representative.repository, (drawn.get(s.cluster.representative.repository) ?? 0) + 1);
    const parts = Object.entries(r.unitsByRepository).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([repo, n]) => `${repo} ${drawn.get(repo) ?? 0} of ${n}`);
    lines.push(`sampled ${r.code} by repository (${r.sampler}): ${parts.join(', ') || 'none'}`);
  }
  return lines.join('\n');
}
