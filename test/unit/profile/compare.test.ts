import { strict as assert } from 'node:assert';
import { runComparison, type CompareOptions } from '../../../src/profile/compare';
import { FakeServer } from './fakeServer';

const batches = [
  { text: 'CREATE TABLE t (i int);\n-- durability-lens: setup-end', repeat: 1, firstLine: 0 },
  { text: 'INSERT t VALUES (1);', repeat: 1, firstLine: 2 },
];

function options(fake: FakeServer, extra: Partial<CompareOptions> = {}): CompareOptions {
  return { connections: fake.source(), batches, journal: fake.journal(), confirm: () => true, xe: { enabled: false }, executor: fake.executor(), repetitions: 2, ...extra };
}

describe('durability comparison runner', () => {
  it('re-runs setup before every run, alternates modes, journals first and restores last', async () => {
    const fake = new FakeServer();
    const result = await runComparison(options(fake));
    assert.equal(result.status, 'completed');
    assert.deepEqual(result.runs.map((r) => `${r.mode}${r.warmup ? '*' : ''}`), ['DISABLED*', 'DISABLED', 'FORCED', 'FORCED', 'DISABLED']);
    const steps = fake.log.filter((l) => /^(journal|alter|batch)/.test(l));
    assert.deepEqual(steps, [
      'journal-put:DISABLED',
      'batch:CREATE TABLE t (i int);@DISABLED', 'batch:INSERT t VALUES (1);@DISABLED',
      'batch:CREATE TABLE t (i int);@DISABLED', 'batch:INSERT t VALUES (1);@DISABLED',
      'batch:CREATE TABLE t (i int);@DISABLED', 'journal-put:DISABLED', 'alter:FORCED', 'batch:INSERT t VALUES (1);@FORCED',
      'batch:CREATE TABLE t (i int);@FORCED', 'batch:INSERT t VALUES (1);@FORCED',
      'batch:CREATE TABLE t (i int);@FORCED', 'journal-put:DISABLED', 'alter:DISABLED', 'batch:INSERT t VALUES (1);@DISABLED',
      'journal-remove',
    ]);
    assert.equal(result.restore!.status, 'already-original');
    assert.equal(fake.setting, 'DISABLED');
    assert.deepEqual(fake.log.filter((l) => l.startsWith('close')).length, 2, 'both connections closed');
    // The workload session (#2) is closed — its transaction rolled back — before the restore reads the setting.
    const workloadClosed = fake.log.indexOf('close#2');
    assert.ok(workloadClosed > 0 && workloadClosed < fake.log.indexOf('journal-remove'), fake.log.join(' '));
    assert.deepEqual(fake.log.slice(-3), ['journal-remove', 'unlock', 'close#1']);
  });

  it('restores the original setting after a workload error in a FORCED run', async () => {
    const fake = new FakeServer();
    const executor = fake.executor((n, batch) => {
      if (fake.setting === 'FORCED' && batch.text.startsWith('INSERT') && n > 4) {
        return { error: { number: 2627, state: 1, class: 14, message: 'Violation of PRIMARY KEY constraint', lineNumber: 1, documentLine: 2 } };
      }
    });
    const result = await runComparison(options(fake, { executor }));
    assert.equal(result.status, 'workload-error');
    assert.match(result.error!.message, /line 3.*SQL error 2627/);
    assert.equal(result.restore!.status, 'restored');
    assert.equal(fake.setting, 'DISABLED');
    assert.equal(fake.log.at(-3), 'journal-remove');
  });

  it('restores after a cancel in the middle of the runs', async () => {
    const fake = new FakeServer();
    const controller = new AbortController();
    const executor = fake.executor((n) => {
      if (n === 6) controller.abort();
    });
    const result = await runComparison(options(fake, { executor, signal: controller.signal }));
    assert.equal(result.status, 'cancelled');
    assert.equal(result.restore!.status, 'restored');
    assert.equal(fake.setting, 'DISABLED');
  });

  it('stops with a clear error and changes nothing when the database is locked', async () => {
    const fake = new FakeServer();
    fake.alterLocked = true;
    const result = await runComparison(options(fake));
    assert.equal(result.status, 'failed');
    assert.equal(result.error!.kind, 'durability-change');
    assert.match(result.error!.message, /SQL error 5061.*still DISABLED/);
    assert.equal(result.restore!.status, 'already-original');
    assert.ok(!fake.log.some((l) => l.startsWith('alter:')));
  });

  it('does nothing when the plan is refused or not confirmed', async () => {
    const refused = new FakeServer();
    refused.database.cdc = true;
    const r1 = await runComparison(options(refused));
    assert.equal(r1.status, 'refused');
    assert.deepEqual(r1.plan.refusals.map((r) => r.code), ['cdc']);
    const declined = new FakeServer();
    const r2 = await runComparison(options(declined, { confirm: () => false }));
    assert.equal(r2.status, 'declined');
    for (const fake of [refused, declined]) assert.ok(!fake.log.some((l) => l.startsWith('journal') || l.startsWith('alter') || l.startsWith('batch')));
  });
});
