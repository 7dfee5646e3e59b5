// The cause model in words: the verdict's first line (the dominant cause, what the delayed mode saved, whether delayed
// durability is the lever) and the Causes list of the Diagnosis section (Markdown and CLI text). Types and units
// only, so the webview bundle renders the same sentences.
import { formatDuration, formatShare } from '../units';
import type { Cause, CauseAssessment, CauseId, DelayedDurabilityHelp } from './types';

/** The lever in a few words per cause (catalog.ts has the full fix); kept here so the webview needs no catalog import. */
const LEVER: Record<CauseId, string> = {
  'log-disk': 'delayed durability hides it (and loses the last commits on a crash); faster log storage fixes it',
  'tiny-flushes': 'delayed durability is the lever — or batching the commits',
  'group-commit': 'delayed durability is only partly the lever (the sessions already share flushes); fewer, larger transactions help more',
  'log-writer-limit': 'delayed durability is only partly the lever (the log still has to be written as fast as it is made); faster log storage is',
  'ag-sync-commit': "delayed durability only ends the wait by giving up the secondary's copy of each commit; the secondary's log disk and the network are the lever",
  'log-rate-governor': 'delayed durability is not the lever, nor is batching; a higher service objective (or less log) is',
  'hyperscale-log-service': 'delayed durability is not the lever; the lagging Hyperscale component is',
  tempdb: 'delayed durability has nothing to remove here',
  'not-log': 'delayed durability is not the lever; the other waits are',
};

export const HELPS_TEXT: Record<string, string> = { true: 'yes', false: 'no', partly: 'partly' };

export function helpsText(h: DelayedDurabilityHelp): string {
  return HELPS_TEXT[String(h)] ?? String(h);
}

/** What a comparison's delayed mode did to the elapsed time (verdict.ts's speed-up), for the first line. */
export interface CauseOutcome {
  mode: string;
  /** baseline elapsed ÷ mode elapsed (2 = twice as fast). */
  factor: number;
  conclusive: boolean;
  /** One run per mode: the saving is shown, marked indicative, never called noise or conclusive. */
  indicative?: boolean;
}

export interface CauseLead {
  cause: CauseId | null;
  text: string;
  tone: 'good' | 'bad' | 'neutral';
  helpsDelayedDurability: DelayedDurabilityHelp | null;
}

/** "Not measured: x" → "x" (the sentence around it already says not measured). */
function withoutPrefix(reason: string): string {
  return reason.replace(/^Not measured:\s*/i, '');
}

function outcomeText(o: CauseOutcome): string {
  const measured = o.factor >= 1 ? `${o.mode} saves ${Math.round((1 - 1 / o.factor) * 100)} %` : `${o.mode} is ${Math.round((1 / o.factor - 1) * 100)} % slower`;
  if (o.indicative) return `${measured} (indicative: one run per mode)`;
  if (!o.conclusive) return `${o.mode} saves no time beyond the noise`;
  return measured;
}

/** The verdict's first line; null for data without causes (results from before issue 29). */
export function causeLead(a: CauseAssessment | null | undefined, outcome: CauseOutcome | null): CauseLead | null {
  if (!a) return null;
  const top = a.causes.find((c) => c.cause === a.dominant);
  if (!top) {
    const missing = a.causes.find((c) => c.notMeasured);
    const text = missing
      ? `Causes of commit time not measured — ${withoutPrefix(missing.notMeasured!.reason)}${missing.notMeasured!.grant ? ` To enable: ${missing.notMeasured!.grant.replace(/\r?\n/g, ' ')}` : ''}`
      : 'No commit-related time to attribute: the session recorded no time at all';
    return { cause: null, text, tone: 'neutral', helpsDelayedDurability: null };
  }
  const result = outcome ? outcomeText(outcome) : `${formatShare(top.share ?? 0)} of the session's time`;
  return {
    cause: top.cause,
    text: `${top.summary}: ${result} — ${LEVER[top.cause]}.`,
    tone: top.helpsDelayedDurability === true ? 'good' : 'neutral',
    helpsDelayedDurability: top.helpsDelayedDurability,
  };
}

function shareText(c: Cause): string {
  if (c.share === null) return 'not measured';
  return `${formatShare(c.share)}${c.ms !== null && c.ms > 0 ? ` (${formatDuration(c.ms)})` : ''}`;
}

/** The Causes list under ## Diagnosis: every cause, its share, evidence, whether delayed durability helps, the fix. */
export function causesMarkdownLines(a: CauseAssessment, column: string, md: (s: string) => string, others: Record<string, CauseAssessment> = {}): string[] {
  const out = [`### Causes of commit time${column === 'RUN' ? '' : ` (${md(column)})`}`, ''];
  for (const n of a.notes) out.push(`_${md(n)}_`);
  if (a.notes.length > 0) out.push('');
  for (const c of a.causes) {
    if (c.notMeasured) continue;
    out.push(`- **${md(c.label)}** — ${md(shareText(c))}; delayed durability helps: ${helpsText(c.helpsDelayedDurability)}.`);
    if (c.share !== null && c.share > 0) {
      out.push(`  - ${md(c.summary)}.`);
      for (const e of c.evidence) out.push(`  - ${md(e)}`);
      out.push(`  - Why delayed durability ${c.helpsDelayedDurability === true ? 'helps' : c.helpsDelayedDurability === 'partly' ? 'helps only partly' : 'does not help'}: ${md(c.helpsWhy)}`);
      out.push(`  - Fix: ${md(c.fix)}`);
    } else if (c.evidence[0]) {
      out.push(`  - ${md(c.evidence[0])}`);
    }
  }
  // Causes not measured for the same reason share one line: the reason and the GRANT once.
  for (const g of notMeasuredGroups(a)) {
    out.push(`- ${g.causes.map((c) => `**${md(c.label)}**`).join(', ')} — not measured: ${md(withoutPrefix(g.reason))}${g.grant ? ` To enable: \`${md(g.grant.replace(/\r?\n/g, ' '))}\`` : ''}`);
  }
  for (const [col, other] of Object.entries(others)) {
    const top = other.causes.filter((c) => c.share !== null && c.share > 0).slice(0, 3);
    const missing = top.length === 0 ? notMeasuredGroups(other)[0] : undefined;
    if (missing) out.push('', `In ${md(col)}: not measured — ${md(withoutPrefix(missing.reason))}${missing.grant ? ` To enable: \`${md(missing.grant.replace(/\r?\n/g, ' '))}\`` : ''}`);
    else out.push('', `In ${md(col)}: ${top.length > 0 ? top.map((c) => `${md(c.label)} ${formatShare(c.share!)}`).join(', ') : 'no time attributed'}.`);
  }
  return out;
}

/** The causes not measured, grouped by their reason and GRANT (in ranking order). */
export function notMeasuredGroups(a: CauseAssessment): Array<{ reason: string; grant: string | null; causes: Cause[] }> {
  const groups: Array<{ reason: string; grant: string | null; causes: Cause[] }> = [];
  for (const c of a.causes) {
    if (!c.notMeasured) continue;
    const g = groups.find((x) => x.reason === c.notMeasured!.reason && x.grant === c.notMeasured!.grant);
    if (g) g.causes.push(c);
    else groups.push({ reason: c.notMeasured.reason, grant: c.notMeasured.grant, causes: [c] });
  }
  return groups;
}
