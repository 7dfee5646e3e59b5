// The CI gate options every measuring command shares (record, compare), declared once: --save-baseline, --baseline,
// --tolerance, --junit; what they print and the exit code of a regression.
import * as fs from 'node:fs';
import type { RunResult } from '../../profile/types';
import { buildBaseline, checkGates, jsonText, gatesToJunit, loadBaseline, parseTolerance, type GateMetric, type GateResult, type SpeedupRange, type Tolerance } from '../../report';
import { accumulated, invalid, section, text, type ValuesOf } from '../options';
import type { ConnectedCliIO } from './shared';

/** A gate of --baseline regressed (the report is still printed, the database restored first). */
export const EXIT_GATE_REGRESSION = 10;

/** The gate options as parsed (compare, record). */
export type GateArgs = ValuesOf<readonly [typeof GATES]>;

export const GATES = section('CI gates', {
  saveBaseline: text('--save-baseline', { placeholder: 'FILE', help: "write this run's figures (per mode: medians) as a baseline" }),
  baseline: text('--baseline', {
    placeholder: 'FILE',
    help: `check this run against a saved baseline; a regression exits ${EXIT_GATE_REGRESSION} and names
the metric, the baseline value and the new one. Gates: logFlushesPerWriteTransaction,
logBytesPerWriteTransaction, writelogWaitsPerWriteTransaction, logFlushes,
writeTransactions, writelogWaits (per mode), speedup (compare, range)`,
  }),
  tolerances: accumulated<Partial<Record<GateMetric, Tolerance>>>('--tolerance', {
    placeholder: 'METRIC=REL[+ABS]',
    help: 'allowed growth for a gate, e.g. logFlushes=10%+3 (default 25% plus a small\nabsolute slack; speedup: how far the range may fall); repeatable',
  }, () => ({}), (raw, current) => {
    const parsed = parseTolerance(raw);
    return typeof parsed === 'string' ? invalid(parsed) : { ...current, [parsed.metric]: parsed.tolerance };
  }),
  junit: text('--junit', { placeholder: 'FILE', help: 'write the gates as JUnit XML, one test case per gate' }),
});

/** --junit writes the gates of --baseline: without it there is nothing to write. */
export function gateArgsProblem(g: GateArgs): string | null {
  return g.junit !== null && g.baseline === null ? '--junit writes the gates of --baseline: give --baseline FILE too' : null;
}

/** Reads --baseline before anything runs, so a bad file is a usage error that changes nothing. */
export function readBaselineArg(io: ConnectedCliIO, g: GateArgs): ReturnType<typeof loadBaseline> | null | string {
  if (g.baseline === null) return null;
  let content: string;
  try {
    content = io.readFile(g.baseline);
  } catch (err) {
    return `cannot read --baseline ${g.baseline}: ${(err as Error).message}`;
  }
  try {
    return loadBaseline(content);
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
