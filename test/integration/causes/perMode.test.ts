// Issue 29: `compare --json` carries `causes` (the baseline mode's, ranked) and `causesByMode`, and the verdict's first
// line weighs the dominant cause against what FORCED saved. Per mode where it matters: FORCED removes a synchronous
// secondary's wait (Learn: control returns before the secondary acknowledges) but not log-rate governance (applied
// when log is generated). And a source that is missing reads "not measured — why — GRANT", never a share of 0.
import { strict as assert } from 'node:assert';
import type { RunResult } from '../../../src/profile/types';
import type { Cause, CauseId } from '../../../src/report/causes/types';
import type { ComparisonDocument } from '../../../src/report/document';
import { standinOnlySuite } from '../support';
import { runCase, sample, verdictFirstLine } from './harness';

const s1 = (rows: number) => sample('s1-single-row-inserts.sql', 'WHILE @i < 10000', `WHILE @i < ${rows}`);
const shareOf = (causes: readonly Cause[], id: CauseId) => causes.find((c) => c.cause === id)?.share ?? null;

describe('integration: causes per mode in compare --json, and "not measured" causes (issue 29)', function () {
  this.timeout(180000);
  standinOnlySuite('each test starts a stand-in with a cause switch (test/standin/model/commitCauses.ts)');

  it('a synchronous secondary: DISABLED is led by ag-sync-commit, FORCED commits no longer wait for it', async () => {
    const run = await runCase({ switches: { agSyncCommitMs: 6 } }, s1(80), ['compare', 'FILE', '--modes', 'DISABLED,FORCED', '--repeat', '1', '--yes', '--allow-availability-group', '--json', '--out', 'MD']);
    const doc = JSON.parse(run.stdout) as ComparisonDocument;
    assert.equal(doc.causes[0]?.cause, 'ag-sync-commit');
    assert.deepEqual(doc.causes, doc.causesByMode.DISABLED!.causes);
    assert.equal(doc.causesByMode.FORCED!.causes.find((c) => c.cause === 'ag-sync-commit')!.share, 0, 'FORCED: no HADR_SYNC_COMMIT');
    assert.match(verdictFirstLine(run.markdown), /^\*\*Synchronous availability-group commit makes each commit wait 6 ms for the secondary to harden the log: FORCED (saves \d+ %|saves no time beyond the noise|is \d+ % slower)( \(indicative: one run per mode\))? — delayed durability only ends the wait by giving up the secondary's copy/);
    assert.match(run.markdown, /\nIn FORCED: /);
    assert.equal(doc.restoredSetting, 'DISABLED');
  });

  it('log-rate governance: the governor leads in both modes — FORCED does not lift a MB/s cap', async () => {
    const run = await runCase({ standin: { product: 'azure-sqldb' }, switches: { logRateLimitMbps: 1 } }, s1(80), ['compare', 'FILE', '--modes', 'DISABLED,FORCED', '--repeat', '1', '--yes', '--json', '--out', 'MD']);
    const doc = JSON.parse(run.stdout) as ComparisonDocument;
    assert.equal(doc.causes[0]?.cause, 'log-rate-governor');
    assert.equal(doc.causes[0]?.helpsDelayedDurability, false);
    const forced = doc.causesByMode.FORCED!;
    assert.equal(forced.causes[0]?.cause, 'log-rate-governor', JSON.stringify(forced.causes.map((c) => [c.cause, c.share])));
    assert.ok((shareOf(forced.causes, 'log-rate-governor') ?? 0) > (shareOf(doc.causes, 'log-rate-governor') ?? 1), 'without the flush waits the governor is an even larger part under FORCED');
    assert.match(verdictFirstLine(run.markdown), /^\*\*Log-rate governance caps this database at 1\.00 MiB\/s: FORCED (saves \d+ %|saves no time beyond the noise|is \d+ % slower)( \(indicative: one run per mode\))? — delayed durability is not the lever, nor is batching/);
  });

  it("a login that cannot see the workload session's waits: the wait-based causes read not measured, with the GRANT", async () => {
    const run = await runCase(
      { standin: { logins: [{ name: 'lens_reader', password: 'Reader-Pass-1', databases: ['lab'], databasePermissions: { lab: ['CREATE TABLE', 'ALTER', 'INSERT'] } }] }, login: { name: 'lens_reader', password: 'Reader-Pass-1' } },
      s1(30),
      ['profile', 'FILE', '--json', '--yes', '--out', 'MD'],
    );
    const json = JSON.parse(run.stdout) as RunResult & { causes: Cause[] };
    for (const id of ['log-disk', 'tiny-flushes', 'group-commit', 'log-writer-limit', 'ag-sync-commit', 'log-rate-governor', 'hyperscale-log-service'] as CauseId[]) {
      const c = json.causes.find((x) => x.cause === id)!;
      assert.equal(c.share, null, `${id} is not measured, never 0`);
      assert.ok(c.notMeasured && c.notMeasured.reason.length > 0, id);
      assert.match(c.notMeasured!.grant ?? '', /GRANT VIEW SERVER (PERFORMANCE )?STATE TO \[lens_reader\]/, id);
    }
    assert.match(run.markdown, /not measured: .*To enable: `USE \[master\]; GRANT VIEW SERVER PERFORMANCE STATE TO \[lens_reader\];`/);
  });
});
