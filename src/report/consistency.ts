// The Consistency block of a report: each run's cross-checks (profile/consistency.ts) summed up per check over the
// runs shown — disagrees when any run disagrees, with that run's figures — as the model carries it to the Markdown, the
// CLI text, the JSON document and the panel. A disagreement is also put next to the metric rows it concerns.
// No server, probe or driver imports: the webview bundle renders the same model.
import type { ConsistencyCheck, ConsistencyCheckId, ConsistencyStatus, RunResult } from '../profile/types';

/** One check over the runs of a report. */
export interface ConsistencySummary {
  check: ConsistencyCheckId;
  label: string;
  status: ConsistencyStatus;
  /** The figures of the run that decided the status (the first disagreeing run, else the only run), or the tally. */
  detail: string;
  concerns: string[];
  /** How many runs passed, disagreed, or could not make the check. */
  runs: { passed: number; disagrees: number; notPossible: number };
  /** Largest difference over the runs that made the check; null when none could. */
  differencePercent: number | null;
  /** The WRITELOG time check only: the duration unit as read and as inferred (null for the other checks). */
  unit: ConsistencyCheck['unit'] | null;
}

/** A disagreement as a metric row carries it. */
export interface RowDisagreement {
  check: ConsistencyCheckId;
  status: 'disagrees';
  detail: string;
}

function runName(r: RunResult): string {
  const mode = r.mode ?? r.delayedDurability ?? 'RUN';
  const rep = r.repetition !== null ? ` run ${r.repetition + 1}` : '';
  const level = r.concurrency ? ` at ${r.concurrency.sessions} session${r.concurrency.sessions === 1 ? '' : 's'}` : '';
  return `${mode}${rep}${level}`;
}

/** Per check, over the measured runs that carry checks (results from before issue 33 carry none). */
export function summarizeConsistency(runs: readonly RunResult[]): ConsistencySummary[] {
  const measured = runs.filter((r) => !r.warmup && Array.isArray(r.consistency));
  const byCheck = new Map<ConsistencyCheckId, Array<{ run: RunResult; c: ConsistencyCheck }>>();
  for (const run of measured) for (const c of run.consistency!) byCheck.set(c.check, [...(byCheck.get(c.check) ?? []), { run, c }]);
  const out: ConsistencySummary[] = [];
  const many = measured.length > 1;
  for (const [check, all] of byCheck) {
    const tally = { passed: 0, disagrees: 0, notPossible: 0 };
    for (const { c } of all) {
      if (c.status === 'passed') tally.passed++;
      else if (c.status === 'disagrees') tally.disagrees++;
      else tally.notPossible++;
    }
    const made = all.filter(({ c }) => c.differencePercent !== null);
    const differencePercent = made.length > 0 ? Math.max(...made.map(({ c }) => c.differencePercent!)) : null;
    const firstDisagreeing = all.find(({ c }) => c.status === 'disagrees');
    const firstPassed = all.find(({ c }) => c.status === 'passed');
    const firstNotPossible = all.find(({ c }) => c.status === 'not-possible');
    const status: ConsistencyStatus = tally.disagrees > 0 ? 'disagrees' : tally.passed > 0 ? 'passed' : 'not-possible';
    const decided = firstDisagreeing ?? firstPassed ?? firstNotPossible!;
    let detail = decided.c.detail;
    if (many) {
      const total = all.length;
      if (status === 'disagrees') detail = `Disagrees in ${tally.disagrees} of ${total} runs; ${runName(decided.run)}: ${decided.c.detail}`;
      else if (status === 'passed') {
        detail = `Passed in ${tally.passed} of ${total} runs (largest difference ${differencePercent?.toFixed(1) ?? '0.0'} %)`;
        detail += firstNotPossible ? `; not possible in ${tally.notPossible}: ${firstNotPossible.c.detail.replace(/^Not possible: /, '')}` : '.';
      } else detail = `Not possible in any of the ${total} runs. ${decided.c.detail}`;
    }
    out.push({ check, label: decided.c.label, status, detail, concerns: decided.c.concerns, runs: tally, differencePercent, unit: (firstDisagreeing ?? firstPassed)?.c.unit ?? null });
  }
  return out;
}

/** The disagreements that concern one metric row (by its id), for the row itself to show. */
export function disagreementsOf(summaries: readonly ConsistencySummary[], metricId: string): RowDisagreement[] {
  return summaries.filter((s) => s.status === 'disagrees' && s.concerns.includes(metricId)).map((s) => ({ check: s.check, status: 'disagrees', detail: s.detail }));
}

export const CONSISTENCY_STATUS_TEXT: Record<ConsistencyStatus, string> = { passed: 'passed', disagrees: 'DISAGREES', 'not-possible': 'not possible' };

/** One sentence for the statements table when the per-statement WRITELOG disagrees with the session's own; null when not. */
export function statementsDisagreementText(summaries: readonly ConsistencySummary[] | undefined): string | null {
  const rows = disagreementsOf(summaries ?? [], 'statements');
  if (rows.length === 0) return null;
  // Named by their labels, never their ids (issue 28).
  const names = rows.map((r) => summaries?.find((s) => s.check === r.check)?.label ?? 'a cross-check').join('; ');
  return `⚠ The per-statement WRITELOG figures disagree with the session's own waits (${names}): ${rows[0]!.detail} See Consistency.`;
}

/** The marker a disagreeing metric row gets in text tables (Markdown, CLI). */
export function disagreementMarker(rows: readonly RowDisagreement[]): string {
  // The checks are named in the Consistency section by their labels; their ids are not for people (issue 28).
  return rows.length === 0 ? '' : ` ⚠ sources disagree (${rows.length === 1 ? 'one check' : `${rows.length} checks`}; see Consistency)`;
}

/** The Markdown section (also the CLI's text output): one line per check, disagreements first. */
export function consistencyMarkdownLines(summaries: readonly ConsistencySummary[], md: (text: string) => string): string[] {
  if (summaries.length === 0) return [];
  const order: ConsistencyStatus[] = ['disagrees', 'passed', 'not-possible'];
  const sorted = [...summaries].sort((a, b) => order.indexOf(a.status) - order.indexOf(b.status));
  const out = ['## Consistency', '', 'Independent sources of the same figure, reconciled on this server on every run:', ''];
  for (const s of sorted) out.push(`- **${CONSISTENCY_STATUS_TEXT[s.status]}** — ${md(s.label)}: ${md(s.detail)}`);
  return out;
}
