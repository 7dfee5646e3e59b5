// The verdict's lines read as one sentence each: "<the cause>: <what the delayed mode saved> — <the lever>." has one
// colon, so a cause summary holding its own ("tempdb's log is flushed lazily: these commits …: 80 % …") reads as two
// sentences run together. The same holds for the headline of a failed workload.
import { strict as assert } from 'node:assert';
import { ok } from '../../../src/probes/measurement';
import { assessCauses, type CauseAssessment } from '../../../src/report/causes';
import { causeLead } from '../../../src/report/causes/text';
import { buildComparisonModel } from '../../../src/report/comparison';
import { buildVerdict } from '../../../src/report/verdict';
import { causesRun as run, makeRun } from './runFixture';


/** One run per cause the verdict can lead with (its dominant cause). */
const scenarios: Array<[string, CauseAssessment]> = [
  ['log-disk', assessCauses([run({ commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 2000 } }, log: { writes: 100, bytes: 409600, stallMs: 2000 } })])],
  ['tiny-flushes', assessCauses([run({ commits: 200, flushesCounter: 200, waits: { WRITELOG: { count: 200, ms: 40 } }, log: { writes: 200, bytes: 819200, stallMs: 40 } })])],
  ['ag-sync-commit', assessCauses([run({ commits: 100, flushesCounter: 100, waits: { WRITELOG: { count: 100, ms: 20 }, HADR_SYNC_COMMIT: { count: 100, ms: 600 } }, log: { writes: 100, bytes: 409600, stallMs: 20 } })])],
  ['log-rate-governor', assessCauses([run({ commits: 100, flushesCounter: 100, waits: { LOG_RATE_GOVERNOR: { count: 100, ms: 900 }, WRITELOG: { count: 100, ms: 100 } }, log: { writes: 100, bytes: 409600, stallMs: 20 }, path: { logRateGovernance: ok({ serviceObjective: 'S0', maxLogRateBytesPerSec: 12 * 1024 * 1024, commitFeeBytes: 0, instanceMaxLogRateBytesPerSec: null }) } })])],
  ['hyperscale-log-service', assessCauses([run({ commits: 100, flushesCounter: 100, waits: { RBIO_RG_STORAGE: { count: 20, ms: 900 }, WRITELOG: { count: 100, ms: 10 } }, log: { writes: 100, bytes: 409600, stallMs: 10 } })])],
  ['tempdb', assessCauses([run({ commits: 50, flushesCounter: 0, waits: { SOS_SCHEDULER_YIELD: { count: 3, ms: 30 } }, cpuMs: 70, database: { databaseId: 2, name: 'tempdb' }, log: { writes: 0, bytes: 0, stallMs: 0 } })])],
  ['tempdb (SCHEMA_ONLY)', assessCauses([run({ commits: 50, flushesCounter: 1, waits: { WRITELOG: { count: 1, ms: 1 } }, cpuMs: 99, path: { inMemoryTables: ok({ schemaOnlyTables: 2 }) } })])],
  ['not-log', assessCauses([run({ commits: 10, flushesCounter: 10, waits: { WRITELOG: { count: 10, ms: 1 }, PAGEIOLATCH_SH: { count: 10, ms: 900 } }, log: { writes: 10, bytes: 40960, stallMs: 1 } })])],
];

describe('verdict: every first line and headline is one sentence', () => {
  for (const [name, a] of scenarios) {
    it(`${name}: "<cause>: <saved> — <lever>." has one colon, with and without a comparison`, () => {
      assert.equal(a.dominant, name.replace(/ \(.*$/, ''));
      for (const outcome of [null, { mode: 'FORCED', factor: 1.5, conclusive: true }]) {
        const text = causeLead(a, outcome)!.text;
        // Observed before the fix: "tempdb's log is flushed lazily: these commits wait for no log flush: 100 % …".
        assert.equal(text.split(':').length - 1, 1, text);
        assert.match(text, /^[^:]+: [^:]+ — [^:]+\.$/, text);
      }
    });
  }

  it('a failed workload: "The workload failed at line 19 with SQL error 208: <message>" (one colon of ours)', () => {
    const r = makeRun({ mode: 'DISABLED', elapsedMs: 20, commits: 0 });
    r.status = 'workload-error';
    r.errors = [{ number: 208, message: "Invalid object name 'dbo.SingleRowInsert'.", documentLine: 18, batchIndex: 2 }];
    // Observed before the fix: "The workload failed at line 19: SQL error 208: Invalid object name …".
    assert.equal(buildVerdict(buildComparisonModel([r])).headline, "The workload failed at line 19 with SQL error 208: Invalid object name 'dbo.SingleRowInsert'.");
  });
});
