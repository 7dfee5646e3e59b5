// The headline tells the whole story (issue 28): "conclusive" needs two runs or more per mode AND ranges apart and
// states its spread; one run per mode is "indicative" everywhere (verdict, cause lead, diagnosis, Markdown, CSV, JSON)
// with the way to get more runs; and "where the time went" follows the measured time — a run that spent half its time
// reading data files is not called "CPU".
import { strict as assert } from 'node:assert';
import { ok } from '../../../src/probes/measurement';
import type { RunResult } from '../../../src/profile/types';
import { buildComparisonModel } from '../../../src/report/comparison';
import { comparisonDocument } from '../../../src/report/document';
import { toCsv, toMarkdown } from '../../../src/report/export';
import { buildVerdict } from '../../../src/report/verdict';
import { makeRun, type RunFigures } from './runFixture';

const runs = (figures: RunFigures[]): RunResult[] => figures.map((f, i) => Object.assign(makeRun(f), { repetition: i }));
const fact = (v: ReturnType<typeof buildVerdict>, id: string) => v.facts.find((f) => f.id === id)?.text ?? '';

describe('report: the headline says how conclusive it is (issue 28)', () => {
  it('three runs each with ranges apart: the speed-up with its spread and run count, "conclusive"', () => {
    const model = buildComparisonModel(runs([
      { mode: 'DISABLED', elapsedMs: 1370 }, { mode: 'DISABLED', elapsedMs: 1800 }, { mode: 'DISABLED', elapsedMs: 2360 },
      { mode: 'FORCED', elapsedMs: 100 }, { mode: 'FORCED', elapsedMs: 95 }, { mode: 'FORCED', elapsedMs: 99 },
    ]));
    const v = buildVerdict(model);
    // median 1800 / 99 = 18.2×; range 1370 / 100 = 13.7× … 2360 / 95 = 24.8×.
    assert.equal(v.headline, 'FORCED ran 18.2× faster than DISABLED (13.7–24.8×, 3 runs each; conclusive)');
    assert.equal(v.headlineTone, 'good');
    assert.equal(v.speedup!.conclusive, true);
    assert.deepEqual(v.speedup!.runs, { baseline: 3, mode: 3 });
    assert.equal(v.speedup!.why, "the runs' min–max ranges do not overlap (3 runs each)");
    const elapsed = model.rows.find((r) => r.id === 'elapsed')!.ratios.FORCED!;
    assert.equal(elapsed.conclusive, true);
    assert.match(toMarkdown(model), /Elapsed, FORCED vs DISABLED: conclusive — the runs' min–max ranges do not overlap \(3 runs each\)\./);
    const doc = comparisonDocument({ runs: model.columns.length ? runs([{ mode: 'DISABLED', elapsedMs: 1370 }, { mode: 'DISABLED', elapsedMs: 2360 }, { mode: 'FORCED', elapsedMs: 100 }, { mode: 'FORCED', elapsedMs: 95 }]) : [], status: 'completed' });
    assert.equal(doc.speedup!.conclusive, true);
    assert.deepEqual(doc.speedup!.runs, { baseline: 2, mode: 2 });
  });

  it('one run per mode is indicative — never "conclusive" — and says how to get more runs, in every output', () => {
    const model = buildComparisonModel(runs([
      { mode: 'DISABLED', elapsedMs: 1510, commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 1400 } } },
      { mode: 'FORCED', elapsedMs: 100, commits: 100, flushesCounter: 2 },
    ]));
    const v = buildVerdict(model);
    assert.equal(v.headline, 'FORCED ran 15.1× faster than DISABLED — indicative (one run per mode; repeat for a range: the "Compare: Repetitions" setting, or --repeat N on the command line)');
    assert.equal(v.headlineTone, 'neutral', 'an indicative result is not painted as a win');
    assert.equal(v.speedup!.conclusive, false);
    assert.match(v.speedup!.why, /^indicative \(one run per mode\): a single run has no spread/);
    assert.match(v.lead!.text, /: FORCED saves 93 % \(indicative: one run per mode\) — /);
    const finding = model.diagnosis.find((f) => f.id === 'delayed-durability-indicative')!;
    assert.equal(finding.title, 'FORCED ran 15.1× faster than DISABLED (indicative: one run per mode)');
    assert.match(finding.suggestion!, /"Compare: Repetitions" setting, or --repeat N/);
    assert.equal(model.diagnosis.find((f) => f.id === 'delayed-durability-gain'), undefined);
    const md = toMarkdown(model);
    assert.doesNotMatch(md, /\bconclusive\)/);
    assert.match(md, /Elapsed, FORCED vs DISABLED: not conclusive — indicative \(one run per mode\)/);
    const csv = toCsv(model).split('\r\n').find((l) => l.startsWith('sql-server,elapsed,') && l.includes(',FORCED,'))!;
    assert.match(csv, /,false,false,"indicative \(one run per mode\): /);
    const doc = comparisonDocument({ runs: runs([{ mode: 'DISABLED', elapsedMs: 1510 }, { mode: 'FORCED', elapsedMs: 100 }]), status: 'completed' });
    assert.equal(doc.speedup!.conclusive, false);
    assert.match(doc.speedup!.conclusiveWhy, /^indicative \(one run per mode\)/);
  });

  it('overlapping ranges: "no conclusive difference", with the spread and the run count', () => {
    const v = buildVerdict(buildComparisonModel(runs([
      { mode: 'DISABLED', elapsedMs: 100 }, { mode: 'DISABLED', elapsedMs: 130 },
      { mode: 'FORCED', elapsedMs: 95 }, { mode: 'FORCED', elapsedMs: 120 },
    ])));
    assert.equal(v.headline, "FORCED vs DISABLED: no conclusive difference (1.07× faster by the medians, 0.83–1.37×, 2 runs each: the runs' ranges overlap)");
    assert.equal(v.speedup!.conclusive, false);
  });

  it('unequal run counts are named per mode', () => {
    const v = buildVerdict(buildComparisonModel(runs([
      { mode: 'DISABLED', elapsedMs: 1000 }, { mode: 'DISABLED', elapsedMs: 1100 }, { mode: 'DISABLED', elapsedMs: 1050 },
      { mode: 'FORCED', elapsedMs: 100 }, { mode: 'FORCED', elapsedMs: 110 },
    ])));
    assert.match(v.headline, /\(9\.1–11\.0×, DISABLED 3 runs, FORCED 2 runs; conclusive\)$/);
  });
});

/** An S5-like run: CHECKDB and BACKUP read the data files for about half of the elapsed time, with no session wait. */
function readingRun(figures: { elapsedMs: number; readStallMs: number; cpuMs: number | null; waits?: RunFigures['waits'] }): RunResult {
  const run = makeRun({ mode: null, elapsedMs: figures.elapsedMs, commits: 2, flushesCounter: 2, waits: figures.waits ?? {} });
  const files = run.diff.files.status === 'ok' ? run.diff.files.value : null;
  const data = files!.totals.find((t) => t.kind === 'data')!;
  Object.assign(data, { reads: 512, bytesRead: 268_435_456, readStallMs: figures.readStallMs });
  if (figures.cpuMs !== null) run.diff.sessionCpu = ok({ cpuMs: figures.cpuMs });
  return run;
}

describe('report: where the time went follows the measured time (issue 28)', () => {
  it('reads dominate (S5): the verdict and the cause name the data-file reads, not CPU', () => {
    const model = buildComparisonModel([readingRun({ elapsedMs: 4000, readStallMs: 2100, cpuMs: 300 })]);
    const v = buildVerdict(model);
    const time = fact(v, 'time');
    assert.match(time, /^data-file reads, 2\.10 s of read stall — 53 % of the elapsed time \(io_stall_read_ms of the data files/);
    assert.doesNotMatch(time, /^CPU/);
    assert.doesNotMatch(time, /running \(CPU\)/);
    const notLog = model.causes!.RUN!.causes.find((c) => c.cause === 'not-log')!;
    assert.equal(notLog.summary, 'The time went elsewhere (data-file reads, 2.10 s)');
    assert.ok(notLog.evidence.some((e) => /^data-file reads: 2\.10 s of read stall for 256\.0 MiB read/.test(e)), notLog.evidence.join(' | '));
    // The figures behind it are rows with units: the session's CPU and the data files' read stall.
    const md = toMarkdown(model);
    assert.match(md, /\| CPU time \(session\) \| 300 ms \|/);
    assert.match(md, /\| Data file read stall \| 2\.10 s \|/);
  });

  it('CPU leads when it is the largest measured part, with the wait beside it when that matters', () => {
    const v = buildVerdict(buildComparisonModel([readingRun({ elapsedMs: 1000, readStallMs: 0, cpuMs: 700, waits: { SOS_SCHEDULER_YIELD: { count: 300, ms: 200 } } })]));
    assert.equal(fact(v, 'time'), 'CPU (running), 700 ms — 70 % of the elapsed time (sys.dm_exec_sessions.cpu_time); then SOS_SCHEDULER_YIELD waits 200 ms');
  });

  it('a wait still leads when it is the largest part; reads that matter are named after it', () => {
    const v = buildVerdict(buildComparisonModel([readingRun({ elapsedMs: 1000, readStallMs: 250, cpuMs: 10, waits: { WRITELOG: { count: 500, ms: 600 } } })]));
    assert.equal(fact(v, 'time'), "WRITELOG, 600 ms — 100 % of the session's waits, 60 % of the elapsed time; then data-file reads 250 ms");
  });

  it('a wait that is a sliver of the elapsed time says where the rest is: not recorded on the server (the e2e sweep: 0.5 ms of WRITELOG)', () => {
    const v = buildVerdict(buildComparisonModel([readingRun({ elapsedMs: 1200, readStallMs: 0, cpuMs: 0, waits: { WRITELOG: { count: 60, ms: 0.5 } } })]));
    assert.equal(fact(v, 'time'), "WRITELOG, 0.5 ms — 100 % of the session's waits, <1 % of the elapsed time; the server recorded <1 % of the 1.20 s elapsed (waits, CPU) — the rest was the client, the network or work too short to record");
  });

  it('nothing recorded on the server is not "CPU": it says what was measured as nothing and what was not measured', () => {
    const none = buildVerdict(buildComparisonModel([readingRun({ elapsedMs: 800, readStallMs: 0, cpuMs: 0 })]));
    assert.equal(fact(none, 'time'), 'the server recorded no waits, no CPU and no data-file read stall for the session: the 800 ms elapsed went to the client and the network, or to work too short to record');
    const unread = buildVerdict(buildComparisonModel([readingRun({ elapsedMs: 800, readStallMs: 0, cpuMs: null })]));
    assert.match(fact(unread, 'time'), /\(not measured: the session's CPU\)$/);
  });
});
