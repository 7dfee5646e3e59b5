// CI gates on figures that stay put on noisy machines: log flushes, log bytes and WRITELOG waits per write
// transaction, the same three (and write transactions) per run, and the FORCED speed-up range. A baseline file keeps
// per-mode medians from a known-good run; a check compares a new run with it, each gate with its own tolerance.
import { valueOf } from '../probes/measurement';
import type { RunResult } from '../profile/types';
import { median } from './stats';

export const BASELINE_KIND = 'durability-lens.baseline';
export const BASELINE_SCHEMA_VERSION = 1;

/**
 * Per-transaction figures normalise away how much work the suite does; per-run totals catch a suite that commits per
 * row again (500 one-row transactions flush 500 times but still flush once per transaction).
 */
export const RUN_METRICS = [
  'logFlushesPerWriteTransaction',
  'logBytesPerWriteTransaction',
  'writelogWaitsPerWriteTransaction',
  'logFlushes',
  'writeTransactions',
  'writelogWaits',
] as const;
export type RunMetric = (typeof RUN_METRICS)[number];
export type GateMetric = RunMetric | 'speedup';
export const GATE_METRICS: readonly GateMetric[] = [...RUN_METRICS, 'speedup'];

/** A gate fails when the new value passes baseline × (1 + relative) + absolute (speed-up: falls below, see below). */
export interface Tolerance {
  relative: number;
  absolute: number;
}

export const DEFAULT_TOLERANCES: Readonly<Record<GateMetric, Tolerance>> = {
  logFlushesPerWriteTransaction: { relative: 0.25, absolute: 0.1 },
  logBytesPerWriteTransaction: { relative: 0.25, absolute: 512 },
  writelogWaitsPerWriteTransaction: { relative: 0.25, absolute: 0.1 },
  logFlushes: { relative: 0.25, absolute: 5 },
  writeTransactions: { relative: 0.25, absolute: 5 },
  writelogWaits: { relative: 0.25, absolute: 5 },
  speedup: { relative: 0.25, absolute: 0 },
};

export const METRIC_TEXT: Readonly<Record<GateMetric, string>> = {
  logFlushesPerWriteTransaction: 'log flushes per write transaction',
  logBytesPerWriteTransaction: 'log bytes per write transaction',
  writelogWaitsPerWriteTransaction: 'WRITELOG waits (server-wide) per write transaction',
  logFlushes: 'log flushes per run',
  writeTransactions: 'write transactions per run',
  writelogWaits: 'WRITELOG waits (server-wide) per run',
  speedup: 'speed-up FORCED vs DISABLED (median elapsed, range of the runs)',
};

export type RunFigures = Record<RunMetric, number | null>;

export interface SpeedupRange {
  elapsed: number;
  min: number | null;
  max: number | null;
}

export interface Baseline {
  kind: typeof BASELINE_KIND;
  schemaVersion: typeof BASELINE_SCHEMA_VERSION;
  createdAt: string;
  /** 'stand-in' figures are the model's, never SQL Server's. */
  source: RunResult['source'];
  /** The recorded program (null for T-SQL files or a window). */
  command: string | null;
  /** Per DELAYED_DURABILITY mode the runs ran under: medians of the measured runs. */
  modes: Record<string, { runs: number; figures: RunFigures }>;
  speedup: SpeedupRange | null;
  tolerances: Record<GateMetric, Tolerance>;
}

export interface GateResult {
  metric: GateMetric;
  /** The mode the figure belongs to; null for the speed-up. */
  mode: string | null;
  baseline: number | null;
  value: number | null;
  /** The worst value that still passes (speed-up: the lowest). */
  limit: number | null;
  tolerance: Tolerance;
  status: 'pass' | 'fail' | 'not-measured';
  message: string;
}

/** Log flushes: the trace's exact count when there is one, else the database's Log Flushes/sec counter delta. */
function flushesOf(run: RunResult): number | null {
  return run.logFlushTrace?.flushes ?? run.logCounters.logFlushes;
}

function logBytesOf(run: RunResult): number | null {
  if (run.logCounters.logBytesFlushed !== null) return run.logCounters.logBytesFlushed;
  const logs = run.files.filter((f) => f.type === 'LOG');
  return valueOf(run.diff.files) && logs.length > 0 ? logs.reduce((s, f) => s + f.bytesWritten, 0) : null;
}

/** WRITELOG waiting tasks in the server waits (server-wide); 0 when the waits were read and none moved. */
function writelogOf(run: RunResult): number | null {
  if (valueOf(run.diff.serverWaits) === null) return null;
  return run.serverWaits.find((w) => w.waitType === 'WRITELOG')?.waitingTasks ?? 0;
}

/**
 * Delta of the database's `Write Transactions/sec` counter: "Number of transactions that wrote to the database and
 * committed" (SQL Server, Databases object: https://learn.microsoft.com/sql/relational-databases/performance-monitor/sql-server-databases-object).
 * Only a cumulative counter type gives a count between two snapshots (probes/perfCounters.ts reads cntr_type).
 */
function writeTransactionsOf(run: RunResult): number | null {
  const c = valueOf(run.diff.logCounters)?.find((x) => x.counterName.toLowerCase() === 'write transactions/sec');
  return c && c.kind === 'cumulative' ? c.delta : null;
}

function per(n: number | null, d: number | null): number | null {
  return n === null || d === null || d === 0 ? null : n / d;
}

export function runFigures(run: RunResult): RunFigures {
  const flushes = flushesOf(run);
  const bytes = logBytesOf(run);
  const writelog = writelogOf(run);
  const wtx = writeTransactionsOf(run);
  return {
    logFlushesPerWriteTransaction: per(flushes, wtx),
    logBytesPerWriteTransaction: per(bytes, wtx),
    writelogWaitsPerWriteTransaction: per(writelog, wtx),
    logFlushes: flushes,
    writeTransactions: wtx,
    writelogWaits: writelog,
  };
}

/** The mode a run's figures belong to: the comparison's mode, or the setting a recording ran under. */
export function modeKeyOf(run: RunResult): string {
  return run.mode ?? run.delayedDurability ?? 'UNKNOWN';
}

/** Medians per mode over the measured (non-warm-up) runs; a figure no run measured stays null. */
export function figuresByMode(runs: readonly RunResult[]): Baseline['modes'] {
  const out: Baseline['modes'] = {};
  const groups = new Map<string, RunResult[]>();
  for (const r of runs) if (!r.warmup && r.diff.valid) groups.set(modeKeyOf(r), [...(groups.get(modeKeyOf(r)) ?? []), r]);
  for (const [mode, group] of groups) {
    const figures = {} as RunFigures;
    for (const m of RUN_METRICS) {
      const values = group.map((r) => runFigures(r)[m]).filter((v): v is number => v !== null);
      figures[m] = values.length > 0 ? median(values) : null;
    }
    out[mode] = { runs: group.length, figures };
  }
  return out;
}

export function buildBaseline(runs: readonly RunResult[], speedup: SpeedupRange | null, tolerances: Partial<Record<GateMetric, Tolerance>> = {}, now = new Date()): Baseline {
  const first = runs[0];
  return {
    kind: BASELINE_KIND,
    schemaVersion: BASELINE_SCHEMA_VERSION,
    createdAt: now.toISOString(),
    source: first?.source ?? 'sql-server',
    command: first?.command ?? null,
    modes: figuresByMode(runs),
    speedup,
    tolerances: { ...DEFAULT_TOLERANCES, ...tolerances },
  };
}

/** Mode keys a baseline may hold: the three settings, and UNKNOWN for a recording whose setting was not read. */
export const BASELINE_MODE_KEYS: readonly string[] = ['DISABLED', 'ALLOWED', 'FORCED', 'UNKNOWN'];

/** Largest relative tolerance accepted (100 = +10,000 %): anything looser switches a gate off in all but name. */
const MAX_RELATIVE_TOLERANCE = 100;
/**
 * The largest absolute slack a baseline may give a gate: 100 × the default's (speed-up: 100×, whose default slack is 0).
 * Beyond it the gate could never fail, as with the relative cap (outside attack: absolute 1e308 passed every run).
 */
function maxAbsoluteTolerance(metric: GateMetric): number {
  return Math.max(DEFAULT_TOLERANCES[metric].absolute, 1) * 100;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A key as the error names it: JSON-quoted and cut short, so a hostile key reads as text. */
function keyText(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}

function finite(v: unknown, where: string, min = 0): number {
  // JSON.parse reads 1e999 as Infinity: a limit of Infinity would pass every value (the gate silently off).
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new Error(`${where} must be a finite number ≥ ${min}, not ${typeof v === 'number' ? String(v) : JSON.stringify(v) ?? typeof v}`);
  return v;
}

/**
 * Parses a baseline file; throws an Error that says what is wrong with it. Every key is checked against the known
 * modes and metrics (a "__proto__" mode is refused, not looked up), every number must be finite and non-negative, and
 * the result is built from the checked values only (issue 25 N11).
 */
export function loadBaseline(text: string): Baseline {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`);
  }
  if (!isPlainObject(doc) || doc.kind !== BASELINE_KIND) throw new Error(`not a baseline: "kind" must be "${BASELINE_KIND}"`);
  if (doc.schemaVersion !== BASELINE_SCHEMA_VERSION) throw new Error(`baseline schemaVersion ${String(doc.schemaVersion)} is not supported (expected ${BASELINE_SCHEMA_VERSION})`);
  if (!isPlainObject(doc.modes)) throw new Error('baseline has no "modes" object');
  const modes: Baseline['modes'] = {};
  for (const [mode, entry] of Object.entries(doc.modes)) {
    if (!BASELINE_MODE_KEYS.includes(mode)) throw new Error(`baseline modes.${keyText(mode)} is not a mode (one of ${BASELINE_MODE_KEYS.join(', ')})`);
    if (!isPlainObject(entry) || !isPlainObject(entry.figures)) throw new Error(`baseline modes.${mode} must be an object with "figures"`);
    for (const key of Object.keys(entry.figures)) if (!(RUN_METRICS as readonly string[]).includes(key)) throw new Error(`baseline modes.${mode}.figures.${keyText(key)} is not a gate metric (one of ${RUN_METRICS.join(', ')})`);
    const figures = {} as RunFigures;
    for (const m of RUN_METRICS) {
      const v = entry.figures[m];
      figures[m] = v === null || v === undefined ? null : finite(v, `baseline modes.${mode}.figures.${m}`);
    }
    const runs = entry.runs === undefined ? 0 : finite(entry.runs, `baseline modes.${mode}.runs`);
    Object.defineProperty(modes, mode, { value: { runs, figures }, enumerable: true, writable: true, configurable: true });
  }
  let speedup: SpeedupRange | null = null;
  if (doc.speedup !== null && doc.speedup !== undefined) {
    if (!isPlainObject(doc.speedup)) throw new Error('baseline "speedup" must be an object or null');
    const sp = doc.speedup;
    const optional = (v: unknown, where: string) => (v === null || v === undefined ? null : finite(v, where));
    speedup = { elapsed: finite(sp.elapsed, 'baseline speedup.elapsed'), min: optional(sp.min, 'baseline speedup.min'), max: optional(sp.max, 'baseline speedup.max') };
  }
  const tolerances = { ...DEFAULT_TOLERANCES };
  if (doc.tolerances !== undefined && doc.tolerances !== null) {
    if (!isPlainObject(doc.tolerances)) throw new Error('baseline "tolerances" must be an object');
    for (const [metric, t] of Object.entries(doc.tolerances)) {
      if (!(GATE_METRICS as readonly string[]).includes(metric)) throw new Error(`baseline tolerances.${keyText(metric)} is not a gate metric (one of ${GATE_METRICS.join(', ')})`);
      if (!isPlainObject(t)) throw new Error(`baseline tolerances.${metric} must be an object { relative, absolute }`);
      const relative = finite(t.relative, `baseline tolerances.${metric}.relative`);
      if (relative > MAX_RELATIVE_TOLERANCE) throw new Error(`baseline tolerances.${metric}.relative ${relative} is above ${MAX_RELATIVE_TOLERANCE} (+${MAX_RELATIVE_TOLERANCE * 100} %): that gate would never fail`);
      const absolute = finite(t.absolute, `baseline tolerances.${metric}.absolute`);
      const maxAbsolute = maxAbsoluteTolerance(metric as GateMetric);
      if (absolute > maxAbsolute) throw new Error(`baseline tolerances.${metric}.absolute ${absolute} is above ${maxAbsolute}: that gate would never fail`);
      tolerances[metric as GateMetric] = { relative, absolute };
    }
  }
  const source = doc.source === 'stand-in' || doc.source === 'sql-server' ? doc.source : 'sql-server';
  return {
    kind: BASELINE_KIND,
    schemaVersion: BASELINE_SCHEMA_VERSION,
    createdAt: typeof doc.createdAt === 'string' ? doc.createdAt.slice(0, 64) : '',
    source,
    command: typeof doc.command === 'string' ? doc.command : null,
    modes,
    speedup,
    tolerances,
  };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) >= 100 ? 0 : 3).replace(/\.?0+$/, '');
}

function toleranceText(t: Tolerance, sign: '+' | '−'): string {
  return `baseline ${sign}${fmt(t.relative * 100)}%${t.absolute ? ` ${sign}${fmt(t.absolute)}` : ''}`;
}

/**
 * Checks `runs` (and a comparison's speed-up) against the baseline, gate by gate, in the modes both have. `tolerances`
 * override the baseline's. A figure either side did not measure is 'not-measured' (never a pass on a zero).
 */
export function checkGates(baseline: Baseline, runs: readonly RunResult[], speedup: SpeedupRange | null, tolerances: Partial<Record<GateMetric, Tolerance>> = {}): GateResult[] {
  const current = figuresByMode(runs);
  const tol = (m: GateMetric): Tolerance => tolerances[m] ?? baseline.tolerances[m] ?? DEFAULT_TOLERANCES[m];
  const results: GateResult[] = [];
  for (const mode of Object.keys(baseline.modes)) {
    const now = Object.hasOwn(current, mode) ? current[mode] : undefined;
    if (!now) continue;
    for (const metric of RUN_METRICS) {
      const t = tol(metric);
      const base = baseline.modes[mode]!.figures[metric];
      const value = now.figures[metric];
      const name = `${metric} (${mode})`;
      if (base === null || value === null) {
        const which = base === null ? 'the baseline' : 'this run';
        results.push({ metric, mode, baseline: base, value, limit: null, tolerance: t, status: 'not-measured', message: `${name}: not measured in ${which}, so not checked.` });
        continue;
      }
      const limit = base * (1 + t.relative) + t.absolute;
      const fail = value > limit;
      results.push({
        metric,
        mode,
        baseline: base,
        value,
        limit,
        tolerance: t,
        status: fail ? 'fail' : 'pass',
        message: `${name}: baseline ${fmt(base)}, now ${fmt(value)} — ${fail ? 'REGRESSION, above' : 'within'} the limit ${fmt(limit)} (${toleranceText(t, '+')}).`,
      });
    }
  }
  if (baseline.speedup || speedup) {
    const t = tol('speedup');
    if (!baseline.speedup || !speedup) {
      const which = baseline.speedup ? 'this run (it needs DISABLED and FORCED)' : 'the baseline';
      results.push({ metric: 'speedup', mode: null, baseline: baseline.speedup?.elapsed ?? null, value: speedup?.elapsed ?? null, limit: null, tolerance: t, status: 'not-measured', message: `speedup: not measured in ${which}, so not checked.` });
    } else {
      // Ranges, not medians: only a new range entirely below the baseline's (less the tolerance) is a regression.
      const baseLow = baseline.speedup.min ?? baseline.speedup.elapsed;
      const newHigh = speedup.max ?? speedup.elapsed;
      const limit = baseLow * (1 - t.relative) - t.absolute;
      const fail = newHigh < limit;
      results.push({
        metric: 'speedup',
        mode: null,
        baseline: baseLow,
        value: newHigh,
        limit,
        tolerance: t,
        status: fail ? 'fail' : 'pass',
        message: `speedup: baseline ×${fmt(baseline.speedup.elapsed)} (runs ×${fmt(baseLow)}–×${fmt(baseline.speedup.max ?? baseline.speedup.elapsed)}), now ×${fmt(speedup.elapsed)} (up to ×${fmt(newHigh)}) — ${fail ? 'REGRESSION, the whole range is below' : 'within'} the limit ×${fmt(limit)} (${toleranceText(t, '−')} of the baseline's lowest run).`,
      });
    }
  }
  return results;
}

/** Parses `METRIC=REL` (0.1 or 10%) or `METRIC=REL+ABS`; a string is the problem. */
export function parseTolerance(spec: string): { metric: GateMetric; tolerance: Tolerance } | string {
  const m = /^([A-Za-z]+)=(\d+(?:\.\d+)?)(%?)(?:\+(\d+(?:\.\d+)?))?$/.exec(spec.trim());
  if (!m) return `--tolerance expects METRIC=RELATIVE[+ABSOLUTE] (e.g. logFlushes=10%+3), not '${spec}'`;
  const metric = m[1] as GateMetric;
  if (!GATE_METRICS.includes(metric)) return `--tolerance: unknown metric '${m[1]}' (one of ${GATE_METRICS.join(', ')})`;
  const relative = Number(m[2]) / (m[3] ? 100 : 1);
  const absolute = m[4] !== undefined ? Number(m[4]) : DEFAULT_TOLERANCES[metric].absolute;
  // Hundreds of digits parse to Infinity: a limit nothing can pass over, so the gate would be off.
  if (!Number.isFinite(relative) || !Number.isFinite(absolute) || relative > MAX_RELATIVE_TOLERANCE) return `--tolerance ${metric}: the tolerance must be finite and at most ${MAX_RELATIVE_TOLERANCE * 100}%, not '${spec}'`;
  return { metric, tolerance: { relative, absolute } };
}
