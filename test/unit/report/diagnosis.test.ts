import { strict as assert } from 'node:assert';
import { buildComparisonModel } from '../../../src/report/comparison';
import { toMarkdown } from '../../../src/report/export';
import { buildVerdict } from '../../../src/report/verdict';
import type { Finding } from '../../../src/report/diagnosis';
import { makeRun, type RunFigures } from './runFixture';

function findings(runs: RunFigures[]): Finding[] {
  return buildComparisonModel(runs.map(makeRun)).diagnosis;
}
const ids = (f: Finding[]) => f.map((x) => x.id);

describe('diagnosis rules', () => {
  it('S2 rule: WRITELOG average much longer than the log write latency → internal contention, citing both figures', () => {
    // 10 ms per WRITELOG wait, 1 ms per log write.
    const f = findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 100, ms: 1000 } }, log: { writes: 100, bytes: 409_600, stallMs: 100 } }]);
    const finding = f.find((x) => x.id === 'writelog-internal-contention')!;
    assert.ok(finding, ids(f).join());
    assert.deepEqual(
      finding.evidence.map((e) => [e.metric, e.value]),
      [['writelog.avgMs', 10], ['log.msPerWrite', 1], ['writelog.count', 100]],
    );
    assert.ok(!ids(f).includes('too-many-log-flushes'));
  });

  it('S2 rule: WRITELOG average close to the log write latency → too many flushes, with the data-loss caveat', () => {
    const f = findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 5000, ms: 6000 } }, log: { writes: 5000, bytes: 20_480_000, stallMs: 5000 } }]);
    const finding = f.find((x) => x.id === 'too-many-log-flushes')!;
    assert.ok(finding, ids(f).join());
    assert.match(finding.suggestion!, /can be lost on a crash/);
    assert.ok(!ids(f).includes('writelog-internal-contention'));
  });

  it('makes no WRITELOG finding when the session did not wait on WRITELOG', () => {
    const f = findings([{ mode: 'FORCED', waits: {}, commits: 500, flushesCounter: 9 }]);
    assert.deepEqual(ids(f).filter((id) => id.startsWith('writelog') || id === 'too-many-log-flushes'), []);
  });

  it('detects a commit per row when log flushes ≈ commits, preferring the exact counter over XE (which can lose events)', () => {
    const f = findings([{ mode: 'DISABLED', commits: 1000, flushesCounter: 1003, flushesXe: 726 }]);
    const finding = f.find((x) => x.id === 'commit-per-row')!;
    assert.deepEqual(finding.evidence.map((e) => [e.metric, e.value]), [['flushes.counter', 1003], ['commits', 1000]]);
    const xeOnly = findings([{ mode: 'DISABLED', commits: 1000, flushesXe: 1010 }]).find((x) => x.id === 'commit-per-row')!;
    assert.deepEqual(xeOnly.evidence.map((e) => [e.metric, e.value]), [['flushes.xe', 1010], ['commits', 1000]]);
    assert.ok(!ids(findings([{ mode: 'DISABLED', commits: 1000, flushesCounter: 30 }])).includes('commit-per-row'));
    assert.ok(!ids(findings([{ mode: 'DISABLED', commits: 10, flushesCounter: 10 }])).includes('commit-per-row'), 'too few commits to judge');
  });

  it('says a single set-based statement gains nothing when FORCED is no faster beyond noise', () => {
    const f = findings([
      { mode: 'DISABLED', commits: 1, elapsedMs: 400 },
      { mode: 'DISABLED', commits: 1, elapsedMs: 420 },
      { mode: 'FORCED', commits: 1, elapsedMs: 390 },
      { mode: 'FORCED', commits: 1, elapsedMs: 430 },
    ]);
    assert.ok(ids(f).includes('no-gain-set-based'), ids(f).join());
    assert.ok(!ids(f).includes('delayed-durability-gain'));
  });

  it('flags LOGBUFFER waits above a tenth of the session wait time as a log device that cannot keep up', () => {
    const f = findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 10, ms: 60 }, LOGBUFFER: { count: 40, ms: 40 } } }]);
    const finding = f.find((x) => x.id === 'logbuffer-high')!;
    assert.deepEqual(finding.evidence.map((e) => [e.metric, e.value]), [['logbuffer.ms', 40], ['waits.sessionTotalMs', 100]]);
    assert.ok(!ids(findings([{ mode: 'DISABLED', waits: { WRITELOG: { count: 10, ms: 960 }, LOGBUFFER: { count: 1, ms: 40 } } }])).includes('logbuffer-high'));
  });

  it('reports a clear delayed-durability gain only when the ranges do not overlap', () => {
    const clear = findings([
      { mode: 'DISABLED', elapsedMs: 1000 },
      { mode: 'DISABLED', elapsedMs: 1100 },
      { mode: 'FORCED', elapsedMs: 100 },
      { mode: 'FORCED', elapsedMs: 125 },
    ]);
    const gain = clear.find((x) => x.id === 'delayed-durability-gain')!;
    assert.equal(gain.title, 'FORCED ran 9.3× faster than DISABLED');
  });
});

describe('diagnosis rules look at their evidence (issue 20)', () => {
  it('S4: IO_COMPLETION at 85 % of the session waits leads, not WRITELOG at 2 % of the elapsed time', () => {
    const run = makeRun({ mode: null, elapsedMs: 10_000, commits: 2510, flushesCounter: 2600, waits: { IO_COMPLETION: { count: 4000, ms: 8500 }, WRITELOG: { count: 300, ms: 200 }, PAGEIOLATCH_EX: { count: 50, ms: 1300 } } });
    const findings = buildComparisonModel([run]).diagnosis;
    assert.equal(findings[0]!.id, 'top-wait');
    assert.equal(findings[0]!.title, "IO_COMPLETION was 85% of the session's waits in the run");
    assert.equal(findings[0]!.severity, 'warning');
    assert.match(findings[0]!.detail, /non-data-page I\/O/);
    assert.ok(!findings.some((f) => f.id === 'too-many-log-flushes'), 'WRITELOG at 2 % of the elapsed time is no flush warning');
    assert.ok(!findings.some((f) => f.id === 'writelog-share'), 'no card for a 2 % share');
  });

  it('S5: one WRITELOG wait of 0.00 ms is no "many small log flushes" warning', () => {
    const run = makeRun({ mode: null, elapsedMs: 5000, commits: 1, flushesCounter: 1, waits: { WRITELOG: { count: 1, ms: 0 }, ASYNC_IO_COMPLETION: { count: 2, ms: 4800 } } });
    const findings = buildComparisonModel([run]).diagnosis;
    assert.ok(!findings.some((f) => f.id === 'too-many-log-flushes' || f.id === 'writelog-internal-contention'));
    assert.equal(findings[0]!.id, 'top-wait');
    assert.match(findings[0]!.title, /^ASYNC_IO_COMPLETION was 100% of the session's waits/);
  });

  it('S1: WRITELOG as the top wait still leads with the flush-per-commit findings', () => {
    const runs = [makeRun({ mode: 'DISABLED', elapsedMs: 1300, commits: 500, flushesCounter: 500, waits: { WRITELOG: { count: 500, ms: 1000 } }, log: { writes: 500, bytes: 2_048_000, stallMs: 1000 } }), makeRun({ mode: 'FORCED', elapsedMs: 60, commits: 500, flushesCounter: 2 })];
    const ids = buildComparisonModel(runs).diagnosis.map((f) => f.id);
    assert.equal(ids[0], 'too-many-log-flushes');
    // One run per mode: the gain is indicative (issue 28), still after the flush findings.
    assert.ok(ids.indexOf('delayed-durability-indicative') > ids.indexOf('commit-per-row'), ids.join(', '));
  });

  it('a failed workload leads with its error and line, and judges no speed-up or "little to gain"', () => {
    const run = makeRun({ mode: 'DISABLED', elapsedMs: 20, commits: 0 });
    run.status = 'workload-error';
    run.errors = [{ number: 208, message: "Invalid object name 'dbo.SingleRowInsert'.", documentLine: 18, batchIndex: 2 }];
    const model = buildComparisonModel([run]);
    assert.equal(model.diagnosis[0]!.id, 'workload-failed');
    assert.equal(model.diagnosis[0]!.title, 'The workload failed at line 19 with SQL error 208');
    assert.ok(!model.diagnosis.some((f) => f.id === 'no-gain-set-based'));
    const md = toMarkdown(model);
    assert.match(md, /^## Verdict\n\n\*\*The workload failed at line 19 with SQL error 208: Invalid object name 'dbo\.SingleRowInsert'\.\*\*$/m);
    assert.ok(md.indexOf('## Verdict') < md.indexOf('| Metric |'));
    assert.doesNotMatch(md, /Little to gain/);
  });

  it('a wait longer than the elapsed time (parallel tasks) is not printed as a share above 100 %', () => {
    const model = buildComparisonModel([makeRun({ mode: null, elapsedMs: 1000, commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 1580 } } })]);
    const verdict = toMarkdown(model);
    assert.match(verdict, /Where the time went: WRITELOG, 1\.58 s — 100 % of the session's waits, more than the elapsed time \(waits of concurrent sessions or parallel tasks add up\)/);
    assert.doesNotMatch(verdict, /158 ?%/);
    assert.equal(model.diagnosis.find((f) => f.id === 'writelog-share')!.title, 'WRITELOG was more than 100% of the elapsed time in the run');
  });

  it('a comparison with a cancelled run keeps its mode name in the headline after "Cancelled … —"', () => {
    const disabled = makeRun({ mode: 'DISABLED', elapsedMs: 1300, commits: 500, flushesCounter: 500 });
    const forcedRuns = [70, 80].map((elapsedMs) => makeRun({ mode: 'FORCED', elapsedMs, commits: 500, flushesCounter: 2 }));
    const cut = { ...makeRun({ mode: 'FORCED', elapsedMs: 60, commits: 500, flushesCounter: 2 }), status: 'cancelled' as const, cancel: { reason: 'user' as const, atMs: 60 } };
    const verdict = buildVerdict(buildComparisonModel([disabled, ...forcedRuns, cut]));
    // 1300 / 75 (the complete FORCED runs' median): the cut run is left out.
    assert.match(verdict.headline, /^Cancelled by the user after 60(\.0+)? ms — FORCED ran 17\.3× faster than DISABLED/);
  });

  it('a mode whose only run was cancelled gets no speed-up from it: the headline says no complete run', () => {
    const disabled = makeRun({ mode: 'DISABLED', elapsedMs: 1300, commits: 500, flushesCounter: 500 });
    const cut = { ...makeRun({ mode: 'FORCED', elapsedMs: 60, commits: 500, flushesCounter: 2 }), status: 'cancelled' as const, cancel: { reason: 'user' as const, atMs: 60 } };
    const verdict = buildVerdict(buildComparisonModel([disabled, cut]));
    assert.equal(verdict.headline, 'Cancelled by the user after 60 ms — No complete FORCED run (cancelled runs cover only part of the workload): no speed-up to report');
    assert.equal(verdict.speedup, null);
  });
});
