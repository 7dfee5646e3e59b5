// The CI gate options every measuring command shares (record, compare): --save-baseline, --baseline, --tolerance,
// --junit; what they print and the exit code of a regression.
import * as fs from 'node:fs';
import type { RunResult } from '../../profile/types';
import { buildBaseline, checkGates, jsonText, gatesToJunit, loadBaseline, parseTolerance, type GateMetric, type GateResult, type SpeedupRange, type Tolerance } from '../../report';
import type { ConnectedCliIO } from './shared';

/** A gate of --baseline regressed (the report is still printed, the database restored first). */
export const EXIT_GATE_REGRESSION = 10;

export const GATE_USAGE = `CI gates:
  --save-baseline FILE          write this run's figures (per mode: medians) as a baseline
  --baseline FILE               check this run against a saved baseline; a regression exits ${EXIT_GATE_REGRESSION} and names
                                the metric, the baseline value and the new one. Gates: logFlushesPerWriteTransaction,
                                logBytesPerWriteTransaction, writelogWaitsPerWriteTransaction, logFlushes,
                                writeTransactions, writelogWaits (per mode), speedup (compare, range)
  --tolerance METRIC=REL[+ABS]  allowed growth for a gate, e.g. logFlushes=10%+3 (default 25% plus a small
                                absolute slack; speedup: how far the range may fall); repeatable
  --junit FILE                  write the gates as JUnit XML, one test case per gate`;

export interface GateArgs {
  saveBaseline: string | null;
  baseline: string | null;
  junit: string | null;
  tolerances: Partial<Record<GateMetric, Tolerance>>;
}

export function newGateArgs(): GateArgs {
  return { saveBaseline: null, baseline: null, junit: null, tolerances: {} };
}

/** A gate option at args[i]: items used (0 = not one), or a usage error. */
export function takeGateArg(args: readonly string[], i: number, into: GateArgs): number | string {
  const arg = args[i]!;
  if (arg !== '--save-baseline' && arg !== '--baseline' && arg !== '--junit' && arg !== '--tolerance') return 0;
  const value = args[i + 1];
  if (value === undefined || value === '') return `${arg} needs a value`;
  if (arg === '--tolerance') {
    const parsed = parseTolerance(value);
    if (typeof parsed === 'string') return parsed;
    into.tolerances[parsed.metric] = parsed.tolerance;
  } else if (arg === '--save-baseline') into.saveBaseline = value;
  else if (arg === '--baseline') into.baseline = value;
  else into.junit = value;
  return 2;
}

/** Reads --baseline before anything runs, so a bad file is a usage error that changes nothing. */
export function readBaselineArg(io: ConnectedCliIO, g: GateArgs): ReturnType<typeof loadBaseline> | null | string {
  if (g.baseline === null) return null;
  let text: string;
  try {
    text = io.readFile(g.baseline);
  } catch (err) {
    return `cannot read --baseline ${g.baseline}: ${(err as Error).message}`;
  }
  try {
    return loadBaseline(text);
  } catch (err) {
    return `--baseline ${g.baseline}: ${(err as Error).message}`;
  }
}

function write(io: ConnectedCliIO, path: string, text: string): void {
  (io.writeFile ?? ((p: string, t: string) => fs.writeFileSync(p, t, 'utf8')))(path, text);
}

/**
 * After the runs: saves the baseline, checks the gates, writes JUnit, prints each gate to stderr. Returns the gate
 * results (empty without --baseline) and whether one regressed.
 */
export function applyGates(
  io: ConnectedCliIO,
  g: GateArgs,
  baseline: ReturnType<typeof loadBaseline> | null,
  runs: readonly RunResult[],
  speedup: SpeedupRange | null,
  suiteName: string,
): { results: GateResult[]; regressed: boolean } {
  if (g.saveBaseline) {
    write(io, g.saveBaseline, `${jsonText(buildBaseline(runs, speedup, g.tolerances))}\n`);
    io.stderr(`Baseline written to ${g.saveBaseline}.\n`);
  }
  if (!baseline) return { results: [], regressed: false };
  const results = checkGates(baseline, runs, speedup, g.tolerances);
  if (results.length === 0) io.stderr(`--baseline ${g.baseline}: no mode of this run is in the baseline (modes there: ${Object.keys(baseline.modes).join(', ') || 'none'}); nothing was checked.\n`);
  if (baseline.source !== (runs[0]?.source ?? baseline.source)) io.stderr(`Warning: the baseline holds ${baseline.source} figures, this run ${runs[0]!.source} figures.\n`);
  for (const r of results) io.stderr(`Gate ${r.status === 'fail' ? 'FAILED' : r.status === 'pass' ? 'passed' : 'skipped'}: ${r.message}\n`);
  if (g.junit) {
    const seconds = runs.reduce((s, r) => s + (r.durationMs ?? r.elapsedMs), 0) / 1000;
    write(io, g.junit, gatesToJunit(results, { suiteName, timeSeconds: seconds }));
  }
  const regressed = results.some((r) => r.status === 'fail');
  if (regressed) io.stderr(`Regression against the baseline ${g.baseline}: exit ${EXIT_GATE_REGRESSION}.\n`);
  return { results, regressed };
}
