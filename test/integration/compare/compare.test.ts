// runComparison over real TDS on the suite's server (useTestServer): DISABLED vs FORCED on S1 with the restore
// verified, and the database left as found after a cancel; on the in-process stand-in also after an injected
// workload error, a dropped monitor connection and a locked ALTER. Given-server expectations are physical ratios.
import { strict as assert } from 'node:assert';
import { KeyValueRestoreJournal, MemoryStore, profileConnectionSource, runComparison, type CompareOptions, type DurabilityMode, type ProgressEvent } from '../../../src/profile';
import { buildComparisonModel, rowById } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';
import { s1Script } from '../samples';

describe('integration: durability comparison', function () {
  this.timeout(120000);
  const t = useTestServer();
  let journal: KeyValueRestoreJournal;
  let table: string;
  let original: DurabilityMode;
  before(async () => {
    table = t.table('cmp_s1');
    original = (await t.state()).setting;
  });
  beforeEach(() => {
    t.standin?.faults.reset();
    journal = new KeyValueRestoreJournal(new MemoryStore());
  });
  afterEach(async function () {
    if (this.currentTest?.isPending()) return;
    t.standin?.faults.reset();
    // Whatever happened, the database is as found, nothing is journalled and nothing is left running.
    assert.deepEqual(await journal.list(), []);
    await t.connectionsClosed();
    assert.deepEqual(await t.state(), { setting: original, eventSessions: [] });
  });

  function options(extra: Partial<CompareOptions> = {}): CompareOptions {
    // S1's first two batches (SET NOCOUNT ON; recreate the table) are its setup.
    return { connections: profileConnectionSource(t.profile, t.secret), batches: analyze(s1Script(300, table)).batches, setupBatches: 2, repetitions: 2, journal, confirm: () => true, ...extra };
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
    assert.deepEqual([result.restore!.status, result.restore!.verifiedSetting, result.restore!.journalCleared], ['already-original', original, true]);
    const model = buildComparisonModel(result.runs);
    assert.deepEqual(model.runsPerColumn, { DISABLED: 2, FORCED: 2 });
    const writes = rowById(model, 'log.writes')!;
    const size = rowById(model, 'log.avgBytesPerWrite')!;
    // DISABLED: each of the 300 commits flushes on its own. FORCED: commits do not wait; the log goes out in blocks.
    assert.ok(writes.cells.DISABLED!.min >= 300, `DISABLED log writes ${writes.cells.DISABLED!.min}`);
    const factor = t.standin ? 10 : 4;
    assert.ok(writes.cells.FORCED!.max * factor < writes.cells.DISABLED!.min, `FORCED ${writes.cells.FORCED!.max} vs DISABLED ${writes.cells.DISABLED!.min}`);
    assert.equal(writes.ratios.FORCED!.inconclusive, false);
    assert.ok(size.cells.FORCED!.min > size.cells.DISABLED!.max, 'FORCED writes are larger');
    const writelog = rowById(model, 'writelog.count')!;
    if (t.standin) {
      assert.equal(writelog.cells.FORCED!.max, 0);
      assert.equal(model.source, 'stand-in');
    } else {
      assert.ok(writelog.cells.FORCED!.max * factor < writelog.cells.DISABLED!.min, `WRITELOG FORCED ${writelog.cells.FORCED!.max} vs DISABLED ${writelog.cells.DISABLED!.min}`);
    }
    // Every measured run inserted its 300 rows: the setup recreated the table before the last one.
    const s = await t.connect();
    try {
      assert.equal(Number((await s.query(`SELECT COUNT(*) AS n FROM ${table};`))[0]!.n), 300);
    } finally {
      await s.close();
    }
  });

  it('a statement error in a FORCED run is reported, the comparison goes on (the server carried on) and restores', async function () {
    t.standinOnly(this, 'injects a statement error (stand-in faults)');
    const h = { engine: t.standin! };
    const result = await runComparison(
      options({
        onProgress: duringForced('workload', () => {
          h.engine.faults.statements.push({ pattern: new RegExp(`INSERT INTO ${table.replace('.', '\\.')}`), number: 50000, message: 'injected failure', times: 1 });
        }),
      }),
    );
    assert.equal(result.status, 'workload-error');
    assert.match(result.error!.message, /FORCED.*SQL error 50000: injected failure — the server carried on past it, so did the comparison/);
    assert.equal(result.runs.length, result.plan.order.length, 'every planned run ran');
    assert.deepEqual(result.runs.flatMap((r) => r.errors.map((e) => [r.mode, e.number, e.endedRun])), [['FORCED', 50000, false]]);
    assert.equal(result.restore!.verifiedSetting, original);
    assert.equal(result.restore!.journalCleared, true);
  });


  it('cancel during a FORCED run restores before returning', async () => {
    const controller = new AbortController();
    const result = await runComparison(options({ signal: controller.signal, onProgress: duringForced('workload', () => controller.abort()) }));
    assert.equal(result.status, 'cancelled');
    assert.equal(result.restore!.status, 'restored');
  });

  it('a dropped monitor connection while FORCED → reconnects and restores', async function () {
    t.standinOnly(this, 'drops a connection (stand-in faults)');
    const h = { engine: t.standin! };
    const result = await runComparison(
      options({
        onProgress: duringForced('snapshot-before', () => {
          h.engine.faults.dropAtRequest = 1; // the next request of any session: the monitor's snapshot
        }),
      }),
    );
    assert.equal(result.status, 'failed');
    assert.equal(result.restore!.status, 'restored');
    assert.equal(result.restore!.verifiedSetting, original);
  });

  it('a locked database refuses the ALTER: clear error, nothing changed', async function () {
    t.standinOnly(this, 'holds a lock on the database (stand-in faults)');
    t.standin!.faults.alterDatabaseLocked = true;
    const result = await runComparison(options());
    assert.equal(result.status, 'failed');
    assert.equal(result.error!.kind, 'durability-change');
    assert.match(result.error!.message, /DELAYED_DURABILITY = FORCED.*still DISABLED/);
    assert.equal(result.restore!.status, 'already-original');
    assert.deepEqual(result.runs.map((r) => r.mode), ['DISABLED', 'DISABLED'], 'warm-up and the first DISABLED run only');
  });
});
