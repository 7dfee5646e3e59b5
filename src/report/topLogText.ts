// How the Heaviest Log Writers figures read: the CLI's text report, the one-line production lens over a routine, and the
// lab-versus-production comparison after a profile of that routine. Every figure that was not measured says so.
import type { RunResult } from '../profile/types';
import type { RoutineProduction, TopLogDocument, TopLogRow } from './topLog';
import { formatBytes, formatCount, formatDuration, formatNumber, formatShare } from './units';
import { oneLineField } from '../shared/visibleText';

const NOT_MEASURED = 'not measured';

/** 1,234 → "1,234"; 1,234,567 → "1.2 M"; 3,400,000,000 → "3.4 G": counts a lens can hold. */
export function compactCount(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${formatNumber(n / 1e9, 1)} G`;
  if (abs >= 1e6) return `${formatNumber(n / 1e6, 1)} M`;
  if (abs >= 1e4) return `${formatNumber(n / 1e3, 1)} k`;
  return formatCount(Math.round(n));
}

/** "last 24 h" / "last 35 min" over the span actually read (the requested window when the span is unknown). */
export function spanText(spanHours: number | null, windowHours: number): string {
  const h = spanHours === null ? windowHours : Math.min(spanHours, windowHours);
  if (h >= 48) return `last ${formatNumber(h / 24, 1)} days`;
  if (h >= 1) return `last ${formatNumber(h, 1)} h`;
  return `last ${Math.max(1, Math.round(h * 60))} min`;
}

/**
 * The production lens over a routine: "Production (Query Store, last 24 h): 1.2 M executions/day, 4.10 GiB log/day,
 * 38 % of its waits on the log". Per day only over an hour or more of history; totals otherwise.
 */
export function productionLensText(p: RoutineProduction): string {
  const daily = p.executionsPerDay !== null;
  const executions = daily ? `${compactCount(p.executionsPerDay!)} executions/day` : `${compactCount(p.executions)} executions`;
  const log = p.logBytes === null ? `log ${NOT_MEASURED}` : daily && p.logBytesPerDay !== null ? `${formatBytes(p.logBytesPerDay)} log/day` : `${formatBytes(p.logBytes)} log`;
  const waits = p.logWaitShare !== null ? `${formatShare(p.logWaitShare)} of its waits on the log` : p.waitsNotMeasured ? `waits ${NOT_MEASURED}` : 'no waits recorded';
  return `Production (Query Store, ${spanText(p.spanHours, p.windowHours)}${p.source === 'stand-in' ? ', stand-in' : ''}): ${executions}, ${log}, ${waits}`;
}

/** One row as a line of the CLI table / the view's description. */
export function rowFigures(r: TopLogRow): string {
  const executions = r.executionsPerDay !== null ? `${compactCount(r.executions)} exec (${compactCount(r.executionsPerDay)}/day)` : `${compactCount(r.executions)} exec`;
  const log = r.logBytes === null ? `log ${NOT_MEASURED}` : `${formatBytes(r.logBytes)} log (${formatBytes(r.logBytesPerExecution ?? 0)}/exec)`;
  const wait = r.logWaitMs === null ? `log wait ${NOT_MEASURED}` : `${formatDuration(r.logWaitMs)} log wait${r.logWaitShare !== null ? ` (${formatShare(r.logWaitShare)} of waits)` : ''}`;
  return `${executions} · ${log} · ${wait}`;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Why a readable Query Store gave no rows, in the ranking's terms. */
export function emptyText(doc: TopLogDocument): string {
  const used = doc.ranking.used ?? doc.ranking.requested;
  const what = used === 'executions' ? 'ran' : used === 'wait' ? 'waited on the log' : 'wrote log';
  return `No query ${what} in ${oneLineField(doc.database)} in this window (${doc.window.requestedHours} h): Query Store holds nothing to rank.`;
}

/** The CLI's text report. */
export function describeTopLog(doc: TopLogDocument): string {
  const lines: string[] = [];
  lines.push(`Heaviest log writers in ${oneLineField(doc.database)} — Query Store, ${spanText(doc.window.spanHours, doc.window.requestedHours)} (asked: ${doc.window.requestedHours} h)${doc.source === 'stand-in' ? ' — STAND-IN figures (a model, not SQL Server)' : ''}`);
  lines.push(doc.queryStore.message);
  if (doc.queryStore.fix) lines.push('', `To fix it (not run by Durability Lens — review, then run it yourself):`, ...doc.queryStore.fix.statement.split('\n').map((l) => `  ${l}`), `  Cost: ${doc.queryStore.fix.cost}`);
  for (const n of doc.queryStore.notices) lines.push('', `Note: ${n}`);
  if (doc.rowsNotMeasured && doc.rowsNotMeasured !== doc.queryStore.message) lines.push('', doc.rowsNotMeasured);
  if (doc.rows.length === 0) {
    if (doc.queryStore.outcome === 'ready' || doc.queryStore.outcome === 'read-only') lines.push('', emptyText(doc));
    return `${lines.join('\n')}\n`;
  }
  const used = doc.ranking.used ?? doc.ranking.requested;
  lines.push('', `Ranked by ${used === 'log' ? 'total log bytes' : used === 'wait' ? 'log-IO wait time' : used === 'alone' ? 'executions that each commit on their own' : 'executions'}${doc.ranking.note ? `. ${doc.ranking.note}` : '.'}`);
  if (doc.totals) lines.push(`Whole database over the window: ${formatCount(doc.totals.executions)} executions of ${formatCount(doc.totals.queries)} queries, ${doc.totals.logBytes === null ? `log ${NOT_MEASURED}` : `${formatBytes(doc.totals.logBytes)} of log`}.`);
  lines.push('');
  for (const r of doc.rows) {
    lines.push(`${String(r.rank).padStart(3)}. ${oneLineField(r.objectLabel)} — ${oneLine(r.text, 90)}`);
    lines.push(`     ${rowFigures(r)} · ${formatDuration(r.durationMsPerExecution ?? 0)}/exec · query_id ${r.queryId}${r.queryHash ? ` · query_hash ${r.queryHash}` : ''}`);
    if (r.unfinishedExecutions > 0) lines.push(`     ${formatCount(r.unfinishedExecutions)} execution(s) aborted or ended by an error`);
  }
  if (doc.logBytesNotMeasured) lines.push('', `Log bytes: ${doc.logBytesNotMeasured}`);
  if (doc.waitsNotMeasured) lines.push('', `Waits: ${doc.waitsNotMeasured}`);
  lines.push('', 'Units: log in bytes (KiB = 1,024 bytes); Query Store averages are per plan, interval and execution type — totals are Σ average × executions.');
  return `${lines.join('\n')}\n`;
}

// ---- Lab vs production ----

export interface LabVersusProductionRow {
  metric: string;
  lab: number | null;
  production: number | null;
  unit: 'bytes' | 'ms';
  /** Why a side is missing (null when both are measured). */
  note: string | null;
}

export interface LabVersusProduction {
  routine: string;
  /** Executions of the routine's log-writing statements in the lab run and in production's window. */
  labWritingExecutions: number | null;
  productionWritingExecutions: number;
  rows: LabVersusProductionRow[];
  /** One line for the lens: "Lab vs production, per writing execution: log 312 B vs 323 B · log wait 0.20 ms vs 0.21 ms". */
  summary: string;
  notes: string[];
}

const WRITING = /^\s*(INSERT|UPDATE|DELETE|MERGE)\b/i;

/** The name a statement event gives a module ("lens_load", or "dbo.lens_load") against a routine's name part. */
export function sameModule(module: string | undefined, name: string): boolean {
  if (!module) return false;
  return module.split('.').pop()!.replace(/^\[|\]$/g, '').toLowerCase() === name.toLowerCase();
}

/** XE's sqlserver.query_hash (an unsigned decimal) as Query Store writes query_hash (binary(8), big-endian, 0x…). */
export function queryHashHex(decimal: string | undefined): string | null {
  if (!decimal || !/^\d+$/.test(decimal) || decimal === '0') return null;
  const v = BigInt(decimal);
  return v > 0xffffffffffffffffn ? null : `0x${v.toString(16).toUpperCase().padStart(16, '0')}`;
}

function sameText(a: string, b: string): boolean {
  const flat = (s: string) => s.replace(/\s+/g, ' ').replace(/;\s*$/, '').trim().toLowerCase();
  return a.trim() !== '' && flat(a) === flat(b);
}

/**
 * The lab run's statements that are the routine's log-writing statements: the same query_hash (per-statement
 * attribution counts by the XE query_hash action; that it equals Query Store's query_hash is NOT CONFIRMED outside the
 * stand-in), the same text, or an INSERT/UPDATE/DELETE/MERGE the run attributed to the routine by name.
 */
export function labStatementsOf(p: RoutineProduction, run: RunResult): NonNullable<RunResult['statements']> {
  const hashes = new Set(p.writingStatements.map((w) => w.queryHash?.toLowerCase()).filter((h): h is string => !!h));
  return (run.statements ?? []).filter((s) => {
    const hex = queryHashHex(s.queryHash);
    if (hex !== null && hashes.has(hex.toLowerCase())) return true;
    if (p.writingStatements.some((w) => sameText(s.text, w.text))) return true;
    return sameModule(s.module, p.name) && WRITING.test(s.text);
  });
}

/**
 * A profile of the routine next to its production figures, per execution of a statement that writes log (the unit
 * both sides can count): lab log bytes = the run's growth of used log space (sys.dm_db_log_space_usage) over the
 * executions of the routine's log-writing statements (per-statement attribution, labStatementsOf); lab log wait = the
 * session's WRITELOG over the same executions. Production: Σ log bytes and "Tran Log IO" waits of the routine's
 * statements that wrote log, over their executions.
 */
export function labVersusProduction(p: RoutineProduction, run: RunResult): LabVersusProduction {
  const notes: string[] = [];
  const statements = labStatementsOf(p, run);
  const labExecutions = statements.length > 0 ? statements.reduce((n, s) => n + s.executions, 0) : null;
  if (labExecutions === null) notes.push(`The lab run has no per-statement figures for ${p.label}'s log-writing statements (statement attribution off or not permitted, or the run did not execute them): per-execution lab figures are not measured.`);
  const used = run.diff?.log?.usedBytes?.delta ?? null;
  const labLog = labExecutions && used !== null && used > 0 ? used / labExecutions : null;
  if (labExecutions && (used === null || used <= 0)) notes.push('The lab run\'s used log space did not grow (not readable, or truncated by a checkpoint in SIMPLE recovery): lab log bytes are not measured.');
  const writelog = run.sessionWaits?.find((w) => w.waitType.toUpperCase() === 'WRITELOG')?.waitTimeMs;
  const labWait = labExecutions && writelog !== undefined ? writelog / labExecutions : null;
  const rows: LabVersusProductionRow[] = [
    {
      metric: 'log bytes per writing execution', unit: 'bytes', lab: labLog, production: p.logBytesPerWritingExecution,
      note: p.logBytesPerWritingExecution === null ? p.logBytesNotMeasured ?? 'production log bytes not measured' : labLog === null ? 'lab log bytes not measured' : null,
    },
    {
      metric: 'log wait per writing execution (lab WRITELOG, production Tran Log IO)', unit: 'ms', lab: labWait, production: p.logWaitMsPerWritingExecution,
      note: p.logWaitMsPerWritingExecution === null ? p.waitsNotMeasured ?? 'production waits not measured' : labWait === null ? 'lab WRITELOG not measured' : null,
    },
  ];
  const side = (v: number | null, unit: 'bytes' | 'ms') => (v === null ? NOT_MEASURED : unit === 'bytes' ? formatBytes(v) : formatDuration(v));
  const summary = `Lab vs production (${p.source === 'stand-in' || run.source === 'stand-in' ? 'stand-in figures, ' : ''}per writing execution): log ${side(labLog, 'bytes')} vs ${side(p.logBytesPerWritingExecution, 'bytes')} · log wait ${side(labWait, 'ms')} vs ${side(p.logWaitMsPerWritingExecution, 'ms')}`;
  return { routine: p.label, labWritingExecutions: labExecutions, productionWritingExecutions: p.writingExecutions, rows, summary, notes };
}
