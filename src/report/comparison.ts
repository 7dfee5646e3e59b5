// RunResult[] → ComparisonModel: one column per mode (median, min–max over the measured runs), one ratio per
// non-baseline mode with direction, spread and an inconclusive flag, the diagnosis, and the stand-in label.
import { statementsViewOf } from './statements';
import type { MissingMeasurement, RunResult } from '../profile/types';
import { buildConcurrencyModel, firstLevelRuns } from './concurrency';
import type { CancelledRuns, ComparisonModel, MetricRow, WorkloadFailure } from './comparisonModel';
import { diagnose } from './diagnosis';
import { METRICS, recordingMetrics, topOtherWaits, type MetricDefinition } from './metrics';
import { compareSummaries, summarize, type RatioCell, type Summary } from './stats';
import { environmentOf } from './environment';
import { disagreementsOf, summarizeConsistency } from './consistency';
import { assessCauses } from './causes';
import { isUntracedComparison, traceOverheadOf } from './traceOverheadText';
import { definedFields } from '../shared/definedFields';
import { byCodeUnits } from '../shared/textOrder';

export const STAND_IN_LABEL = 'Stand-in figures (simulated by the Durability Lens test stand-in, not measured on SQL Server)';

export type { CancelledRuns, ComparisonModel, MetricRow, WorkloadFailure } from './comparisonModel';

export function columnOf(run: RunResult): string {
  return run.mode ?? run.delayedDurability ?? 'RUN';
}

const COLUMN_ORDER = ['DISABLED', 'ALLOWED', 'FORCED'];

export interface ModelOptions {
  /** Column the ratios are relative to; default DISABLED when present, else the first column. */
  baseline?: string;
  /** How many "top other waits" rows; default 3. */
  otherWaits?: number;
}

export function buildComparisonModel(inputRuns: readonly RunResult[], options: ModelOptions = {}): ComparisonModel {
  const notes: string[] = [];
  // A sweep: the rows describe the first level run (levels must not mix in one cell); the curve covers them all.
  const concurrency = buildConcurrencyModel(inputRuns);
  const allRuns = firstLevelRuns(inputRuns);
  const firstLevel = allRuns[0]?.concurrency?.sessions;
  if (concurrency) notes.push(`Concurrency sweep: the table shows the runs on ${firstLevel} session${firstLevel === 1 ? '' : 's'}; the concurrency table covers ${concurrency.levels.join(', ')} sessions.`);
  const measured = allRuns.filter((r) => !r.warmup);
  const warmups = allRuns.length - measured.length;
  if (warmups > 0) notes.push(`${warmups} warm-up run(s) not counted.`);
  const invalid = measured.filter((r) => !r.diff.valid);
  if (invalid.length > 0) notes.push(`${invalid.length} run(s) left out: their snapshots cannot be compared (${invalid[0]!.diff.notes[0] ?? 'invalid diff'}).`);
  const valid = measured.filter((r) => r.diff.valid);

  const columns = [...new Set(measured.map(columnOf))].sort((a, b) => {
    const ia = COLUMN_ORDER.indexOf(a);
    const ib = COLUMN_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || byCodeUnits(a, b);
  });
  // A cancelled run covers only part of the workload: beside complete runs (or another mode's) it would pull the
  // medians and ranges down and make a speed-up out of the cut. It counts only where it is all there is (a cancelled
  // profile, or a comparison cancelled in its first run): the figures then cover what ran, and say so.
  const partial = valid.filter((r) => r.status === 'cancelled');
  const onlyPartial = columns.length === 1 && partial.length === valid.length;
  const runs = onlyPartial ? valid : valid.filter((r) => r.status !== 'cancelled');
  if (!onlyPartial && partial.length > 0) {
    notes.push(`${partial.length} cancelled run(s) left out of the figures (${partial.map((r) => `${columnOf(r)}${r.repetition !== null ? ` run ${r.repetition + 1}` : ''}`).join(', ')}): a cancelled run covers only part of the workload.`);
  }
  const baseline = options.baseline && columns.includes(options.baseline) ? options.baseline : (columns[0] ?? 'RUN');
  const byColumn = new Map(columns.map((c) => [c, runs.filter((r) => columnOf(r) === c)]));
  const runsPerColumn = Object.fromEntries(columns.map((c) => [c, byColumn.get(c)!.length]));

  const missing: MissingMeasurement[] = [];
  for (const m of allRuns.flatMap((r) => r.missing)) if (!missing.some((x) => x.measurement === m.measurement)) missing.push(m);

  // Every level's runs of a sweep are checked, not only the table's: a disagreement anywhere is shown.
  const consistency = summarizeConsistency(inputRuns);
  const definitions: MetricDefinition[] = [...METRICS, ...topOtherWaits(runs, options.otherWaits ?? 3), ...recordingMetrics(runs)];
  const rows: MetricRow[] = definitions.map((def) => {
    const cells: Record<string, Summary | null> = {};
    for (const c of columns) cells[c] = summarize(byColumn.get(c)!.map((r) => def.extract(r)));
    const ratios: Record<string, RatioCell | null> = {};
    const base = cells[baseline] ?? null;
    for (const c of columns) {
      if (c === baseline) continue;
      const other = cells[c] ?? null;
      ratios[c] = base && other ? compareSummaries(base, other, def.better, [baseline, c]) : null;
    }
    const unmeasured = def.measurement ? missing.find((m) => m.measurement === def.measurement) : undefined;
    const notMeasured = unmeasured && Object.values(cells).every((x) => x === null) ? unmeasured : null;
    return { id: def.id, label: def.label, unit: def.unit, better: def.better, source: def.source, cells, ratios, notMeasured, consistency: disagreementsOf(consistency, def.id) };
  });

  const inconclusive = rows.filter((r) => Object.values(r.ratios).some((x) => x?.inconclusive));
  if (inconclusive.length > 0) {
    notes.push(`Inconclusive (min–max ranges overlap, so the difference may be noise): ${inconclusive.map((r) => r.label).join(', ')}.`);
  }
  for (const c of columns) if (runsPerColumn[c] === 1) notes.push(`${c} has a single measured run: no spread to judge noise by.`);

  // A workload that moved its session to another database (USE) was measured in the wrong place: say so once.
  for (const m of new Set(allRuns.map((r) => r.workloadDatabaseChange?.message).filter((x): x is string => !!x))) notes.push(m);
  // A profile whose script changed DELAYED_DURABILITY left the database changed: said first (profile/workloadDurability.ts).
  const durabilityChange = allRuns.find((r) => r.workloadDurabilityChange)?.workloadDurabilityChange;
  if (durabilityChange) notes.unshift(durabilityChange.message);

  const lossy = runs.filter((r) => (r.logFlushTrace?.lostEvents ?? 0) > 0);
  if (lossy.length > 0) {
    const worst = Math.max(...lossy.map((r) => r.logFlushTrace!.lostEvents));
    notes.push(`The log-flush trace lost events in ${lossy.length} run(s) (up to ${worst}): XE flush counts are low there; the Log Flushes/sec counter row is exact.`);
  }
  const standIn = allRuns.some((r) => r.source === 'stand-in');
  const first = allRuns[0];
  // Stored and compared as written (history, panel state): a field that does not apply is left out, not undefined.
  const model: ComparisonModel = definedFields({
    schemaVersion: 1,
    source: standIn ? 'stand-in' : 'sql-server',
    sourceLabel: standIn ? STAND_IN_LABEL : null,
    server: first?.server.identity.serverName ?? null,
    database: first?.database?.name ?? null,
    columns,
    baseline,
    runsPerColumn,
    rows,
    diagnosis: [],
    notes,
    missing,
    environment: environmentOf(runs.length > 0 ? runs : allRuns),
    failure: failureOf(allRuns),
    cancelled: cancelledOf(allRuns),
    concurrency: concurrency ?? undefined,
    statements: statementsViewOf(allRuns, columnOf, baseline),
    consistency,
    causes: Object.fromEntries(columns.filter((c) => byColumn.get(c)!.length > 0).map((c) => [c, assessCauses(byColumn.get(c)!, concurrency?.points.filter((p) => p.mode === c) ?? [])])),
    traceOverhead: traceOverheadOf(allRuns),
    workloadDurabilityChange: durabilityChange,
    untracedComparison: isUntracedComparison(allRuns),
  });
  model.diagnosis = diagnose(model, allRuns);
  return model;
}

function cancelledOf(runs: readonly RunResult[]): CancelledRuns | undefined {
  const cancelled = runs.filter((r) => !r.warmup && r.status === 'cancelled');
  if (cancelled.length === 0) return undefined;
  const first = cancelled[0]!;
  return { runs: cancelled.length, reason: first.cancel?.reason ?? 'user', atMs: first.cancel?.atMs ?? first.workloadElapsedMs ?? 0 };
}

function failureOf(runs: readonly RunResult[]): WorkloadFailure | null {
  const failed = runs.find((r) => r.status === 'workload-error' && r.errors.length > 0) ?? runs.find((r) => r.errors.length > 0);
  const e = failed?.errors[0];
  return e ? { number: e.number, message: e.message, line: e.documentLine } : null;
}

export function rowById(model: ComparisonModel, id: string): MetricRow | undefined {
  return model.rows.find((r) => r.id === id);
}
