// The answer at a glance: one headline block that opens the panel, the Markdown report and the CLI output — what was
// compared, the speed-up with its range and whether it is conclusive, log flushes per commit in each mode, where the
// time went (the top wait and its share), what the delayed mode risks, and whether the original setting is back.
import type { ComparisonModel, MetricRow } from './comparisonModel';
import { causeLead, type CauseLead } from './causes/text';
import { concurrencyHeadline } from './concurrency';
import { formatBytes, formatCount, formatDuration, formatFactor, formatShare } from './units';
import { conclusiveness, MIN_RUNS_FOR_CONCLUSIVE, MORE_RUNS_HINT, runsText } from './stats';
import { MENTION_SHARE, nonWaitLeadText, nothingRecordedText, timeSplit, unrecordedText } from './timeSplit';

/**
 * The largest log block SQL Server writes: under delayed durability the log is flushed when a block reaches it, so
 * at most about this much committed log is in memory only (Paul Randal, "Delayed Durability in SQL Server 2014",
 * sqlskills.com; team reference sqlserver.md §DELAYED_DURABILITY). Microsoft Learn gives no size bound.
 */
export const LOG_BLOCK_MAX_BYTES = 60 * 1024;

/**
 * What Microsoft Learn says can be lost ("Control Transaction Durability", section "When can I lose data?"): on a
 * catastrophic event such as a server crash, the data of all committed transactions not yet saved to disk; a planned
 * or unplanned shutdown/restart is to be treated the same way.
 * https://learn.microsoft.com/sql/relational-databases/logs/control-transaction-durability#bkmk_DataLoss
 */
export const LOSS_SOURCE_TEXT =
  'on a crash, shutdown or restart, the data of committed transactions whose log is not yet on disk is lost (Microsoft Learn, "Control Transaction Durability": When can I lose data?)';

export type VerdictTone = 'good' | 'bad' | 'neutral';

export interface VerdictFact {
  id: 'compared' | 'speedup' | 'flushes' | 'time' | 'exposure' | 'restore' | 'failure' | 'cancelled';
  label: string;
  text: string;
  tone: VerdictTone;
}

export interface VerdictSpeedup {
  mode: string;
  baseline: string;
  /** median elapsed of the baseline ÷ median elapsed of the mode (3 = three times faster). */
  factor: number;
  /** The same from the runs' extremes: slowest mode run vs fastest baseline run … and the reverse; null if a divisor is 0. */
  min: number | null;
  max: number | null;
  /** Conclusive (issue 28): at least two runs per mode, both ends of the range known, and the ranges apart. */
  conclusive: boolean;
  /** Not conclusive for want of a spread (an end of the range unknown). */
  noSpread?: boolean;
  /** Measured runs of each side: one run per mode is indicative, never conclusive. */
  runs: { baseline: number; mode: number };
  /** Why it is or is not conclusive, in words (exports and the agent tools carry it). */
  why: string;
}

export interface VerdictModel {
  /**
   * The first line (issue 29): the dominant cause of commit time, what the delayed mode saved, and whether delayed
   * durability is the lever (report/causes). Null when the model has no causes (older data) or the workload failed.
   */
  lead: CauseLead | null;
  /** One sentence: the speed-up (or the failure, or the profile's elapsed time). */
  headline: string;
  headlineTone: VerdictTone;
  speedup: VerdictSpeedup | null;
  facts: VerdictFact[];
}

/** What the report model does not carry: how the comparison ended for the database. */
export interface VerdictContext {
  restore?: { ok: boolean; originalSetting: string | null; verifiedSetting: string | null; message: string } | null;
  /** A note on the workload (file name, "batch 3 after setup batches 1–2"). */
  workload?: string | null;
}

const DELAYED = new Set(['FORCED', 'ALLOWED']);

function row(model: ComparisonModel, id: string): MetricRow | undefined {
  return model.rows.find((r) => r.id === id);
}
function med(model: ComparisonModel, id: string, column: string): number | null {
  return row(model, id)?.cells[column]?.median ?? null;
}

function speedupOf(model: ComparisonModel, mode: string): VerdictSpeedup | null {
  const r = row(model, 'elapsed');
  const b = r?.cells[model.baseline];
  const m = r?.cells[mode];
  const cell = r?.ratios[mode];
  if (!b || !m || m.median <= 0 || !cell) return null;
  const min = m.max > 0 ? b.min / m.max : null;
  const max = m.min > 0 ? b.max / m.min : null;
  // Conclusive (issue 28): two runs or more per mode, the min–max ranges apart AND the spread stated — both ends of the
  // range known (a zero elapsed time leaves an end unknown: "range unknown" is never called conclusive).
  const spreadKnown = min !== null && max !== null;
  const judged = conclusiveness(b, m, [model.baseline, mode]);
  const why = !spreadKnown && judged.conclusive ? 'the spread is not known: a run took no measurable time' : judged.why;
  return { mode, baseline: model.baseline, factor: b.median / m.median, min, max, conclusive: judged.conclusive && spreadKnown, noSpread: !spreadKnown, runs: { baseline: b.n, mode: m.n }, why };
}

function spreadText(s: Pick<VerdictSpeedup, 'min' | 'max'>): string {
  if (s.min === null || s.max === null) return 'range unknown';
  return formatFactor(s.min) === formatFactor(s.max) ? formatFactor(s.min) : `${formatFactor(s.min).replace(/×$/, '')}–${formatFactor(s.max)}`;
}

/** One run per mode: nothing to judge noise by. */
export function isIndicative(s: Pick<VerdictSpeedup, 'runs'>): boolean {
  return s.runs.baseline < MIN_RUNS_FOR_CONCLUSIVE || s.runs.mode < MIN_RUNS_FOR_CONCLUSIVE;
}

/**
 * "FORCED ran 18.2× faster than DISABLED (13.7–23.6×, 3 runs each; conclusive)"; with one run per mode "… — indicative
 * (one run per mode; repeat for a range: …)"; overlapping ranges "FORCED vs DISABLED: no conclusive difference (…)".
 */
export function speedupText(s: VerdictSpeedup): string {
  const runs = runsText([[s.baseline, s.runs.baseline], [s.mode, s.runs.mode]]);
  const by = s.factor >= 1 ? `${formatFactor(s.factor)} faster` : `${formatFactor(1 / s.factor)} slower`;
  if (isIndicative(s)) return `${s.mode} ran ${by} than ${s.baseline} — indicative (${runs}; ${MORE_RUNS_HINT})`;
  if (!s.conclusive) {
    const why = s.noSpread ? 'the spread is not known: a run took no measurable time' : s.factor === 1 ? 'the medians are equal' : "the runs' ranges overlap";
    return `${s.mode} vs ${s.baseline}: no conclusive difference (${by} by the medians, ${spreadText(s)}, ${runs}: ${why})`;
  }
  if (s.factor >= 1) return `${s.mode} ran ${by} than ${s.baseline} (${spreadText(s)}, ${runs}; conclusive)`;
  const inverse = { min: s.max !== null ? 1 / s.max : null, max: s.min !== null ? 1 / s.min : null };
  return `${s.mode} ran ${by} than ${s.baseline} (${spreadText(inverse)}, ${runs}; conclusive)`;
}

function perCommitText(v: number): string {
  return v !== 0 && Math.abs(v) < 0.1 ? String(Number(v.toPrecision(2))) : v.toFixed(2);
}

/** The disagreeing checks by their labels (never their ids): what the Consistency block calls them. */
function checkNames(model: ComparisonModel, disputed: ReadonlyArray<{ check: string }>): string {
  return disputed.map((d) => model.consistency?.find((c) => c.check === d.check)?.label ?? 'a cross-check of two sources').join('; ');
}

function flushesFact(model: ComparisonModel): VerdictFact {
  const parts: string[] = [];
  const unknown: string[] = [];
  for (const c of model.columns) {
    const flushes = med(model, 'flushes.counter', c) ?? med(model, 'flushes.xe', c);
    const commits = med(model, 'commits', c);
    if (flushes === null || commits === null || commits <= 0) unknown.push(c);
    // Every figure with its unit (issue 28): "DISABLED 1.00 per commit (500 flushes for 500 commits)"; a profile's one column is not named.
    else parts.push(`${c === 'RUN' ? '' : `${c} `}${perCommitText(flushes / commits)} per commit (${formatCount(flushes)} flush${flushes === 1 ? '' : 'es'} for ${formatCount(commits)} commit${commits === 1 ? '' : 's'})`);
  }
  const text = parts.length > 0 ? parts.join(', ') + (unknown.length > 0 ? `; ${unknown.join(', ')}: not measured` : '') : 'not measured (the log-flush and write-transaction counters were not readable)';
  // The figure's own sources disagree (report/consistency.ts): said here, next to it, never hidden.
  const usedRow = model.rows.find((r) => r.id === 'flushes.counter' && model.columns.some((c) => r.cells[c])) ? 'flushes.counter' : 'flushes.xe';
  const disputed = model.rows.find((r) => r.id === usedRow)?.consistency ?? [];
  if (disputed.length > 0 && parts.length > 0) return { id: 'flushes', label: 'Log flushes per commit', text: `${text} — the flush sources disagree (${checkNames(model, disputed)}; see Consistency)`, tone: 'bad' };
  return { id: 'flushes', label: 'Log flushes per commit', text, tone: 'neutral' };
}

/** The wait rows the model has per column: WRITELOG, LOGBUFFER and the session's top other waits. */
function waitRows(model: ComparisonModel): { type: string; row: MetricRow }[] {
  return model.rows
    .filter((r) => r.id === 'writelog.ms' || r.id === 'logbuffer.ms' || r.id.startsWith('wait.'))
    .map((r) => ({ type: r.id === 'writelog.ms' ? 'WRITELOG' : r.id === 'logbuffer.ms' ? 'LOGBUFFER' : r.id.slice('wait.'.length), row: r }));
}

/** The session's top wait in `column`, with its share of the session's waits and of the elapsed time. */
export function topWait(model: ComparisonModel, column: string): { waitType: string; ms: number; shareOfWaits: number | null; shareOfElapsed: number | null } | null {
  let best: { waitType: string; ms: number } | null = null;
  for (const { type, row: r } of waitRows(model)) {
    const ms = r.cells[column]?.median ?? null;
    if (ms !== null && ms > 0 && (!best || ms > best.ms)) best = { waitType: type, ms };
  }
  if (!best) return null;
  const total = med(model, 'waits.sessionTotalMs', column);
  const elapsed = med(model, 'elapsed', column);
  return { ...best, shareOfWaits: total && total > 0 ? best.ms / total : null, shareOfElapsed: elapsed && elapsed > 0 ? best.ms / elapsed : null };
}

function timeFact(model: ComparisonModel): VerdictFact {
  const column = model.baseline;
  const label = model.columns.length > 1 ? `Where the time went (${column})` : 'Where the time went';
  const top = topWait(model, column);
  const split = timeSplit(model, column, top);
  if (!top && !split.waitsRead) {
    // A recorded program's sessions are not ours: say what the server-wide WRITELOG figure is instead.
    const serverWide = med(model, 'writelog.server.ms', column);
    if (serverWide !== null) return { id: 'time', label, text: `per-session waits do not apply (a recorded program's sessions are not ours); WRITELOG across the server: ${formatDuration(serverWide)}, every session adding to it`, tone: 'neutral' };
    if (split.parts.length === 0) return { id: 'time', label, text: "not measured (the session's waits were not readable)", tone: 'neutral' };
  }
  // The largest measured part leads (issue 28): a wait, the session's CPU, or the data files' reads beyond the read waits.
  const lead = split.parts[0];
  if (!lead) return { id: 'time', label, text: nothingRecordedText(split), tone: 'neutral' };
  if (lead.kind !== 'wait' || !top) return { id: 'time', label, text: `${nonWaitLeadText(split)}${split.waitsRead ? unrecordedText(split, med(model, 'waits.sessionTotalMs', column)) : "; the session's waits not measured"}`, tone: 'neutral' };
  // Waits of concurrent sessions (a sweep) or parallel tasks add up, so a wait can exceed the wall-clock time: say so rather than print "158 %".
  const ofElapsed = top.shareOfElapsed === null ? null : top.shareOfElapsed > 1 ? 'more than the elapsed time (waits of concurrent sessions or parallel tasks add up)' : `${formatShare(top.shareOfElapsed)} of the elapsed time`;
  const shares = [top.shareOfWaits !== null ? `${formatShare(top.shareOfWaits)} of the session's waits` : null, ofElapsed].filter((x) => x);
  const besides = split.parts.slice(1).filter((p) => split.elapsedMs !== null && split.elapsedMs > 0 && p.ms / split.elapsedMs >= MENTION_SHARE).map((p) => `${p.name} ${formatDuration(p.ms)}`);
  const text = `${top.waitType}, ${formatDuration(top.ms)}${shares.length > 0 ? ` — ${shares.join(', ')}` : ''}${besides.length > 0 ? `; then ${besides.join(', ')}` : ''}${unrecordedText(split, med(model, 'waits.sessionTotalMs', column))}`;
  const disputed = top.waitType === 'WRITELOG' ? (model.rows.find((r) => r.id === 'writelog.ms')?.consistency ?? []) : [];
  if (disputed.length > 0) return { id: 'time', label, text: `${text} — the WRITELOG sources disagree (${checkNames(model, disputed)}; see Consistency)`, tone: 'bad' };
  return { id: 'time', label, text, tone: 'neutral' };
}

/** The delayed mode's exposure: at most one unflushed 60 KB log block, in this workload's commits. */
export function exposureFact(model: ComparisonModel, mode: string): VerdictFact {
  const bytes = med(model, 'log.bytes', mode);
  const commits = med(model, 'commits', mode);
  const label = `Data-loss exposure (${mode})`;
  const scope = mode === 'ALLOWED' ? 'the commits written WITH (DELAYED_DURABILITY = ON): ' : '';
  if (bytes === null || commits === null || commits <= 0 || bytes <= 0) {
    return { id: 'exposure', label, text: `${scope}at most one unflushed 60 KB log block (how many commits that is was not measured: no log bytes or write transactions): ${LOSS_SOURCE_TEXT}.`, tone: 'bad' };
  }
  const perCommit = bytes / commits;
  const howMany = perCommit >= LOG_BLOCK_MAX_BYTES ? 'at most about one of this workload\'s commits' : `up to about ${formatCount(Math.floor(LOG_BLOCK_MAX_BYTES / perCommit))} of this workload's commits`;
  return {
    id: 'exposure',
    label,
    text: `${scope}${howMany} — one unflushed 60 KB log block at ${formatBytes(perCommit)} of log per commit (measured under ${mode}): ${LOSS_SOURCE_TEXT}. sys.sp_flush_log hardens everything committed so far.`,
    tone: 'bad',
  };
}

function restoreFact(ctx: VerdictContext): VerdictFact | null {
  const r = ctx.restore;
  if (!r) return null;
  // Data saved before the settings were recorded carries only the message.
  if (r.ok && !r.originalSetting) return { id: 'restore', label: 'Database', text: r.message, tone: 'good' };
  if (r.ok) return { id: 'restore', label: 'Database', text: `Original setting ${r.originalSetting ?? 'unknown'} restored ✓ (verified${r.verifiedSetting && r.verifiedSetting !== r.originalSetting ? `: ${r.verifiedSetting}` : ''})`, tone: 'good' };
  return { id: 'restore', label: 'Database', text: `Original setting NOT restored: ${r.message}`, tone: 'bad' };
}

export function buildVerdict(model: ComparisonModel, ctx: VerdictContext = {}): VerdictModel {
  const facts: VerdictFact[] = [];
  const others = model.columns.filter((c) => c !== model.baseline);
  const runs = model.columns.map((c) => model.runsPerColumn[c] ?? 0);
  const sameRuns = runs.every((n) => n === runs[0]);
  const where = [model.database ? `database ${model.database}` : null, ctx.workload ?? null].filter((x) => x).join(', ');
  if (model.columns.length > 1) {
    facts.push({ id: 'compared', label: 'Compared', text: `${model.columns.join(' vs ')}, ${sameRuns ? `${runs[0]} measured run${runs[0] === 1 ? '' : 's'} each` : model.columns.map((c, i) => `${c} ${runs[i]} run(s)`).join(', ')}${where ? ` — ${where}` : ''}`, tone: 'neutral' });
  } else if (model.columns.length === 1) {
    facts.push({ id: 'compared', label: 'Profiled', text: `one run with DELAYED_DURABILITY ${model.columns[0]}${where ? ` — ${where}` : ''}`, tone: 'neutral' });
  }

  let headline: string;
  let headlineTone: VerdictTone = 'neutral';
  let speedup: VerdictSpeedup | null = null;
  const failure = model.failure;
  if (failure) {
    headline = `The workload failed${failure.line !== null ? ` at line ${failure.line + 1}` : ''} with SQL error ${failure.number}: ${failure.message}`;
    headlineTone = 'bad';
    facts.push({ id: 'failure', label: 'Figures', text: 'they cover the workload up to the error; fix it and run again before reading them as its cost', tone: 'bad' });
  } else {
    // The headline mode: FORCED when compared (the mode that delays every commit), else the first other column.
    const lead = others.includes('FORCED') ? 'FORCED' : others[0];
    speedup = lead ? speedupOf(model, lead) : null;
    // A concurrency sweep: the headline is the curve; the first level's speed-up (what the table shows) becomes a fact.
    const sweep = model.concurrency ? concurrencyHeadline(model.concurrency) : null;
    if (speedup && sweep) {
      headline = sweep.text;
      headlineTone = sweep.conclusive && sweep.gains.every((g) => g.gain > 1) ? 'good' : 'neutral';
      const first = model.concurrency!.levels[0];
      facts.push({ id: 'speedup', label: `${speedup.mode} vs ${model.baseline} at ${first} session${first === 1 ? '' : 's'} (elapsed)`, text: speedupText(speedup), tone: speedup.conclusive ? (speedup.factor >= 1 ? 'good' : 'bad') : 'neutral' });
    } else if (speedup) {
      headline = speedupText(speedup);
      headlineTone = speedup.conclusive ? (speedup.factor >= 1 ? 'good' : 'bad') : 'neutral';
    } else if (model.columns.length === 1) {
      const c = model.columns[0]!;
      const elapsed = med(model, 'elapsed', c);
      headline = elapsed !== null ? `The workload ran in ${formatDuration(elapsed)}` : 'The workload ran (no elapsed time recorded)';
    } else {
      // Which side has no figure: a mode whose runs were all cancelled (left out, comparison.ts) or never measured.
      const without = [model.baseline, ...others].filter((c) => med(model, 'elapsed', c) === null);
      const cancelledOnly = without.filter((c) => model.runsPerColumn[c] === 0 && model.cancelled);
      headline =
        others.length === 0
          ? 'No measured run to report'
          : cancelledOnly.length > 0
            ? `No complete ${cancelledOnly.join(' or ')} run (cancelled runs cover only part of the workload): no speed-up to report`
            : `No elapsed time for ${without.length > 0 ? without.join(' and ') : `both ${model.baseline} and ${others.join(', ')}`}: no speed-up to report`;
    }
    for (const c of others) {
      if (c === lead) continue;
      const s = speedupOf(model, c);
      if (s) facts.push({ id: 'speedup', label: `${c} vs ${model.baseline}`, text: speedupText(s), tone: s.conclusive ? (s.factor >= 1 ? 'good' : 'bad') : 'neutral' });
    }
  }
  if (model.columns.length > 0) {
    facts.push(flushesFact(model));
    facts.push(timeFact(model));
  }
  const cancelled = model.cancelled;
  if (cancelled) {
    // A cancelled run's figures cover what ran before the cancel: the headline says so first, never "ran in 1.00 s".
    const why = cancelled.reason === 'timeout' ? 'the workload time limit' : 'the user';
    const when = formatDuration(cancelled.atMs);
    // Only a leading "The" is lower-cased: "FORCED ran 7.3× faster" keeps its mode name.
    headline = `Cancelled by ${why} after ${when}${cancelled.runs > 1 ? ` (${cancelled.runs} runs)` : ''} — ${headline.replace(/^The /, 'the ')}`;
    headlineTone = 'bad';
    facts.splice(facts[0]?.id === 'compared' ? 1 : 0, 0, { id: 'cancelled', label: 'Figures', text: `the cancelled run${cancelled.runs > 1 ? 's cover' : ' covers'} only what ran before the cancel, not the whole workload; run it again to completion before reading ${cancelled.runs > 1 ? 'them' : 'it'} as its cost`, tone: 'bad' });
  }
  for (const c of model.columns) if (DELAYED.has(c)) facts.push(exposureFact(model, c));
  const restore = restoreFact(ctx);
  if (restore) facts.push(restore);
  // The cause is judged where commits are durable (the baseline), against what the headline mode saved.
  const lead = failure ? null : causeLead(model.causes?.[model.baseline], speedup ? { mode: speedup.mode, factor: speedup.factor, conclusive: speedup.conclusive, indicative: isIndicative(speedup) } : null);
  return { lead, headline, headlineTone, speedup, facts };
}

/** Markdown (also the CLI's text): a "## Verdict" section, headline in bold, one bullet per fact. */
export function verdictMarkdown(v: VerdictModel, escape: (s: string) => string = (s) => s): string[] {
  return ['## Verdict', '', ...(v.lead ? [`**${escape(v.lead.text)}**`, ''] : []), `**${escape(v.headline)}**`, '', ...v.facts.map((f) => `- ${escape(f.label)}: ${escape(f.text)}`)];
}
