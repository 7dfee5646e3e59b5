// The log-flush event session's lifecycle inside real profile runs on the suite's server (issue 5 item 7;
// useTestServer): a name collision and cancel on any server, denied permission and a dropped monitor connection on the
// in-process stand-in — each ends with no durability_lens_% session on the server — and a scaled S3 workload showing
// the trace's figures next to the counters'.
import { strict as assert } from 'node:assert';
import type { ConnectionRole, SqlSession } from '../../../src/db/types';
import { profileConnectionSource, profileRun, tediousExecutor, type ConnectionSource, type WorkloadExecutor } from '../../../src/profile';
import { buildComparisonModel, rowById, toMarkdown } from '../../../src/report';
import { analyze } from '../../../src/tsql';
import { dropSession } from '../../../src/xe/cleanup';
import { useTestServer, type TestServer } from '../support';
import { sample, withTables } from '../samples';

const LOOP = (rows: number, table: string) => `DECLARE @i int = 0;
WHILE @i < ${rows}
BEGIN
  INSERT INTO ${table} (v) VALUES (@i);
  IF @i = 30 PRINT 'thirty';
  SET @i += 1;
END`;

/** A source that remembers what it opened, so a test can cut one connection. */
function recordingSource(h: TestServer): ConnectionSource & { opened: { role: ConnectionRole; session: SqlSession }[] } {
  const inner = profileConnectionSource(h.profile, h.secret);
  const opened: { role: ConnectionRole; session: SqlSession }[] = [];
  return {
    serverLabel: inner.serverLabel,
    opened,
    async open(role, signal) {
      const session = await inner.open(role, signal);
      opened.push({ role, session });
      return session;
    },
  };
}

describe('integration: XE session lifecycle in profile runs', function () {
  this.timeout(60000);
  const h = useTestServer();
  const table = h.table('xe_life');
  before(async () => {
    const s = await h.connect('workload');
    await s.execute(`CREATE TABLE ${table} (v int NOT NULL);`);
    await s.close();
  });
  afterEach(() => h.standin?.faults.reset());

  async function noSessionsLeft(): Promise<void> {
    await h.connectionsClosed();
    assert.deepEqual((await h.state()).eventSessions, []);
  }

  it('denied CREATE EVENT SESSION: the run continues without XE, says why and what to grant', async function () {
    h.standinOnly(this, 'refuses CREATE EVENT SESSION (stand-in faults)');
    h.standin!.faults.createEventSessionDenied = true;
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(LOOP(50, table)).batches });
    assert.equal(run.status, 'completed');
    assert.equal(run.logFlushTrace, null);
    const xe = run.missing.find((m) => m.measurement === 'extendedEvents')!;
    assert.match(xe.reason, /^No log-flush trace: .*permission denied/);
    assert.match(xe.grant ?? '', /GRANT .*EVENT SESSION/);
    // The counters still measured the run.
    assert.ok((run.logCounters.logFlushes ?? 0) >= 50);
    await noSessionsLeft();
  });

  it('name collision: the existing session is left alone and the run traces under a new name', async () => {
    const taken = h.eventSession('taken');
    const admin = await h.connect();
    try {
      await admin.execute(`CREATE EVENT SESSION [${taken}] ON SERVER ADD EVENT sqlserver.log_flush_start ADD TARGET package0.ring_buffer;`);
      const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(LOOP(40, table)).batches, xe: { sessionName: taken } });
      assert.equal(run.status, 'completed');
      assert.ok(run.logFlushTrace, JSON.stringify(run.missing));
      assert.notEqual(run.logFlushTrace!.sessionName, taken);
      assert.match(run.logFlushTrace!.sessionName, /^durability_lens_/);
      assert.ok(run.logFlushTrace!.flushes! >= 40);
      assert.ok(run.notes.some((n) => n.includes(`${taken} already existed`)));
      // Ours was dropped, theirs is still there.
      assert.deepEqual((await h.state()).eventSessions, [taken]);
    } finally {
      await dropSession(admin, taken);
      await admin.close();
    }
    await noSessionsLeft();
  });

  it('a monitor connection dropped mid-run: the after-snapshot and the session drop happen on a new connection', async function () {
    h.standinOnly(this, 'kills the monitor session inside the stand-in');
    const source = recordingSource(h);
    // When the workload starts (the session is created and started by then), cut the monitor connection.
    const executor: WorkloadExecutor = {
      run(session, batch, options) {
        const monitor = source.opened.find((o) => o.role === 'monitor')!.session;
        h.standin!.session(monitor.spid)!.alive = false;
        return tediousExecutor.run(session, batch, options);
      },
    };
    const run = await profileRun({ connections: source, batches: analyze(LOOP(60, table)).batches, executor, sampling: { enabled: false } });
    assert.equal(run.status, 'completed');
    assert.ok(run.notes.some((n) => /after-snapshot was taken on a new connection/.test(n)), run.notes.join('\n'));
    assert.ok((run.logCounters.logFlushes ?? 0) >= 60);
    // The trace could not be read on the dead connection, and says so; the session itself is gone.
    assert.equal(run.logFlushTrace, null);
    assert.ok(run.missing.some((m) => m.measurement === 'extendedEvents' && /could not be read/.test(m.reason)));
    assert.equal(source.opened.filter((o) => o.role === 'monitor').length >= 2, true);
    await noSessionsLeft();
  });

  it('cancel: the run is returned as cancelled with the trace of what ran, and the session is dropped', async () => {
    const controller = new AbortController();
    const run = await profileRun({
      connections: profileConnectionSource(h.profile, h.secret),
      batches: analyze(LOOP(1_000_000, table)).batches,
      signal: controller.signal,
      onMessage: (m) => {
        if (m.message === 'thirty') controller.abort();
      },
    });
    assert.equal(run.status, 'cancelled');
    assert.ok(run.logFlushTrace && run.logFlushTrace.flushes! >= 31, JSON.stringify(run.logFlushTrace?.flushes));
    await noSessionsLeft();
  });
});

describe('integration: a profiled S3 workload shows the trace next to the counters', function () {
  this.timeout(60000);
  const h = useTestServer();

  it('flush count, bytes and latencies from the trace agree with Log Flushes/sec and sit beside it in the report', async () => {
    const s3 = withTables(sample('s3-log-flush-xe.sql'), { FlushTest: h.table('flush_test') });
    assert.equal((s3.match(/DECLARE @rows int = 5000\b/g) ?? []).length, 4, 'samples/s3-log-flush-xe.sql changed: update this test');
    // Part 1 only (single-row autocommit inserts) with the sample's setup, scaled down.
    const parts = s3.split(/\nGO\n/);
    const scaled = (rows: number) => [...parts.slice(0, 3), ''].join('\nGO\n').replace('DECLARE @rows int = 5000', `DECLARE @rows int = ${rows}`);
    // 500 rows: every event fits the 1 MB ring buffer.
    const run = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(scaled(500)).batches });
    assert.equal(run.status, 'completed');
    assert.equal(run.setupBatchCount, 2);
    const trace = run.logFlushTrace!;
    assert.ok(trace, JSON.stringify(run.missing));
    assert.equal(trace.lostEvents, 0);
    assert.ok(trace.flushes! >= 500, `XE flushes ${trace.flushes}`);
    assert.ok(trace.bytes !== null && trace.bytes >= 500 * 512, `bytes ${trace.bytes}`);
    assert.ok(trace.latencyMs !== null);
    assert.ok(trace.latencyMs!.p50 <= trace.latencyMs!.p95 && trace.latencyMs!.p95 <= trace.latencyMs!.max);
    // The counter-based figure over the same window agrees (the cross-check is reported, not hidden).
    assert.equal(trace.counterCrossCheck?.counterFlushes, run.logCounters.logFlushes);
    assert.ok(run.logCounters.logBytesFlushed! >= 500 * 512, `counter bytes ${run.logCounters.logBytesFlushed}`);
    assert.equal(trace.counterCrossCheck?.agrees, true);
    const model = buildComparisonModel([run]);
    const column = model.columns[0]!;
    assert.equal(rowById(model, 'flushes.xe')!.cells[column]!.median, trace.flushes);
    assert.equal(rowById(model, 'flushes.counter')!.cells[column]!.median, run.logCounters.logFlushes);
    const md = toMarkdown(model);
    assert.match(md, /\| Log flushes \(XE\) \| [\d,]+ \|/);
    assert.match(md, /\| Log flushes \(counter\) \| [\d,]+ \|/);
    assert.match(md, /\| Flush latency p95 \(XE\) \| [\d.,]+ ms \|/);

    // 3,000 rows overflow the ring buffer's 1 MB: the counts (event_counter) and sizes (histogram) stay exact and agree
    // with the counter; only the timeline is a sample, and it says how much of the run it covers.
    const big = await profileRun({ connections: profileConnectionSource(h.profile, h.secret), batches: analyze(scaled(3000)).batches });
    const exact = big.logFlushTrace!;
    assert.equal(exact.countSource, 'event_counter');
    assert.equal(exact.lostEvents, 0);
    assert.ok(exact.flushes! >= 3000, `XE flushes ${exact.flushes}`);
    if (h.standin) assert.equal(exact.flushes, big.logCounters.logFlushes);
    assert.equal(exact.counterCrossCheck?.agrees, true, JSON.stringify(exact.counterCrossCheck));
    // How many events 1 MB holds is the stand-in's (its event size); on a server the sample may or may not overflow.
    if (h.standin || exact.lost.evicted > 0) {
      assert.ok(exact.lost.evicted > 0, 'the ring buffer sample should overflow');
      const coverage = exact.timeline.coverage!;
      assert.equal(coverage.complete, false);
      assert.equal(coverage.part, 'last');
      assert.equal(coverage.flushesTotal, exact.flushes);
      assert.equal(coverage.flushesInSample, exact.timeline.counts.reduce((a, b) => a + b, 0));
      assert.match(coverage.label, new RegExp(`^sample: the last [\\d,]+ of ${exact.flushes!.toLocaleString('en-US')} flushes`));
      assert.ok(!buildComparisonModel([big]).notes.some((n) => /lost events/.test(n)));
    }
    await h.connectionsClosed();
    assert.deepEqual((await h.state()).eventSessions, []);
  });
});
