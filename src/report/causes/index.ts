// The cause model (issue 29): the runs of one column → every cause with its share of the session's time, its evidence,
// whether delayed durability helps, and the fix; ranked, the dominant one first. Pure over RunResults, so an old saved
// run is judged by today's rules.
import type { RunResult } from '../../profile/types';
import { formatByteRate, formatBytes, formatDuration, formatNumber } from '../units';
import { CAUSE_CATALOG } from './catalog';
import { causeInputsOf, type CauseInputs } from './inputs';
import { logWriteParts, perCommit, type Part } from './logWrites';
import { elsewherePart, noFlushReason } from './noFlush';
import { agSyncCommitPart, COMMIT_FEE_SHARE_PARTLY, commitFeeShare, GOVERNOR_WAIT_PREFIX, GOVERNOR_WAITS, HYPERSCALE_WAIT_PREFIX, hyperscalePart, logRateGovernorPart } from './platform';
import { CAUSE_IDS, type Cause, type CauseAssessment, type CauseId, type DelayedDurabilityHelp } from './types';

export * from './types';
export { CAUSE_CATALOG } from './catalog';
export { causeInputsOf, type CauseInputs } from './inputs';

/** Wait types on a commit's path: what the shares of the commit causes are made of. */
export function isCommitWait(type: string): boolean {
  const t = type.toUpperCase();
  return t === 'WRITELOG' || t === 'LOGBUFFER' || t === 'HADR_SYNC_COMMIT' || GOVERNOR_WAITS.includes(t) || t.startsWith(GOVERNOR_WAIT_PREFIX) || t.startsWith(HYPERSCALE_WAIT_PREFIX);
}

function commitWaitMs(inp: CauseInputs): number | null {
  if (!inp.waits.ok) return null;
  let total = 0;
  for (const [type, f] of inp.waits.value) if (isCommitWait(type)) total += f.ms;
  return total;
}

function cause(id: CauseId, part: Part, budgetMs: number | null, summary: string, helps?: DelayedDurabilityHelp): Cause {
  const c = CAUSE_CATALOG[id];
  const measured = part.ms !== null && part.notMeasured === null;
  return {
    cause: id,
    label: c.label,
    summary,
    share: measured && budgetMs !== null ? (budgetMs > 0 ? part.ms! / budgetMs : 0) : null,
    ms: measured ? part.ms : null,
    evidence: part.evidence,
    helpsDelayedDurability: helps ?? c.helps,
    helpsWhy: c.helpsWhy,
    fix: c.fix,
    learn: c.learn,
    notMeasured: measured ? null : part.notMeasured,
  };
}

/**
 * Measured causes with a share by share (largest first, ties in CAUSE_IDS order); then the not measured, which may
 * still be the cause; then the measured zeros, which are not (outside attack: a least-privileged login's report led
 * with "tempdb … 0 %" above eight unmeasured causes).
 */
export function rankCauses(causes: readonly Cause[]): Cause[] {
  const order = (c: Cause) => CAUSE_IDS.indexOf(c.cause);
  const tier = (c: Cause) => (c.share === null ? 1 : c.share > 0 ? 0 : 2);
  return [...causes].sort((a, b) => tier(a) - tier(b) || (b.share ?? 0) - (a.share ?? 0) || order(a) - order(b));
}

/**
 * What the time outside the commit path went to, by the largest measured part (issue 28: S5 read its data files for
 * half the run and was called "CPU"): the session's top other wait, its CPU, or the data files' read stall.
 */
function elsewhereLead(inp: CauseInputs, topOther: [string, { ms: number }] | undefined): string {
  const parts: Array<[string, number]> = [];
  if (topOther) parts.push([topOther[0], topOther[1].ms]);
  if (inp.cpuMs !== null && inp.cpuMs > 0) parts.push(['CPU', inp.cpuMs]);
  if (inp.dataReads && inp.dataReads.stallMs > 0) parts.push(['data-file reads', inp.dataReads.stallMs]);
  parts.sort((a, b) => b[1] - a[1]);
  const lead = parts[0];
  if (lead) return ` (${lead[0]}, ${formatDuration(lead[1])})`;
  return inp.cpuMs === null ? ' (running or the client, not waiting on the log; CPU not measured)' : ' (the client and the network, since the server recorded no other wait, no CPU and no data-file read stall)';
}

/** One level of a concurrency sweep in the column's mode (report/concurrency.ts ConcurrencyPoint). */
export interface SweepLevel {
  sessions: number;
  flushesPerCommit: number | null;
  writelogMsPerCommit: number | null;
}

/**
 * The causes of one column's runs (a mode of a comparison, or a profile's single run). `sweep`: the same mode at every
 * level of a concurrency sweep — group commit shows as flushes per commit falling with the session count.
 */
export function assessCauses(runs: readonly RunResult[], sweep: readonly SweepLevel[] = []): CauseAssessment {
  const inp = causeInputsOf(runs);
  const commitMs = commitWaitMs(inp);
  // What the shares are parts of: the session's time, or the commit waits when (parallel tasks) they add up to more.
  const budget = commitMs === null ? (inp.sessionTimeMs > 0 ? inp.sessionTimeMs : null) : Math.max(inp.sessionTimeMs, commitMs);
  const writes = logWriteParts(inp);
  const gov = logRateGovernorPart(inp);
  const fee = commitFeeShare(inp);
  const elsewhere = elsewherePart(inp, commitMs ?? 0, isCommitWait);
  const noFlush = noFlushReason(inp);
  const notes: string[] = [];
  const tempdbPart: Part = noFlush
    ? { ms: elsewhere.ms, evidence: [...noFlush.evidence, ...elsewhere.evidence], notMeasured: elsewhere.notMeasured }
    : { ms: 0, evidence: ['the measured database is not tempdb and no SCHEMA_ONLY table explains commits without a flush'], notMeasured: null };
  const notLogPart: Part = noFlush ? { ms: 0, evidence: [`the time outside commit waits is counted under "${CAUSE_CATALOG.tempdb.label}"`], notMeasured: null } : elsewhere;
  if (sweep.length > 1) {
    const levels = [...sweep].sort((x, y) => x.sessions - y.sessions).map((l) => `${l.sessions} session${l.sessions === 1 ? '' : 's'}: ${l.flushesPerCommit === null ? 'not measured' : `${perCommit(l.flushesPerCommit)} flushes per commit`}${l.writelogMsPerCommit !== null ? ` (${formatNumber(l.writelogMsPerCommit, 2)} ms WRITELOG per commit)` : ''}`);
    writes.groupCommit.evidence.push(`across the sweep — ${levels.join('; ')} — the concurrency table`);
  }
  const hs = hyperscalePart(inp);
  const ag = agSyncCommitPart(inp);
  const f = writes.figures;
  const num = (v: number | null, digits = 2) => (v === null ? '?' : formatNumber(v, digits));
  const topOther = inp.waits.ok ? [...inp.waits.value.entries()].filter(([t, w]) => !isCommitWait(t) && w.ms > 0).sort((a, b) => b[1].ms - a[1].ms)[0] : undefined;
  const agWait = inp.waits.ok ? inp.waits.value.get('HADR_SYNC_COMMIT') : undefined;
  const summaries: Record<CauseId, string> = {
    'log-disk': `The log disk is slow (${num(f.writeMs)} ms per log write)`,
    'tiny-flushes': `Every commit waits for its own small log flush (${f.flushesPerCommit === null ? '?' : perCommit(f.flushesPerCommit)} flushes per commit${f.bytesPerWrite !== null ? `, ${formatBytes(f.bytesPerWrite)} each` : ''})`,
    'group-commit': `Commits wait on log flushes they share with other sessions (${inp.sessions} session${inp.sessions === 1 ? '' : 's'}, ${f.flushesPerCommit === null ? '?' : perCommit(f.flushesPerCommit)} flushes per commit)`,
    'log-writer-limit': `The log writer cannot keep up (a commit waits ${num(f.writelogAvgMs)} ms for ${num(f.writeMs)} ms log writes)`,
    'ag-sync-commit': `Synchronous availability-group commit makes each commit wait ${agWait && agWait.count > 0 ? `${num(agWait.ms / agWait.count)} ms` : 'its turn'} for the secondary to harden the log`,
    'log-rate-governor': gov.capBytesPerSec !== null ? `Log-rate governance caps this database at ${formatByteRate(gov.capBytesPerSec)}` : 'Log-rate governance throttles this database\'s log generation',
    'hyperscale-log-service': `Hyperscale's log service holds log generation back${hs.component ? ` (${hs.component}${hs.rateBytesPerSec !== null ? ` at ${formatByteRate(hs.rateBytesPerSec)}` : ''})` : ''}`,
    tempdb: noFlush?.kind === 'schema-only' ? 'SCHEMA_ONLY tables are not logged, so these commits wait for no log flush' : "tempdb's log is flushed lazily, so these commits wait for no log flush",
    'not-log': `The time went elsewhere${elsewhereLead(inp, topOther)}`,
  };
  const causes = rankCauses([
    cause('log-disk', writes.logDisk, budget, summaries['log-disk']),
    cause('tiny-flushes', writes.tinyFlushes, budget, summaries['tiny-flushes']),
    cause('group-commit', writes.groupCommit, budget, summaries['group-commit']),
    cause('log-writer-limit', writes.logWriterLimit, budget, summaries['log-writer-limit']),
    cause('ag-sync-commit', ag, budget, summaries['ag-sync-commit']),
    // A commit fee that is a large part of what the governor counts makes fewer log IOs matter to the cap.
    cause('log-rate-governor', gov, budget, summaries['log-rate-governor'], fee !== null && fee >= COMMIT_FEE_SHARE_PARTLY ? 'partly' : false),
    cause('hyperscale-log-service', hs, budget, summaries['hyperscale-log-service']),
    cause('tempdb', tempdbPart, budget, summaries.tempdb),
    cause('not-log', notLogPart, budget, summaries['not-log']),
  ]);
  if (inp.sessions > 1) notes.push(`Waits are session 1's of ${inp.sessions} sessions running the same workload at once; flushes and commits are the whole database's.`);
  if (inp.scope === 'server-wide') notes.push("A recording's sessions are not ours: the waits are the server's, every session on it adds to them.");
  if (budget !== null) {
    const what =
      inp.timeBasis === 'waits-and-cpu'
        ? "the session's time on the server, its waits plus its CPU"
        : inp.cpuMs !== null
          ? "the session's elapsed time (the server recorded neither waits nor CPU for it, so the client and the network are in it)"
          : "the session's time, the larger of its elapsed time and its waits (its CPU was not read, so the client and the network are in it)";
    notes.push(`Shares are parts of ${formatDuration(budget)}: ${what}${commitMs !== null ? `; ${formatDuration(commitMs)} of it commit-related waits` : ''} — over ${inp.runs} run${inp.runs === 1 ? '' : 's'}.`);
  }
  const top = causes.find((c) => c.share !== null && c.share > 0);
  return {
    causes,
    dominant: top?.cause ?? null,
    basis: { scope: inp.scope, sessionTimeMs: inp.sessionTimeMs, timeBasis: inp.timeBasis, cpuMs: inp.cpuMs, commitWaitMs: commitMs, elapsedMs: inp.elapsedMs, runs: inp.runs, sessions: inp.sessions },
    notes,
  };
}

/**
 * The keys a single run's JSON (`profile --json`, `record --json`) carries beside the RunResult: its causes, ranked,
 * and what their shares are parts of. Empty when the model has no measured column.
 */
export function runCausesJson(model: { baseline: string; causes?: Record<string, CauseAssessment> }): { causes: Cause[]; causesBasis: (CauseAssessment['basis'] & { dominant: CauseId | null; notes: string[] }) | null } {
  const a = model.causes?.[model.baseline];
  return { causes: a?.causes ?? [], causesBasis: a ? { ...a.basis, dominant: a.dominant, notes: a.notes } : null };
}
