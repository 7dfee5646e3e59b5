// The server's exact per-hash counts applied to the sampled statements (issue 16, corrected in issue 33): statements
// of one real query_hash become one row; query_hash 0 — SQL Server's value for plan-less statements (EXECUTE, EXEC
// inside a procedure, COMMIT, SET…; test/fixtures/real-server) — is never a key, so those rows stay apart, matched by
// text, offsets and line; a histogram that may have folded statements into shared slots makes every exact figure
// "approximate — why", found by checks that do not trust the histogram itself.

import type { StatementHistograms } from '../xe/statementHistograms';
import type { SampledFigure, StatementFigure } from './statementFigure';

/** query_hash of a statement without a plan: "no hash", not a key. */
export const PLANLESS_HASH = '0';

export interface SampledStatement {
  figure: SampledFigure;
  /** Its sqlserver.query_hash as decimal text; null when the event carried none. */
  hash: string | null;
  /**
   * The query_hash of the nested statements (a procedure's, a trigger's, dynamic SQL's) whose events were folded into
   * this statement — the one that called them — with how many the sample saw. The server counts them under their own
   * hash: those counts belong to this row, never to a "not located" row of their own (that would count their waits twice).
   */
  folded?: ReadonlyMap<string, number> | undefined;
}

export interface ExactMerge {
  figures: StatementFigure[];
  attributedWaits: number;
  attributedMs: number;
  /** WRITELOG waits the histograms counted that no row took (null: the waits histogram was not read). */
  unattributedWaits: number | null;
  notes: string[];
}

const sum = (values: Iterable<number>): number => {
  let n = 0;
  for (const v of values) n += v;
  return n;
};

/**
 * Reasons to distrust the histograms' per-hash counts, from evidence outside them: a hash the sample saw that has no
 * slot (a full histogram ignored or folded it), or more distinct statements than half the slots (a third-party test
 * on 2025 reports folding with truncated="0" before the slots run out; NOT CONFIRMED, test/standin/MODEL.md).
 */
export function histogramDoubts(sampledHashes: ReadonlySet<string>, sampledWaitHashes: ReadonlySet<string>, h: StatementHistograms): string[] {
  const doubts: string[] = [];
  const check = (byHash: Map<string, number> | null, slots: number | null | undefined, seen: ReadonlySet<string>, what: string) => {
    if (byHash === null) return;
    const missing = [...seen].filter((x) => !byHash.has(x));
    if (missing.length > 0) doubts.push(`${missing.length} statement hash(es) of the sample have no slot in the ${what} histogram`);
    const distinct = new Set([...byHash.keys(), ...seen]).size;
    if (slots !== null && slots !== undefined && distinct > slots / 2) doubts.push(`${distinct} distinct statements for the ${what} histogram's ${slots} slots (more than half of them)`);
  };
  check(h.executionsByHash, h.executionSlots, sampledHashes, 'executions');
  check(h.waitsByHash, h.waitSlots, sampledWaitHashes, 'WRITELOG');
  return doubts;
}

/**
 * Plan-less rows keep the sample's counts: the server counted them all under query_hash 0, a total that cannot be
 * split per statement, so none is scaled or guessed; when the sample holds fewer than that total the rows say
 * "approximate — why" and the rest is stated (its waits stay unattributed).
 */
function planlessRows(rows: readonly SampledFigure[], h: StatementHistograms, notes: string[], called: { executions: number; waits: number }): { figures: StatementFigure[]; waits: number; ms: number } {
  // Plan-less statements the sample folded into their caller (an EXEC inside a procedure) are among the server's
  // query_hash 0 executions; the waits the server counted under the hashes of statements folded into a plan-less row
  // are in that row's sampled waits.
  const e0 = h.executionsByHash?.get(PLANLESS_HASH);
  const w0Own = h.waitsByHash?.get(PLANLESS_HASH);
  const w0 = w0Own === undefined ? undefined : w0Own + called.waits;
  const sampleE = sum(rows.map((f) => f.executions)) + called.executions;
  const sampleW = sum(rows.map((f) => f.writelogWaits));
  const partial = (e0 !== undefined && e0 > sampleE) || (w0 !== undefined && w0 > sampleW);
  const why = partial
    ? `approximate — counted from the sample: the server counted ${e0 ?? sampleE} executions and ${w0 ?? sampleW} WRITELOG waits of plan-less statements under query_hash 0 together, which cannot be split per statement, and the sample holds ${sampleE} and ${sampleW} of them`
    : undefined;
  const figures = rows.map((f) => ({ ...f, counts: 'sample' as const, queryHash: PLANLESS_HASH, approx: partial, approximate: why }));
  if (rows.length > 0) notes.push(`${rows.length} statement(s) have query_hash 0 (no plan: EXECUTE, EXEC inside a procedure, COMMIT, SET…): each is its own row, matched by its text, offsets and line, never merged by hash.`);
  if (partial) {
    notes.push(`Plan-less statements (query_hash 0): the server counted ${e0 ?? sampleE} executions and ${w0 ?? sampleW} WRITELOG waits, the sample holds ${sampleE} and ${sampleW}; the difference is not attributed to a line (an event_file target keeps every event).`);
  }
  return { figures, waits: sampleW, ms: sum(rows.map((f) => f.writelogMs)) };
}

/**
 * The exact counts applied to the sample: rows of one real hash merge (sharedLines), hashes the sample never saw become
 * "not located" rows, plan-less rows stay apart; ≈ figures scale the sampled averages; doubts about the histograms
 * make the affected rows "approximate — why".
 */
export function mergeExactCounts(sampled: readonly SampledStatement[], h: StatementHistograms): ExactMerge {
  const notes: string[] = [];
  let sampledWaits = 0;
  let sampledWaitMs = 0;
  for (const { figure } of sampled) {
    sampledWaits += figure.writelogWaits;
    sampledWaitMs += figure.writelogMs;
  }
  // A statement whose own sample holds no wait takes the average wait of the whole sample.
  const overallWaitMs = sampledWaits > 0 ? sampledWaitMs / sampledWaits : null;
  const groups = new Map<string, SampledFigure[]>();
  const unhashed: StatementFigure[] = [];
  const planless: SampledFigure[] = [];
  for (const { figure, hash } of sampled) {
    if (hash === null) unhashed.push(figure);
    else if (hash === PLANLESS_HASH) planless.push(figure);
    else groups.set(hash, [...(groups.get(hash) ?? []), figure]);
  }
  // Hashes seen only as statements folded into a caller: their server counts go to the caller's row.
  const foldedInto = new Map<string, SampledFigure>();
  let planlessCalled = 0;
  for (const { figure, folded } of sampled) {
    for (const [fh, n] of folded ?? []) {
      if (fh === PLANLESS_HASH) planlessCalled += n;
      else if (!groups.has(fh)) foldedInto.set(fh, figure);
    }
  }
  const foldedWaits = (callers: readonly SampledFigure[]): number => {
    if (!h.waitsByHash) return 0;
    let n = 0;
    for (const [fh, caller] of foldedInto) if (callers.includes(caller)) n += h.waitsByHash.get(fh) ?? 0;
    return n;
  };
  // A row whose sampled waits may be its nested statements' (counted under their hashes) proves nothing missing.
  const waitHashes = new Set([...groups].filter(([, fs]) => fs.some((f) => f.writelogWaits > 0 && f.nestedStatements === 0)).map(([k]) => k));
  const doubts = histogramDoubts(new Set(groups.keys()), waitHashes, h);
  const approximate = doubts.length > 0 ? `approximate — ${doubts.join('; ')}: the histogram may have folded statements into shared slots` : null;
  const hashes = new Set([...groups.keys(), ...(h.executionsByHash?.keys() ?? []), ...(h.waitsByHash?.keys() ?? [])]);
  hashes.delete(PLANLESS_HASH);
  for (const fh of foldedInto.keys()) hashes.delete(fh);
  const pl = planlessRows(planless, h, notes, { executions: planlessCalled, waits: foldedWaits(planless) });
  const out: StatementFigure[] = [...unhashed, ...pl.figures];
  let noAverage = 0;
  let attributedWaits = pl.waits;
  let attributedMs = pl.ms;
  for (const hash of hashes) {
    const fs = (groups.get(hash) ?? []).sort((a, b) => a.line - b.line);
    const sample = fs.reduce((t, f) => ({ executions: t.executions + f.executions, durationMs: t.durationMs + f.durationMs, waits: t.waits + f.writelogWaits, waitMs: t.waitMs + f.writelogMs, rows: t.rows + f.rows, nested: t.nested + f.nestedStatements }), { executions: 0, durationMs: 0, waits: 0, waitMs: 0, rows: 0, nested: 0 });
    const executions = h.executionsByHash?.get(hash) ?? sample.executions;
    const waits = h.waitsByHash ? (h.waitsByHash.get(hash) ?? 0) + foldedWaits(fs) : sample.waits;
    const perExec = sample.executions > 0 ? executions / sample.executions : 0;
    const waitAvg = sample.waits > 0 ? sample.waitMs / sample.waits : overallWaitMs;
    if (waits > 0 && waitAvg === null) noAverage += waits;
    const writelogMs = waits * (waitAvg ?? 0);
    attributedWaits += waits;
    attributedMs += writelogMs;
    const first = fs[0];
    // One module for the merged row when every statement of the hash is in the same procedure.
    const module = first?.module !== undefined && fs.every((f) => f.module === first.module) ? first.module : undefined;
    const base = first ?? { line: 0, text: `not located (query_hash ${hash})`, batchIndex: -1, nestedStatements: 0 };
    const notMeasured = [...(first ? [] : (['durationMs', 'rows'] as const)), ...(waits > 0 && waitAvg === null ? (['writelogMs'] as const) : [])];
    out.push({
      line: base.line,
      text: base.text,
      batchIndex: base.batchIndex,
      module,
      executions,
      // A hash the sample never saw has no duration or rows to scale: null (not measured), never 0.
      durationMs: first ? sample.durationMs * perExec : null,
      writelogWaits: waits,
      writelogMs: waits > 0 && waitAvg === null ? null : writelogMs,
      rows: first ? Math.round(sample.rows * perExec) : null,
      nestedStatements: Math.round(sample.nested * perExec),
      counts: h.executionsByHash ? 'exact' : 'sample',
      // Only a scaled figure is ≈: when the sample saw every execution and wait, its sums are the measured ones.
      approx: approximate !== null || sample.executions !== executions || sample.waits !== waits,
      approximate: approximate ?? undefined,
      queryHash: hash,
      sharedLines: fs.length > 1 ? [...new Set(fs.map((f) => f.line))] : undefined,
      located: first ? undefined : false,
      notMeasured: notMeasured.length > 0 ? notMeasured : undefined,
    });
  }
  for (const f of out) for (const k of Object.keys(f) as Array<keyof StatementFigure>) if (f[k] === undefined) delete f[k];
  const notLocated = out.filter((f) => f.located === false);
  if (notLocated.length > 0) {
    notes.push(`${notLocated.length} statement hash(es) counted on the server never appeared in the sample, so their lines are unknown (listed as "not located", line 0): together ${sum(notLocated.map((f) => f.executions))} executions, ${sum(notLocated.map((f) => f.writelogWaits ?? 0))} WRITELOG waits (exact; WRITELOG ms ≈ at the sample's average wait; their duration and rows are not measured).`);
  }
  const shared = out.filter((f) => f.sharedLines);
  if (shared.length > 0) {
    notes.push(`Statements with the same query hash are counted together on one row (its sharedLines): ${shared.map((f) => `lines ${f.sharedLines!.join(', ')}`).join('; ')}. SQL Server's query_hash is the same for statements of similar logic (differing only in literals).`);
  }
  if (approximate !== null) notes.push(`Per-statement counts are ${approximate}. Raise the slots or shorten the run for exact counts.`);
  if (noAverage > 0) notes.push(`${noAverage} WRITELOG waits have no sampled wait to take a duration from: their WRITELOG ms are not measured.`);
  let unattributedWaits: number | null = null;
  if (h.waitsByHash && h.waitEvents !== null) {
    unattributedWaits = Math.max(0, h.waitEvents - attributedWaits);
    if (unattributedWaits > 0) notes.push(`${unattributedWaits} WRITELOG waits are not attributed (the histogram did not place them, or no statement in the sample can take them); their ms are not measured.`);
  }
  return { figures: out, attributedWaits, attributedMs, unattributedWaits, notes };
}
