// Turns a comparison result or a single run into the PanelData the webview renders (vscode-free, unit-tested):
// header, metric model, chart series, per-file IO, top waits and missing measurements with their GRANTs.
import { rebuildGrant, rebuildGrants } from '../../probes/grantRebuild';
import { valueOf } from '../../probes/measurement';
import type { ComparisonResult } from '../../profile/compare';
import type { RestoreOutcome } from '../../profile/durabilityGuard';
import type { ComparisonPlan } from '../../profile/plan';
import type { RunResult } from '../../profile/types';
import { buildComparisonModel, columnOf } from '../../report/comparison';
import { firstLevelRuns } from '../../report/concurrency';
import { comparisonDocument, type ComparisonDocument } from '../../report/document';
import { csvCell, toCsv, toJson, toMarkdown } from '../../report/export';
import { markdownText } from '../../report/markdownText';
import type { ChartsData, ExportFormat, FileIoRow, MissingRow, PanelData, PanelHeader, Series, WaitRowView } from '../../shared/webviewProtocol';
import type { LogFlushTrace } from '../../xe/aggregate';
import { neutraliseDocument, placeholderFacts, templateGrant, templateGrantScript } from '../../agent/untrustedComparison';
import { detailsFrom, environmentFrom, fileIoChartFrom, fileThroughputChartFrom, perSecond, printChartFrom, samplesChartFrom, serverWaitRowsFrom, topWaitRows, traceRows } from './panelDetail';

function headerFrom(runs: readonly RunResult[], server: string | null): Omit<PanelHeader, 'restore' | 'status' | 'error'> {
  const first = runs[0];
  const identity = first?.server.identity;
  const host = first ? valueOf(first.server.host) : null;
  return {
    server: server ?? identity?.serverName ?? null,
    version: identity ? identity.productVersion : null,
    edition: identity?.edition ?? null,
    hostPlatform: host ? [host.platform, host.distribution, host.release].filter((x) => x).join(' ') || null : null,
    database: first?.database?.name ?? identity?.currentDatabase ?? null,
    recoveryModel: first?.database?.recoveryModel ?? null,
  };
}

function writelogMs(run: RunResult): number | null {
  const waits = valueOf(run.diff.sessionWaits);
  if (!waits) return null;
  return waits.top.find((w) => w.waitType.toUpperCase() === 'WRITELOG')?.waitTimeMs ?? 0;
}

function logTotals(run: RunResult): { writes: number; bytes: number } | null {
  const files = valueOf(run.diff.files);
  if (!files) return null;
  const log = files.totals.find((t) => t.kind === 'log');
  return { writes: log?.writes ?? 0, bytes: log?.bytesWritten ?? 0 };
}

/** Where a size chart's counts come from, with what it missed: the server histogram (exact) or a sample. */
function sizeSourceText(traces: readonly (LogFlushTrace | null | undefined)[]): string {
  const present = traces.filter((t): t is LogFlushTrace => !!t?.sizeHistogram);
  if (present.length === 0) return 'no sizes';
  const missed = present.reduce((s, t) => s + (t.sizeHistogram!.notBucketed ?? 0), 0);
  if (present.every((t) => t.sizeHistogram!.source === 'histogram')) {
    return missed > 0 ? `server histogram, ${missed.toLocaleString('en-US')} flushes not bucketed (slots full)` : 'every flush (server histogram, exact)';
  }
  return `sampled flushes only (${present[0]!.target === 'ring_buffer' ? 'ring buffer' : 'event file'})`;
}

/** Chart series from the measured runs (warm-up excluded), one series per column (mode) in the model's order. */
export function chartsFrom(runs: readonly RunResult[], columns: readonly string[]): ChartsData {
  const measured = runs.filter((r) => !r.warmup);
  const byColumn = columns.map((c) => ({ column: c, runs: measured.filter((r) => columnOf(r) === c) }));
  const reps = Math.max(0, ...byColumn.map((b) => b.runs.length));
  const repetitions = Array.from({ length: reps }, (_, i) => `rep ${i + 1}`);
  const series = (f: (r: RunResult) => number | null): Series[] =>
    byColumn.map((b) => ({ label: b.column, values: repetitions.map((_, i) => (b.runs[i] ? f(b.runs[i]!) : null)) }));
  const writesVsBytes = byColumn.map((b) => ({
    label: b.column,
    points: b.runs.map(logTotals).filter((p): p is { writes: number; bytes: number } => p !== null).map((p) => ({ x: p.writes, y: p.bytes })),
  }));
  let flushSizes: ChartsData['flushSizes'] = null;
  const withHistogram = measured.find((r) => r.logFlushTrace?.sizeHistogram);
  if (withHistogram) {
    const labels = withHistogram.logFlushTrace!.sizeHistogram!.labels;
    flushSizes = {
      labels: [...labels],
      series: byColumn.map((b) => {
        const sums = labels.map(() => 0);
        for (const r of b.runs) r.logFlushTrace?.sizeHistogram?.counts.forEach((n, i) => (sums[i] = (sums[i] ?? 0) + n));
        return { label: b.column, values: sums };
      }),
      sources: byColumn.map((b) => `${b.column}: ${sizeSourceText(b.runs.map((r) => r.logFlushTrace))}`),
    };
  }
  let flushTimeline: ChartsData['flushTimeline'] = null;
  const withTimeline = measured.find((r) => (r.logFlushTrace?.timeline.counts.length ?? 0) > 0);
  if (withTimeline) {
    // The first measured run of each mode: timelines of different runs do not share a time axis.
    flushTimeline = {
      bucketMs: withTimeline.logFlushTrace!.timeline.bucketMs,
      series: byColumn.map((b) => ({ label: b.column, values: [...(b.runs.find((r) => r.logFlushTrace)?.logFlushTrace?.timeline.counts ?? [])] })),
      coverage: byColumn.map((b) => `${b.column}: ${b.runs.find((r) => r.logFlushTrace)?.logFlushTrace?.timeline.coverage?.label ?? 'coverage not recorded'}`),
    };
  }
  return {
    repetitions,
    elapsedMs: series((r) => r.workloadElapsedMs),
    writelogMs: series(writelogMs),
    writesVsBytes,
    flushSizes,
    flushTimeline,
    fileIo: fileIoChartFrom(runs, columns),
    fileThroughput: fileThroughputChartFrom(runs, columns),
    samples: samplesChartFrom(runs),
    printSeries: printChartFrom(runs),
  };
}

/** Per-file IO: one row per file per mode, from the first measured run of the mode (the table stays readable). */
export function fileRowsFrom(runs: readonly RunResult[], columns: readonly string[]): FileIoRow[] {
  const out: FileIoRow[] = [];
  for (const c of columns) {
    const run = runs.find((r) => !r.warmup && columnOf(r) === c && valueOf(r.diff.files));
    const intervalMs = run?.diff.elapsedMs ?? null;
    for (const f of valueOf(run?.diff.files)?.files ?? []) {
      out.push({
        mode: c,
        file: f.logicalName,
        kind: f.kind,
        writes: f.writes,
        bytesWritten: f.bytesWritten,
        msPerWrite: f.msPerWrite,
        avgBytesPerWrite: f.avgBytesPerWrite,
        reads: f.reads,
        bytesRead: f.bytesRead,
        msPerRead: f.msPerRead,
        readBytesPerSec: perSecond(f.bytesRead, intervalMs),
        writeBytesPerSec: perSecond(f.bytesWritten, intervalMs),
      });
    }
  }
  return out;
}

export function waitRowsFrom(runs: readonly RunResult[], columns: readonly string[], perMode = 5): WaitRowView[] {
  return topWaitRows(runs, columns, 'sessionWaits', perMode);
}

/** Facts a run states about its login and server, for rebuilding GRANTs (a loaded file may hold anything here). */
function grantFactsOf(run: RunResult | undefined) {
  const identity = run?.server?.identity;
  return {
    majorVersion: identity?.majorVersion,
    engineEdition: identity?.engineEdition,
    loginName: run?.preflight?.loginName ?? identity?.loginName,
    userName: run?.preflight?.userName ?? identity?.userName,
    databaseName: run?.database?.name ?? run?.preflight?.databaseName,
  };
}

/**
 * Missing measurements and the script "Copy GRANTs" puts on the clipboard. Both GRANT texts are rebuilt from the
 * runs' structured facts (src/probes/grantRebuild.ts), never taken from the runs' stored `grant` strings. For runs
 * from a file (`fromFile`) even the principal is not the file's: the GRANTs name placeholders that "Copy GRANTs" fills
 * with the connection's own login (agent/untrustedComparison.ts).
 */
function missingFrom(runs: readonly RunResult[], fromFile = false): { missing: MissingRow[]; grantScript: string } {
  const seen = new Set<string>();
  const missing: MissingRow[] = [];
  const requirements: { measurement: string; required: unknown; hasGrant: boolean }[] = [];
  const facts = grantFactsOf(runs[0]);
  const template = placeholderFacts(runs[0]);
  const grantOf = (entry: unknown) => (fromFile ? templateGrant(entry, template) : rebuildGrant(entry, facts));
  for (const r of runs) {
    for (const m of Array.isArray(r.missing) ? r.missing : []) {
      if (typeof m?.measurement !== 'string' || seen.has(m.measurement)) continue;
      seen.add(m.measurement);
      missing.push({ measurement: m.measurement, reason: m.reason, grant: m.grant === null ? null : grantOf({ measurement: m.measurement, required: m.required }) });
      requirements.push({ measurement: m.measurement, required: m.required, hasGrant: m.grant !== null });
    }
  }
  const preflight = runs.find((r) => Array.isArray(r.preflight?.missing) && r.preflight!.missing.length > 0)?.preflight;
  const preflightMissing = preflight ? preflight.missing.map((m) => ({ measurement: m?.measurement, required: m?.required })) : [];
  const measurements = [...preflightMissing, ...requirements.filter((m) => m.hasGrant)];
  return { missing, grantScript: fromFile ? templateGrantScript(measurements, template) : rebuildGrants({ ...facts, measurements }).join('\n\n') };
}

export function panelDataFromComparison(result: ComparisonResult, now: Date = new Date(), fromFile = false): PanelData {
  const model = buildComparisonModel(result.runs);
  const restore = result.restore;
  const { missing, grantScript } = missingFrom(result.runs, fromFile);
  return {
    kind: 'comparison',
    title: `Durability comparison: ${result.plan.database}`,
    createdAt: now.toISOString(),
    header: {
      ...headerFrom(result.runs, result.plan.server),
      version: result.runs[0]?.server.identity.productVersion ?? result.plan.serverVersion.split('\n')[0] ?? null,
      database: result.plan.database,
      restore: restore
        ? {
            // Only a verified restore is "ok"; a failed one, or another session's change left in place
            // (external-change), shows its own message and the statement for the original.
            ok: restore.status === 'restored' || restore.status === 'already-original',
            message:
              restore.status === 'restored' || restore.status === 'already-original'
                ? `Original setting ${restore.originalSetting} restored ✓ (verified: ${restore.verifiedSetting ?? 'unknown'})`
                : restore.message,
            statement: restore.status === 'restored' || restore.status === 'already-original' ? null : restore.restoreStatement,
            originalSetting: restore.originalSetting,
            verifiedSetting: restore.verifiedSetting,
          }
        : null,
      status: result.status,
      error: result.error?.message ?? null,
    },
    standInLabel: model.sourceLabel ?? (result.plan.source === 'stand-in' ? 'Stand-in figures (simulated by the Durability Lens test stand-in, not measured on SQL Server)' : null),
    model,
    // A concurrency sweep: the per-run charts and tables describe the first level, like the metric table.
    charts: chartsFrom(firstLevelRuns(result.runs), model.columns),
    files: fileRowsFrom(firstLevelRuns(result.runs), model.columns),
    waits: waitRowsFrom(firstLevelRuns(result.runs), model.columns),
    serverWaits: serverWaitRowsFrom(firstLevelRuns(result.runs), model.columns),
    environment: environmentFrom(result.runs),
    details: null,
    missing,
    grantScript,
  };
}

export function panelDataFromRun(run: RunResult, server: string | null, now: Date = new Date()): PanelData {
  const model = buildComparisonModel([run]);
  const { missing, grantScript } = missingFrom([run]);
  const firstError = run.errors[0];
  return {
    kind: 'profile',
    title: `Durability profile: ${run.database?.name ?? run.server.identity.currentDatabase}`,
    createdAt: now.toISOString(),
    header: {
      ...headerFrom([run], server),
      restore: null,
      status: run.status === 'cancelled' ? 'cancelled (figures up to the cancel; the after-snapshot was taken)' : run.status,
      error: firstError ? `SQL error ${firstError.number}${firstError.documentLine !== null ? ` at line ${firstError.documentLine + 1}` : ''}: ${firstError.message}` : null,
    },
    standInLabel: model.sourceLabel,
    model,
    charts: chartsFrom([run], model.columns),
    files: fileRowsFrom([run], model.columns),
    waits: waitRowsFrom([run], model.columns, 10),
    serverWaits: serverWaitRowsFrom([run], model.columns, 10),
    environment: environmentFrom([run]),
    details: detailsFrom(run),
    missing,
    grantScript,
  };
}

/** An ad-hoc log-flush trace (Start Log-Flush Trace … Stop Trace and Show): only the XE figures and charts. */
export function panelDataFromTrace(trace: LogFlushTrace, context: { server: string | null; database: string; standIn: boolean; startedAt: Date }, now: Date = new Date()): PanelData {
  const model = buildComparisonModel([]);
  const seconds = (now.getTime() - context.startedAt.getTime()) / 1000;
  return {
    kind: 'trace',
    title: `Log-flush trace: ${context.database}`,
    createdAt: now.toISOString(),
    header: { server: context.server, version: null, edition: null, hostPlatform: null, database: context.database, recoveryModel: null, restore: null, status: `traced for ${seconds.toFixed(1)} s`, error: null },
    standInLabel: context.standIn ? 'Stand-in figures (simulated by the Durability Lens test stand-in, not measured on SQL Server)' : null,
    model,
    charts: {
      repetitions: [],
      elapsedMs: [],
      writelogMs: [],
      writesVsBytes: [],
      flushSizes: trace.sizeHistogram ? { labels: [...trace.sizeHistogram.labels], series: [{ label: 'trace', values: [...trace.sizeHistogram.counts] }], sources: [sizeSourceText([trace])] } : null,
      flushTimeline:
        trace.timeline.counts.length > 0
          ? { bucketMs: trace.timeline.bucketMs, series: [{ label: 'trace', values: [...trace.timeline.counts] }], coverage: [trace.timeline.coverage?.label ?? 'coverage not recorded'] }
          : null,
      fileIo: null,
      fileThroughput: null,
      samples: null,
      printSeries: null,
    },
    files: [],
    waits: [],
    serverWaits: [],
    environment: { traceFlag3979: null, traceFlag3982: null, vlfCount: null, logSizeMb: null, recoveryModel: null, delayedDurability: null },
    details: { logCounters: [], log: [], trace: traceRows(trace), traceNotes: [...trace.notes], notes: [] },
    missing: [],
    grantScript: '',
  };
}

/** What a comparison's JSON export needs besides its runs (the CLI's comparison document carries them). */
export interface ComparisonContext {
  plan: ComparisonPlan | null;
  restore: RestoreOutcome | null;
  error: { kind: string; message: string } | null;
}

export function comparisonContextOf(result: Pick<ComparisonResult, 'plan' | 'restore' | 'error'>): ComparisonContext {
  return { plan: result.plan, restore: result.restore, error: result.error };
}

/**
 * A saved comparison document (CLI `compare --json`, or Export Run) as panel data: with its plan it renders like a
 * fresh comparison; without one, header facts come from the runs. Its GRANTs and restore statement are ours, never
 * the file's (neutraliseDocument; a document already neutralised is left as it is).
 */
export function panelDataFromDocument(loaded: ComparisonDocument): PanelData {
  const doc = neutraliseDocument(loaded);
  const runs = [...doc.modes.flatMap((m) => m.runs), ...doc.warmupRuns];
  const createdAt = new Date(doc.createdAt);
  const when = Number.isNaN(createdAt.getTime()) ? new Date() : createdAt;
  if (doc.plan) {
    return panelDataFromComparison({ schemaVersion: 1, status: doc.status as ComparisonResult['status'], plan: doc.plan, runs, setupBatchCount: 0, restore: doc.restore, error: doc.error as ComparisonResult['error'] }, when, true);
  }
  const model = buildComparisonModel(runs);
  const { missing, grantScript } = missingFrom(runs, true);
  return {
    kind: 'comparison',
    title: `Durability comparison: ${doc.database ?? 'unknown database'}`,
    createdAt: when.toISOString(),
    header: { ...headerFrom(runs, doc.server), database: doc.database, restore: null, status: doc.status, error: doc.error?.message ?? null },
    standInLabel: model.sourceLabel,
    model,
    charts: chartsFrom(firstLevelRuns(runs), model.columns),
    files: fileRowsFrom(firstLevelRuns(runs), model.columns),
    waits: waitRowsFrom(firstLevelRuns(runs), model.columns),
    serverWaits: serverWaitRowsFrom(firstLevelRuns(runs), model.columns),
    environment: environmentFrom(runs),
    details: null,
    missing,
    grantScript,
  };
}

/** Markdown lines for the single-run tables the report model does not carry (its Markdown has the environment). */
function markdownExtras(data: PanelData): string[] {
  const cell = markdownText;
  const out: string[] = [];
  const d = data.details;
  if (d && d.trace.length > 0) {
    out.push('', '## Log-flush trace (Extended Events)', '', '| Figure | Value |', '| --- | ---: |');
    for (const r of d.trace) out.push(`| ${cell(r.figure)} | ${cell(r.value)} |`);
  }
  if (d && d.log.length > 0) {
    out.push('', '## Log before / after', '', '| Figure | Before | After |', '| --- | ---: | ---: |');
    for (const r of d.log) out.push(`| ${cell(r.figure)} | ${cell(r.before)} | ${cell(r.after)} |`);
  }
  return out;
}

/**
 * What "Copy as Markdown", the export buttons and "Export Run" write: the report layer's exporters over the panel's
 * model plus the trace and log tables. JSON is what the CLI prints: a comparison document (loadComparison reads it
 * back) for a comparison, the RunResult with its diagnosis for a profile, the figures for a trace.
 */
export function exportText(data: PanelData, format: ExportFormat, runs?: readonly RunResult[], comparison?: ComparisonContext | null): string {
  if (format === 'markdown') {
    const r = data.header.restore;
    const verdict = data.kind === 'trace' ? undefined : { restore: r ? { ok: r.ok, originalSetting: r.originalSetting ?? null, verifiedSetting: r.verifiedSetting ?? null, message: r.message } : null, workload: data.header.workload ?? null };
    const base = toMarkdown(data.model, data.title, verdict).trimEnd();
    return `${base}\n${markdownExtras(data).join('\n')}\n`;
  }
  if (format === 'csv') {
    if (data.kind === 'trace') return ['figure,value', ...(data.details?.trace ?? []).map((r) => `${csvCell(r.figure)},${csvCell(r.value)}`)].join('\r\n') + '\r\n';
    return toCsv(data.model);
  }
  if (data.kind === 'comparison' && runs && runs.length > 0) {
    const status = comparison?.error?.kind === 'cancelled' ? 'cancelled' : data.header.status;
    return JSON.stringify(comparisonDocument({ runs, status, plan: comparison?.plan ?? null, restore: comparison?.restore ?? null, error: comparison?.error ?? null, createdAt: data.createdAt }), null, 2) + '\n';
  }
  if (data.kind === 'profile' && runs && runs.length === 1) return JSON.stringify({ ...runs[0], diagnosis: data.model.diagnosis }, null, 2) + '\n';
  const raw: Record<string, unknown> = {
    kind: data.kind,
    title: data.title,
    createdAt: data.createdAt,
    header: data.header,
    environment: data.environment,
    missing: data.missing,
  };
  // Only a trace export has a `trace` key (its figure/value rows).
  if (data.kind === 'trace') raw.trace = data.details?.trace ?? [];
  return toJson(data.model, raw);
}
