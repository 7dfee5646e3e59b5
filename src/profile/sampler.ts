// Time series while the workload runs: every N ms the MONITOR connection reads per-file IO and the log counters
// (issue 4: long operations like CHECKDB/BACKUP). One request per reading (both probes composed, db/batch.ts),
// one at a time, stopped before the after-snapshot, and any error ends sampling with a note instead of failing the run.
import type { SqlClient } from '../db/types';
import { prefetch } from '../db/batch';
import { captureFileStats, fileStatsQuery, type FileStatsRow } from '../probes/fileStats';
import { requireMeasured } from '../probes/measurement';
import { captureLogCounters, CounterType, logCountersQuery, type CounterInstance, type CounterRow } from '../probes/perfCounters';
import type { GrantContext } from '../probes/permissions';
import { delta } from '../probes/values';
import type { FileIoCounts } from './runSchema';

/** How often the sampler reads and how much it keeps: the schedule and bounds of every run's series. */
export const SAMPLING = {
  defaultIntervalMs: 1000,
  /** Fewer than this between samples would make the monitor itself the load. */
  minIntervalMs: 10,
  /**
   * Samples kept per run. A long run does not grow memory, the panel or the history past this: when it is reached every
   * other sample is dropped and only every 2nd (4th, …) later reading is kept, so the series still spans the whole run
   * at a coarser step (samples are cumulative since the baseline, so none of them depends on a dropped one).
   */
  maxSamples: 5000,
  /** At most this many files per sample (a database with thousands of files would multiply every sample). */
  maxFilesPerSample: 64,
  /**
   * Short runs get samples too (issue 20: a 2-second CHECKDB was never sampled at 1 s): the first gaps grow from this
   * many ms, doubling up to the configured interval (50, 100, 200, 400, 800, 1000 …), and stop() takes a last reading
   * while fewer than minSamples were taken.
   */
  rampStartMs: 50,
  minSamples: 3,
} as const;

/** Counts since the baseline (the before-snapshot in a profile run). */
export type SampleFile = FileIoCounts;

export interface Sample {
  /** ms since the baseline (the before-snapshot in a profile run). */
  tMs: number;
  files: SampleFile[];
  /** Cumulative since the baseline; null when the counter was not readable or not cumulative. */
  logFlushes: number | null;
  logBytesFlushed: number | null;
  logFlushWaitTimeMs: number | null;
}

export interface SamplerOptions {
  intervalMs?: number | undefined;
  databaseId: number;
  databaseName: string;
  /** How the counters name the database (its GUID on Managed Instance / Azure SQL Database); default: its name. */
  counterInstance?: CounterInstance | undefined;
  monitorInTargetDb: boolean;
  /** Version, edition and login the not-measured reasons are written for (a failed reading ends sampling with its reason). */
  grantContext: GrantContext;
  now?: () => number;
  /** Readings to count from (the before-snapshot's rows): the first sample then comes one interval later. */
  baseline?: Reading | undefined;
  /** Each sample as it is taken (live progress: log flushes and bytes so far). */
  onSample?: (sample: Sample) => void;
}

export interface SamplerResult {
  intervalMs: number;
  samples: Sample[];
  /** Why sampling stopped early (an error), or nothing. */
  notes: string[];
}

export interface RunningSampler {
  /** Stops the timer and waits for a sample in flight, so the monitor is free for the caller; stop() ends the series. */
  pause(): Promise<void>;
  /**
   * Stops the timer, waits for a sample in flight (so the monitor is free), returns the series. While fewer than
   * SAMPLING.minSamples were taken it adds a last reading: `last` when the caller has one (a profile run's
   * after-snapshot reads the same file stats and counters: no request of its own), else one read now.
   */
  stop(last?: Reading): Promise<SamplerResult>;
}

export interface Reading {
  /** ms since epoch (from `now`). */
  at: number;
  files: FileStatsRow[];
  counters: CounterRow[];
}

function cumulative(before: readonly CounterRow[], after: readonly CounterRow[], name: string): number | null {
  const a = after.find((c) => c.counterName.toLowerCase() === name.toLowerCase());
  const b = before.find((c) => c.counterName.toLowerCase() === name.toLowerCase());
  if (!a || !b) return null;
  // Interpreted by cntr_type (reference §3.1): only cumulative types have a meaningful difference.
  if (a.type !== CounterType.perSecond && a.type !== CounterType.bulkCount) return null;
  return delta(b.value, a.value);
}

/** One sample relative to the baseline reading (pure: unit-tested with crafted rows). */
export function sampleFrom(baseline: Reading, reading: Reading): Sample {
  const byId = new Map(baseline.files.map((f) => [f.fileId, f]));
  const files: SampleFile[] = [];
  for (const f of reading.files) {
    const b = byId.get(f.fileId);
    if (!b) continue;
    files.push({
      fileId: f.fileId,
      reads: delta(b.reads, f.reads),
      bytesRead: delta(b.bytesRead, f.bytesRead),
      writes: delta(b.writes, f.writes),
      bytesWritten: delta(b.bytesWritten, f.bytesWritten),
      ioStallReadMs: delta(b.readStallMs, f.readStallMs),
      ioStallWriteMs: delta(b.writeStallMs, f.writeStallMs),
    });
  }
  return {
    tMs: reading.at - baseline.at,
    files,
    logFlushes: cumulative(baseline.counters, reading.counters, 'Log Flushes/sec'),
    logBytesFlushed: cumulative(baseline.counters, reading.counters, 'Log Bytes Flushed/sec'),
    logFlushWaitTimeMs: cumulative(baseline.counters, reading.counters, 'Log Flush Wait Time'),
  };
}

/**
 * At most `cap` items: when full, every other item is dropped and from then on only every `step`-th new one is kept,
 * so the series spans everything seen at an even, coarser step. O(1) amortised per item.
 */
export class ThinningSeries<T> {
  items: T[] = [];
  step = 1;
  private seen = 0;
  constructor(private readonly cap: number) {}

  add(item: T): void {
    if (this.seen++ % this.step !== 0) return;
    this.items.push(item);
    if (this.items.length < this.cap) return;
    this.items = this.items.filter((_, i) => i % 2 === 1);
    this.step *= 2;
    this.seen = 1;
  }
}

/**
 * Starts sampling: a baseline read now, then one read per interval. The next read is scheduled only after the
 * previous one finished, so two requests never overlap on the monitor connection.
 */
export function startSampler(monitor: SqlClient, options: SamplerOptions): RunningSampler {
  const intervalMs = Math.max(SAMPLING.minIntervalMs, Math.trunc(options.intervalMs ?? SAMPLING.defaultIntervalMs));
  const now = options.now ?? Date.now;
  const series = new ThinningSeries<Sample>(SAMPLING.maxSamples);
  const notes: string[] = [];
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let baseline: Reading | null = options.baseline ?? null;

  const instance = options.counterInstance ?? options.databaseName;
  const read = async (): Promise<Reading> => {
    // Files and counters read in the same request: one round trip per reading, and both describe the same moment.
    const reading = await prefetch(monitor, [fileStatsQuery(options.databaseId, options.monitorInTargetDb), logCountersQuery(instance)]);
    // A reading that is not measured ends sampling with its reason (take() below): never a sample of zeros.
    const files = requireMeasured(await captureFileStats(reading, options.databaseId, options.monitorInTargetDb, options.grantContext));
    const counters = requireMeasured(await captureLogCounters(reading, instance, options.grantContext));
    return { at: now(), files, counters };
  };
  let failed = false;
  /** Gap before sample k: SAMPLING.rampStartMs doubling up to the interval (never below it when the interval is shorter). */
  const gap = (k: number) => Math.max(SAMPLING.minIntervalMs, Math.min(intervalMs, SAMPLING.rampStartMs * 2 ** k));
  const take = async (given?: Reading): Promise<boolean> => {
    try {
      const reading = given ?? (await read());
      if (baseline === null) baseline = reading;
      else {
        const sample = sampleFrom(baseline, reading);
        series.add(sample);
        options.onSample?.(sample);
      }
      return true;
    } catch (err) {
      failed = true;
      notes.push(`Sampling stopped after ${series.items.length} sample(s): ${String((err as Error).message ?? err).replace(/\.\s*$/, '')}. The before/after figures are not affected.`);
      return false;
    }
  };
  const tick = async (): Promise<void> => {
    if (!(await take())) {
      stopped = true;
      return;
    }
    if (!stopped) timer = setTimeout(() => void (inFlight = tick()), gap(series.items.length));
  };
  let inFlight: Promise<void> = Promise.resolve();
  if (baseline === null) inFlight = tick();
  else timer = setTimeout(() => void (inFlight = tick()), gap(0));

  const pause = async (): Promise<void> => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await inFlight;
  };

  return {
    pause,
    async stop(last?: Reading) {
      await pause();
      // A run shorter than the ramp still ends with a reading: its series has a last point.
      if (!failed && baseline !== null && series.items.length < SAMPLING.minSamples) await take(last);
      if (series.step > 1) notes.push(`More than ${SAMPLING.maxSamples} samples: the series was thinned to every ${series.step}th reading so the whole run stays visible (the before/after figures are not affected).`);
      return { intervalMs, samples: series.items, notes };
    },
  };
}
