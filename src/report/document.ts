// The saved/exported form of a comparison (`compare --json`, "open earlier comparisons"): the keys
// (originalSetting, restoredSetting, modes[{mode, runs, median}], ratios) plus the model, and loadComparison, which
// validates a document read back from disk before the UI trusts it.
import type { ComparisonPlan } from '../profile/plan';
import type { DurabilityMode, RunResult } from '../profile/types';
import type { RestoreOutcome } from '../profile/durabilityGuard';
import { buildComparisonModel, rowById, type ComparisonModel } from './comparison';
import { conclusiveness, type RatioCell } from './stats';
import type { ConcurrencyPoint } from './concurrency';
import type { ConsistencySummary } from './consistency';
import type { Cause, CauseAssessment } from './causes';

export const COMPARISON_SCHEMA_VERSION = 1 as const;
export const COMPARISON_KIND = 'durability-lens.comparison';

export interface ModeMedians {
  elapsedMs: number | null;
  logWrites: number | null;
  logBytesWritten: number | null;
  writelogWaitTimeMs: number | null;
}

export interface ModeRuns {
  mode: string;
  /** Measured runs of this mode (warm-ups are in `warmupRuns`). */
  runs: RunResult[];
  median: ModeMedians;
}

export interface Speedup {
  baseline: string;
  mode: string;
  /** median elapsed of the baseline ÷ median elapsed of the mode: 3 = three times faster. */
  elapsed: number;
  /** The same from the slowest/fastest runs: the range the speed-up may lie in. */
  min: number | null;
  max: number | null;
  /** Measured runs of the baseline and the mode. */
  runs: { baseline: number; mode: number };
  /** Conclusive (issue 28): at least two runs per mode and the min–max ranges apart; one run per mode is indicative. */
  conclusive: boolean;
  /** Why it is or is not conclusive, in words. */
  conclusiveWhy: string;
}

export interface ComparisonDocument {
  schemaVersion: typeof COMPARISON_SCHEMA_VERSION;
  kind: typeof COMPARISON_KIND;
  createdAt: string;
  /** ComparisonStatus of the run ('completed', 'cancelled', …). */
  status: string;
  source: ComparisonModel['source'];
  server: string | null;
  database: string | null;
  originalSetting: DurabilityMode | null;
  /** Read back from sys.databases after the restore; null when it could not be read (see restore). */
  restoredSetting: DurabilityMode | null;
  restore: RestoreOutcome | null;
  plan: ComparisonPlan | null;
  error: { kind: string; message: string } | null;
  modes: ModeRuns[];
  warmupRuns: RunResult[];
  /** Per metric id, per non-baseline mode: the ratio to the baseline with its spread. */
  ratios: Record<string, Record<string, RatioCell | null>>;
  /** DISABLED → FORCED elapsed speed-up (the CI gate's figure); null when either mode is missing. */
  speedup: Speedup | null;
  /**
   * A concurrency sweep's curve: one entry per session count and mode (`--sessions`); [] without a sweep. In a sweep,
   * `modes[].runs` holds every level's runs (each with its `concurrency.sessions`) while the medians, ratios and
   * speedup describe the first level.
   */
  concurrency: ConcurrencyPoint[];
  /** "Commits per second, FORCED vs DISABLED: at 8 sessions FORCED gains 1.3×, at 1 session 9.8×."; null without a sweep of both. */
  concurrencyVerdict: string | null;
  /**
   * The cross-checks of every measured run, per check (issue 33): passed / disagrees / not-possible with the figures or
   * the reason; each run also carries its own `consistency`. [] when no run carries checks (older runs).
   */
  consistency: ConsistencySummary[];
  /**
   * Who is to blame for commit time in the baseline mode (issue 29; docs/run-result-schema.md "causes"): every cause
   * ranked by its share of the session's time, with evidence, whether delayed durability helps, and the fix. [] when
   * no run was measured.
   */
  causes: Cause[];
  /** The same per mode (with the basis the shares are parts of): under FORCED the flush causes shrink, governance does not. */
  causesByMode: Record<string, CauseAssessment>;
  model: ComparisonModel;
}

export interface DocumentInput {
  runs: readonly RunResult[];
  status: string;
  plan?: ComparisonPlan | null;
  restore?: RestoreOutcome | null;
  error?: { kind: string; message: string } | null;
  createdAt?: string;
}

function medianOf(model: ComparisonModel, id: string, column: string): number | null {
  return rowById(model, id)?.cells[column]?.median ?? null;
}

/** Elapsed speed-up of `mode` over `baseline` from the model's elapsed row. */
export function speedupOf(model: ComparisonModel, baseline = 'DISABLED', mode = 'FORCED'): Speedup | null {
  const row = rowById(model, 'elapsed');
  const b = row?.cells[baseline];
  const m = row?.cells[mode];
  if (!b || !m || m.median <= 0) return null;
  const min = m.max > 0 ? b.min / m.max : null;
  const max = m.min > 0 ? b.max / m.min : null;
  const judged = conclusiveness(b, m, [baseline, mode]);
  const known = min !== null && max !== null;
  return {
    baseline,
    mode,
    elapsed: b.median / m.median,
    min,
    max,
    runs: { baseline: b.n, mode: m.n },
    conclusive: judged.conclusive && known,
    conclusiveWhy: judged.conclusive && !known ? 'the spread is not known: a run took no measurable time' : judged.why,
  };
}

export function comparisonDocument(input: DocumentInput): ComparisonDocument {
  const model = buildComparisonModel(input.runs);
  const measured = input.runs.filter((r) => !r.warmup);
  const modes: ModeRuns[] = model.columns.map((column) => ({
    mode: column,
    runs: measured.filter((r) => (r.mode ?? r.delayedDurability ?? 'RUN') === column),
    median: {
      elapsedMs: medianOf(model, 'elapsed', column),
      logWrites: medianOf(model, 'log.writes', column),
      logBytesWritten: medianOf(model, 'log.bytes', column),
      writelogWaitTimeMs: medianOf(model, 'writelog.ms', column),
    },
  }));
  const ratios: ComparisonDocument['ratios'] = {};
  for (const row of model.rows) ratios[row.id] = row.ratios;
  const restore = input.restore ?? null;
  return {
    schemaVersion: COMPARISON_SCHEMA_VERSION,
    kind: COMPARISON_KIND,
    createdAt: input.createdAt ?? new Date().toISOString(),
    status: input.status,
    source: model.source,
    server: input.plan?.server ?? model.server,
    database: model.database ?? input.plan?.database ?? null,
    originalSetting: restore?.originalSetting ?? input.plan?.currentSetting ?? null,
    restoredSetting: restore?.verifiedSetting ?? null,
    restore,
    plan: input.plan ?? null,
    error: input.error ?? null,
    modes,
    warmupRuns: input.runs.filter((r) => r.warmup),
    ratios,
    speedup: speedupOf(model),
    concurrency: model.concurrency?.points ?? [],
    concurrencyVerdict: model.concurrency?.verdict ?? null,
    consistency: model.consistency ?? [],
    causes: model.causes?.[model.baseline]?.causes ?? [],
    causesByMode: model.causes ?? {},
    model,
  };
}

/** Thrown by loadComparison: the text is not a comparison this version can show, and why. */
export class ComparisonFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ComparisonFormatError';
  }
}

function isRunLike(r: unknown): r is RunResult {
  if (typeof r !== 'object' || r === null) return false;
  const run = r as Partial<RunResult>;
  const db = run.database as unknown;
  const dbLike = db === null || db === undefined
    || (typeof db === 'object' && typeof (db as { name?: unknown }).name === 'string' && ['number', 'undefined'].includes(typeof (db as { databaseId?: unknown }).databaseId));
  return run.schemaVersion === 1 && typeof run.workloadElapsedMs === 'number' && typeof run.diff === 'object' && run.diff !== null && typeof run.server === 'object' && run.server !== null && dbLike;
}

/**
 * Reads a saved comparison (JSON text or the parsed value). The runs are the source of truth: the model is rebuilt
 * from them with this version's rules, so an old file shows with today's diagnosis. Throws ComparisonFormatError.
 */
export function loadComparison(json: string | unknown): ComparisonDocument {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (err) {
      throw new ComparisonFormatError(`Not JSON: ${(err as Error).message}`);
    }
  }
  if (typeof value !== 'object' || value === null) throw new ComparisonFormatError('Not a Durability Lens comparison: the JSON is not an object.');
  const doc = value as Partial<ComparisonDocument>;
  if (doc.kind !== COMPARISON_KIND) throw new ComparisonFormatError(`Not a Durability Lens comparison (kind is ${JSON.stringify(doc.kind ?? null)}, expected "${COMPARISON_KIND}").`);
  if (doc.schemaVersion !== COMPARISON_SCHEMA_VERSION) {
    throw new ComparisonFormatError(`Comparison schema version ${JSON.stringify(doc.schemaVersion ?? null)} is not supported by this version (it reads version ${COMPARISON_SCHEMA_VERSION}); update Durability Lens.`);
  }
  if (!Array.isArray(doc.modes)) throw new ComparisonFormatError('The comparison has no "modes" array.');
  const runs: RunResult[] = [];
  for (const [i, m] of doc.modes.entries()) {
    if (typeof m !== 'object' || m === null || !Array.isArray((m as ModeRuns).runs)) throw new ComparisonFormatError(`modes[${i}] has no "runs" array.`);
    for (const [j, r] of (m as ModeRuns).runs.entries()) {
      if (!isRunLike(r)) throw new ComparisonFormatError(`modes[${i}].runs[${j}] is not a RunResult of schema version 1.`);
      runs.push(r);
    }
  }
  for (const r of Array.isArray(doc.warmupRuns) ? doc.warmupRuns : []) if (isRunLike(r)) runs.push(r);
  try {
    return comparisonDocument({
      runs,
      status: typeof doc.status === 'string' ? doc.status : 'completed',
      plan: doc.plan ?? null,
      restore: doc.restore ?? null,
      error: doc.error ?? null,
      createdAt: typeof doc.createdAt === 'string' ? doc.createdAt : undefined,
    });
  } catch (err) {
    // The runs passed the shape checks above but a deeper field is not what this version reads (a hand-edited or
    // hostile file): say so, not "Cannot read properties of undefined" (outside attack).
    if (err instanceof TypeError || err instanceof RangeError) throw new ComparisonFormatError(`The comparison's runs hold a field this version cannot read (${err.message}); nothing was shown from it.`);
    throw err;
  }
}
