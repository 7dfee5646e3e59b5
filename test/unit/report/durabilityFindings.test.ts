// The issue-6 diagnosis items: WRITELOG share of elapsed, flushes per commit, the saving with its spread and the
// sourced loss caveat, and the environment block (trace flags 3979/3982, VLFs, log size, recovery model).
import { strict as assert } from 'node:assert';
import { ok, notApplicable } from '../../../src/probes/measurement';
import type { DatabaseInfo } from '../../../src/probes/databaseInfo';
import type { RunResult } from '../../../src/profile/types';
import { buildComparisonModel, LOSS_CAVEAT, toMarkdown, type Finding } from '../../../src/report';
import { makeRun, type RunFigures } from './runFixture';

const model = (runs: RunFigures[]) => buildComparisonModel(runs.map(makeRun));
const find = (f: Finding[], id: string) => f.find((x) => x.id === id);

describe('diagnosis: durability comparison findings', () => {
  it('WRITELOG share of elapsed, per column, as a warning when it is most of the time', () => {
    const m = model([
      { mode: 'DISABLED', elapsedMs: 1000, waits: { WRITELOG: { count: 500, ms: 800 } } },
      { mode: 'FORCED', elapsedMs: 200, waits: { WRITELOG: { count: 2, ms: 10 } } },
    ]);
    const share = find(m.diagnosis, 'writelog-share')!;
    assert.equal(share.title, 'WRITELOG was 80% of the elapsed time in DISABLED');
    assert.equal(share.severity, 'warning');
    assert.match(share.detail, /FORCED: 5%/);
    assert.deepEqual(share.evidence.map((e) => [e.metric, e.column, e.value]), [
      ['writelog.ms', 'DISABLED', 800],
      ['elapsed', 'DISABLED', 1000],
      ['writelog.ms', 'FORCED', 10],
      ['elapsed', 'FORCED', 200],
    ]);
    const low = find(model([{ mode: 'DISABLED', elapsedMs: 1000, waits: { WRITELOG: { count: 5, ms: 100 } } }]).diagnosis, 'writelog-share')!;
    assert.equal(low.severity, 'info');
    assert.equal(find(model([{ mode: 'DISABLED', waits: {} }]).diagnosis, 'writelog-share'), undefined);
  });

  it('flushes per commit for every column, from the counter when present', () => {
    const m = model([
      { mode: 'DISABLED', commits: 1000, flushesCounter: 1000 },
      { mode: 'FORCED', commits: 1000, flushesCounter: 4 },
    ]);
    const f = find(m.diagnosis, 'flushes-per-commit')!;
    assert.equal(f.title, 'Log flushes: DISABLED 1.00 per commit, FORCED 0.004 per commit');
    assert.deepEqual(f.evidence.map((e) => [e.metric, e.column, e.value]), [
      ['flushes.counter', 'DISABLED', 1000],
      ['commits', 'DISABLED', 1000],
      ['flushes.counter', 'FORCED', 4],
      ['commits', 'FORCED', 1000],
    ]);
  });

  it('"saved X% (spread Y)" with the loss caveat phrased as the sources allow', () => {
    const m = model([
      { mode: 'DISABLED', elapsedMs: 1000 },
      { mode: 'DISABLED', elapsedMs: 1100 },
      { mode: 'FORCED', elapsedMs: 100 },
      { mode: 'FORCED', elapsedMs: 125 },
    ]);
    const gain = find(m.diagnosis, 'delayed-durability-gain')!;
    // median 1050 vs 112.5 → ratio 0.107 → 89% saved; spread 125/1000 → 88% … 100/1100 → 91%.
    assert.match(gain.detail, /^Delayed durability saved 89% of the elapsed time \(spread 88% to 91% over the runs' ranges\)/);
    assert.equal(gain.suggestion, LOSS_CAVEAT);
    assert.match(LOSS_CAVEAT, /up to about one 60 KB log buffer per database of committed work can be lost/);
    assert.match(LOSS_CAVEAT, /Control Transaction Durability/);
  });

  it('an overlapping comparison says it is inconclusive instead of claiming a gain', () => {
    const m = model([
      { mode: 'DISABLED', elapsedMs: 100 },
      { mode: 'DISABLED', elapsedMs: 130 },
      { mode: 'FORCED', elapsedMs: 95 },
      { mode: 'FORCED', elapsedMs: 120 },
    ]);
    assert.equal(find(m.diagnosis, 'delayed-durability-gain'), undefined);
    assert.match(find(m.diagnosis, 'delayed-durability-inconclusive')!.detail, /ranges overlap/);
  });
});

describe('report: environment block', () => {
  const database: DatabaseInfo = { databaseId: 5, name: 'lab', state: 'ONLINE', recoveryModel: 'FULL', delayedDurability: 'DISABLED', cdcEnabled: false, published: false, logReuseWait: null, inAvailabilityGroup: false, changeTracking: ok(false), agReplicas: ok([]) };

  it('reads trace flags 3979/3982, VLF count, log size and recovery model from the first measured run', () => {
    const run = {
      ...makeRun({ environment: { traceFlags: [{ flag: 3979, status: true, global: true, session: false }], log: { vlfCount: { before: 4, after: 8 }, logSizeMb: { before: 8, after: 72 }, usedBytes: null, usedPercent: null } } }),
      database,
    };
    const m = buildComparisonModel([run]);
    assert.deepEqual(m.environment, {
      version: '16.0.1000.6',
      hostPlatform: null,
      recoveryModel: 'FULL',
      traceFlags: [
        { flag: 3979, enabled: true, text: 'on' },
        { flag: 3982, enabled: false, text: 'off' },
      ],
      vlfCount: 8,
      logSizeMb: 72,
      traceFlagsNotMeasured: null,
      logNotMeasured: { vlfCount: null, logSize: null },
    });
    const md = toMarkdown(m);
    assert.match(md, /## Environment\n\n- SQL Server 16\.0\.1000\.6\n- Recovery model: FULL\n- Trace flags: 3979 on, 3982 off\n- Log: 72\.00 MiB, 8 VLFs/);
  });

  it('on Linux an unlisted 3982 reads "not set (Linux default behaviour applies)", not "off" (issue 11 finding 9)', () => {
    const run = makeRun({ environment: { traceFlags: [] } });
    const linux = { ...run, server: { ...run.server, host: ok({ platform: 'Linux', distribution: 'Ubuntu', release: '22.04' }), hostPlatform: 'Linux' } };
    const md = toMarkdown(buildComparisonModel([linux]));
    assert.match(md, /- Trace flags: 3979 off, 3982 not set \(Linux default behaviour applies\)/);
    const windows = { ...run, server: { ...run.server, host: ok({ platform: 'Windows', distribution: 'Windows Server 2022 Datacenter', release: '10.0' }), hostPlatform: 'Windows' } };
    assert.match(toMarkdown(buildComparisonModel([windows])), /- Trace flags: 3979 off, 3982 off/);
  });

  it('says "not measured" with why when the trace flags could not be read', () => {
    const base = makeRun();
    const run = { ...base, server: { ...base.server, traceFlags: notApplicable<never>('traceFlags', 'no permission') } };
    const m = buildComparisonModel([run]);
    assert.deepEqual(m.environment?.traceFlags.map((t) => t.enabled), [null, null]);
    assert.match(toMarkdown(m), /Trace flags: 3979, 3982 not measured — no permission/);
  });

  it('says on the log line why the log size and VLF count were not measured, with the GRANT (never a bare "unknown")', () => {
    const grant = 'GRANT VIEW DATABASE STATE TO [lens];';
    const run = { ...makeRun(), missing: [{ measurement: 'logStats', reason: 'sys.dm_db_log_stats was denied.', grant }] } as RunResult;
    const m = buildComparisonModel([run]);
    assert.deepEqual(m.environment?.logNotMeasured, { vlfCount: `sys.dm_db_log_stats was denied. To enable: ${grant}`, logSize: `sys.dm_db_log_stats was denied. To enable: ${grant}` });
    const md = toMarkdown(m);
    assert.match(md, /- Log: size and VLF count not measured \(sys\.dm_db_log_stats was denied\. To enable: GRANT VIEW DATABASE STATE TO \[lens\];\)\n/);
    assert.doesNotMatch(md, /size unknown|VLF count unknown/);
    // A VLF count read by sys.dm_db_log_info while the log stats were denied: only the size says why.
    const vlfsOnly = { ...run, diff: { ...run.diff, log: { vlfCount: { before: 4, after: 4 }, logSizeMb: null, usedBytes: null, usedPercent: null } } } as RunResult;
    assert.match(toMarkdown(buildComparisonModel([vlfsOnly])), /- Log: size not measured \(sys\.dm_db_log_stats was denied\. To enable: GRANT VIEW DATABASE STATE TO \[lens\];\), 4 VLFs\n/);
  });

  it('a log figure no run read, with no recorded reason, says so rather than "unknown"', () => {
    const md = toMarkdown(buildComparisonModel([makeRun()]));
    assert.match(md, /- Log: size and VLF count not measured \(no run read it\)\n/);
  });
});
