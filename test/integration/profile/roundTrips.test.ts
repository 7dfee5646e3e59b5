// Round trips of a profiled run on the stand-in, counted by the server per connection (server.connectionStats()):
// each snapshot is ONE request on the monitor connection (probes/batch.ts composes the probes), a probe refused inside
// that request is not measured while the rest are, and sampling reads in one request per reading.
import { strict as assert } from 'node:assert';
import { profileConnectionSource, profileRun, type ProfileStep } from '../../../src/profile';
import { analyze } from '../../../src/tsql';
import { s1Script, startStandin, type StandinHarness } from './standin';

/** Requests the monitor connection sent so far (by its application name "… (monitor)"). */
function monitorRequests(h: StandinHarness): number {
  return h.server.connectionStats().filter((c) => c.appName?.endsWith('(monitor)')).reduce((n, c) => n + c.requests, 0);
}

/** Monitor requests per step of a run: the count when the next step began minus the count when this one began. */
async function profiledRequests(h: StandinHarness, rows: number, sampling?: { intervalMs: number }) {
  h.server.resetConnectionStats();
  const marks: Array<{ step: ProfileStep; at: number }> = [];
  const run = await profileRun({
    connections: profileConnectionSource(h.profile, h.secret),
    batches: analyze(s1Script(rows)).batches,
    ...(sampling ? { sampling } : {}),
    onProgress: (e) => void (e.step !== 'workload-progress' && marks.push({ step: e.step, at: monitorRequests(h) })),
  });
  const perStep = new Map<ProfileStep, number>();
  marks.forEach((m, i) => perStep.set(m.step, (marks[i + 1]?.at ?? monitorRequests(h)) - m.at));
  return { run, perStep, total: monitorRequests(h) };
}

describe('integration: round trips of a profiled run (stand-in)', function () {
  this.timeout(60000);
  let h: StandinHarness;
  before(async () => {
    h = await startStandin();
  });
  after(async () => {
    await h?.close();
  });
  afterEach(() => h.engine.faults.reset());

  it('takes each snapshot in exactly one monitor request', async () => {
    const { run, perStep, total } = await profiledRequests(h, 200);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(perStep.get('snapshot-before'), 1);
    assert.equal(perStep.get('snapshot-after'), 1);
    assert.ok(run.missing.length === 0, JSON.stringify(run.missing));
    assert.ok(total >= 2, `monitor requests in the run: ${total}`);
  });

  it('a probe refused inside the composed request is not measured, with its GRANT, and the others are measured', async () => {
    h.engine.faults.statements.push({
      pattern: /sys\.dm_os_wait_stats/i,
      number: 300,
      class: 14,
      message: "VIEW SERVER PERFORMANCE STATE permission was denied on object 'server', database 'master'.",
    });
    const { run, perStep } = await profiledRequests(h, 50);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(perStep.get('snapshot-before'), 1);
    assert.equal(perStep.get('snapshot-after'), 1);
    const waits = run.missing.find((m) => m.measurement === 'waitStats');
    assert.ok(waits, JSON.stringify(run.missing));
    assert.match(waits.reason, /server error 300/);
    assert.equal(waits.grant, 'USE [master];\nGRANT VIEW SERVER PERFORMANCE STATE TO [sa];');
    assert.deepEqual(run.missing.map((m) => m.measurement), ['waitStats']);
  });

  it('reads each sample in one monitor request', async () => {
    const { run, perStep } = await profiledRequests(h, 3000, { intervalMs: 10 });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    const samples = run.samples?.length ?? 0;
    assert.ok(samples >= 1, `samples: ${samples}`);
    // The workload step's monitor requests are the readings: the baseline is the before-snapshot, so one per sample.
    assert.equal(perStep.get('workload'), samples);
  });
});
