// Round trips of a profiled run on the stand-in, counted by the server per connection (server.connectionStats()):
// each snapshot is ONE request on the monitor connection (db/batch.ts composes the probes), a probe refused inside
// that request is not measured while the rest are, and sampling reads in one request per reading. Both event sessions
// (log flush and per statement) share the trace requests: planning with the preflight, CREATE+START with the
// before-snapshot, target reads + STOPs with the after-snapshot, DROPs in one request — and a refused statement session
// fails alone. The monitor's login reads the target database with its session setup (no request of its own).
import { strict as assert } from 'node:assert';
import { connect } from '../../../src/db/connect';
import { profileConnectionSource, profileRun, type ProfileStep } from '../../../src/profile';
import { dropSession } from '../../../src/xe/cleanup';
import { statementSessionName } from '../../../src/xe/sessionSql';
import { analyze } from '../../../src/tsql';
import { useTestServer } from '../support';
import { harnessOf, s1Script, serverState, type StandinHarness } from './standin';

/** Requests the monitor connection sent so far (by its application name "… (monitor)"). */
function monitorRequests(h: StandinHarness): number {
  return h.server.connectionStats().filter((c) => c.appName?.endsWith('(monitor)')).reduce((n, c) => n + c.requests, 0);
}

/** Monitor requests per step of a run: the count when the next step began minus the count when this one began. */
async function profiledRequests(h: StandinHarness, rows: number, sampling?: { enabled?: boolean; intervalMs?: number }) {
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

describe('integration: round trips of a profiled run (stand-in only)', function () {
  this.timeout(60000);
  const h = harnessOf(useTestServer({ standinOnly: 'counts the requests of each connection inside the stand-in (server.connectionStats) and injects refusals' }));
  afterEach(() => h.engine.faults.reset());

  it('takes each snapshot in exactly one monitor request', async () => {
    const { run, perStep, total } = await profiledRequests(h, 200);
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(perStep.get('snapshot-before'), 1);
    assert.equal(perStep.get('snapshot-after'), 1);
    assert.ok(run.missing.length === 0, JSON.stringify(run.missing));
    assert.ok(total >= 2, `monitor requests in the run: ${total}`);
    // tedious's own session options, then ours with @@SPID, DB_ID(), DB_NAME() and DELAYED_DURABILITY (db/connect.ts).
    assert.equal(perStep.get('connect'), 2);
  });

  it('a cancel right after the before-snapshot (which also started both event sessions) still drops them', async () => {
    const abort = new AbortController();
    await assert.rejects(
      profileRun({
        connections: profileConnectionSource(h.profile, h.secret),
        batches: analyze(s1Script(20)).batches,
        signal: abort.signal,
        // 'xe-start' is reported once the request that created and started the sessions has answered.
        onProgress: (e) => void (e.step === 'xe-start' && abort.abort()),
      }),
      (err: Error) => err.name === 'AbortError',
    );
    assert.deepEqual((await serverState(h)).eventSessions, [], 'both sessions were dropped');
  });

  /** The monitor requests of every step with sampling off (the workload step then asks nothing); the sessions start in the before-snapshot's request. */
  const TRACED_STEPS = { preflight: 1, 'snapshot-before': 1, 'xe-start': 0, workload: 0, 'snapshot-after': 1, 'xe-read': 0, 'xe-drop': 1 };
  const stepsOf = (perStep: Map<ProfileStep, number>) => Object.fromEntries(Object.keys(TRACED_STEPS).map((k) => [k, perStep.get(k as ProfileStep) ?? 0]));

  it('with both event sessions on: one request each to plan (with the preflight), start (with the before-snapshot), read + stop (with the after-snapshot) and drop', async () => {
    const { run, perStep } = await profiledRequests(h, 200, { enabled: false });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.deepEqual(run.missing, []);
    assert.ok(run.logFlushTrace, 'the log-flush trace was measured');
    assert.ok((run.logFlushTrace.flushes ?? 0) > 0, `log flushes traced: ${run.logFlushTrace.flushes}`);
    assert.equal(run.statementAttribution?.status, 'measured', run.statementAttribution?.reason ?? '');
    assert.ok(run.statements!.length > 0, 'statements were attributed');
    assert.deepEqual(stepsOf(perStep), TRACED_STEPS);
    assert.deepEqual((await serverState(h)).eventSessions, [], 'both sessions were dropped');
  });

  it('a statement session whose CREATE is refused: the run completes, statements not measured with the GRANT, log-flush figures measured, same requests', async () => {
    h.engine.faults.statements.push({ pattern: /CREATE EVENT SESSION \[[^\]]*_statements\]/i, number: 297, class: 16, message: 'The user does not have permission to perform this action.' });
    const { run, perStep } = await profiledRequests(h, 200, { enabled: false });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(run.statementAttribution?.status, 'not-measured');
    assert.deepEqual(run.statements, []);
    const missing = run.missing.find((m) => m.measurement === 'statementAttribution');
    assert.ok(missing, JSON.stringify(run.missing));
    assert.match(missing.reason, /permission denied/);
    assert.match(missing.grant ?? '', /GRANT .*EVENT SESSION/);
    assert.deepEqual(run.missing.map((m) => m.measurement), ['statementAttribution'], 'the log-flush trace is not missing');
    assert.ok((run.logFlushTrace?.flushes ?? 0) > 0, 'the log-flush trace was measured');
    assert.deepEqual(stepsOf(perStep), TRACED_STEPS);
    assert.deepEqual((await serverState(h)).eventSessions, []);
  });

  it('a statement session created but refused START is still dropped, in the log-flush DROP request', async () => {
    h.engine.faults.statements.push({ pattern: /ALTER EVENT SESSION \[[^\]]*_statements\][^;]*STATE\s*=\s*START/i, number: 297, class: 16, message: 'The user does not have permission to perform this action.' });
    const { run, perStep } = await profiledRequests(h, 50, { enabled: false });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(run.statementAttribution?.status, 'not-measured');
    assert.match(run.missing.find((m) => m.measurement === 'statementAttribution')?.reason ?? '', /permission denied/);
    assert.ok((run.logFlushTrace?.flushes ?? 0) > 0, 'the log-flush trace was measured');
    assert.deepEqual(stepsOf(perStep), TRACED_STEPS);
    assert.deepEqual((await serverState(h)).eventSessions, [], 'the created statement session was dropped');
  });

  it('a statement session whose STOP fails is not measured, still stopped and dropped in the DROP request; the log-flush trace is read', async () => {
    // Once: the STOP composed with the after-snapshot fails; the drop request's STOP + DROP then work.
    h.engine.faults.statements.push({ pattern: /ALTER EVENT SESSION \[[^\]]*_statements\][^;]*STATE\s*=\s*STOP/i, number: 297, class: 16, message: 'The user does not have permission to perform this action.', times: 1 });
    const { run, perStep } = await profiledRequests(h, 50, { enabled: false });
    assert.equal(run.status, 'completed', JSON.stringify(run.errors));
    assert.equal(run.statementAttribution?.status, 'not-measured');
    assert.match(run.missing.find((m) => m.measurement === 'statementAttribution')?.reason ?? '', /could not be read.*permission denied/);
    assert.ok((run.logFlushTrace?.flushes ?? 0) > 0, 'log-flush figures measured');
    assert.deepEqual(stepsOf(perStep), TRACED_STEPS);
    assert.deepEqual((await serverState(h)).eventSessions, [], 'the statement session was dropped');
  });

  it('both claimed names taken (someone else\'s sessions): both are left alone, the run traces and attributes under new names', async () => {
    const taken = 'durability_lens_rt_taken';
    const admin = await connect(h.profile, h.secret, { role: 'monitor' });
    try {
      for (const name of [taken, statementSessionName(taken)]) await admin.execute(`CREATE EVENT SESSION [${name}] ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
      const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(s1Script(50)).batches, sampling: { enabled: false }, xe: { sessionName: taken } });
      assert.equal(run.status, 'completed', JSON.stringify(run.errors));
      assert.deepEqual(run.missing, []);
      assert.notEqual(run.logFlushTrace?.sessionName, taken);
      assert.ok((run.logFlushTrace?.flushes ?? 0) > 0);
      assert.equal(run.statementAttribution?.status, 'measured', run.statementAttribution?.reason ?? '');
      // Ours were dropped, theirs are still there.
      assert.deepEqual((await serverState(h)).eventSessions.sort(), [taken, statementSessionName(taken)].sort());
    } finally {
      for (const name of [taken, statementSessionName(taken)]) await dropSession(admin, name);
      await admin.close();
    }
    assert.deepEqual((await serverState(h)).eventSessions, []);
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
