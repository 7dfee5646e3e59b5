// Precision per diagnostic code from a labelled random sample: findings merged into clusters of near-identical ones
// (same code, same normalised text around them), clusters drawn with a fixed seed, labels looked up by cluster key.
// The labelling rule (TP / FP / debatable) is in docs/analyze.md, "Measured precision".

import type { DiagnosticCode, DiagnosticSeverity } from '../src/tsql/types';
import type { Finding } from './eval-diagnostics-findings';
import { sampleByPriority } from './eval-diagnostics-sample';

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
  sample: { cluster: Cluster; label: Label | null }[];
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

export function clusterFindings(findings: readonly Finding[]): Cluster[] {
  const byKey = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = byKey.get(f.key);
    if (list) list.push(f); else byKey.set(f.key, [f]);
  }
  return [...byKey].map(([key, members]) => {
    const sorted = members.slice().sort(byPlace);
    const severity = sorted.reduce<DiagnosticSeverity>((s, f) => (RANK[f.severity] > RANK[s] ? f.severity : s), 'hint');
    return { key, code: sorted[0]!.code, findings: sorted, representative: sorted[0]!, severity };
  }).sort((a, b) => byPlace(a.representative, b.representative));
}

export interface ReportOptions {
  seed: number;
  /** Clusters drawn per code. */
  sampleSize: number;
  /** Count hint findings too (by default only information and warning, what the editor squiggles). */
  includeHints: boolean;
  codes?: readonly DiagnosticCode[] | undefined;
}

export function precisionReport(findings: readonly Finding[], labels: LabelFile, options: ReportOptions): CodeReport[] {
  const counted = (s: DiagnosticSeverity): boolean => options.includeHints || s !== 'hint';
  const clusters = clusterFindings(findings);
  const codes = options.codes ?? [...new Set(findings.map((f) => f.code))].sort();
  return codes.map((code) => {
    const mine = findings.filter((f) => f.code === code);
    const eligible = clusters.filter((c) => c.code === code && counted(c.severity));
    const sample = sampleByPriority(eligible, (c) => c.key, options.seed, options.sampleSize)
      .sort((a, b) => byPlace(a.representative, b.representative))
      .map((cluster) => ({ cluster, label: labels.labels[cluster.key] ?? null }));
    const count = (v: Verdict): number => sample.filter((s) => s.label?.verdict === v).length;
    const tp = count('tp'), fp = count('fp');
    return {
      code, findings: mine.filter((f) => counted(f.severity)).length, hintFindings: mine.filter((f) => f.severity === 'hint').length,
      clusters: eligible.length, sample, tp, fp, debatable: count('debatable'), unlabelled: sample.filter((s) => s.label === null).length,
      precision: tp + fp === 0 ? null : tp / (tp + fp),
    };
  });
}

export function percent(p: number | null): string {
  return p === null ? 'n/a' : `${Math.round(p * 1000) / 10} %`;
}

/** The table docs/analyze.md quotes: one row per code. */
export function formatReport(reports: readonly CodeReport[]): string {
  const header = ['code', 'findings', 'hints', 'clusters', 'sampled n', 'TP', 'FP', 'debatable', 'unlabelled', 'precision TP/(TP+FP)'];
  const rows = reports.map((r) => [r.code, r.findings, r.hintFindings, r.clusters, r.sample.length, r.tp, r.fp, r.debatable, r.unlabelled, percent(r.precision)].map(String));
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
