// The RunResult of a measured run, assembled from its steps: what could not be measured (once each, with the GRANT),
// the commit path's settings, a workload that left the measured database, and the cross-checks of every run.
import { notApplicable, valueOf, type Measurement, type PreflightResult, type Snapshot, type SnapshotDiff } from '../probes';
import type { LogFlushTrace } from '../xe/aggregate';
import { reconcileRun } from './consistency';
import { figureSourceOf, type MeasureOptions } from './runContext';
import { RUN_RESULT_SCHEMA_VERSION, runSchemaFields, runServerOf } from './runSchema';
import type { SamplerResult } from './sampler';
import type { StatementAttribution, StatementFigure } from './statementAttribution';
import type { CommitPath, DurabilityMode, MissingMeasurement, RunResult, WorkloadDatabaseChange } from './types';
import type { WorkloadStep } from './runWorkload';
import { definedFields } from '../shared/definedFields';

function unavailable(m: Measurement<unknown>): MissingMeasurement | null {
  if (m.status === 'ok') return null;
  return definedFields({ measurement: m.measurement, reason: m.reason, grant: m.grant, required: m.required ?? undefined });
}

function collectMissing(before: Snapshot, diff: SnapshotDiff, extra: MissingMeasurement[]): MissingMeasurement[] {
  const candidates = [
    before.database,
    before.fileStats,
    before.serverWaits,
    before.sessionWaits,
    before.logCounters,
    before.logStats,
    before.logSpace,
    before.vlfs,
    before.server.startTime,
    diff.files,
    diff.sessionWaits,
    // The after-snapshot can fail on its own (e.g. an empty source): its diff is then not measured either.
    diff.logCounters,
    diff.serverWaits,
  ];
  const out: MissingMeasurement[] = [];
  const seen = new Set<string>();
  for (const m of [...candidates.map(unavailable), ...extra]) {
    if (!m || seen.has(m.measurement)) continue;
    seen.add(m.measurement);
    out.push(m);
  }
  return out;
}

/** Sum of a cumulative perf counter's delta, or null when the counter was not read. */
export function counterDelta(diff: SnapshotDiff, counterName: string): number | null {
  const counters = valueOf(diff.logCounters);
  const c = counters?.find((x) => x.counterName.toLowerCase() === counterName.toLowerCase());
  return c && c.kind === 'cumulative' ? c.delta : null;
}

/** What the run's steps produced, for the RunResult. */
export interface RunParts {
  startedAt: string;
  options: MeasureOptions;
  workloadSpid: number;
  databaseHistory: readonly string[] | undefined;
  measuredDatabase: string;
  preflight: PreflightResult | null | undefined;
  before: Snapshot;
  diff: SnapshotDiff;
  workload: WorkloadStep;
  sampled: SamplerResult | null;
  logFlushTrace: LogFlushTrace | null;
  statements: StatementFigure[];
  statementAttribution: StatementAttribution | null;
  /** Measurements the steps could not make (traces turned off, refused, unreadable). */
  extraMissing: MissingMeasurement[];
  notes: string[];
  /** DELAYED_DURABILITY read with the after-snapshot; null when unreadable. */
  delayedDurabilityAfter: DurabilityMode | null;
}

export function runResultOf(parts: RunParts): RunResult {
  const { options, before, diff, workload, sampled, notes } = parts;
  notes.push(...diff.notes);
  const workloadDatabaseChange = databaseChangeOf(parts.databaseHistory, workload.historyAtStart, parts.measuredDatabase);
  if (workloadDatabaseChange) notes.push(workloadDatabaseChange.message);
  if (sampled) notes.push(...sampled.notes);
  const printed = workload.series.result();
  if (printed.droppedPoints > 0) notes.push(`${printed.droppedPoints} PRINT value(s) were not kept (series limits).`);
  const databaseInfo = valueOf(before.database);
  const workloadElapsedMs = workload.elapsedMs;
  const concurrency = workload.concurrency;
  const commitPath = commitPathOf(before);
  // The session's CPU (issue 29's time basis) is missing only when refused or failed, like the commit path's settings.
  const cpuMissing = diff.sessionCpu && diff.sessionCpu.status !== 'ok' && diff.sessionCpu.cause !== 'not-applicable' ? [unavailable(diff.sessionCpu)!] : [];
  const missing = collectMissing(before, diff, [...parts.extraMissing, ...commitPathMissing(commitPath), ...cpuMissing]);
  // Independent sources reconciled on every run; the WRITELOG time check also settles the wait event's unit (D2).
  const { logFlushTrace, statements, statementAttribution } = parts;
  const reconciled = reconcileRun({ diff, logFlushTrace, statements, statementAttribution, missing, concurrentSessions: concurrency?.sessions ?? null });
  const messageCount = workload.messageCount;
  // Stored as written (history, exports): a field that does not apply is left out, not undefined.
  return definedFields({
    schemaVersion: RUN_RESULT_SCHEMA_VERSION,
    source: figureSourceOf(before.server.identity.versionText),
    status: workload.cancel ? 'cancelled' : workload.errors.length > 0 ? 'workload-error' : 'completed',
    mode: options.mode ?? null,
    repetition: options.repetition ?? null,
    warmup: options.warmup ?? false,
    startedAt: parts.startedAt,
    workloadElapsedMs,
    snapshotIntervalMs: diff.elapsedMs,
    server: runServerOf(before.server),
    database: databaseInfo,
    delayedDurability: databaseInfo?.delayedDurability ?? null,
    delayedDurabilityAfter: parts.delayedDurabilityAfter,
    workloadSpid: parts.workloadSpid,
    batches: workload.batchOutcomes,
    diff,
    logFlushTrace,
    messages: { total: messageCount, errors: workload.errorCount, info: messageCount - workload.errorCount, first: workload.kept },
    errors: workload.errors,
    missing,
    preflight: parts.preflight ?? null,
    notes,
    ...runSchemaFields(diff, workloadElapsedMs),
    samples: sampled?.samples ?? [],
    sampleIntervalMs: sampled?.intervalMs ?? null,
    printSeries: printed.series,
    cancel: workload.cancel,
    setupBatchCount: options.setupBatchCount ?? 0,
    workloadDatabaseChange,
    // Only a concurrency sweep's runs carry one; undefined elsewhere, so the JSON has no key (older readers expect none).
    concurrency: concurrency ?? undefined,
    statements: reconciled.statements,
    statementAttribution: reconciled.statementAttribution,
    consistency: reconciled.checks,
    commitPath,
  });
}

/** The commit path's settings from the before-snapshot (issue 29); a snapshot without them reads "not captured". */
function commitPathOf(before: Snapshot): CommitPath {
  const absent = <T>(m: 'logRateGovernance' | 'hyperscaleLogRate' | 'inMemoryTables') => notApplicable<T>(m, 'Not captured in this snapshot.');
  return {
    logRateGovernance: before.logRateGovernance ?? absent('logRateGovernance'),
    hyperscaleLogRate: before.hyperscaleLogRate ?? absent('hyperscaleLogRate'),
    inMemoryTables: before.inMemoryTables ?? absent('inMemoryTables'),
  };
}

/** Only a refused or failed read is "missing": a source this platform does not have is not supported, not missing. */
function commitPathMissing(path: CommitPath): MissingMeasurement[] {
  return Object.values(path)
    .filter((m) => m.status !== 'ok' && m.cause !== 'not-supported' && m.cause !== 'not-applicable')
    .map((m) => unavailable(m)!)
    .filter((m) => m !== null);
}

/**
 * The workload session's databases during the run (tedious 'databaseChange', kept by the session): the one it was in
 * when the run started and every USE since. Anything other than the measured database means the monitor measured
 * one database while the workload wrote to another.
 */
export function databaseChangeOf(history: readonly string[] | undefined, atStart: number, measured: string): WorkloadDatabaseChange | null {
  if (!history || history.length === 0) return null;
  const during = [...(atStart > 0 ? [history[atStart - 1]!] : []), ...history.slice(atStart)];
  const same = (a: string) => a.toLowerCase() === measured.toLowerCase();
  const visited = [...new Set(during.filter((d) => !same(d)))];
  if (visited.length === 0) return null;
  const list = visited.map((d) => `"${d}"`).join(', ');
  return {
    measured,
    visited,
    message: `The workload session ran in ${list} (a USE in the workload moved it), while the measurements describe "${measured}": per-file IO, log counters and the log-flush trace cover "${measured}" only, so the work done in ${list} is not in them (the session's own waits cover both). Remove the USE, or connect to that database and measure it there.`,
  };
}
