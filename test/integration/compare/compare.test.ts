// runComparison against the stand-in over real TDS: DISABLED vs FORCED on S1, and the database left as found
// after a workload error, a cancel, a dropped monitor connection and a locked ALTER.
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison, type CompareOptions, type DurabilityMode, type ProgressEvent } from '../../../src/profile';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { waitFor } from '../support';
import { s1Script, serverState, startStandin, type StandinHarness } from '../profile/standin';

describe('integration: durability comparison (stand-in)', function () {
  this.timeout(120000);
  let h: StandinHarness;
  let journal: KeyValueRestoreJournal;
  before(async () => {
    h = await startStandin();
  });
  beforeEach(() => {
    h.engine.faults.reset();
    journal = new KeyValueRestoreJournal(new MemoryStore());
  });
  afterEach(async () => {
    h.engine.faults.reset();
    // Whatever happened, the database is DISABLED again, nothing is journalled and nothing is left running.
    assert.deepEqual(await journal.list(), []);
    await waitFor(() => h.server.connections === 0, 'every connection closed');
    assert.deepEqual(await serverState(h), { setting: 'DISABLED', eventSessions: [] });
  });
  after(async () => {
    await h?.close();
  });

  function options(extra: Partial<CompareOptions> = {}): CompareOptions {
    // S1's first two batches (SET NOCOUNT ON; recreate the table) are its setup.
    return { connections: profileConnectionSource(h.profile, h.secret), batches: analyze(s1Script(300)).batches, setupBatches: 2, repetitions: 2, journal, confirm: () => true, ...extra };
  }

  /** Calls `action` at the first progress event of `step` in a run whose mode is FORCED. */
  function duringForced(step: ProgressEvent['step'], action: () => void): (e: ProgressEvent) => void {
    let mode: DurabilityMode = 'DISABLED';
    let fired = false;
    return (e) => {
      if (e.step === 'set-durability') mode = e.detail?.startsWith('FORCED') ? 'FORCED' : 'DISABLED';
      if (!fired && mode === 'FORCED' && e.step === step) {
        fired = true;
        action();
      }
    };
  }

  it('DISABLED vs FORCED on S1: fewer, larger log writes under FORCED; database back to DISABLED', async () => {
    const result = await runComparison(options());
    assert.equal(result.status, 'completed', result.error?.message);
    // D* D F F D: the last run was DISABLED already, so the restore only verifies.
    assert.deepEqual([result.restore!.status, result.restore!.verifiedSetting, result.restore!.journalCleared], ['already-original', 'DISABLED', true]);
    const model = buildComparisonModel(result.runs);
    assert.deepEqual(model.runsPerColumn, { DISABLED: 2, FORCED: 2 });
    const writes = rowById(model, 'log.writes')!;
    const size = rowById(model, 'log.avgBytesPerWrite')!;
    assert.ok(writes.cells.DISABLED!.min >= 300, `DISABLED log writes ${writes.cells.DISABLED!.min}`);
    assert.ok(writes.cells.FORCED!.max * 10 < writes.cells.DISABLED!.min, `FORCED ${writes.cells.FORCED!.max} vs DISABLED ${writes.cells.DISABLED!.min}`);
    assert.equal(writes.ratios.FORCED!.inconclusive, false);
    assert.ok(size.cells.FORCED!.min > size.cells.DISABLED!.max, 'FORCED writes are larger');
    assert.equal(rowById(model, 'writelog.count')!.cells.FORCED!.max, 0);
    assert.equal(model.source, 'stand-in');
  });

  it('a statement error in a FORCED run is reported, the comparison goes on (the server carried on) and restores', async () => {
    const result = await runComparison(
      options({
        onProgress: duringForced('workload', () => {
          h.engine.faults.statements.push({ pattern: /INSERT INTO dbo\.SingleRowInsert/, number: 50000, message: 'injected failure', times: 1 });
        }),
      }),
    );
    assert.equal(result.status, 'workload-error');
    assert.match(result.error!.message, /FORCED.*SQL error 50000: injected failure — the server carried on past it, so did the comparison/);
    assert.equal(result.runs.length, result.plan.order.length, 'every planned run ran');
    assert.deepEqual(result.runs.flatMap((r) => r.errors.map((e) => [r.mode, e.number, e.endedRun])), [['FORCED', 50000, false]]);
    assert.equal(result.restore!.verifiedSetting, 'DISABLED');
    assert.equal(result.restore!.journalCleared, true);
  });


  it('cancel during a FORCED run restores before returning', async () => {
    const controller = new AbortController();
    const result = await runComparison(options({ signal: controller.signal, onProgress: duringForced('workload', () => controller.abort()) }));
    assert.equal(result.status, 'cancelled');
    assert.equal(result.restore!.status, 'restored');
  });

  it('a dropped monitor connection while FORCED → reconnects and restores', async () => {
    const result = await runComparison(
      options({
        onProgress: duringForced('snapshot-before', () => {
          h.engine.faults.dropAtRequest = 1; // the next request of any session: the monitor's snapshot
        }),
      }),
    );
    assert.equal(result.status, 'failed');
    assert.equal(result.restore!.status, 'restored');
    assert.equal(result.restore!.verifiedSetting, 'DISABLED');
  });

  it('a locked database refuses the ALTER: clear error, nothing changed', async () => {
    h.engine.faults.alterDatabaseLocked = true;
    const result = await runComparison(options());
    assert.equal(result.status, 'failed');
    assert.equal(result.error!.kind, 'durability-change');
    assert.match(result.error!.message, /DELAYED_DURABILITY = FORCED.*still DISABLED/);
    assert.equal(result.restore!.status, 'already-original');
    assert.deepEqual(result.runs.map((r) => r.mode), ['DISABLED', 'DISABLED'], 'warm-up and the first DISABLED run only');
  });
});
